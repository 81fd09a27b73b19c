// Package courseroot finds the course: the folder whose go.mod declares the
// module mcpcourse. Every tool, test and command of the repository finds it
// the same way, by walking up from the working directory, so that each works
// from the course folder, from any folder below it, and from inside the
// modules of their own that live in it (bench/, interop/, or a stage that
// is a module of its own), where go env GOMOD names the inner module.
package courseroot

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the course module's path, as its go.mod declares it.
const Module = "mcpcourse"

// Find returns the course folder above (or at) the working directory.
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return From(dir)
}

// From returns the course folder above (or at) dir.
func From(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if ModulePath(filepath.Join(d, "go.mod")) == Module {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not inside the course: no folder from it upwards has a go.mod that says \"module %s\"; cd into the folder you cloned", dir, Module)
		}
		d = parent
	}
}

// ModulePath returns the module path a go.mod file declares, or "" when the
// file cannot be read or declares none.
func ModulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}
