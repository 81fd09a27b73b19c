// Package stagefiles makes a stage folder's files out of its reference:
// the files of solutions/<stage>, pointed at the learner's folders (imports
// of mcpcourse/solutions/… become mcpcourse/…), optionally edited first.
// The course command writes such files into a learner's stage (catch-up,
// checkpoint); the grader and the course's proof build them in place of the
// stage folders with `go build -overlay`, without touching a file.
package stagefiles

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

// Edit changes the content of one reference file before it is rewritten;
// rel is relative to the course root, such as "solutions/01-stdio/serve.go".
// It returns src itself when it has nothing to change.
type Edit func(rel string, src []byte) ([]byte, error)

// Options says which reference files to take, and how to change them.
type Options struct {
	// Tests keeps the reference's _test.go files. A stage part-way through
	// its lesson leaves them out: they test the steps still to write.
	Tests bool
	Edit  Edit // nil: the reference as it is
}

// Reference reads the reference of a stage as the learner's files.
func Reference(root, stage string, o Options) (Files, error) {
	dir := filepath.Join(root, "solutions", stage)
	files := Files{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !o.Tests && strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if o.Edit != nil {
			if data, err = o.Edit("solutions/"+stage+"/"+rel, data); err != nil {
				return err
			}
		}
		if strings.HasSuffix(path, ".go") {
			if data, err = Rewrite(data); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		files[rel] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the reference of %s: %w", stage, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("solutions/%s holds no files", stage)
	}
	return files, nil
}

// Rewrite points a reference file at the learner's stage folders: its
// imports of mcpcourse/solutions/… and the commands in its comments
// (go run ./solutions/…).
func Rewrite(src []byte) ([]byte, error) {
	src = bytes.ReplaceAll(src, []byte(`"`+modulePath+`/solutions/`), []byte(`"`+modulePath+`/`))
	src = bytes.ReplaceAll(src, []byte(`./solutions/`), []byte(`./`))
	return format.Source(src) // import paths sort differently now
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
