package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/variants"
)

// The parts a marker can ask for, and the keys each takes. Every part is
// computed from the registry alone: none runs the grader.
var parts = map[string]struct {
	keys []string
	doc  string
}{
	"green":     {[]string{"lesson", "step"}, "the step's checks, one \"- ID · title\" line each: what the step turns green"},
	"count":     {[]string{"lesson", "after", "starter", "step"}, "how many checks the lesson has; with after=S, how many pass once step S is done (Check.GreenAfter); with step=S, how many step S has; with starter=pass, how many the untouched starter may pass (StarterMayPass), with starter=blocked, how many it fails beyond the one whose report lists the others"},
	"checks":    {[]string{"lesson"}, "the table of the lesson's checks: id, severity, step, title, spec section, course rule"},
	"variants":  {[]string{"lesson"}, "the table of the lesson's known-bad variants and the checks that catch each"},
	"kills":     {[]string{"lesson", "variant", "form"}, "the checks a variant fails (variant=a,b: those that any of them fails), as \"every check, A to B\" when it fails them all; form=short writes STDIO-11, -12, form=count how many, in words"},
	"done":      {[]string{"lesson"}, "the grader's last line for a lesson whose checks all pass, as a code span"},
	"claims":    {[]string{"lesson"}, "the lesson's table of claims: the checks' Claims, step by step, then the claims no check enforces"},
	"checklist": {[]string{"lesson"}, "the table of transport-checklist rules that the lesson's description holds, each with the checks that observe it"},
	"splits":    {nil, "the table of checks that hold a spec rule and a course rule at once (Check.Split)"},
	"needs":     {[]string{"need", "optional", "form"}, "the checks that declare a need (need=stateless, any-mode, flags, restart, signal, allowlist, course, source; need=robustness: the checks that break a client's rule on purpose) or rely on an optional feature (optional=get-stream, event-ids, history); form=ranges writes SSE-21 to SSE-29"},
	"allowlist": {nil, "the Origin allowlist lesson 04's checks start the course's servers with, as a code span"},
	"words":     {[]string{"lesson"}, "the words of the lesson's core path (CoreWords), such as 2,618"},
	"wordlimit": {nil, "the most words a core path may hold (MaxCoreWords, which the proof's TestCorePathsAreShort holds every lesson to), such as 3,000"},
}

type generator struct {
	root    string
	lessons []*check.Lesson
}

func newGenerator(root string) (*generator, error) {
	if err := check.ValidateCourse(grader.Lessons()); err != nil {
		return nil, fmt.Errorf("the lessons' descriptions are not valid: %w", err)
	}
	return &generator{root: root, lessons: grader.Lessons()}, nil
}

// part generates what p asks for.
func (g *generator) part(p *Part) (string, error) {
	spec, ok := parts[p.Kind]
	if !ok {
		var kinds []string
		for k := range parts {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		return "", fmt.Errorf("no part %q: the parts are %s", p.Kind, strings.Join(kinds, ", "))
	}
	for k := range p.Args {
		if !slices.Contains(spec.keys, k) {
			return "", fmt.Errorf("%s takes no %s=", p.Kind, k)
		}
	}
	switch p.Kind {
	case "green":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		s, err := step(l, p.Args["step"])
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, c := range s.Checks {
			fmt.Fprintf(&b, "- %s · %s\n", c.ID, c.Title)
		}
		return b.String(), nil
	case "count":
		return g.count(p)
	case "checks":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		return checksTable(l), nil
	case "variants":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		return variantsTable(l), nil
	case "kills":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		return kills(l, p.Args["variant"], p.Args["form"])
	case "done":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		return doneLine(l), nil
	case "claims":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		return claimsTable(l), nil
	case "checklist":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		if l.Checklist == nil {
			return "", fmt.Errorf("lesson %s's description holds no checklist", l.Number)
		}
		return g.checklistTable(l.Checklist)
	case "splits":
		return g.splitsTable(), nil
	case "needs":
		return g.needs(p)
	case "allowlist":
		var lists []string
		for _, l := range g.lessons {
			for _, c := range l.Checks() {
				if a := strings.Join(c.Needs.Allowlist, ","); a != "" && !slices.Contains(lists, a) {
					lists = append(lists, a)
				}
			}
		}
		if len(lists) != 1 {
			return "", fmt.Errorf("the checks rely on %d allowlists, not one: %v", len(lists), lists)
		}
		return "`" + lists[0] + "`", nil
	case "words":
		l, err := g.lesson(p)
		if err != nil {
			return "", err
		}
		text, err := os.ReadFile(filepath.Join(g.root, l.Guide))
		if err != nil {
			return "", err
		}
		return thousands(CoreWords(string(text))), nil
	case "wordlimit":
		return thousands(MaxCoreWords), nil
	}
	return "", fmt.Errorf("the part %s has no generator", p.Kind)
}

func (g *generator) lesson(p *Part) (*check.Lesson, error) {
	n := p.Args["lesson"]
	for _, l := range g.lessons {
		if l.Number == n {
			return l, nil
		}
	}
	return nil, fmt.Errorf("lesson=%q is not a lesson of the course", n)
}

func step(l *check.Lesson, arg string) (check.Step, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(l.Steps) {
		return check.Step{}, fmt.Errorf("step=%q is not a step of lesson %s (1 to %d)", arg, l.Number, len(l.Steps))
	}
	return l.Steps[n-1], nil
}

func (g *generator) count(p *Part) (string, error) {
	l, err := g.lesson(p)
	if err != nil {
		return "", err
	}
	checks := l.Checks()
	n := 0
	switch after, starter, st := p.Args["after"], p.Args["starter"], p.Args["step"]; {
	case after != "" && starter == "" && st == "":
		s, err := strconv.Atoi(after)
		if err != nil || s < 0 || s > len(l.Steps) {
			return "", fmt.Errorf("after=%q is not a step of lesson %s", after, l.Number)
		}
		for _, c := range checks {
			if c.GreenAfter(s) {
				n++
			}
		}
	case st != "" && after == "" && starter == "":
		s, err := step(l, st)
		if err != nil {
			return "", err
		}
		n = len(s.Checks)
	case starter != "" && after == "" && st == "":
		pass := 0
		for _, c := range checks {
			if c.StarterMayPass != "" {
				pass++
			}
		}
		switch starter {
		case "pass":
			n = pass
		case "blocked":
			n = len(checks) - pass - 1
		default:
			return "", fmt.Errorf("starter=%s is neither pass nor blocked", starter)
		}
	case after == "" && starter == "" && st == "":
		n = len(checks)
	default:
		return "", fmt.Errorf("count takes one of after=, step= and starter=")
	}
	return strconv.Itoa(n), nil
}

// row writes one table row; a cell may be empty.
func row(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		if c == "" {
			b.WriteString(" |")
			continue
		}
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

func header(b *strings.Builder, cells ...string) {
	row(b, cells...)
	b.WriteString(strings.Repeat("|---", len(cells)) + "|\n")
}

func checksTable(l *check.Lesson) string {
	var b strings.Builder
	header(&b, "Id", "Severity", "Step", "Title", "Spec section", "Course rule")
	for _, c := range l.Checks() {
		course := ""
		if c.Course != "" {
			course = "yes"
		}
		section := check.Spec{Rev: c.Spec.Rev, Section: c.Spec.Section}
		row(&b, c.ID, string(c.Severity), strconv.Itoa(c.Step), c.Title, section.String(), course)
	}
	return b.String()
}

// kills writes the checks that the named variants of l fail.
func kills(l *check.Lesson, names, form string) (string, error) {
	var ids []string
	for _, name := range strings.Split(names, ",") {
		v := variants.Lookup(l.Number, name)
		if v == nil {
			return "", fmt.Errorf("lesson %s has no variant %q", l.Number, name)
		}
		for _, id := range v.Kills {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	var all []string
	for _, c := range l.Checks() {
		all = append(all, c.ID)
	}
	switch form {
	case "":
		if sameSet(ids, all) {
			sort.Slice(all, func(i, j int) bool { return idLess(all[i], all[j]) })
			return "every check, " + all[0] + " to " + all[len(all)-1], nil
		}
		return strings.Join(ids, ", "), nil
	case "short":
		return shortIDs(ids), nil
	case "count":
		return inWords(len(ids)), nil
	}
	return "", fmt.Errorf("form=%s is not short or count", form)
}

// inWords writes n in words up to twelve, in digits beyond.
func inWords(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

// doneLine is the grader's summary line for l when every check passes,
// from the grader's own summary.
func doneLine(l *check.Lesson) string {
	var results []check.Result
	for _, c := range l.Checks() {
		results = append(results, check.Result{Check: c, Status: check.Pass})
	}
	summary := strings.TrimRight(grader.NewOutcome(l, check.Target{}, results).Summary(), "\n")
	return "`" + summary[strings.LastIndex(summary, "\n")+1:] + "`"
}

func variantsTable(l *check.Lesson) string {
	var b strings.Builder
	header(&b, "Variant", "The mistake", "Caught by")
	var all []string
	for _, c := range l.Checks() {
		all = append(all, c.ID)
	}
	for _, v := range variants.ForLesson(l.Number) {
		caught := strings.Join(v.Kills, ", ")
		if len(v.Kills) == len(all) && sameSet(v.Kills, all) {
			ids := slices.Clone(all)
			sort.Slice(ids, func(i, j int) bool { return idLess(ids[i], ids[j]) })
			caught = "every check, " + ids[0] + " to " + ids[len(ids)-1]
		}
		row(&b, "`"+v.Name+"`", v.Mistake, caught)
	}
	return b.String()
}

func claimsTable(l *check.Lesson) string {
	var b strings.Builder
	header(&b, "Claim", "Where", "Checks", "How it is checked, or why it is not")
	unchecked := func(cls []check.Claim) {
		for _, cl := range cls {
			row(&b, cl.Claim, cl.Where, "none", cl.How)
		}
	}
	for _, s := range l.Steps {
		for _, c := range s.Checks {
			for _, cl := range c.Claims {
				row(&b, cl.Claim, cl.Where, strings.Join(append([]string{c.ID}, cl.Also...), ", "), cl.How)
			}
		}
		unchecked(s.Unchecked)
	}
	unchecked(l.Unchecked)
	return b.String()
}

func (g *generator) checklistTable(list *check.Checklist) (string, error) {
	var covered []*check.Check
	for _, n := range list.Lessons {
		found := false
		for _, l := range g.lessons {
			if l.Number == n {
				covered = append(covered, l.Checks()...)
				found = true
			}
		}
		if !found {
			return "", fmt.Errorf("the checklist covers lesson %s, which is not a lesson of the course", n)
		}
	}
	var b strings.Builder
	header(&b, "Rule", "Checks", "Notes")
	for _, r := range list.Rows {
		if len(r.IDs()) == 0 {
			return "", fmt.Errorf("the checklist row %q does not start with the checklist's ids", r.Rule)
		}
		var ids []string
		for _, c := range covered {
			if r.Observes(c) {
				ids = append(ids, c.ID)
			}
		}
		cell := strings.Join(ids, ", ")
		if cell == "" {
			if r.Notes == "" {
				return "", fmt.Errorf("no check observes the checklist row %q, and its notes do not say why", r.Rule)
			}
			cell = "none"
		}
		row(&b, r.Rule, cell, r.Notes)
	}
	return b.String(), nil
}

func (g *generator) splitsTable() string {
	var b strings.Builder
	header(&b, "Rule", "Checks", "The spec's part, and the course's")
	for _, l := range g.lessons {
		for _, c := range l.Checks() {
			if s := c.Split; s != nil {
				row(&b, s.Rule, strings.Join(append([]string{c.ID}, s.Also...), ", "), s.Parts)
			}
		}
	}
	return b.String()
}

// needKinds tell, by the name a marker gives them, which checks declare a
// need (check.Needs) or rely on an optional feature.
var needKinds = map[string]func(l *check.Lesson, c *check.Check) bool{
	"stateless": func(l *check.Lesson, c *check.Check) bool {
		return l.TransportOf(c) == check.HTTP && c.Needs.Mode == check.Stateless
	},
	"any-mode": func(l *check.Lesson, c *check.Check) bool {
		return l.TransportOf(c) == check.HTTP && c.Needs.Mode == check.AnyMode
	},
	"flags":     func(_ *check.Lesson, c *check.Check) bool { return len(c.Needs.Flags) > 0 },
	"restart":   func(_ *check.Lesson, c *check.Check) bool { return c.Needs.Restart },
	"signal":    func(_ *check.Lesson, c *check.Check) bool { return c.Needs.Signal },
	"allowlist": func(_ *check.Lesson, c *check.Check) bool { return c.Needs.Allowlist != nil },
	"course":    func(_ *check.Lesson, c *check.Check) bool { return c.Needs.Course != "" },
	"source":    func(_ *check.Lesson, c *check.Check) bool { return c.Needs.Source },
	// not a need: the checks that break a client's rule on purpose
	"robustness": func(_ *check.Lesson, c *check.Check) bool { return c.Robustness != nil },
}

var features = map[string]check.Feature{"get-stream": check.GETStream, "event-ids": check.EventIDs, "history": check.History}

func (g *generator) needs(p *Part) (string, error) {
	var match func(l *check.Lesson, c *check.Check) bool
	switch need, opt := p.Args["need"], p.Args["optional"]; {
	case need != "" && opt == "":
		if match = needKinds[need]; match == nil {
			return "", fmt.Errorf("need=%s is no need a check declares", need)
		}
	case opt != "" && need == "":
		f, ok := features[opt]
		if !ok {
			return "", fmt.Errorf("optional=%s is none of get-stream, event-ids, history", opt)
		}
		match = func(_ *check.Lesson, c *check.Check) bool { return slices.Contains(c.Needs.Optional, f) }
	default:
		return "", fmt.Errorf("needs takes need= or optional=")
	}
	var ids []string
	for _, l := range g.lessons {
		for _, c := range l.Checks() {
			if match(l, c) {
				ids = append(ids, c.ID)
			}
		}
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("no check declares it")
	}
	switch p.Args["form"] {
	case "":
		return strings.Join(ids, ", "), nil
	case "ranges":
		return ranges(ids), nil
	}
	return "", fmt.Errorf("form=%s is not ranges", p.Args["form"])
}

// idParts splits "SSE-21" into "SSE" and 21.
func idParts(id string) (string, int) {
	prefix, num, _ := strings.Cut(id, "-")
	n, _ := strconv.Atoi(num)
	return prefix, n
}

func idLess(a, b string) bool {
	pa, na := idParts(a)
	pb, nb := idParts(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

// ranges writes ids, collapsing a run of three or more that count up by
// one: SSE-12, SSE-14, SSE-21 to SSE-29.
func ranges(ids []string) string {
	var out []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) {
			p, n := idParts(ids[j])
			q, m := idParts(ids[j+1])
			if p != q || m != n+1 {
				break
			}
			j++
		}
		if j-i >= 2 {
			out = append(out, ids[i]+" to "+ids[j])
		} else {
			out = append(out, ids[i:j+1]...)
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

// shortIDs writes ids after the first without the prefix they share with
// it: STDIO-11, -12, -13.
func shortIDs(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	first, _ := idParts(ids[0])
	out := []string{ids[0]}
	for _, id := range ids[1:] {
		if p, _ := idParts(id); p == first {
			id = strings.TrimPrefix(id, p)
		}
		out = append(out, id)
	}
	return strings.Join(out, ", ")
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

// thousands writes n with a comma between thousands: 2,618.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
