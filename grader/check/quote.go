package check

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// quoteLine is a line of Hint.Near that stands for one of Hint.Quotes.
var quoteLine = regexp.MustCompile(`(?m)^\{\{quote (\d+)\}\}$`)

// Text returns hint level n as a learner reads it: Level(n), with each
// quote of the reference (Quotes) read from the course at root.
func (h Hint) Text(root string, n int) (string, error) {
	text := h.Level(n)
	var err error
	text = quoteLine.ReplaceAllStringFunc(text, func(line string) string {
		i, _ := strconv.Atoi(quoteLine.FindStringSubmatch(line)[1])
		if i >= len(h.Quotes) {
			err = fmt.Errorf("the hint quotes {{quote %d}}, and has %d quotes", i, len(h.Quotes))
			return line
		}
		lines, qerr := h.Quotes[i].Lines(root)
		if qerr != nil {
			err = qerr
			return line
		}
		for j, l := range lines {
			if l != "" {
				lines[j] = "\t" + l
			}
		}
		return strings.Join(lines, "\n")
	})
	return text, err
}

// Lines returns the quoted run of lines from the reference at root,
// without the indentation they share.
func (s Source) Lines(root string) ([]string, error) {
	path := filepath.Join(root, filepath.FromSlash(s.File))
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var body []string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == s.Func && fd.Body != nil {
			from, to := fset.Position(fd.Body.Lbrace).Offset+1, fset.Position(fd.Body.Rbrace).Offset
			body = withoutMarkers(strings.Split(strings.Trim(string(src[from:to]), "\n"), "\n"))
		}
	}
	if body == nil {
		return nil, fmt.Errorf("%s has no function %s to quote", s.File, s.Func)
	}
	first, last := 0, len(body)-1
	if s.From != "" {
		if first, err = s.find(body, s.From); err != nil {
			return nil, err
		}
	}
	if s.To != "" {
		if last, err = s.find(body, s.To); err != nil {
			return nil, err
		}
	}
	if last < first {
		return nil, fmt.Errorf("%s in %s: the quote ends (%q) before it starts (%q)", s.Func, s.File, s.To, s.From)
	}
	return dedent(body[first : last+1]), nil
}

// withoutMarkers drops the reference's step markers and the starter stubs
// they hold (tools/stages): a quote shows the finished code.
func withoutMarkers(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "// @") || strings.HasPrefix(t, "// |") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// find returns the index of the one line of body that reads line.
func (s Source) find(body []string, line string) (int, error) {
	at := -1
	for i, l := range body {
		if strings.TrimSpace(l) == line {
			if at >= 0 {
				return 0, fmt.Errorf("%s in %s has the line %q more than once: quote from a line it has once", s.Func, s.File, line)
			}
			at = i
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("%s in %s has no line %q any more: the hint quotes code that changed", s.Func, s.File, line)
	}
	return at, nil
}

// dedent removes the leading tabs every non-empty line shares.
func dedent(lines []string) []string {
	n := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if k := len(l) - len(strings.TrimLeft(l, "\t")); n < 0 || k < n {
			n = k
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		out[i] = l[max(n, 0):]
	}
	return out
}
