package source

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ids is a package that mints ids in many ways: each function is a root
// for Reach, and the test says which packages it must reach.
const ids = `package ids

import (
	crand "crypto/rand"
	"encoding/hex"
	"io"
	mrand "math/rand"
	"math/rand/v2"
)

func direct() string {
	var b [16]byte
	crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func viaHelper() string { return encode(fill(16)) }

func fill(n int) []byte {
	b := make([]byte, n)
	read := func() { io.ReadFull(crand.Reader, b) }
	read()
	return b
}

func encode(b []byte) string { return hex.EncodeToString(b) }

type gen struct{ src *mrand.Rand }

func (g *gen) next() uint64 { return g.src.Uint64() }

var shared = &gen{src: mrand.New(mrand.NewSource(1))}

func viaMethodAndVar() uint64 { return shared.next() }

func fromV2() int64 { return rand.Int64() }

type source interface{ draw() uint64 }

type v2source struct{}

func (v2source) draw() uint64 { return rand.Uint64() }

var current source

func init() { current = v2source{} }

func viaInterface() uint64 { return current.draw() }

func unrelated() string { return "x" }
`

func TestReachFollowsTheCalls(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/ids\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ids"), 0o755))
	// The package's file on disk is a decoy: the overlay holds the real one.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ids", "ids.go"), []byte("package ids\n"), 0o644))
	real := filepath.Join(dir, "real.go.txt")
	require.NoError(t, os.WriteFile(real, []byte(ids), 0o644))
	overlay := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlay, []byte(`{"Replace":{"`+filepath.Join(dir, "ids", "ids.go")+`":"`+real+`"}}`), 0o644))

	p, err := Load(context.Background(), dir, "./ids", overlay)
	require.NoError(t, err)
	for fn, want := range map[string][]string{
		"direct":          {"crypto/rand", "encoding/hex"},
		"viaHelper":       {"crypto/rand", "encoding/hex", "io"},
		"viaMethodAndVar": {"math/rand"},
		"fromV2":          {"math/rand/v2"},
		"viaInterface":    {"math/rand/v2"},
		"unrelated":       nil,
	} {
		uses, err := p.Reach(fn)
		require.NoError(t, err, fn)
		var got []string
		for path := range uses {
			got = append(got, path)
		}
		sort.Strings(got)
		assert.Equal(t, want, got, fn)
	}
	uses, _ := p.Reach("viaInterface")
	assert.Equal(t, []string{"viaInterface", "draw"}, uses["math/rand/v2"].Via)
	assert.Equal(t, "rand.Uint64", uses["math/rand/v2"].Name)
	assert.Equal(t, "ids/ids.go", uses["math/rand/v2"].Pos.Filename, "positions name the file the build reads in place of the overlay's")

	_, err = p.Reach("nothing")
	assert.ErrorContains(t, err, "no function nothing")
}
