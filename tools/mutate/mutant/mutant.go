// Package mutant makes every single-point mutant of a Go file from a fixed
// set of operators, the mistakes a grader must catch: a negated condition,
// a shifted boundary, a dropped statement or call, a constant off by one,
// a dropped case, && for ||, an ignored error. Each mutant is the file with
// one small edit spliced into its text, so everything else stays as it is,
// comments included.
//
// The course's mutation sweep (go run ./tools/mutate) grades each mutant with the
// grader: a mutant that some check fails is killed; one that passes every
// check is a mistake the grader would miss, unless it cannot be seen from
// outside (an equivalent mutant, which the sweep's triage list says why).
package mutant

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Operator names one kind of mutation.
type Operator string

// The operators.
const (
	Negate      Operator = "negate"       // if c → if !(c); for c → for !(c)
	Boundary    Operator = "boundary"     // < ↔ <=, > ↔ >=
	DropStmt    Operator = "drop-stmt"    // a call, assignment, send, ++/--, break/continue
	DropReturn  Operator = "drop-return"  // a return statement
	DropDefer   Operator = "drop-defer"   // a defer statement
	DropGo      Operator = "drop-go"      // a go statement
	Constant    Operator = "constant"     // an integer literal n → n+1, n-1, 0
	DropCase    Operator = "drop-case"    // a case of a switch or a select
	SwapLogic   Operator = "swap-logic"   // && ↔ ||
	IgnoreError Operator = "ignore-error" // if err != nil → if false
)

// Operators lists every operator, in a fixed order.
var Operators = []Operator{Negate, Boundary, DropStmt, DropReturn, DropDefer, DropGo, Constant, DropCase, SwapLogic, IgnoreError}

// Mutant is one mutated version of a file.
type Mutant struct {
	// ID is stable while the file's code around the mutation does not
	// change: the file, the function, the operator and a hash of the
	// edited text and its line's text, so that a triage list can name it.
	ID       string
	File     string // as given to Generate, such as "solutions/03-sse-resume/get.go"
	Func     string // the enclosing function, "Type.Method" or "Func", or "" at top level
	Line     int
	Operator Operator
	Edit     string // what changed, such as `if !(err != nil)` or `dropped: ew.flush()`
	Source   []byte // the whole mutated file
}

// Generate returns every mutant of src, the content of file, in the order
// of their positions.
func Generate(file string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	g := &generator{file: file, src: src, fset: fset, tokFile: fset.File(f.Pos())}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			// Package-level constants are mutated too: a limit or a
			// default is the learner's code as much as a function is.
			g.fn = ""
			ast.Inspect(decl, g.visit)
			continue
		}
		g.fn = funcName(fn)
		if fn.Body != nil {
			ast.Inspect(fn.Body, g.visit)
		}
	}
	sort.SliceStable(g.out, func(i, j int) bool { return g.out[i].Line < g.out[j].Line })
	seen := map[string]int{}
	for i := range g.out {
		// Two mutants can share everything that makes an ID (the same
		// edit twice on one line): number the repeats.
		base := g.out[i].ID
		if n := seen[base]; n > 0 {
			g.out[i].ID = base + "-" + strconv.Itoa(n+1)
		}
		seen[base]++
	}
	return g.out, nil
}

type generator struct {
	file    string
	src     []byte
	fset    *token.FileSet
	tokFile *token.File
	fn      string
	out     []Mutant
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

func (g *generator) offset(p token.Pos) int { return g.tokFile.Offset(p) }

func (g *generator) text(n ast.Node) string {
	return string(g.src[g.offset(n.Pos()):g.offset(n.End())])
}

// add records the mutant that replaces src[from:to] with repl.
func (g *generator) add(op Operator, at token.Pos, from, to int, repl, edit string) {
	out := make([]byte, 0, len(g.src)+len(repl))
	out = append(out, g.src[:from]...)
	out = append(out, repl...)
	out = append(out, g.src[to:]...)
	line := g.fset.Position(at).Line
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", op, edit, g.lineText(line))
	id := fmt.Sprintf("%s:%s:%s:%s", g.file, orTop(g.fn), op, hex.EncodeToString(h.Sum(nil))[:8])
	g.out = append(g.out, Mutant{ID: id, File: g.file, Func: g.fn, Line: line, Operator: op, Edit: edit, Source: out})
}

func orTop(fn string) string {
	if fn == "" {
		return "(top)"
	}
	return fn
}

func (g *generator) lineText(line int) string {
	start := g.tokFile.LineStart(line)
	from := g.offset(start)
	to := from
	for to < len(g.src) && g.src[to] != '\n' {
		to++
	}
	return strings.TrimSpace(string(g.src[from:to]))
}

// replace records the mutant that replaces node n's text with repl.
func (g *generator) replace(op Operator, n ast.Node, repl, edit string) {
	g.add(op, n.Pos(), g.offset(n.Pos()), g.offset(n.End()), repl, edit)
}

// drop records the mutant without statement s.
func (g *generator) drop(op Operator, s ast.Stmt) {
	// An empty statement in place of s keeps the file's lines where they
	// were, and is valid wherever a statement is.
	g.replace(op, s, "{}", "dropped: "+oneLine(g.text(s)))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func (g *generator) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.IfStmt:
		if isErrCheck(n.Cond) {
			g.replace(IgnoreError, n.Cond, "false", "if false (was: "+oneLine(g.text(n.Cond))+")")
		} else {
			g.negate(n.Cond)
		}
	case *ast.ForStmt:
		if n.Cond != nil {
			g.negate(n.Cond)
		}
	case *ast.BinaryExpr:
		g.binary(n)
	case *ast.BasicLit:
		g.constant(n)
	case *ast.BlockStmt:
		g.statements(n.List)
	case *ast.CaseClause:
		g.statements(n.Body)
	case *ast.CommClause:
		g.statements(n.Body)
	case *ast.SwitchStmt:
		g.cases(n.Body)
	case *ast.TypeSwitchStmt:
		g.cases(n.Body)
	case *ast.SelectStmt:
		g.cases(n.Body)
	}
	return true
}

func (g *generator) negate(cond ast.Expr) {
	g.replace(Negate, cond, "!("+g.text(cond)+")", "negated: !("+oneLine(g.text(cond))+")")
}

var boundary = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
var logic = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}

func (g *generator) binary(b *ast.BinaryExpr) {
	op, ok := boundary[b.Op]
	kind := Boundary
	if !ok {
		op, ok = logic[b.Op]
		kind = SwapLogic
	}
	if !ok {
		return
	}
	from := g.offset(b.OpPos)
	to := from + len(b.Op.String())
	g.add(kind, b.OpPos, from, to, op.String(), oneLine(g.text(b.X))+" "+op.String()+" "+oneLine(g.text(b.Y)))
}

func (g *generator) constant(lit *ast.BasicLit) {
	if lit.Kind != token.INT {
		return
	}
	n, err := strconv.ParseInt(lit.Value, 0, 64)
	if err != nil {
		return
	}
	done := map[int64]bool{n: true}
	for _, v := range []int64{n + 1, n - 1, 0} {
		if done[v] || v < 0 {
			continue
		}
		done[v] = true
		g.replace(Constant, lit, strconv.FormatInt(v, 10), fmt.Sprintf("%s → %d", lit.Value, v))
	}
}

func (g *generator) statements(list []ast.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if _, ok := s.X.(*ast.CallExpr); ok {
				g.drop(DropStmt, s)
			}
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				g.drop(DropStmt, s)
			}
		case *ast.IncDecStmt, *ast.SendStmt:
			g.drop(DropStmt, s)
		case *ast.BranchStmt:
			if s.Tok == token.BREAK || s.Tok == token.CONTINUE {
				g.drop(DropStmt, s)
			}
		case *ast.ReturnStmt:
			g.drop(DropReturn, s)
		case *ast.DeferStmt:
			g.drop(DropDefer, s)
		case *ast.GoStmt:
			g.drop(DropGo, s)
		}
	}
}

func (g *generator) cases(body *ast.BlockStmt) {
	for _, c := range body.List {
		var label string
		switch c := c.(type) {
		case *ast.CaseClause:
			if c.List == nil {
				continue // the default is where dropped cases go; keep it
			}
			label = "case " + oneLine(exprs(g, c.List))
		case *ast.CommClause:
			if c.Comm == nil {
				continue
			}
			label = "case " + oneLine(g.text(c.Comm))
		}
		// Remove the clause's text whole; gofmt is not needed for it to
		// compile.
		g.replace(DropCase, c, "", "dropped: "+label)
	}
}

func exprs(g *generator, list []ast.Expr) string {
	var parts []string
	for _, e := range list {
		parts = append(parts, g.text(e))
	}
	return strings.Join(parts, ", ")
}

// isErrCheck reports whether cond is `err != nil` for a variable whose
// name says it holds an error (err, or anything ending in Err).
func isErrCheck(cond ast.Expr) bool {
	b, ok := cond.(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	id, ok := b.X.(*ast.Ident)
	nilY, ok2 := b.Y.(*ast.Ident)
	return ok && ok2 && nilY.Name == "nil" && (id.Name == "err" || strings.HasSuffix(id.Name, "Err"))
}
