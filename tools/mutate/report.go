package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"mcpcourse/grader/check"
)

// readTriage reads the list of equivalent mutants: one per line, its id,
// then at least two spaces or a tab, then why no client could ever tell it
// from the reference. Blank lines and lines starting with # are skipped.
func readTriage(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, why, ok := cutGap(line)
		if !ok || why == "" {
			return nil, fmt.Errorf("%s:%d: want an id, two spaces, and the reason no client can see the difference", path, n)
		}
		out[id] = why
	}
	return out, sc.Err()
}

// cutGap splits a triage line at its first tab or run of two spaces.
func cutGap(line string) (id, why string, ok bool) {
	if i := strings.IndexAny(line, "\t"); i > 0 {
		return line[:i], strings.TrimSpace(line[i:]), true
	}
	if i := strings.Index(line, "  "); i > 0 {
		return line[:i], strings.TrimSpace(line[i:]), true
	}
	return "", "", false
}

// Counts are the outcomes of a set of mutants.
type Counts struct {
	Mutants    int `json:"mutants"`
	Killed     int `json:"killed"`
	TimedOut   int `json:"timed_out"`
	Equivalent int `json:"equivalent"`
	NoCompile  int `json:"did_not_compile"`
	Survived   int `json:"survived"`
}

func (c *Counts) add(o Outcome) {
	c.Mutants++
	switch o {
	case Killed:
		c.Killed++
	case TimedOut:
		c.TimedOut++
	case Equivalent:
		c.Equivalent++
	case NoCompile:
		c.NoCompile++
	default:
		c.Survived++
	}
}

// regraded folds in g, a grading again of g.Mutants of c's survivors: each
// leaves the survivors for what it was graded now.
func (c *Counts) regraded(g Counts) {
	c.Survived -= g.Mutants
	c.Killed += g.Killed
	c.TimedOut += g.TimedOut
	c.Equivalent += g.Equivalent
	c.NoCompile += g.NoCompile
	c.Survived += g.Survived
}

// Score is the share of the mutants that count, killed: those that compile
// and are not equivalent.
func (c Counts) Score() float64 {
	n := c.Mutants - c.NoCompile - c.Equivalent
	if n == 0 {
		return 1
	}
	return float64(c.Killed+c.TimedOut) / float64(n)
}

// LessonResult is one lesson's sweep, as written to grader/mutation/NN.json.
type LessonResult struct {
	Lesson    string            `json:"lesson"`
	Stage     string            `json:"stage"`
	Graded    string            `json:"graded"` // when, and on what
	Counts    Counts            `json:"counts"`
	Functions map[string]Counts `json:"functions"` // "file func" → counts
	Survivors []Survivor        `json:"survivors"`
}

// Survivor is a mutant no check killed and no triage explains.
type Survivor struct {
	ID   string `json:"id"`
	Line int    `json:"line"`
	Edit string `json:"edit"`
}

type summary struct {
	lessons map[string]*LessonResult
	graded  map[string][]string // the ids of the mutants graded, by lesson
	flaky   int                 // kills that did not repeat (with -confirm)
	errors  int                 // mutants the sweep itself could not grade
}

func (s summary) survived() int {
	n := 0
	for _, l := range s.lessons {
		n += l.Counts.Survived
	}
	return n
}

func summarize(jobs []*job, triage map[string]string) summary {
	s := summary{lessons: map[string]*LessonResult{}, graded: map[string][]string{}}
	graded := fmt.Sprintf("%s, %s/%s, %d CPUs", time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	for _, j := range jobs {
		if j.outcome == Survived {
			if _, ok := triage[j.m.ID]; ok {
				j.outcome = Equivalent
			}
		}
		r := s.lessons[j.lesson.Number]
		if r == nil {
			r = &LessonResult{Lesson: j.lesson.Number, Stage: j.lesson.Stage, Graded: graded, Functions: map[string]Counts{}}
			s.lessons[j.lesson.Number] = r
		}
		r.Counts.add(j.outcome)
		s.graded[j.lesson.Number] = append(s.graded[j.lesson.Number], j.m.ID)
		key := filepath.Base(j.m.File) + " " + orTop(j.m.Func)
		fc := r.Functions[key]
		fc.add(j.outcome)
		r.Functions[key] = fc
		if j.outcome == Survived {
			r.Survivors = append(r.Survivors, Survivor{ID: j.m.ID, Line: j.m.Line, Edit: j.m.Edit})
		}
		if j.flaky {
			s.flaky++
		}
		if j.err != nil {
			s.errors++
		}
	}
	return s
}

// storedSurvivors reads the ids of the survivors in the stored results.
func storedSurvivors(dir string) (map[string]bool, error) {
	stored, err := readStored(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range stored {
		for _, sv := range r.Survivors {
			out[sv.ID] = true
		}
	}
	return out, nil
}

func orTop(fn string) string {
	if fn == "" {
		return "(top level)"
	}
	return fn
}

func printReport(w io.Writer, s summary, jobs []*job, triage map[string]string) {
	for _, n := range sortedKeys(s.lessons) {
		r := s.lessons[n]
		c := r.Counts
		fmt.Fprintf(w, "lesson %s (%s): %d mutants: %d killed, %d timed out, %d equivalent, %d did not compile, %d survived; score %.1f%%\n",
			n, r.Stage, c.Mutants, c.Killed, c.TimedOut, c.Equivalent, c.NoCompile, c.Survived, 100*c.Score())
		for _, sv := range r.Survivors {
			fmt.Fprintf(w, "  survived  %s (line %d): %s\n", sv.ID, sv.Line, sv.Edit)
		}
	}
	for _, j := range jobs {
		if j.flaky {
			fmt.Fprintf(w, "  flaky     %s: killed by %s once, not the second time\n", j.m.ID, j.by)
		}
		if j.err != nil {
			fmt.Fprintf(w, "  error     %s: %v\n", j.m.ID, j.err)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeReport stores each swept lesson's result in grader/mutation/NN.json
// and renders grader/MUTATION.md from every lesson's stored result, so
// that sweeping one lesson leaves the others' figures as they were. A
// partial sweep (-match) is not stored.
func writeReport(path string, s summary, lessons []*check.Lesson, partial bool) error {
	dir := filepath.Join(filepath.Dir(path), "mutation")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !partial {
		for _, r := range s.lessons {
			if err := writeStored(dir, r); err != nil {
				return err
			}
		}
	}
	return renderStored(path)
}

// updateSurvivors folds a grading of the stored survivors (-survivors) into
// the stored results beside path, and renders the report again: each
// survivor graded moves to what it is now (killed by a new check, or
// triaged as equivalent), and the stored kills stand as they are.
func updateSurvivors(path string, s summary) error {
	dir := filepath.Join(filepath.Dir(path), "mutation")
	stored, err := readStored(dir)
	if err != nil {
		return err
	}
	for n, graded := range s.lessons {
		r := stored[n]
		if r == nil {
			return fmt.Errorf("lesson %s has no stored results to update: sweep it whole", n)
		}
		for key, c := range graded.Functions {
			fc := r.Functions[key]
			fc.regraded(c)
			r.Functions[key] = fc
		}
		r.Counts.regraded(graded.Counts)
		// Keep the stored order (by file and line), less those that no
		// longer survive.
		again, still := map[string]bool{}, map[string]bool{}
		for _, id := range s.graded[n] {
			again[id] = true
		}
		for _, sv := range graded.Survivors {
			still[sv.ID] = true
		}
		r.Survivors = slices.DeleteFunc(r.Survivors, func(sv Survivor) bool { return again[sv.ID] && !still[sv.ID] })
		if again := "; survivors graded again " + strings.SplitN(graded.Graded, ",", 2)[0]; !strings.Contains(r.Graded, again) {
			r.Graded += again
		}
		if err := writeStored(dir, r); err != nil {
			return err
		}
	}
	return renderStored(path)
}

// writeStored writes a lesson's result to dir/NN.json.
func writeStored(dir string, r *LessonResult) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.Lesson+".json"), append(data, '\n'), 0o644)
}

// renderStored renders the report at path (grader/MUTATION.md) from the
// stored results beside it, without grading anything: after a merge of two
// sweeps, or to see that the committed report is the stored results'.
func renderStored(path string) error {
	stored, err := readStored(filepath.Join(filepath.Dir(path), "mutation"))
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(render(stored)), 0o644)
}

// readStored reads every lesson's stored result in dir, by lesson number.
func readStored(dir string) (map[string]*LessonResult, error) {
	stored := map[string]*LessonResult{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r LessonResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		stored[r.Lesson] = &r
	}
	return stored, nil
}

// render is grader/MUTATION.md.
func render(results map[string]*LessonResult) string {
	var b strings.Builder
	b.WriteString("# What the grader catches: the mutation sweep\n\n")
	b.WriteString("Generated by `go run ./tools/mutate -lesson NN -write` (or `-all -write`) from the stored results in\n")
	b.WriteString("[`grader/mutation/`](mutation/); do not edit by hand. Each mutant is the reference of the lesson's stage with one\n")
	b.WriteString("small edit (a negated condition, a shifted boundary, a dropped call or return, a constant off by one, a dropped case,\n")
	b.WriteString("`&&` for `||`, an ignored error: see [`tools/mutate/mutant`](../tools/mutate/mutant)), graded by every lesson that\n")
	b.WriteString("exercises that stage. Killed: some check failed. Timed out: a check ran out of time (killed). Equivalent: no client\n")
	b.WriteString("could ever tell it from the reference, each with the reason in [`tools/mutate/equivalent.txt`](../tools/mutate/equivalent.txt).\n")
	b.WriteString("The score is the killed share of the mutants that compile and are not equivalent.\n\n")
	b.WriteString("| lesson | stage | mutants | killed | timed out | equivalent | did not compile | survived | score | graded |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range sortedKeys(results) {
		r := results[n]
		c := r.Counts
		fmt.Fprintf(&b, "| %s | `%s` | %d | %d | %d | %d | %d | %d | %.1f%% | %s |\n",
			n, r.Stage, c.Mutants, c.Killed, c.TimedOut, c.Equivalent, c.NoCompile, c.Survived, 100*c.Score(), r.Graded)
	}
	for _, n := range sortedKeys(results) {
		r := results[n]
		fmt.Fprintf(&b, "\n## Lesson %s · `solutions/%s`\n\n", n, r.Stage)
		fmt.Fprintf(&b, "Reproduce: `go run ./tools/mutate -lesson %s`.\n\n", n)
		b.WriteString("| file | function | mutants | killed | equivalent | did not compile | survived | score |\n|---|---|---|---|---|---|---|---|\n")
		for _, key := range sortedKeys(r.Functions) {
			c := r.Functions[key]
			file, fn, _ := strings.Cut(key, " ")
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %.0f%% |\n", file, fn, c.Mutants, c.Killed+c.TimedOut, c.Equivalent, c.NoCompile, c.Survived, 100*c.Score())
		}
		if len(r.Survivors) > 0 {
			b.WriteString("\nSurvivors (each is a missing check, or an equivalent mutant to triage):\n\n")
			for _, sv := range r.Survivors {
				fmt.Fprintf(&b, "- `%s` (line %d): %s\n", sv.ID, sv.Line, sv.Edit)
			}
		}
	}
	return b.String()
}
