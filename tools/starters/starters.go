// Package starters knows what the stage folders held before a learner
// touched them. The course's own tests must grade the pristine starter (it
// has to fail every check that needs the learner's work), and a learner may
// reset a stage to its starter, so both need the starter as it was shipped,
// whatever the learner has since written or committed.
//
// The manifest, grader/starters.sum, lists every file of the starter
// folders with its git blob id (the SHA-1 git gives the file's content).
// Comparing a working copy with the manifest needs no git at all; getting a
// changed file's pristine content back reads it from the clone's git object
// store by that id, which a learner's own commits never remove.
package starters

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// ManifestPath is where the manifest lives, relative to the course root.
const ManifestPath = "grader/starters.sum"

// File is one file of a starter folder.
type File struct {
	Path string // slash-separated, relative to the course root, such as "01-stdio/serve.go"
	Blob string // its git blob id
}

// BlobID returns the id git gives a file with this content
// (git hash-object): the SHA-1 of "blob <size>\x00" and the content.
func BlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Scan lists the files under the given folders of the course root as they
// are now, sorted by path.
func Scan(root string, folders []string) ([]File, error) {
	var files []File
	for _, folder := range folders {
		err := filepath.WalkDir(filepath.Join(root, folder), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, File{Path: filepath.ToSlash(rel), Blob: BlobID(content)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// Write writes the manifest.
func Write(root string, files []File) error {
	var b strings.Builder
	b.WriteString("# The starter folders as the course ships them: git blob id, path.\n")
	b.WriteString("# Generated, with the starter folders, from the regions of solutions/: go run ./tools/coursetest -write-starters\n")
	for _, f := range files {
		fmt.Fprintf(&b, "%s  %s\n", f.Blob, f.Path)
	}
	return os.WriteFile(filepath.Join(root, filepath.FromSlash(ManifestPath)), []byte(b.String()), 0o644)
}

// Read reads the manifest.
func Read(root string) ([]File, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ManifestPath)))
	if err != nil {
		return nil, err
	}
	var files []File
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		blob, path, ok := strings.Cut(line, "  ")
		if !ok {
			return nil, fmt.Errorf("%s: a line is not \"<blob>  <path>\": %q", ManifestPath, line)
		}
		files = append(files, File{Path: path, Blob: blob})
	}
	return files, sc.Err()
}

// Folders returns the top-level folders the manifest covers.
func Folders(files []File) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		top, _, _ := strings.Cut(f.Path, "/")
		if !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	return out
}

// Change is how one file differs from its starter.
type Change struct {
	Path string
	Kind string // "modified", "removed" or "added"
	Blob string // the starter's blob id; "" for an added file
}

// Changes compares the starter folders as they are now with the manifest.
func Changes(root string) ([]Change, error) {
	want, err := Read(root)
	if err != nil {
		return nil, err
	}
	have, err := Scan(root, Folders(want))
	if err != nil {
		return nil, err
	}
	now := map[string]string{}
	for _, f := range have {
		now[f.Path] = f.Blob
	}
	var changes []Change
	for _, f := range want {
		blob, ok := now[f.Path]
		switch {
		case !ok:
			changes = append(changes, Change{Path: f.Path, Kind: "removed", Blob: f.Blob})
		case blob != f.Blob:
			changes = append(changes, Change{Path: f.Path, Kind: "modified", Blob: f.Blob})
		}
		delete(now, f.Path)
	}
	for path := range now {
		changes = append(changes, Change{Path: path, Kind: "added"})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// ErrNoHistory is returned when a pristine file cannot be read back: the
// course is not a git clone, or the clone lacks the object.
var ErrNoHistory = errors.New("the starter's pristine content is not in this folder's git history (is it a git clone?)")

// Pristine returns the content a starter file had when the course shipped,
// from the git object store.
func Pristine(root, blob string) ([]byte, error) {
	cmd := exec.Command("git", "cat-file", "blob", blob)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil || BlobID(out) != blob {
		return nil, fmt.Errorf("%w: blob %s", ErrNoHistory, blob)
	}
	return out, nil
}

// Overlay writes, into dir, the pristine content of every starter file
// that has changed, and a `go build -overlay` file that swaps them in (and
// hides files the learner added). It returns the overlay file's path, or ""
// when nothing has changed. The learner's files are never touched.
func Overlay(root, dir string) (string, error) {
	files, err := Read(root)
	if err != nil {
		return "", err
	}
	replace, err := Replacements(root, dir, Folders(files))
	if err != nil || len(replace) == 0 {
		return "", err
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "starters-overlay.json")
	return path, os.WriteFile(path, data, 0o644)
}

// Replacements returns the `go build -overlay` replacements that put the
// given starter folders back as shipped: the pristine content of each
// changed file, written into dir, and every file the learner added hidden.
func Replacements(root, dir string, folders []string) (map[string]string, error) {
	changes, err := Changes(root)
	if err != nil {
		return nil, err
	}
	replace := map[string]string{}
	for i, c := range changes {
		top, _, _ := strings.Cut(c.Path, "/")
		if !contains(folders, top) {
			continue
		}
		src := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.Kind == "added" {
			replace[src] = "" // deleted, as far as the build can see
			continue
		}
		content, err := Pristine(root, c.Blob)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(src)))
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return nil, err
		}
		replace[src] = dst
	}
	return replace, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
