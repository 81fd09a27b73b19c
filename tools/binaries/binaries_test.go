package binaries

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/courseroot"
)

// pe returns the first bytes of a PE file: an MS-DOS header whose offset
// at 0x3c points to the "PE\0\0" signature.
func pe() []byte {
	b := make([]byte, 0x90)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], 0x80)
	copy(b[0x80:], "PE\x00\x00")
	return b
}

func TestKind(t *testing.T) {
	be := func(words ...uint32) []byte {
		b := make([]byte, 4*len(words))
		for i, w := range words {
			binary.BigEndian.PutUint32(b[4*i:], w)
		}
		return b
	}
	for _, c := range []struct {
		name string
		head []byte
		want string
	}{
		{"ELF", []byte("\x7fELF\x02\x01\x01\x00"), "ELF"},
		{"Mach-O 64-bit, little-endian", be(0xcffaedfe, 7), "Mach-O"},
		{"Mach-O 32-bit, big-endian", be(0xfeedface, 18), "Mach-O"},
		{"Mach-O universal, 2 architectures", be(0xcafebabe, 2), "Mach-O"},
		{"PE", pe(), "PE"},
		{"a Java class file (0xcafebabe, version 52)", be(0xcafebabe, 52), ""},
		{"text that begins with MZ", append([]byte("MZ is a text file\n"), bytes.Repeat([]byte("x"), 100)...), ""},
		{"Go source", []byte("package main\n"), ""},
		{"empty", nil, ""},
	} {
		assert.Equal(t, c.want, Kind(bytes.NewReader(c.head)), c.name)
	}
}

// TestKindOfARealBinary looks at the test binary itself.
func TestKindOfARealBinary(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	f, err := os.Open(exe)
	require.NoError(t, err)
	defer f.Close()
	assert.NotEmpty(t, Kind(f), "%s is an executable", exe)
}

func TestCommittedFindsTrackedExecutables(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	git("init", "-q")
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	write("main.go", []byte("package main\n"))
	write("cmd/server/server", []byte("\x7fELF\x02\x01\x01\x00rest"))
	write("tool.exe", pe())
	write("untracked", []byte("\x7fELF\x02\x01\x01\x00rest"))
	git("add", "main.go", "cmd/server/server", "tool.exe")

	found, err := Committed(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"cmd/server/server (ELF)", "tool.exe (PE)"}, found)
}

func TestOutputs(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("go.mod", "module x\n")
	write("cmd/tool/main.go", "package main\n")
	write("cmd/tool/main_test.go", "package main\n")
	write("stage/cmd/server/main.go", "package main\n")
	write("stage/lib.go", "package stage\n")
	write("lib/lib_test.go", "package main\n") // a test file alone makes no command
	write("inner/go.mod", "module x/inner\n")
	write("inner/cmd/app/main.go", "package main\n")
	write("inner/app/app.go", "package app\n") // a folder named like the command
	write("inner/node_modules/x/cmd/y/main.go", "package main\n")

	outs, err := Outputs(root)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{
		"cmd/tool/tool", "tool",
		"stage/cmd/server/server", "stage/server", "server",
		"inner/cmd/app/app", // inner/app is a folder: go build cannot write there
	}, outs)
}

// TestEveryBuiltBinaryIsIgnored checks .gitignore against every command of
// the repository: wherever go build may write one, git must ignore it.
func TestEveryBuiltBinaryIsIgnored(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	outs, err := Outputs(root)
	require.NoError(t, err)
	require.NotEmpty(t, outs)
	cmd := exec.Command("git", "-C", root, "check-ignore", "--no-index", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(outs, "\n") + "\n")
	out, _ := cmd.Output() // exit status 1 when none is ignored
	ignored := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ignored[line] = true
	}
	var missing []string
	for _, o := range outs {
		if !ignored[o] {
			missing = append(missing, "/"+o)
		}
	}
	assert.Empty(t, missing, "go build can write these binaries, and .gitignore does not cover them; add:\n%s", strings.Join(missing, "\n"))
	for _, name := range []string{"x.test", "cmd/course/course.exe", "bench/peers/peers.test"} {
		assert.True(t, exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", name).Run() == nil, "%s is ignored", name)
	}
}
