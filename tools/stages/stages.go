package stages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// modulePath is the course module's path, as its go.mod declares it.
const modulePath = "mcpcourse"

// Files are the files of one stage folder, by slash-separated path
// relative to the folder, such as "cmd/server/main.go".
type Files map[string][]byte

// State returns the stage folder as it stands after step s of its lesson:
// 0 is the starter, LastStep the finished reference. The reference's tests
// are left out: they test every step, the ones still to write included.
func State(root, stage string, s int) (Files, error) {
	return renderStage(root, stage, s, false)
}

// Reference returns the finished reference of a stage as the learner's
// files, with its tests when asked: what catch-up writes into a stage.
func Reference(root, stage string, tests bool) (Files, error) {
	last, err := LastStep(root, stage)
	if err != nil {
		return nil, err
	}
	return renderStage(root, stage, last, tests)
}

// LastStep returns the latest step that a region of the stage's reference
// names: the state that is the whole reference.
func LastStep(root, stage string) (int, error) {
	last := 0
	err := eachFile(root, stage, false, func(rel string, src []byte) error {
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := Parse("solutions/"+stage+"/"+rel, src)
		if err == nil {
			last = max(last, f.LastStep())
		}
		return err
	})
	return last, err
}

// Parsed returns the stage's reference files parsed into their regions,
// by path relative to the stage folder (tests left out).
func Parsed(root, stage string) (map[string]*File, error) {
	out := map[string]*File{}
	err := eachFile(root, stage, false, func(rel string, src []byte) error {
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := Parse("solutions/"+stage+"/"+rel, src)
		out[rel] = f
		return err
	})
	return out, err
}

// eachFile calls f with every file of the stage's reference, by path
// relative to solutions/<stage>; tests only when asked.
func eachFile(root, stage string, tests bool, f func(rel string, src []byte) error) error {
	dir := filepath.Join(root, "solutions", stage)
	var rels []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !tests && strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the reference of %s: %w", stage, err)
	}
	if len(rels) == 0 {
		return fmt.Errorf("solutions/%s holds no files", stage)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if err := f(rel, src); err != nil {
			return err
		}
	}
	return nil
}

func renderStage(root, stage string, s int, tests bool) (Files, error) {
	rendered := Files{}
	err := eachFile(root, stage, tests, func(rel string, src []byte) error {
		name := "solutions/" + stage + "/" + rel
		if !strings.HasSuffix(rel, ".go") {
			rendered[rel] = src
			return nil
		}
		f, err := Parse(name, src)
		if err != nil {
			return err
		}
		out := f.Render(s)
		if len(bytes.TrimSpace(out)) == 0 {
			return nil // the file does not exist yet
		}
		rendered[rel] = pointAtLearner(out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A stub may need an import its file lacks (the finished code has no
	// use for errors.New, say): some file of the stage imports it.
	known, err := referenceImports(root, stage)
	if err != nil {
		return nil, err
	}
	for rel, src := range rendered {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		name := "solutions/" + stage + "/" + rel
		fixed, err := fixImports(name, src, known)
		if err != nil {
			return nil, fmt.Errorf("%s after step %d: %w", name, s, err)
		}
		if rendered[rel], err = format.Source(fixed); err != nil {
			return nil, fmt.Errorf("%s after step %d does not parse: %w", name, s, err)
		}
	}
	return rendered, nil
}

// referenceImports collects the imports of every file of the reference.
func referenceImports(root, stage string) (map[string]importSpec, error) {
	files := map[string][]byte{}
	err := eachFile(root, stage, false, func(rel string, src []byte) error {
		if strings.HasSuffix(rel, ".go") {
			files[rel] = pointAtLearner(src)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return knownImports(files)
}

// pointAtLearner points reference code at the learner's stage folders: its
// imports of mcpcourse/solutions/… and the commands in its comments
// (go run ./solutions/…).
func pointAtLearner(src []byte) []byte {
	src = bytes.ReplaceAll(src, []byte(`"`+modulePath+`/solutions/`), []byte(`"`+modulePath+`/`))
	return bytes.ReplaceAll(src, []byte(`./solutions/`), []byte(`./`))
}

// AsLearner is a stage file as the course would render it for a learner:
// a Go file with its imports of mcpcourse/solutions/… (and the commands in
// its comments) pointed at the learner's folders, and gofmt'ed; any other
// file, or one that does not parse, as it is. A file copied by hand from
// solutions/ compares equal, after it, to what catch-up writes.
func AsLearner(rel string, src []byte) []byte {
	if !strings.HasSuffix(rel, ".go") {
		return src
	}
	src = pointAtLearner(src)
	if out, err := format.Source(src); err == nil {
		return out
	}
	return src
}

// WriteStarters writes each stage's starter, state 0, into its folder under
// root: the folder then holds exactly the generated files.
func WriteStarters(root string, stages []string) error {
	for _, stage := range stages {
		files, err := State(root, stage, 0)
		if err != nil {
			return err
		}
		if err := writeFolder(filepath.Join(root, stage), files); err != nil {
			return err
		}
	}
	return nil
}

// writeFolder makes dir hold exactly files.
func writeFolder(dir string, files Files) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if _, keep := files[filepath.ToSlash(rel)]; !keep {
			return os.Remove(path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for rel, content := range files {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Replacements returns the `go build -overlay` replacements that make each
// folder (relative to root) hold exactly its files, as far as a build can
// see: the files are written into dir, and every file on disk that is not
// among them is hidden.
func Replacements(root, dir string, folders map[string]Files) (map[string]string, error) {
	replace := map[string]string{}
	names := make([]string, 0, len(folders))
	for name := range folders {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		folder := filepath.Join(root, filepath.FromSlash(name))
		err := filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			replace[path] = "" // hidden, unless one of the files below is its replacement
			return nil
		})
		if err != nil {
			return nil, err
		}
		for rel, content := range folders[name] {
			dst := filepath.Join(dir, fmt.Sprintf("stage%d-%s", i, strings.ReplaceAll(rel, "/", "_")))
			if err := os.WriteFile(dst, content, 0o644); err != nil {
				return nil, err
			}
			replace[filepath.Join(folder, filepath.FromSlash(rel))] = dst
		}
	}
	return replace, nil
}

// WriteOverlay writes the overlay file for replace into dir and returns
// its path.
func WriteOverlay(dir string, replace map[string]string) (string, error) {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, data, 0o644)
}
