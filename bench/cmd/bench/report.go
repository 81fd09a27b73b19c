package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// report gathers the cells of every round and prints medians and ratios.
type report struct {
	targets           []*target
	rows              []row
	env               *env
	cells             []cell
	loads             [][2]float64 // the load average before and after each round
	started, finished time.Time
	machine           string
	maxOther          float64
	retried           int // measurements taken again because the rest of the machine was busy
	noisy             int // measurements kept although it was
}

// median is the median of one row on one target across rounds.
type median struct {
	n                                 int
	lost                              int // events lost, in all rounds
	value, cpu, client, server, other float64
	extra                             map[string]float64
}

func (rep *report) median(rowID, target string) *median {
	var cs []cell
	for _, c := range rep.cells {
		if c.Row == rowID && c.Target == target {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	pick := func(f func(cell) float64) float64 {
		v := make([]float64, len(cs))
		for i, c := range cs {
			v[i] = f(c)
		}
		return med(v)
	}
	m := &median{
		n:      len(cs),
		value:  pick(func(c cell) float64 { return c.Value }),
		cpu:    pick(func(c cell) float64 { return us(c.CPUPerOp) }),
		client: pick(func(c cell) float64 { return c.ClientBusy }),
		server: pick(func(c cell) float64 { return c.ServerBusy }),
		other:  pick(func(c cell) float64 { return c.OtherBusy }),
		extra:  map[string]float64{},
	}
	for _, c := range cs {
		m.lost += c.Lost
	}
	for k := range cs[0].Extra {
		m.extra[k] = pick(func(c cell) float64 { return c.Extra[k] })
	}
	return m
}

func med(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func (rep *report) markdown() string {
	var b strings.Builder
	rounds := 0
	for _, c := range rep.cells {
		rounds = max(rounds, c.Round)
	}
	fmt.Fprintf(&b, "## Results\n\n")
	fmt.Fprintf(&b, "Taken %s to %s UTC; %d round(s), medians; %s.\n", rep.started.UTC().Format("2006-01-02 15:04"),
		rep.finished.UTC().Format("15:04"), rounds, rep.machine)
	var loads []string
	for i, l := range rep.loads {
		loads = append(loads, fmt.Sprintf("round %d: %.2f before, %.2f after", i+1, l[0], l[1]))
	}
	fmt.Fprintf(&b, "1-minute load average (the benchmark's own load included after): %s.\n", strings.Join(loads, "; "))
	worst := 0.0
	for _, c := range rep.cells {
		worst = math.Max(worst, c.OtherBusy)
	}
	fmt.Fprintf(&b, "A measurement is kept when the rest of the machine used at most %.2f of a core during it; %d were taken again for that, "+
		"%d kept after the last try. The most the rest of the machine used during a measurement kept: %.2f of a core.\n\n",
		rep.maxOther, rep.retried, rep.noisy, worst)

	// The main table: one column per server.
	var main []row
	for _, r := range rep.rows {
		if !r.streams {
			main = append(main, r)
		}
	}
	if len(main) > 0 {
		fmt.Fprintf(&b, "Each cell: the median throughput, then the server's CPU time per operation (µs). "+
			"† marks a run in which the load generator used 90%% or more of its core: there the server's CPU per operation is the figure to compare.\n\n")
		b.WriteString("| measurement |")
		for _, t := range rep.targets {
			fmt.Fprintf(&b, " %s |", t.name)
		}
		b.WriteString("\n|---|")
		for range rep.targets {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, r := range main {
			fmt.Fprintf(&b, "| %s, %s |", r.title, r.unit)
			for _, t := range rep.targets {
				m := rep.median(r.id, t.name)
				switch {
				case m == nil:
					b.WriteString(" – |")
				case r.unit == "KB":
					fmt.Fprintf(&b, " %.1f |", m.value)
				default:
					mark := ""
					if m.client >= 0.9 {
						mark = "†"
					}
					if m.lost > 0 {
						mark += fmt.Sprintf(" (lost %d)", m.lost)
					}
					fmt.Fprintf(&b, " %s%s · %.1f µs |", thousands(m.value), mark, m.cpu)
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		rep.ratios(&b, main)
		rep.targetsMet(&b)
	}
	rep.streams(&b)
	return b.String()
}

// reference returns the reference a row compares: stage 01 for stdio, else
// the newest HTTP stage.
func (rep *report) reference(r row) *target {
	if strings.HasPrefix(r.id, "stdio") {
		return find(rep.targets, func(t *target) bool { return hasStage(t, "01") })
	}
	return newestHTTP(rep.targets)
}

func (rep *report) ratios(b *strings.Builder, rows []row) {
	ref := newestHTTP(rep.targets)
	if ref == nil {
		return
	}
	fmt.Fprintf(b, "Ratios of the reference (%s over HTTP, reference 01 over stdio) to each server: throughput (higher is better for the reference), "+
		"then server CPU per operation (lower is better).\n\n| measurement |", ref.name)
	var others []*target
	for _, t := range rep.targets {
		if t != ref && !hasStage(t, "01") {
			others = append(others, t)
		}
	}
	for _, t := range others {
		fmt.Fprintf(b, " vs %s |", t.name)
	}
	b.WriteString("\n|---|")
	for range others {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		ref := rep.reference(r)
		if ref == nil {
			continue
		}
		base := rep.median(r.id, ref.name)
		if base == nil {
			continue
		}
		fmt.Fprintf(b, "| %s |", r.title)
		for _, t := range others {
			m := rep.median(r.id, t.name)
			switch {
			case m == nil || t == ref || m.value == 0:
				b.WriteString(" – |")
			case r.unit == "KB":
				fmt.Fprintf(b, " %.2f× |", base.value/m.value)
			default:
				fmt.Fprintf(b, " %.2f× · %.2f× |", base.value/m.value, base.cpu/m.cpu)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// targetsMet checks the targets.
func (rep *report) targetsMet(b *strings.Builder) {
	ref := newestHTTP(rep.targets)
	stdio := find(rep.targets, func(t *target) bool { return hasStage(t, "01") })
	var lines []string
	check := func(what string, got float64, ok bool, format string) {
		verdict := "met"
		if !ok {
			verdict = "**missed**"
		}
		lines = append(lines, fmt.Sprintf("| %s | "+format+" | %s |", what, got, verdict))
	}
	ratio := func(rowID, a, bName string, cpu bool) (float64, bool) {
		x, y := rep.median(rowID, a), rep.median(rowID, bName)
		if x == nil || y == nil {
			return 0, false
		}
		if cpu {
			return x.cpu / y.cpu, y.cpu > 0
		}
		return x.value / y.value, y.value > 0
	}
	for _, t := range []struct{ id, what string }{
		{"http-16", "HTTP stateful, 16 clients: server CPU per request vs canned (≤ 1.15×)"},
		{"http-stateless-16", "HTTP stateless, 16 clients: server CPU per request vs canned (≤ 1.15×)"},
	} {
		if ref != nil {
			if v, ok := ratio(t.id, ref.name, "canned", true); ok {
				check(t.what, v, v <= 1.15, "%.2f×")
			}
		}
	}
	if stdio != nil {
		if v, ok := ratio("stdio-seq", stdio.name, "TS SDK 1.32.2", false); ok {
			check("stdio sequential vs the TS SDK (≥ 1.1×)", v, v >= 1.1, "%.2f×")
		}
		if v, ok := ratio("stdio-seq", stdio.name, "canned", false); ok {
			check("stdio sequential vs canned (≥ 0.85×)", v, v >= 0.85, "%.2f×")
		}
		if v, ok := ratio("stdio-pipe", stdio.name, "canned", false); ok {
			check("stdio pipelined vs canned (≥ 0.5×)", v, v >= 0.5, "%.2f×")
		}
	}
	if ref != nil {
		if m := rep.median("session-rss", ref.name); m != nil {
			check("RSS per idle session (≤ 4 KB)", m.value, m.value <= 4, "%.1f KB")
		}
		if m := rep.median("producer", ref.name); m != nil {
			growth := m.extra["heap KB late"] - m.extra["heap KB early"]
			check(fmt.Sprintf("live heap growth under an endless producer, %.0f s (bounded: < 1 MB)", m.extra["seconds"]), growth, growth < 1024, "%.0f KB")
		}
		if m := rep.median("drops", ref.name); m != nil {
			leaked := m.extra["goroutines leaked"]
			check(fmt.Sprintf("goroutines leaked after %.0f dropped streams, twice (0)", m.extra["streams"]), leaked, leaked <= 0, "%.0f")
			grown := m.extra["heap KB expired, 2nd wave"] - m.extra["heap KB expired"]
			check("live heap added by a second wave of dropped streams, once expired (bounded: < 1 MB)", grown, grown < 1024, "%.0f KB")
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("Targets (ratios in the same run):\n\n| target | measured | |\n|---|---|---|\n")
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n\n")
}

func (rep *report) streams(b *strings.Builder) {
	ref := newestHTTP(rep.targets)
	first := true
	for _, r := range rep.rows {
		if !r.streams || ref == nil {
			continue
		}
		m := rep.median(r.id, ref.name)
		if m == nil {
			continue
		}
		if first {
			fmt.Fprintf(b, "Streams (%s, medians):\n\n| measurement | figures |\n|---|---|\n", ref.name)
			first = false
		}
		var parts []string
		for _, k := range sortedKeys(m.extra) {
			parts = append(parts, fmt.Sprintf("%s %s", k, thousands(m.extra[k])))
		}
		fmt.Fprintf(b, "| %s | %s |\n", r.title, strings.Join(parts, "; "))
	}
	if !first {
		b.WriteString("\n")
	}
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// thousands formats v with thousands separators, and one decimal below 100.
func thousands(v float64) string {
	if math.Abs(v) < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
