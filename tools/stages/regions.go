// Package stages makes every state of a stage folder from the reference in
// solutions/: the starter a learner clones (state 0), the code as it stands
// after each step of the lesson (what `course checkpoint` writes and the
// course's proof grades), and the finished reference (the last state), all
// pointed at the learner's folders.
//
// # Regions
//
// The reference marks the code each step writes with region markers, line
// comments that the compiler ignores, so that the reference stays the
// reference: it builds, it is tested, and it reads as the finished code. A
// region holds the code of one step and, below it, what stood there before
// that step, back to the starter:
//
//	// @step 4: each request on a goroutine of its own
//	c.run(func() { … })
//	// @was 1: one request at a time
//	// | if resp := c.session.Handle(ctx, msg, c); resp != nil {
//	// | 	c.out.send(resp)
//	// | }
//	// @starter
//	// | // TODO(step 1): answer the request.
//	// @end
//
// The markers, each a line of its own:
//
//   - "// @step N: what" opens a region: the lines below it are the code
//     step N writes, in the reference as it is (live code); what says, in a
//     few words, what that code does.
//   - "// @was K: what" starts an older version: the code as step K (K < N)
//     left it, before a later step replaced it. Older versions come newest
//     first.
//   - "// @starter" starts the oldest version: the starter's stub, its TODO
//     text and whatever placeholder the starter compiles with.
//   - "// @end" closes the region.
//   - An older version's lines are written "// | line": the line, at the
//     indentation of the "//" ("// |" alone is an empty line). They may hold
//     regions of their own, written the same way ("// | // @step 3: …").
//
// The state after step S takes, in each region, the newest version whose
// step is S or less: the live code when N ≤ S, else an older version, else
// (no version old enough) nothing. A region without "@starter" is code that
// does not exist before its step: a function, a field, a whole file. Regions
// nest in live code too: a region inside step N's code belongs to a later
// step. Anything can be a region, whole declarations with their doc
// comments and the package clause included; keep the markers of a region
// that holds a declaration apart from its doc comment by a blank line, so
// that go doc shows the doc comment alone. A file that renders to nothing
// (every line of it in a region of a later step) does not exist in that
// state.
//
// After the regions, each state is pointed at the learner's folders
// (mcpcourse/solutions/… becomes mcpcourse/…), its imports follow its code
// (the ones it no longer uses go, the ones its stubs use come, from the
// imports of the stage's other files), and it is gofmt'ed. A state holds
// no tests of the reference: they test every step, the ones still to
// write included. Reference, what catch-up writes, can add them.
package stages

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A marker line, and a line of an older version.
var (
	openMarker    = regexp.MustCompile(`^\s*// @(step|was) ([0-9]+)(?:: (.*))?$`)
	stepMarker    = regexp.MustCompile(`^\s*// @step [0-9]+: \S`)
	starterMarker = regexp.MustCompile(`^\s*// @starter(?:: (.*))?$`)
	endMarker     = regexp.MustCompile(`^\s*// @end$`)
	anyMarker     = regexp.MustCompile(`^\s*// @(step|was|starter|end)\b`)
	stubLine      = regexp.MustCompile(`^(\s*)// \|(?: (.*))?$`)
)

// File is one reference file, parsed into its regions.
type File struct {
	Name  string // for messages, such as "solutions/01-stdio/serve.go"
	lines []string
	nodes []node
}

// node is a run of plain lines, or a region.
type node struct {
	lines  []string // plain lines, when region is nil
	region *Region
}

// Region is one region of a reference file.
type Region struct {
	Step     int       // the step that writes the live code
	What     string    // what it is, as the marker says
	Line     int       // the line of its "@step" marker, from 1
	End      int       // the line of its "@end"
	Versions []Version // the live code first, then the older versions, newest first
}

// Version is one version of a region's code.
type Version struct {
	Step  int      // the step that wrote it; 0 for the starter
	What  string   // as its marker says
	Line  int      // the line of its marker
	lines []string // its lines as written, markers of nested regions included
	nodes []node
}

// Parse reads a reference file's regions.
func Parse(name string, src []byte) (*File, error) {
	lines := strings.Split(string(src), "\n")
	numbers := make([]int, len(lines))
	for i := range numbers {
		numbers[i] = i + 1
	}
	nodes, err := parseLines(name, lines, numbers, 0, 0)
	if err != nil {
		return nil, err
	}
	return &File{Name: name, lines: lines, nodes: nodes}, nil
}

// parseLines parses lines (numbers[i] is the file's line number of
// lines[i]). Regions in them must belong to a step after lo and, when hi >
// 0, before hi: the bounds of the version they sit in.
func parseLines(name string, lines []string, numbers []int, lo, hi int) ([]node, error) {
	fail := func(i int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, numbers[i], fmt.Sprintf(format, args...))
	}
	var (
		out   []node
		plain []string
	)
	flush := func() {
		if len(plain) > 0 {
			out = append(out, node{lines: plain})
			plain = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		m := openMarker.FindStringSubmatch(lines[i])
		if m == nil {
			if anyMarker.MatchString(lines[i]) {
				return nil, fail(i, "%q outside a region, or not a marker: a region opens with \"// @step N: what\"", strings.TrimSpace(lines[i]))
			}
			plain = append(plain, lines[i])
			continue
		}
		if m[1] != "step" {
			return nil, fail(i, "\"// @was\" outside a region: a region opens with \"// @step N: what\"")
		}
		if !stepMarker.MatchString(lines[i]) {
			return nil, fail(i, "a region says what it holds: \"// @step %s: what\"", m[2])
		}
		flush()
		step, _ := strconv.Atoi(m[2])
		if step <= lo || (hi > 0 && step >= hi) {
			return nil, fail(i, "a region of step %d cannot sit here: the code around it is that of step %d%s", step, lo, upTo(hi))
		}
		r := &Region{Step: step, What: m[3], Line: numbers[i]}
		end, err := parseRegion(name, lines, numbers, i, r)
		if err != nil {
			return nil, err
		}
		out = append(out, node{region: r})
		i = end
	}
	flush()
	return out, nil
}

func upTo(hi int) string {
	if hi == 0 {
		return ""
	}
	return fmt.Sprintf(", until step %d replaces it", hi)
}

// parseRegion parses the region whose "@step" marker is lines[start], and
// returns the index of its "@end".
func parseRegion(name string, lines []string, numbers []int, start int, r *Region) (int, error) {
	fail := func(i int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, numbers[i], fmt.Sprintf(format, args...))
	}
	// The live code runs to the first marker of this region at its own
	// depth: nested regions in it open and close in between.
	depth := 0
	i := start + 1
	liveEnd := -1
	for ; i < len(lines); i++ {
		switch {
		case openMarker.MatchString(lines[i]) && strings.Contains(lines[i], "@step"):
			depth++
		case endMarker.MatchString(lines[i]) && depth > 0:
			depth--
		case depth == 0 && (endMarker.MatchString(lines[i]) || starterMarker.MatchString(lines[i]) || openMarker.MatchString(lines[i])):
			liveEnd = i
		}
		if liveEnd >= 0 {
			break
		}
	}
	if liveEnd < 0 {
		return 0, fail(start, "the region of step %d has no \"// @end\"", r.Step)
	}
	live, err := parseLines(name, lines[start+1:liveEnd], numbers[start+1:liveEnd], r.Step, 0)
	if err != nil {
		return 0, err
	}
	r.Versions = append(r.Versions, Version{Step: r.Step, What: r.What, Line: r.Line, lines: lines[start+1 : liveEnd], nodes: live})

	// Then the older versions, each a run of "// |" lines.
	for i = liveEnd; ; {
		if endMarker.MatchString(lines[i]) {
			r.End = numbers[i]
			return i, nil
		}
		v := Version{Line: numbers[i]}
		if m := openMarker.FindStringSubmatch(lines[i]); m != nil {
			v.Step, _ = strconv.Atoi(m[2])
			v.What = m[3]
		} else {
			v.What = starterMarker.FindStringSubmatch(lines[i])[1]
		}
		newer := r.Versions[len(r.Versions)-1].Step
		switch {
		case newer == 0:
			return 0, fail(i, "the starter's version comes last in a region")
		case v.Step >= newer:
			return 0, fail(i, "older versions come newest first, each of an earlier step: step %d cannot come after step %d", v.Step, newer)
		case v.Step == 0 && strings.Contains(lines[i], "@was"):
			return 0, fail(i, "the starter's version is \"// @starter\", not \"// @was 0\"")
		}
		var text []string
		var nums []int
		for i++; i < len(lines) && !anyMarker.MatchString(lines[i]); i++ {
			m := stubLine.FindStringSubmatch(lines[i])
			if m == nil {
				return 0, fail(i, "a line of an older version must be written \"// | …\" (the region of step %d opened at line %d)", r.Step, r.Line)
			}
			text = append(text, m[1]+m[2])
			nums = append(nums, numbers[i])
		}
		if i == len(lines) {
			return 0, fail(start, "the region of step %d has no \"// @end\"", r.Step)
		}
		if openMarker.MatchString(lines[i]) && strings.Contains(lines[i], "@step") {
			return 0, fail(i, "a region inside an older version is written in it, as \"// | // @step …\"")
		}
		v.lines = text
		if v.nodes, err = parseLines(name, text, nums, v.Step, newer); err != nil {
			return 0, err
		}
		r.Versions = append(r.Versions, v)
	}
}

// seam stands, in rendered lines, where a region was: blank lines around it
// are tidied once the file is whole.
const seam = "\x00seam"

// Render returns the file as it stands after step s, markers stripped.
func (f *File) Render(s int) []byte {
	lines := tidySeams(render(f.nodes, s))
	return []byte(strings.Join(lines, "\n"))
}

func render(nodes []node, s int) []string {
	var out []string
	for _, n := range nodes {
		if n.region == nil {
			out = append(out, n.lines...)
			continue
		}
		out = append(out, seam)
		if v := n.region.At(s); v != nil {
			out = append(out, render(v.nodes, s)...)
			out = append(out, seam)
		}
	}
	return out
}

// At returns the version of the region that the state after step s holds,
// or nil when it holds none.
func (r *Region) At(s int) *Version {
	for i := range r.Versions {
		if r.Versions[i].Step <= s {
			return &r.Versions[i]
		}
	}
	return nil
}

// tidySeams drops the seams, and the blank lines that a region left
// doubled, or at the start or the end of a block.
func tidySeams(lines []string) []string {
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	var out []string
	for i := 0; i < len(lines); i++ {
		if lines[i] != seam {
			out = append(out, lines[i])
			continue
		}
		next := i + 1
		for next < len(lines) && lines[next] == seam {
			next++
		}
		i = next - 1
		prev := ""
		atStart := len(out) == 0
		if !atStart {
			prev = out[len(out)-1]
		}
		if next < len(lines) && blank(lines[next]) {
			after := ""
			for j := next + 1; j < len(lines); j++ {
				if lines[j] != seam {
					after = strings.TrimSpace(lines[j])
					break
				}
			}
			if atStart || blank(prev) || opens(prev) || closes(after) {
				lines[next] = seam // a blank line after a blank line, or at a block's edge
				i = next - 1
			}
		} else if !atStart && blank(prev) && next < len(lines) && closes(lines[next]) {
			out = out[:len(out)-1]
		}
	}
	for len(out) > 0 && blank(out[0]) {
		out = out[1:]
	}
	return out
}

func opens(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasSuffix(line, "{") || strings.HasSuffix(line, "(")
}

func closes(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "}") || strings.HasPrefix(line, ")")
}

// Regions returns every region of the file, nested ones included, in the
// order they open.
func (f *File) Regions() []*Region {
	var out []*Region
	var walk func([]node)
	walk = func(nodes []node) {
		for _, n := range nodes {
			if n.region != nil {
				out = append(out, n.region)
				for _, v := range n.region.Versions {
					walk(v.nodes)
				}
			}
		}
	}
	walk(f.nodes)
	return out
}

// Outside returns the file's code outside the region, as Lines does: the
// lines a state may hold whatever version of the region it holds.
func (f *File) Outside(r *Region) []string {
	var rest []string
	for i, l := range f.lines {
		if i+1 < r.Line || i+1 > r.End {
			rest = append(rest, l)
		}
	}
	return (&Version{lines: rest}).Lines()
}

// Lines returns the version's code as it is written, without markers: its
// own lines and those of every region nested in it, older versions
// included. A state that does not hold the version holds none of the lines
// that are its alone.
func (v *Version) Lines() []string {
	var out []string
	var walk func(lines []string)
	walk = func(lines []string) {
		for _, l := range lines {
			if m := stubLine.FindStringSubmatch(l); m != nil {
				walk([]string{m[1] + m[2]})
				continue
			}
			if !anyMarker.MatchString(l) {
				out = append(out, l)
			}
		}
	}
	walk(v.lines)
	return out
}

// LastStep returns the latest step that any region of the file names, or 0.
func (f *File) LastStep() int {
	last := 0
	for _, r := range f.Regions() {
		last = max(last, r.Step)
	}
	return last
}

// IsMarker reports whether a line is a region marker or a line of an older
// version: what no rendered state may hold.
func IsMarker(line string) bool {
	return anyMarker.MatchString(line) || stubLine.MatchString(line)
}
