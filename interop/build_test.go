package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpcourse/tools/courseroot"
)

// buildTimeout bounds one go build. The first build of a fresh checkout
// compiles the standard library packages it needs, so it gets some room.
const buildTimeout = 3 * time.Minute

// binDir holds the server binaries built by this test run. TestMain creates
// it and removes it once every test is done, so that a binary built for one
// test can be reused by the next.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build is one server binary, built at most once per test run.
type build struct {
	once sync.Once
	path string
	err  error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{} // by binary name
)

// buildOnce runs make for name the first time it is asked for, and returns
// the same binary, or the same error, to every later caller.
func buildOnce(t testing.TB, name string, make func(out string) error) string {
	t.Helper()
	buildsMu.Lock()
	b := builds[name]
	if b == nil {
		b = &build{}
		builds[name] = b
	}
	buildsMu.Unlock()

	// The mutex is not held while building, so that two different
	// binaries can build at the same time; the Once makes callers for the
	// same binary wait for the one build.
	b.once.Do(func() {
		out := filepath.Join(binDir, name)
		if runtime.GOOS == "windows" {
			out += ".exe"
		}
		b.path, b.err = out, make(out)
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", name, b.err)
	}
	return b.path
}

// buildServer compiles the course package pkg (a path relative to the
// repository root, such as "./solutions/01-stdio/cmd/server") and returns
// the path of the binary.
//
// Tests run a built binary rather than "go run", because go run puts a go
// process between the client and the server: signals and exit codes would
// then reach the wrong process.
func buildServer(t testing.TB, pkg string) string {
	t.Helper()
	name := strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(filepath.Clean(pkg)), "./"), "/", "-")
	return buildOnce(t, name, func(out string) error {
		root, err := courseroot.Find()
		if err != nil {
			return err
		}
		return goBuild(root, out, pkg, "")
	})
}

// goBuild runs go build for pkg in dir, with an -overlay file if one is
// given. "go" is the toolchain running these tests: go test puts its own
// GOROOT/bin first on the PATH of the test process.
func goBuild(dir, out, pkg, overlay string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	args := []string{"build", "-o", out}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = dir
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v\n%s", err, output)
	}
	return nil
}

// writeOverlay writes a go build -overlay file that replaces the file at
// path (absolute) with content, and returns the overlay file's path.
func writeOverlay(path string, content []byte) (string, error) {
	dir, err := os.MkdirTemp(binDir, "overlay-")
	if err != nil {
		return "", err
	}
	replacement := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(replacement, content, 0o644); err != nil {
		return "", err
	}
	spec, err := json.Marshal(map[string]any{"Replace": map[string]string{path: replacement}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, spec, 0o644)
}

// syncBuffer is a bytes.Buffer safe for concurrent use. A process's output is
// copied into it by a goroutine of os/exec while the test may read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logOnFailure arranges for a process's output to appear in the test log if
// the test fails, which is where a server explains what went wrong.
func logOnFailure(t testing.TB, name string, out *syncBuffer) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, out.String())
		}
	})
}
