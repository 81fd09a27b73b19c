package main

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// tally counts a lesson's results.
type tally struct{ pass, fail, spec, warn, skip int }

func (g *graded) tally() tally {
	var t tally
	for _, r := range g.outcome.Results {
		switch r.Status {
		case check.Pass:
			t.pass++
		case check.Fail:
			t.fail++
			if r.Rule == check.SpecRule {
				t.spec++
			}
		case check.Warn:
			t.warn++
		case check.Skip:
			t.skip++
		}
	}
	return t
}

// cell is a lesson's grade in the table: passed, failed (how many of them
// break the spec), skipped.
func (g *graded) cell() string {
	t := g.tally()
	s := fmt.Sprintf("%d ✓", t.pass)
	if t.fail > 0 {
		s += fmt.Sprintf(" · %d ✗", t.fail)
		if t.spec > 0 {
			s += fmt.Sprintf(" (%d spec)", t.spec)
		}
	}
	if t.warn > 0 {
		s += fmt.Sprintf(" · %d !", t.warn)
	}
	if t.skip > 0 {
		s += fmt.Sprintf(" · %d –", t.skip)
	}
	return s
}

// A finding is one failing check of one server, over all the rows (ways of
// running it) where it failed.
type finding struct {
	id, title string
	rule      string     // check.SpecRule or check.CourseRule
	must      bool       // the rule it breaks is a spec MUST
	robust    bool       // the check broke a client's rule first (check.Check.Robustness)
	client    check.Spec // that rule
	cites     check.Spec
	quote     string
	section   string
	what, got string // from the first row where it failed
	rows      []string
	blockedBy string

	// courseParts are the parts of a check graded in parts (check.T.Case)
	// that broke only a course rule, beside the spec finding it leads with.
	courseParts []check.CaseResult
}

// ruleKey names the spec rule a finding breaks: its words, in its
// revision. Checks that break the same rule (ORIGIN-01, ORIGIN-02 and
// ORIGIN-04: a foreign Origin served) count once.
func (f *finding) ruleKey() string { return f.cites.Rev + " " + f.cites.Quote }

// primary reports whether f is listed on its own. A failure the grader
// traces to another's cause follows from it, but a spec finding always
// stands alone: the table is about conformance, not about the order in
// which a learner fixes things.
func (f *finding) primary() bool {
	return f.blockedBy == "" || f.rule == string(check.SpecRule)
}

// findings collects a server's failures, in the lessons' order.
func findings(s *server, table []*graded) []*finding {
	byID := map[string]*finding{}
	var out []*finding
	for _, g := range table {
		if g.row.server != s {
			continue
		}
		for _, r := range g.outcome.Results {
			if r.Status != check.Fail && r.Status != check.Warn {
				continue
			}
			id := r.Check.ID
			f := byID[id]
			if f == nil {
				f = &finding{id: id, title: r.Check.Title, rule: string(r.Rule), what: r.What, got: r.Got,
					cites: r.Cites, quote: r.Cites.Quote, section: "MCP " + r.Cites.Rev + " · " + r.Cites.Section,
					blockedBy: g.outcome.BlockedBy[id], robust: r.Check.Robustness != nil}
				if f.robust {
					f.client = *r.Check.Robustness
				}
				f.must = r.Rule == check.SpecRule && r.Check.Severity == check.Must && strings.Contains(r.Cites.Quote, "MUST")
				byID[id] = f
				out = append(out, f)
			}
			f.rows = append(f.rows, g.row.mode)
			if r.Rule == check.SpecRule {
				for _, c := range r.Cases {
					if c.Rule == check.CourseRule && !hasPart(f.courseParts, c.Name) {
						f.courseParts = append(f.courseParts, c)
					}
				}
			}
		}
	}
	return out
}

// robustness names the client's rule the check broke.
func (f *finding) robustness() string {
	return "MCP " + f.client.Rev + " · " + f.client.Section + ": “" + f.client.Quote + "”"
}

func hasPart(parts []check.CaseResult, name string) bool {
	for _, p := range parts {
		if p.Name == name {
			return true
		}
	}
	return false
}

// mustRules counts the distinct spec MUST rules among findings, the
// robustness findings (robust) or the others.
func mustRules(all []*finding, robust bool) int {
	keys := map[string]bool{}
	for _, f := range all {
		if f.must && f.robust == robust {
			keys[f.ruleKey()] = true
		}
	}
	return len(keys)
}

// unexplained lists the spec findings that notes.go does not explain.
func unexplained(table []*graded) []string {
	seen := map[string]bool{}
	var missing []string
	for _, g := range table {
		for _, f := range findings(g.row.server, []*graded{g}) {
			key := g.row.server.key + "/" + f.id
			if f.rule == string(check.SpecRule) && explain(g.row.server.key, f.id) == "" && !seen[key] {
				seen[key] = true
				missing = append(missing, key)
			}
		}
	}
	return missing
}

// lessonTitles are the table's column heads.
var lessonTitles = map[string]string{"01": "01 stdio", "02": "02 Streamable HTTP", "03": "03 SSE streams, resumption", "04": "04 Origin, CORS"}

func report(servers []*server, table []*graded, versions map[string]string, smoke bool) string {
	var b strings.Builder
	b.WriteString("# Compatibility: the course's grader on the MCP servers people use\n\n")
	if smoke {
		b.WriteString("**A smoke run** (`-smoke`): only the first checks of each lesson were graded. The published table comes from a full run.\n\n")
	}
	fmt.Fprintf(&b, "Generated by `cd bench && go run ./cmd/compat` (%s, %s/%s); do not edit by hand: the explanations live in "+
		"[`bench/cmd/compat/notes.go`](bench/cmd/compat/notes.go). ", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	b.WriteString("Each server serves the same tools, the course's [tool contract](bench/peers/contract) " +
		"(`echo`, `add_note`, `list_notes`, `countdown` with progress and cancellation), and is graded by the course's grader in its " +
		"[external-server mode](grader/EXTERNAL.md), on MCP 2025-11-25: lesson 01 over stdio, lessons 02-04 over Streamable HTTP, " +
		"each lesson on a fresh server. Only the checks that apply to a server run: a check that needs a flag of the course's own servers, " +
		"a restart, SIGTERM, a tool outside the contract or a feature the spec leaves optional and the server does not offer is skipped, " +
		"with the reason. A failing check is graded a second time, on a fresh server, and counts only if it fails again.\n\n")
	b.WriteString("A failure either breaks **the spec** (the rule the grader cites, section and words) or only **a course rule**: " +
		"the course asks more of its own servers than the spec does (a status the spec leaves open, a SHOULD it makes a must, limits), " +
		"and each check says so in its `course` text. Only spec findings say anything about a server's conformance; " +
		"for each, below, what the spec says, what the server does, and who reads the spec right.\n\n")

	b.WriteString("| server | versions |\n|---|---|\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "| %s | %s |\n", s.name, s.about)
	}
	b.WriteString("\n## The table\n\n")
	b.WriteString("Each cell: checks passed ✓, failed ✗ (of which break the spec), skipped –. ")
	b.WriteString("The last two columns count rules, not checks: the spec's MUST-level rules a server breaks over all its rows, " +
		"where several checks that find the same rule broken (a foreign Origin served on POST, on GET, as `null`) count once; " +
		"and, apart, those it breaks only on input a correct client never sends (robustness: a line on stdio or a POST body that is not " +
		"a valid message, which the client MUST NOT send).\n\n")
	b.WriteString("| server | transport |")
	var lessons []string
	for _, l := range grader.Lessons() {
		lessons = append(lessons, l.Number)
		fmt.Fprintf(&b, " %s |", lessonTitles[l.Number])
	}
	b.WriteString(" MUST rules broken | robustness: MUST rules broken on bad input |\n|---|---|")
	for range lessons {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, s := range servers {
		all := findings(s, table)
		must, robust := mustRules(all, false), mustRules(all, true)
		first := true
		for _, r := range rows([]*server{s}) {
			fmt.Fprintf(&b, "| %s | %s |", map[bool]string{true: s.name, false: ""}[first], r.mode)
			for _, n := range lessons {
				cell := ""
				for _, g := range table {
					if g.row == r && g.lesson.Number == n {
						cell = g.cell()
					}
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			if first {
				fmt.Fprintf(&b, " %d | %d |\n", must, robust)
			} else {
				b.WriteString(" | |\n")
			}
			first = false
		}
	}

	if !smoke {
		b.WriteString("\n" + summary)
	}
	for _, s := range servers {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n", s.name, upper(s.about))
		all := findings(s, table)
		detailed := func(f *finding) {
			fmt.Fprintf(&b, "**%s** · %s (%s)\n\n", f.id, f.title, strings.Join(f.rows, "; "))
			fmt.Fprintf(&b, "- *The spec*, %s: “%s”\n", f.section, f.quote)
			fmt.Fprintf(&b, "- *The server*: %s.", trimDot(f.what))
			if f.got != "" {
				fmt.Fprintf(&b, " Got: `%s`", shorten(f.got, 300))
			}
			b.WriteString("\n")
			if text := explain(s.key, f.id); text != "" {
				fmt.Fprintf(&b, "- *Who is right*: %s\n", text)
			} else {
				b.WriteString("- *Who is right*: not yet explained (notes.go).\n")
			}
			b.WriteString("\n")
		}
		pick := func(keep func(*finding) bool) []*finding {
			var picked []*finding
			for _, f := range all {
				if keep(f) {
					picked = append(picked, f)
				}
			}
			return picked
		}
		// byRule lists spec findings under the rule each breaks, the rules
		// in the order their first finding comes.
		byRule := func(title string, picked []*finding) {
			if len(picked) == 0 {
				return
			}
			var keys []string
			rules := map[string][]*finding{}
			for _, f := range picked {
				if rules[f.ruleKey()] == nil {
					keys = append(keys, f.ruleKey())
				}
				rules[f.ruleKey()] = append(rules[f.ruleKey()], f)
			}
			fmt.Fprintf(&b, "\n### %s: %d\n", title, len(keys))
			for i, k := range keys {
				fs := rules[k]
				var ids []string
				for _, f := range fs {
					ids = append(ids, f.id)
				}
				fmt.Fprintf(&b, "\n#### %d. “%s” (%s)\n\n", i+1, fs[0].quote, strings.Join(ids, ", "))
				for _, f := range fs {
					detailed(f)
				}
			}
		}
		primary := (*finding).primary
		byRule("MUST-level spec rules it breaks", pick(func(f *finding) bool { return primary(f) && f.must && !f.robust }))
		if robust := pick(func(f *finding) bool { return primary(f) && f.must && f.robust }); len(robust) > 0 {
			byRule("Robustness: MUST-level rules it breaks on input a correct client never sends", robust)
			var broke []string
			for _, f := range robust {
				if r := f.robustness(); !slices.Contains(broke, r) {
					broke = append(broke, r)
				}
			}
			fmt.Fprintf(&b, "The grader broke the client's rule first, to see how the server copes: %s.\n", strings.Join(broke, "; "))
		}
		if other := pick(func(f *finding) bool { return primary(f) && !f.must && f.rule == string(check.SpecRule) }); len(other) > 0 {
			b.WriteString("\n### Other spec findings\n\n")
			for _, f := range other {
				detailed(f)
			}
		}
		var course []string
		for _, f := range all {
			switch {
			case primary(f) && f.rule == string(check.CourseRule):
				course = append(course, fmt.Sprintf("- **%s** (%s) %s. The server: %s.", f.id, strings.Join(f.rows, "; "), f.title, trimDot(f.what)))
			case primary(f):
				for _, p := range f.courseParts {
					course = append(course, fmt.Sprintf("- **%s** (%s) %s; the part “%s” (the check's spec finding is above). The server: %s.",
						f.id, strings.Join(f.rows, "; "), f.title, p.Name, trimDot(p.What)))
				}
			}
		}
		if len(course) > 0 {
			b.WriteString("\n### Course rules it does not meet\n\n" + strings.Join(course, "\n") + "\n")
		}
		if blocked := pick(func(f *finding) bool { return !primary(f) }); len(blocked) > 0 {
			b.WriteString("\n### Failures that follow from one above\n\n")
			for _, f := range blocked {
				fmt.Fprintf(&b, "- **%s** (%s) %s. The server: %s.\n", f.id, strings.Join(f.rows, "; "), f.title, trimDot(f.what))
			}
		}

		var flaky []string
		for _, g := range table {
			if g.row.server == s {
				for _, id := range g.flaky {
					flaky = append(flaky, fmt.Sprintf("%s (%s)", id, g.row.mode))
				}
			}
		}
		if len(flaky) > 0 {
			fmt.Fprintf(&b, "\n### Passed on the second try\n\n%s: each failed once and passed on a fresh server, so it counts as passed; "+
				"a check that fails only under load, or only sometimes.\n", strings.Join(flaky, ", "))
		}
		b.WriteString("\n### Checks that did not apply\n\nBeside the checks of the other mode (with sessions, or without), which each HTTP row skips:\n\n")
		for _, r := range rows([]*server{s}) {
			skips := map[string][]string{}
			var reasons []string
			for _, g := range table {
				if g.row != r {
					continue
				}
				for _, res := range g.outcome.Results {
					if res.Status != check.Skip || strings.Contains(res.Skipped, "sessions, and this one") {
						continue
					}
					key := skipKey(res.Skipped)
					if skips[key] == nil {
						reasons = append(reasons, key)
					}
					skips[key] = append(skips[key], res.Check.ID)
				}
			}
			if len(reasons) == 0 {
				continue
			}
			fmt.Fprintf(&b, "- %s:\n", r.mode)
			sort.Strings(reasons)
			for _, k := range reasons {
				fmt.Fprintf(&b, "  - %s: %s\n", k, strings.Join(skips[k], ", "))
			}
		}
	}
	return b.String()
}

// skipKey shortens a skip reason for grouping: a reason that names the
// flags or the allowlist keeps only its kind.
func skipKey(why string) string {
	why = strings.TrimPrefix(why, "this check ")
	switch {
	case strings.HasPrefix(why, "starts the server with -"):
		return "they start the server with flags of the course's own servers"
	case strings.HasPrefix(why, "relies on the allowlist"):
		return "they rely on the allowlist lesson 04 starts the course's servers with (" + strings.SplitN(strings.TrimPrefix(why, "relies on the allowlist "), " ", 2)[0] + "), which this server does not claim"
	case strings.HasPrefix(why, "relies on "):
		return "they rely on " + strings.TrimPrefix(why, "relies on ")
	case strings.HasPrefix(why, "starts the server itself"):
		return "they start the server themselves, with arguments of their own, and a server at a URL was started by someone else"
	case strings.HasPrefix(why, "sends SIGTERM"):
		return "they send SIGTERM to the server, and a server at a URL was started by someone else"
	case strings.HasPrefix(why, "reads the server's Go source"):
		return "they are source checks, which read the Go code of a server the grader built"
	case strings.HasPrefix(why, "asks the history tool"):
		return "they ask the history tool how requests ended, and the server does not list it (it is outside the tool contract)"
	}
	return why
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func trimDot(s string) string { return strings.TrimSuffix(strings.TrimSpace(s), ".") }

// shorten keeps a value short enough for a table's line, on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
