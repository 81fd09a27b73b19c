package interop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notesTools are the tools of the course's notes server (internal/mcp).
var notesTools = []string{"echo", "add_note", "list_notes", "countdown", "history"}

// courseModule is the module path of the repository whose servers we test.
const courseModule = "mcpcourse"

// buildTimeout bounds one go build. The first build of a fresh checkout
// compiles the standard library packages it needs, so it gets some room.
const buildTimeout = 2 * time.Minute

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
	builds   = map[string]*build{} // by package path
)

// buildServer compiles the course package pkg (a path relative to the
// repository root, such as "./solutions/01-stdio/cmd/server") and returns the
// path of the binary. The first call for a package builds it; later calls,
// from any test, return the same binary.
//
// Tests run a built binary rather than "go run", because go run puts a go
// process between the client and the server: signals and exit codes would
// then reach the wrong process.
func buildServer(t testing.TB, pkg string) string {
	t.Helper()

	buildsMu.Lock()
	b := builds[pkg]
	if b == nil {
		b = &build{}
		builds[pkg] = b
	}
	buildsMu.Unlock()

	// The mutex is not held while building, so that two different
	// packages can build at the same time; the Once makes callers for the
	// same package wait for the one build.
	b.once.Do(func() { b.path, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatalf("building %s: %v", pkg, b.err)
	}
	return b.path
}

// goBuild runs go build for pkg in the repository root.
func goBuild(pkg string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(binDir, binaryName(pkg))

	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	// "go" is the toolchain running these tests: go test puts its own
	// GOROOT/bin first on the PATH of the test process.
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, output)
	}
	return out, nil
}

// repoRoot finds the course repository: the nearest directory, from the
// test's working directory (the interop directory) upwards, whose go.mod
// declares the course module. Walking up, rather than assuming "..", keeps
// working if this package ever moves deeper.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if modulePath(filepath.Join(dir, "go.mod")) == courseModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod for module " + courseModule + " above the working directory")
		}
		dir = parent
	}
}

// modulePath returns the module path declared by a go.mod file, or "" if the
// file cannot be read or declares none.
func modulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// binaryName names the binary of a course package:
// "./solutions/01-stdio/cmd/server" becomes "stdio-server", and
// "./solutions/02-streamable-http/cmd/server" "streamable-http-server".
// A path of another shape becomes its elements joined with "-", which is
// still unique per package.
func binaryName(pkg string) string {
	parts := strings.Split(path.Clean(pkg), "/")
	name := strings.Join(parts, "-")
	if len(parts) == 4 && parts[0] == "solutions" && parts[2] == "cmd" {
		stage := parts[1]
		if i := strings.IndexByte(stage, '-'); i >= 0 {
			stage = stage[i+1:] // drop the "01-" stage number
		}
		name = stage + "-" + parts[3]
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// syncBuffer is a bytes.Buffer safe for concurrent use. A server's stderr is
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

// logOnFailure arranges for the server's stderr to appear in the test log
// if the test fails, which is where a server explains what went wrong.
func logOnFailure(t testing.TB, name string, stderr *syncBuffer) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, stderr.String())
		}
	})
}

// callTool calls a tool that is expected to succeed, and returns the text of
// the single text item in its result. It does not depend on the transport,
// so every interop test can use it.
func callTool(ctx context.Context, t testing.TB, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err, "tools/call %s", params.Name)
	require.False(t, res.IsError, "tool %s reported an error: %+v", params.Name, res.Content)
	require.Len(t, res.Content, 1, "tool %s result content", params.Name)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "tool %s returned %T, not text", params.Name, res.Content[0])
	return text.Text
}

// progressTimeout bounds the wait for progress notifications that the SDK
// delivers after the response they belong to.
const progressTimeout = 5 * time.Second

// checkCountdown calls countdown with a progress token. The server sends the
// progress notifications before the response (on HTTP, on the request's SSE
// stream). Exactly three notifications must reach the handler.
func checkCountdown(ctx context.Context, t *testing.T, cs *mcp.ClientSession, progress <-chan *mcp.ProgressNotificationParams) {
	t.Helper()
	const token = "interop-countdown"
	params := &mcp.CallToolParams{
		Name:      "countdown",
		Arguments: map[string]any{"from": 3, "interval_ms": 20},
	}
	params.SetProgressToken(token)
	got := callTool(ctx, t, cs, params)
	assert.Equal(t, "Liftoff! Counted down from 3.", got, "countdown")

	// The SDK runs notification handlers on another goroutine, so the
	// response can overtake them. Wait for them, but not forever.
	wait, cancel := context.WithTimeout(ctx, progressTimeout)
	defer cancel()
	var steps []float64
	for len(steps) < 3 {
		select {
		case p := <-progress:
			assert.Equal(t, token, p.ProgressToken, "progressToken must echo the request's token")
			assert.Equal(t, 3.0, p.Total, "total")
			steps = append(steps, p.Progress)
		case <-wait.Done():
			t.Fatalf("got %d progress notifications within %v, want 3", len(steps), progressTimeout)
		}
	}
	// Progress MUST increase with each notification (utilities/progress).
	for i := 1; i < len(steps); i++ {
		assert.Greater(t, steps[i], steps[i-1], "progress must increase: %v", steps)
	}
	assert.Equal(t, 3.0, steps[len(steps)-1], "the last notification reports the whole countdown")
}

// assertNoMoreProgress checks, after Close, that no progress notification
// beyond the three expected arrived. Close waits for queued notification
// handlers to finish, so a surplus would be in the channel by now.
func assertNoMoreProgress(t *testing.T, progress <-chan *mcp.ProgressNotificationParams) {
	t.Helper()
	select {
	case p := <-progress:
		t.Errorf("more progress notifications than countdown steps; extra: %+v", p)
	default:
	}
}
