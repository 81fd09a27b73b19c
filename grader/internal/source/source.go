// Package source reads the Go code of a stage the grader built, for the
// checks that judge code rather than the wire (source checks). It loads a
// package as the go tool builds it, through the same overlay (a variant, a
// step state, the starter), type-checks it with go/types, and follows the
// calls from one of its functions to what they reach.
//
// The grader never imports the learner's packages: it asks the go tool
// for the compiled export data of their imports (go list -export), and
// parses and checks the package's own files itself.
package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Package is one type-checked package of a stage.
type Package struct {
	Path  string // its import path, such as "mcpcourse/02-streamable-http"
	Dir   string // its folder
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info

	root string // the module root, for the file names of positions
}

// listed is what go list says of one package.
type listed struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Error      *struct{ Err string }
}

// Load loads the package pkg (relative to root, such as
// "./02-streamable-http"), reading its files through overlay (a go build
// -overlay file, or "") as the build did.
func Load(ctx context.Context, root, pkg, overlay string) (*Package, error) {
	args := []string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Error"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", pkg, err, stderr.String())
	}
	exports := map[string]string{}
	var target *listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's answer: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		target = &p // -deps lists the package asked for last
	}
	if target == nil {
		return nil, fmt.Errorf("go list %s listed no package", pkg)
	}
	replace, err := readOverlay(overlay)
	if err != nil {
		return nil, err
	}

	p := &Package{Path: target.ImportPath, Dir: target.Dir, Fset: token.NewFileSet(), root: root}
	for _, name := range target.GoFiles {
		path := filepath.Join(target.Dir, name)
		from := path
		if r, ok := replace[path]; ok {
			from = r
		}
		text, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(p.Fset, path, text, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
	}
	imports := importer.ForCompiler(p.Fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(file)
	})
	p.Info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imports}
	if p.Types, err = conf.Check(p.Path, p.Fset, p.Files, p.Info); err != nil {
		return nil, fmt.Errorf("type-checking %s: %w", p.Path, err)
	}
	return p, nil
}

// readOverlay reads the Replace map of a go build -overlay file: each
// file of the build, by its absolute path, and the file that stands in its
// place.
func readOverlay(overlay string) (map[string]string, error) {
	if overlay == "" {
		return nil, nil
	}
	data, err := os.ReadFile(overlay)
	if err != nil {
		return nil, err
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("the overlay %s: %w", overlay, err)
	}
	return o.Replace, nil
}

// Use is one use of another package's function, variable or type, found
// in code a function reaches.
type Use struct {
	Name string         // what is used, such as "rand.Read"
	Pos  token.Position // where, with the file's name relative to the module root
	Via  []string       // the chain of the package's functions from the root to the use, such as [newSessionID, idPart]
}

// Reach follows the code the package's function fn reaches: its body, the
// functions and methods of the package it calls or refers to (closures
// inside them included), and the initializers of the package-level
// variables they use, with every function of the package that assigns to
// those. A call through an interface reaches every method of that name in
// the package. Functions of other packages are not followed: Reach returns,
// for each import path the reached code uses, its first use.
func (p *Package) Reach(fn string) (map[string]Use, error) {
	funcs := map[types.Object]*ast.FuncDecl{}
	methods := map[string][]*ast.FuncDecl{} // by name, for calls through an interface
	vars := map[types.Object][]ast.Node{}   // a package-level variable: its initializer, and the functions that assign to it
	for _, f := range p.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if obj := p.Info.Defs[d.Name]; obj != nil {
					funcs[obj] = d
				}
				if d.Recv != nil {
					methods[d.Name.Name] = append(methods[d.Name.Name], d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok {
						for _, name := range vs.Names {
							if obj := p.Info.Defs[name]; obj != nil {
								vars[obj] = append(vars[obj], vs)
							}
						}
					}
				}
			}
		}
	}
	for _, d := range funcs {
		if d.Body == nil {
			continue
		}
		ast.Inspect(d.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok {
				for _, lhs := range as.Lhs {
					if id, ok := lhs.(*ast.Ident); ok {
						if obj := p.Info.Uses[id]; obj != nil && vars[obj] != nil {
							vars[obj] = append(vars[obj], d)
						}
					}
				}
			}
			return true
		})
	}

	var root *ast.FuncDecl
	if obj := p.Types.Scope().Lookup(fn); obj != nil {
		root = funcs[obj]
	}
	if root == nil {
		return nil, fmt.Errorf("package %s has no function %s", p.Path, fn)
	}

	type work struct {
		node ast.Node
		via  []string
	}
	seen := map[ast.Node]bool{root: true}
	queue := []work{{root, []string{fn}}}
	push := func(n ast.Node, via []string, name string) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		queue = append(queue, work{n, append(append([]string(nil), via...), name)})
	}
	uses := map[string]Use{}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		ast.Inspect(w.node, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				// pkg.Name: the use of another package, by its name.
				if x, ok := sel.X.(*ast.Ident); ok {
					if pn, ok := p.Info.Uses[x].(*types.PkgName); ok {
						p.record(uses, pn.Imported().Path(), pn.Name()+"."+sel.Sel.Name, sel.Sel, w.via)
						return false
					}
				}
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.Info.Uses[id]
			if obj == nil || obj.Pkg() == nil {
				return true // a definition, a builtin, a label
			}
			if pn, ok := obj.(*types.PkgName); ok {
				p.record(uses, pn.Imported().Path(), pn.Name(), id, w.via)
				return true
			}
			if obj.Pkg() != p.Types {
				p.record(uses, obj.Pkg().Path(), qualified(obj), id, w.via)
				return true
			}
			switch obj := obj.(type) {
			case *types.Func:
				obj = obj.Origin()
				if d := funcs[obj]; d != nil {
					push(d, w.via, obj.Name())
				} else if isInterfaceMethod(obj) {
					for _, d := range methods[obj.Name()] {
						push(d, w.via, obj.Name())
					}
				}
			case *types.Var:
				for _, n := range vars[obj] {
					name := obj.Name() // its initializer
					if d, ok := n.(*ast.FuncDecl); ok {
						name = d.Name.Name // a function that assigns to it
					}
					push(n, w.via, name)
				}
			}
			return true
		})
	}
	return uses, nil
}

// record keeps the first use of path.
func (p *Package) record(uses map[string]Use, path, name string, id *ast.Ident, via []string) {
	if _, ok := uses[path]; ok {
		return
	}
	pos := p.Fset.Position(id.Pos())
	if rel, err := filepath.Rel(p.root, pos.Filename); err == nil {
		pos.Filename = filepath.ToSlash(rel)
	}
	uses[path] = Use{Name: name, Pos: pos, Via: via}
}

// qualified names obj as code outside its package writes it: rand.Read, or
// (*rand.Rand).Uint64 for a method.
func qualified(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
			return "(" + types.TypeString(recv.Type(), func(p *types.Package) string { return p.Name() }) + ")." + fn.Name()
		}
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

// isInterfaceMethod reports whether fn is a method of an interface type.
func isInterfaceMethod(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv()
	return recv != nil && types.IsInterface(recv.Type())
}
