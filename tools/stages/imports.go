package stages

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"
)

// importSpec is one import a state may need: its path, and the name it is
// imported under when that is not the last element of the path.
type importSpec struct {
	name, path string
}

// line is how the import reads in an import block.
func (s importSpec) line() string {
	if s.name == "" {
		return strconv.Quote(s.path)
	}
	return s.name + " " + strconv.Quote(s.path)
}

// importName is the name a package is used under in the importing file.
func importName(name, importPath string) string {
	if name != "" {
		return name
	}
	return path.Base(importPath)
}

// knownImports collects the imports of a stage's files, by the name their
// code uses: the imports a stub may need and its file lacks.
func knownImports(files map[string][]byte) (map[string]importSpec, error) {
	known := map[string]importSpec{}
	ambiguous := map[string]bool{}
	for name, src := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			s := importSpec{path: p}
			if spec.Name != nil {
				s.name = spec.Name.Name
			}
			n := importName(s.name, p)
			if n == "_" || n == "." {
				continue
			}
			if old, ok := known[n]; ok && old.path != p {
				ambiguous[n] = true
			}
			known[n] = s
		}
	}
	for n := range ambiguous {
		delete(known, n)
	}
	return known, nil
}

// fixImports makes a file's imports follow its code: an import nothing uses
// goes, and a package the code uses but does not import (a stub's
// errors.New, say) is added, from known. It makes one change at a time,
// and parses the file again after each. The result is not gofmt'ed yet.
func fixImports(name string, src []byte, known map[string]importSpec) ([]byte, error) {
	for {
		next, changed, err := fixOneImport(name, src, known)
		if err != nil || !changed {
			return src, err
		}
		src = next
	}
}

func fixOneImport(name string, src []byte, known map[string]importSpec) ([]byte, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	lineStart := func(p token.Pos) int {
		off := offset(p)
		for off > 0 && src[off-1] != '\n' {
			off--
		}
		return off
	}
	lineEnd := func(p token.Pos) int {
		off := offset(p)
		for off < len(src) && src[off] != '\n' {
			off++
		}
		return min(off+1, len(src))
	}
	replace := func(from, to int, text string) []byte {
		out := append([]byte(nil), src[:from]...)
		out = append(out, text...)
		return append(out, src[to:]...)
	}

	// The names the code reaches into, X in X.Sel, where X is no
	// declaration of the file: imported packages, or the package's own
	// names from its other files.
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil {
				used[x.Name] = true
			}
		}
		return true
	})

	imported := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for i, sp := range gd.Specs {
			spec := sp.(*ast.ImportSpec)
			p, _ := strconv.Unquote(spec.Path.Value)
			alias := ""
			if spec.Name != nil {
				alias = spec.Name.Name
			}
			n := importName(alias, p)
			imported[n] = true
			if n == "_" || n == "." || used[n] {
				continue
			}
			switch {
			case len(gd.Specs) == 1:
				return replace(lineStart(gd.Pos()), lineEnd(gd.End()), ""), true, nil
			case len(gd.Specs) == 2 && !hasComments(f, gd):
				// One import left: written import "path", as gofmt'ed
				// code with a single import is.
				other := gd.Specs[1-i].(*ast.ImportSpec)
				text := "import " + string(src[offset(other.Pos()):offset(other.End())]) + "\n"
				return replace(lineStart(gd.Pos()), lineEnd(gd.End()), text), true, nil
			default:
				return replace(lineStart(spec.Pos()), lineEnd(spec.End()), ""), true, nil
			}
		}
	}

	var missing []importSpec
	for n := range used {
		if imported[n] || f.Scope.Lookup(n) != nil {
			continue
		}
		if s, ok := known[n]; ok {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return src, false, nil
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].path < missing[j].path })
	from, to, text := whereToImport(fset, f, src, missing[0])
	return replace(from, to, text), true, nil
}

// hasComments reports whether any comment sits inside the declaration.
func hasComments(f *ast.File, d ast.Decl) bool {
	for _, g := range f.Comments {
		if g.Pos() > d.Pos() && g.End() < d.End() {
			return true
		}
	}
	return false
}

// whereToImport finds the place for a new import, and the text to insert
// there: a single import becomes a block; in a block, the import goes
// beside the one whose path has the most in common with it (gofmt sorts the
// group), or, when none shares anything, into the standard library's group
// or a group of its own at the end.
func whereToImport(fset *token.FileSet, f *ast.File, src []byte, s importSpec) (from, to int, text string) {
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	var decl *ast.GenDecl
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			decl = gd
			break
		}
	}
	if decl == nil {
		at := offset(f.Name.End())
		return at, at, "\n\nimport " + s.line() + "\n"
	}
	if !decl.Lparen.IsValid() {
		spec := decl.Specs[0].(*ast.ImportSpec)
		from, to := offset(spec.Pos()), offset(spec.End())
		return from, to, "(\n\t" + s.line() + "\n\t" + string(src[from:to]) + "\n)"
	}
	var best *ast.ImportSpec
	bestScore := 0
	for _, sp := range decl.Specs {
		spec := sp.(*ast.ImportSpec)
		p, _ := strconv.Unquote(spec.Path.Value)
		score := commonPrefix(p, s.path)
		if isStd(p) && isStd(s.path) {
			score++ // the standard library is one group
		}
		if score > bestScore {
			best, bestScore = spec, score
		}
	}
	if best == nil {
		at := offset(decl.Rparen)
		return at, at, "\n\t" + s.line() + "\n"
	}
	at := offset(best.Pos())
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at, at, "\t" + s.line() + "\n"
}

// commonPrefix counts the leading path elements two import paths share.
func commonPrefix(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// isStd reports whether an import path is the standard library's.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && first != modulePath
}
