package stages

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/starters"
)

// courseRoot is the course module's root: the tests run in tools/stages.
func courseRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(root, "solutions", "01-stdio", "serve.go"))
	return root
}

// stageNames lists the stages the reference has, in course order.
func stageNames(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "solutions"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	return names
}

// TestStartersAreGenerated holds the committed starters to the reference:
// each stage's state 0 is, file for file, what grader/starters.sum lists
// (and the course's own tests hold the stage folders to that manifest).
func TestStartersAreGenerated(t *testing.T) {
	root := courseRoot(t)
	manifest, err := starters.Read(root)
	require.NoError(t, err)
	const fix = "the starters are generated from the reference's regions: run go run ./tools/coursetest -write-starters, and commit the starter folders and " + starters.ManifestPath
	for _, stage := range stageNames(t, root) {
		files, err := State(root, stage, 0)
		require.NoError(t, err)
		want := map[string]string{}
		for rel, content := range files {
			want[stage+"/"+rel] = starters.BlobID(content)
		}
		have := map[string]string{}
		for _, f := range manifest {
			if strings.HasPrefix(f.Path, stage+"/") {
				have[f.Path] = f.Blob
			}
		}
		for path, blob := range want {
			switch got, ok := have[path]; {
			case !ok:
				t.Errorf("%s is a file of the generated starter, but %s does not list it: %s", path, starters.ManifestPath, fix)
			case got != blob:
				t.Errorf("%s is stale: the reference's regions make another starter file than %s lists: %s", path, starters.ManifestPath, fix)
			}
		}
		for path := range have {
			if _, ok := want[path]; !ok {
				t.Errorf("%s lists %s, which the generated starter does not have: %s", starters.ManifestPath, path, fix)
			}
		}
	}
}

// TestNoStateHoldsLaterCode renders every state of every stage and looks in
// it for the code of the steps still to come: no marker survives, and no
// line that a later step's version of a region has alone (a line that some
// earlier version, or the file outside the region, has too may be there).
// The state after step S asks for every later step, with a TODO(step N),
// and for no step already done.
func TestNoStateHoldsLaterCode(t *testing.T) {
	root := courseRoot(t)
	for _, stage := range stageNames(t, root) {
		parsed, err := Parsed(root, stage)
		require.NoError(t, err)
		last, err := LastStep(root, stage)
		require.NoError(t, err)
		for s := 0; s <= last; s++ {
			files, err := State(root, stage, s)
			require.NoError(t, err)
			var all strings.Builder
			for _, content := range files {
				all.Write(content)
			}
			for n := 1; n <= last; n++ {
				todo := "TODO(step " + strconv.Itoa(n) + ")"
				if n <= s {
					assert.NotContains(t, all.String(), todo, "%s after step %d still asks for step %d", stage, s, n)
				} else {
					assert.Contains(t, all.String(), todo, "%s after step %d does not say where step %d's work goes", stage, s, n)
				}
			}
			for rel, f := range parsed {
				have := map[string]bool{}
				for _, l := range strings.Split(string(files[rel]), "\n") {
					assert.False(t, IsMarker(l), "%s after step %d keeps a marker: %q", f.Name, s, l)
					have[normal(l)] = true
				}
				for _, r := range f.Regions() {
					allowed := map[string]bool{}
					for _, l := range f.Outside(r) {
						allowed[normal(l)] = true
					}
					for _, v := range r.Versions {
						if v.Step <= s {
							for _, l := range v.Lines() {
								allowed[normal(l)] = true
							}
						}
					}
					for _, v := range r.Versions {
						if v.Step <= s {
							continue
						}
						for _, l := range v.Lines() {
							if n := normal(l); nonTrivial(n) && !allowed[n] {
								assert.False(t, have[n], "%s after step %d holds a line of step %d (the region at line %d, %q): %s",
									f.Name, s, v.Step, r.Line, r.What, strings.TrimSpace(l))
							}
						}
					}
				}
			}
		}
	}
}

// normal is a line with its white space collapsed: gofmt aligns differently
// once markers are gone.
func normal(line string) string { return strings.Join(strings.Fields(line), " ") }

// nonTrivial reports whether a line says something: not a brace, not a
// bare return, not an empty comment.
func nonTrivial(line string) bool {
	switch line {
	case "", "}", "{", ")", "//", "default:", "return", "return nil", "return true", "return false", "continue", "break":
		return false
	}
	return len(line) > 8
}

// TestDocCommentsHoldNoMarkers keeps go doc's view of the reference clean:
// a marker that touches a declaration's doc comment would show in it.
func TestDocCommentsHoldNoMarkers(t *testing.T) {
	root := courseRoot(t)
	for _, stage := range stageNames(t, root) {
		err := eachFile(root, stage, false, func(rel string, src []byte) error {
			if !strings.HasSuffix(rel, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.ParseComments)
			if err != nil {
				return err
			}
			docs := []*ast.CommentGroup{f.Doc}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					docs = append(docs, d.Doc)
				case *ast.GenDecl:
					docs = append(docs, d.Doc)
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok {
							docs = append(docs, ts.Doc)
						}
					}
				}
			}
			for _, g := range docs {
				if g == nil {
					continue
				}
				for _, c := range g.List {
					assert.False(t, IsMarker(c.Text), "solutions/%s/%s: a doc comment holds the marker %q: keep a blank line between markers and a declaration's doc comment", stage, rel, c.Text)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// TestEveryStateVets builds every state of every stage, on the reference of
// the stages before it, and runs go vet on it: a learner who checks out any
// step gets code that builds and that vet finds nothing in.
func TestEveryStateVets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet on every state of every stage")
	}
	root := courseRoot(t)
	names := stageNames(t, root)
	for i, stage := range names {
		last, err := LastStep(root, stage)
		require.NoError(t, err)
		folders := map[string]Files{}
		for _, before := range names[:i] {
			folders[before], err = Reference(root, before, false)
			require.NoError(t, err)
		}
		for s := 0; s <= last; s++ {
			t.Run(fmt.Sprintf("%s/step%d", stage, s), func(t *testing.T) {
				folders[stage], err = State(root, stage, s)
				require.NoError(t, err)
				dir := t.TempDir()
				replace, err := Replacements(root, dir, folders)
				require.NoError(t, err)
				overlay, err := WriteOverlay(dir, replace)
				require.NoError(t, err)
				cmd := exec.Command("go", "vet", "-overlay="+overlay, "./"+stage+"/...")
				cmd.Dir = root
				out, err := cmd.CombinedOutput()
				assert.NoError(t, err, "go vet on %s after step %d:\n%s", stage, s, out)
			})
		}
	}
}

func TestPointAtLearner(t *testing.T) {
	src := "// Run it: go run ./solutions/02-streamable-http/cmd/server\npackage main\n\nimport (\n\t\"fmt\"\n\n\tstreamable \"mcpcourse/solutions/02-streamable-http\"\n\t\"mcpcourse/internal/mcp\"\n)\n"
	out, err := format.Source(pointAtLearner([]byte(src)))
	require.NoError(t, err)
	assert.Contains(t, string(out), `streamable "mcpcourse/02-streamable-http"`)
	assert.Contains(t, string(out), "go run ./02-streamable-http/cmd/server")
	assert.False(t, strings.Contains(string(out), "solutions"))
}

func TestAsLearnerMakesACopyOfTheReferenceWhatCatchUpWrites(t *testing.T) {
	root := courseRoot(t)
	ref, err := Reference(root, "02-streamable-http", false)
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(root, "solutions", "02-streamable-http", "cmd", "server", "main.go"))
	require.NoError(t, err)
	// Copied by hand, imports untouched, and indented by another editor.
	copied := strings.ReplaceAll(string(src), "\t", "    ")
	assert.Equal(t, string(ref["cmd/server/main.go"]), string(AsLearner("cmd/server/main.go", []byte(copied))))
	assert.Equal(t, "not go {", string(AsLearner("notes.txt", []byte("not go {"))))
	assert.Equal(t, "package x\nfunc (", string(AsLearner("broken.go", []byte("package x\nfunc ("))), "a file that does not parse stays as it is")
}

func TestReplacementsMakeAFolderHoldItsFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	write("solutions/01-x/a.go", "// @step 1: A\n\npackage x\n\nimport _ \"mcpcourse/solutions/00-y\"\n\nconst A = 1\n\n// @end\n")
	write("solutions/01-x/b.go", "package x\n\nconst B = 2\n")
	write("solutions/01-x/a_test.go", "package x\n")
	write("01-x/a.go", "package x // the learner's\n")
	write("01-x/mine.go", "package x // added by the learner\n")

	starter, err := State(root, "01-x", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.go"}, keys(starter), "a.go exists from step 1; tests are never part of a state")
	reference, err := Reference(root, "01-x", true)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go", "a_test.go", "b.go"}, keys(reference))
	assert.Contains(t, string(reference["a.go"]), `"mcpcourse/00-y"`)
	assert.NotContains(t, string(reference["a.go"]), "@step")

	dir := t.TempDir()
	replace, err := Replacements(root, dir, map[string]Files{"01-x": starter})
	require.NoError(t, err)
	assert.Equal(t, "", replace[filepath.Join(root, "01-x", "mine.go")], "a file the stage must not hold is hidden")
	assert.Equal(t, "", replace[filepath.Join(root, "01-x", "a.go")])
	got, err := os.ReadFile(replace[filepath.Join(root, "01-x", "b.go")])
	require.NoError(t, err)
	assert.Equal(t, string(starter["b.go"]), string(got), "a file the folder lacks is added")
	_, err = WriteOverlay(dir, replace)
	require.NoError(t, err)

	require.NoError(t, WriteStarters(root, []string{"01-x"}))
	have, err := os.ReadDir(filepath.Join(root, "01-x"))
	require.NoError(t, err)
	require.Len(t, have, 1, "the folder holds the starter and nothing else")
	assert.Equal(t, "b.go", have[0].Name())
}

func keys(f Files) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
