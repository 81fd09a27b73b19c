package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// guarded are the parts of a checkout a learner is not meant to edit, by
// what a change there means. The instructor's grader grades every checkout,
// so an edited grader changes nothing but is worth a word; edited given code
// or module files change what the learner's server is built from.
var guarded = []struct {
	what  string
	paths []string
}{
	{"the grader", []string{"grader"}},
	{"the given code", []string{"internal", "go.mod", "go.sum"}},
}

// integrity compares a checkout's guarded files with the instructor's copy
// and returns a warning for each part that differs.
func integrity(instructor, checkout string) []string {
	var warnings []string
	for _, g := range guarded {
		var changes []string
		for _, p := range g.paths {
			changes = append(changes, compareTrees(filepath.Join(instructor, p), filepath.Join(checkout, p), p)...)
		}
		if len(changes) == 0 {
			continue
		}
		sort.Strings(changes)
		shown := changes
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(changes)-5))
		}
		warnings = append(warnings, fmt.Sprintf("%s differs from the instructor's copy: %s", g.what, strings.Join(shown, ", ")))
	}
	return warnings
}

// compareTrees lists the files that differ between two folders (or two
// files), named by their path under label: "edited", "missing" from the
// checkout, or "added" by it.
func compareTrees(want, have, label string) []string {
	a, b := treeFiles(want), treeFiles(have)
	var out []string
	for rel, content := range a {
		name := filepath.ToSlash(filepath.Join(label, rel))
		other, ok := b[rel]
		switch {
		case !ok:
			out = append(out, name+" (missing)")
		case !bytes.Equal(content, other):
			out = append(out, name+" (edited)")
		}
	}
	for rel := range b {
		if _, ok := a[rel]; !ok {
			out = append(out, filepath.ToSlash(filepath.Join(label, rel))+" (added)")
		}
	}
	return out
}

// treeFiles reads a file, or every file under a folder, by relative path
// ("." for a lone file). Build output and dependencies are left out.
func treeFiles(path string) map[string][]byte {
	files := map[string][]byte{}
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != path && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			rel, _ := filepath.Rel(path, p)
			files[rel] = data
		}
		return nil
	})
	return files
}
