// Package build compiles the program a lesson grades, once per test run.
//
// The grader never imports the learner's packages: it builds their command
// with the go tool and runs it as a separate process. That way a compile
// error in a later stage cannot stop an earlier lesson from being graded, and
// the program is tested exactly as a real MCP client would run it.
package build

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
)

// Request says what to build.
type Request struct {
	Root    string // the module root, where go.mod is
	Package string // the main package, relative to Root, such as "./01-stdio/cmd/server"
	Overlay string // a `go build -overlay` file that swaps source files, or ""
	Race    bool   // build with the race detector
}

// Error is a failed build, with what the compiler said.
type Error struct {
	Request Request
	Output  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("go build %s failed:\n%s", e.Request.Package, e.Output)
}

type result struct {
	once sync.Once
	path string
	err  error
}

var (
	mu     sync.Mutex
	built  = map[Request]*result{}
	outDir string
)

// Binary builds req, or returns the executable an earlier call built for the
// same request. Builds of different requests may run at the same time.
func Binary(ctx context.Context, req Request) (string, error) {
	mu.Lock()
	r := built[req]
	if r == nil {
		r = &result{}
		built[req] = r
	}
	mu.Unlock()
	r.once.Do(func() { r.path, r.err = compile(ctx, req) })
	return r.path, r.err
}

func compile(ctx context.Context, req Request) (string, error) {
	dir, err := TempDir()
	if err != nil {
		return "", err
	}
	out, err := os.CreateTemp(dir, "target-*"+exeSuffix())
	if err != nil {
		return "", err
	}
	out.Close()

	args := []string{"build", "-o", out.Name()}
	if req.Race {
		args = append(args, "-race")
	}
	if req.Overlay != "" {
		args = append(args, "-overlay", req.Overlay)
	}
	args = append(args, req.Package)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = req.Root
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if output.Len() == 0 {
			output.WriteString(err.Error())
		}
		return "", &Error{Request: req, Output: output.String()}
	}
	return out.Name(), nil
}

// TempDir returns the folder where builds and their inputs go. Cleanup
// removes it.
func TempDir() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if outDir == "" {
		dir, err := os.MkdirTemp("", "mcp-course-grader-")
		if err != nil {
			return "", err
		}
		outDir = dir
	}
	return outDir, nil
}

// Cleanup removes every binary built so far. TestMain calls it on the way out.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if outDir != "" {
		os.RemoveAll(outDir)
		outDir = ""
		built = map[Request]*result{}
	}
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
