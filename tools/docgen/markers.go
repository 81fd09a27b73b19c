// Package docgen writes the parts of the course's texts that list checks
// or count them, from the grader's registry (the lessons' descriptions,
// grader.Lessons, and the known-bad variants): the tables of
// grader/CLAIMS.md and the lessons' deep dives, EXTERNAL.md's lists of
// checks by need, each step's "make it pass" list, and the counts in the
// prose. A text asks for a part with a marker, an HTML comment a reader of
// the rendered text does not see; the part sits between it and the next
// <!-- /gen -->. A marker on a line of its own owns the lines up to a
// closing line of its own (a table, a list):
//
//	<!-- gen:green lesson=01 step=1 -->
//	- STDIO-01 · initialize gets an InitializeResult with the same id
//	<!-- /gen -->
//
// and a marker inside a line owns the text up to the closing comment on
// that line (a number, a list of ids):
//
//	runs <!-- gen:count lesson=01 -->26<!-- /gen --> checks against it
//
// The word after "gen:" names the part (see parts), and key=value words
// say which. go run ./tools/capture -write rewrites every part; a test
// (go test ./tools/capture) fails when one is stale.
package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Marker asks for one generated part.
type Marker struct {
	Kind string            // the part, such as "green"
	Args map[string]string // its key=value words
	Raw  string            // the comment as written
}

// Part is a marker and the text it owns in a file.
type Part struct {
	Marker
	Line    int    // of the marker, 1-based
	Block   bool   // the marker owns whole lines
	Content string // what it owns now (a block's lines, each with its newline)
	start   int    // offsets of Content in the file
	end     int
}

// File is a text of the course with its generated parts.
type File struct {
	Path  string // relative to the course root
	Text  string
	Parts []*Part
}

var (
	openMarker  = regexp.MustCompile(`<!-- gen:([a-z-]+)((?: [a-z-]+=[^ >]+)*) -->`)
	closeMarker = "<!-- /gen -->"
)

// Parse finds the generated parts of text.
func Parse(path, text string) (*File, error) {
	f := &File{Path: path, Text: text}
	for _, loc := range openMarker.FindAllStringSubmatchIndex(text, -1) {
		m := Marker{Kind: text[loc[2]:loc[3]], Args: map[string]string{}, Raw: text[loc[0]:loc[1]]}
		for _, word := range strings.Fields(text[loc[4]:loc[5]]) {
			k, v, _ := strings.Cut(word, "=")
			if _, dup := m.Args[k]; dup {
				return nil, fmt.Errorf("%s: %s names %s twice", path, m.Raw, k)
			}
			m.Args[k] = v
		}
		line := strings.Count(text[:loc[0]], "\n") + 1
		if len(f.Parts) > 0 && loc[0] < f.Parts[len(f.Parts)-1].end {
			return nil, fmt.Errorf("%s:%d: %s opens inside the part before it", path, line, m.Raw)
		}
		lineStart := strings.LastIndex(text[:loc[0]], "\n") + 1
		lineEnd := len(text)
		if i := strings.Index(text[loc[1]:], "\n"); i >= 0 {
			lineEnd = loc[1] + i
		}
		p := &Part{Marker: m, Line: line}
		if lineStart == loc[0] && lineEnd == loc[1] {
			// A block: the lines up to a closing line of its own.
			p.Block = true
			p.start = min(lineEnd+1, len(text))
			p.end = -1
			for off := p.start; off < len(text); {
				next := len(text)
				if nl := strings.IndexByte(text[off:], '\n'); nl >= 0 {
					next = off + nl
				}
				if text[off:next] == closeMarker {
					p.end = off
					break
				}
				off = next + 1
			}
			if p.end < 0 {
				return nil, fmt.Errorf("%s:%d: %s is not closed by a line %s", path, line, m.Raw, closeMarker)
			}
		} else {
			if lineStart == loc[0] {
				// Markdown takes a line that starts with <!-- for an HTML
				// block, which would cut the paragraph in two.
				return nil, fmt.Errorf("%s:%d: %s starts a line, inside a paragraph: put a word before it", path, line, m.Raw)
			}
			i := strings.Index(text[loc[1]:lineEnd], closeMarker)
			if i < 0 {
				return nil, fmt.Errorf("%s:%d: %s is not closed by %s on its line", path, line, m.Raw, closeMarker)
			}
			p.start, p.end = loc[1], loc[1]+i
		}
		p.Content = text[p.start:p.end]
		if strings.Contains(p.Content, "<!-- gen:") {
			return nil, fmt.Errorf("%s:%d: %s holds another marker", path, line, m.Raw)
		}
		f.Parts = append(f.Parts, p)
	}
	return f, nil
}

// With returns the file's text with each part's content replaced by
// fresh[i].
func (f *File) With(fresh []string) string {
	var b strings.Builder
	at := 0
	for i, p := range f.Parts {
		b.WriteString(f.Text[at:p.start])
		b.WriteString(fresh[i])
		at = p.end
	}
	b.WriteString(f.Text[at:])
	return b.String()
}

// Stale is a file whose generated parts do not match the registry.
type Stale struct {
	File  *File
	Fresh string // the file as it should be
	Diffs []string
}

// Check generates every part of the course's texts under root and returns
// the files whose parts differ from what they should be.
func Check(root string) ([]Stale, error) {
	files, err := Texts(root)
	if err != nil {
		return nil, err
	}
	g, err := newGenerator(root)
	if err != nil {
		return nil, err
	}
	var stale []Stale
	for _, f := range files {
		fresh := make([]string, len(f.Parts))
		var diffs []string
		for i, p := range f.Parts {
			text, err := g.part(p)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", f.Path, p.Line, p.Raw, err)
			}
			if p.Block && text != "" && !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			fresh[i] = text
			if text != p.Content {
				diffs = append(diffs, fmt.Sprintf("%s:%d: %s is stale:\n%s", f.Path, p.Line, p.Raw, FirstDifference(p.Content, text)))
			}
		}
		if len(diffs) > 0 {
			stale = append(stale, Stale{File: f, Fresh: f.With(fresh), Diffs: diffs})
		}
	}
	return stale, nil
}

// Write rewrites the stale files under root and returns what it rewrote.
// A part may depend on another file's parts (the words of a lesson, which
// its own lists change), so it writes until nothing is stale.
func Write(root string) ([]Stale, error) {
	var written []Stale
	seen := map[string]bool{}
	for pass := 0; ; pass++ {
		stale, err := Check(root)
		if err != nil {
			return nil, err
		}
		if len(stale) == 0 {
			return written, nil
		}
		if pass == 3 {
			return nil, fmt.Errorf("the generated parts of %s are still stale after %d passes: a part depends on itself", stale[0].File.Path, pass)
		}
		for _, s := range stale {
			if err := os.WriteFile(filepath.Join(root, s.File.Path), []byte(s.Fresh), 0o644); err != nil {
				return nil, err
			}
			if !seen[s.File.Path] {
				seen[s.File.Path] = true
				written = append(written, s)
			}
		}
	}
}

// textGlobs are where the course's texts are, relative to the root.
var textGlobs = []string{"*.md", "lessons/*.md", "grader/*.md"}

// Texts reads every text of the course that may hold generated parts.
func Texts(root string) ([]*File, error) {
	var files []*File
	for _, glob := range textGlobs {
		paths, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			return nil, err
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(root, path)
			f, err := Parse(filepath.ToSlash(rel), string(data))
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// FirstDifference shows the first line where two texts part, for a
// message that says a text is stale.
func FirstDifference(old, fresh string) string {
	a, b := strings.Split(old, "\n"), strings.Split(fresh, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("  first difference, at line %d:\n  - %s\n  + %s", i+1, x, y)
		}
	}
	return ""
}
