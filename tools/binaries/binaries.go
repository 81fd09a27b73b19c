// Package binaries keeps built programs out of the course's repository.
// Committed finds every executable that git tracks (an ELF, Mach-O or PE
// file, known by its first bytes), which the course's own tests refuse:
// a clone should hold source, and a binary in it is megabytes that no
// review can read. Outputs lists where go build writes each command of the
// repository, which .gitignore must cover so that no one commits one by
// accident.
package binaries

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kind returns "ELF", "Mach-O" or "PE" when r holds an executable (or an
// object or library) of that format, and "" otherwise.
func Kind(r io.ReaderAt) string {
	var head [64]byte
	n, _ := r.ReadAt(head[:], 0)
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return "ELF"
	case len(b) >= 4 && isMachO(b):
		return "Mach-O"
	case len(b) >= 0x40 && bytes.HasPrefix(b, []byte("MZ")):
		// An MS-DOS header is only "MZ"; a PE file's says, at 0x3c,
		// where its "PE\0\0" signature is.
		var sig [4]byte
		if _, err := r.ReadAt(sig[:], int64(binary.LittleEndian.Uint32(b[0x3c:]))); err == nil && sig == [4]byte{'P', 'E', 0, 0} {
			return "PE"
		}
	}
	return ""
}

func isMachO(b []byte) bool {
	switch binary.BigEndian.Uint32(b) {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe: // 32 and 64 bits, either byte order
		return true
	case 0xcafebabe, 0xcafebabf: // a universal ("fat") binary, 32 or 64 bits
		// A Java class file begins with 0xcafebabe too, then its version,
		// 45 or more; a universal binary has a handful of architectures.
		if len(b) < 8 {
			return false
		}
		n := binary.BigEndian.Uint32(b[4:])
		return n > 0 && n < 45
	}
	return false
}

// Committed returns the files git tracks in the repository at root that
// are executables, each as "path (kind)".
func Committed(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var found []string
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue // tracked but deleted in the work tree, or a submodule
		}
		kind := Kind(f)
		f.Close()
		if kind != "" {
			found = append(found, fmt.Sprintf("%s (%s)", name, kind))
		}
	}
	return found, nil
}

// Outputs returns, relative to root and with forward slashes, where go
// build writes the binary of each command (package main) under root: in
// the command's folder (go build there), in the folder above its cmd/
// folder (go build ./cmd/NAME from a stage or a module's subfolder), and
// at the root of its module (go build ./path/to/NAME from there). A path
// that is a folder already is left out: go build refuses to write there.
func Outputs(root string) ([]string, error) {
	var outs []string
	seen := map[string]bool{}
	add := func(p string) {
		if info, err := os.Stat(filepath.Join(root, p)); (err == nil && info.IsDir()) || seen[p] {
			return
		}
		seen[p] = true
		outs = append(outs, filepath.ToSlash(p))
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir // what the go command ignores, and npm's trees
		}
		if !isCommand(path) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		add(filepath.Join(rel, name))
		if parent := filepath.Dir(rel); filepath.Base(parent) == "cmd" {
			add(filepath.Join(filepath.Dir(parent), name))
		}
		module, err := moduleRoot(root, rel)
		if err != nil {
			return err
		}
		add(filepath.Join(module, name))
		return nil
	})
	return outs, err
}

// isCommand reports whether dir holds a package main (its test files
// aside).
func isCommand(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if err == nil && f.Name.Name == "main" {
			return true
		}
	}
	return false
}

// moduleRoot returns the folder, relative to root, of the nearest go.mod
// at or above rel.
func moduleRoot(root, rel string) (string, error) {
	for d := rel; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(root, d, "go.mod")); err == nil {
			return d, nil
		}
		if d == "." || d == string(filepath.Separator) {
			return "", fmt.Errorf("%s is in no module under %s", rel, root)
		}
	}
}
