package mutant

import (
	"go/format"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `package p

import "errors"

const limit = 4

type s struct{ n int }

func (x *s) check(err error, a, b int) (int, error) {
	if err != nil {
		return 0, err
	}
	for i := 0; i < limit; i++ {
		x.n++
	}
	defer x.reset()
	switch {
	case a > b && b >= 0:
		return 1, nil
	default:
	}
	return x.n, errors.New("no")
}

func (x *s) reset() { x.n = 0 }
`

func TestGenerateMakesEachOperatorsMutants(t *testing.T) {
	ms, err := Generate("p.go", []byte(sample))
	require.NoError(t, err)
	byOp := map[Operator][]string{}
	for _, m := range ms {
		byOp[m.Operator] = append(byOp[m.Operator], m.Edit)
		_, err := format.Source(m.Source)
		assert.NoError(t, err, "mutant %s (%s) is not Go", m.ID, m.Edit)
		assert.NotEqual(t, sample, string(m.Source), "mutant %s changes nothing", m.ID)
	}
	assert.Equal(t, []string{"if false (was: err != nil)"}, byOp[IgnoreError])
	assert.Contains(t, byOp[Negate], "negated: !(i < limit)")
	assert.ElementsMatch(t, []string{"i <= limit", "a >= b", "b > 0"}, byOp[Boundary])
	assert.Equal(t, []string{"a > b || b >= 0"}, byOp[SwapLogic])
	assert.ElementsMatch(t, []string{"dropped: x.n++", "dropped: x.n = 0"}, byOp[DropStmt])
	assert.Equal(t, []string{"dropped: defer x.reset()"}, byOp[DropDefer])
	assert.Len(t, byOp[DropReturn], 3)
	assert.Equal(t, []string{"dropped: case a > b && b >= 0"}, byOp[DropCase])
	// limit, i := 0, b >= 0, return 0, return 1 (1 → 2 and 1 → 0).
	assert.ElementsMatch(t, []string{"4 → 5", "4 → 3", "4 → 0", "0 → 1", "0 → 1", "0 → 1", "0 → 1", "1 → 2", "1 → 0"}, byOp[Constant])
}

func TestMutantIDsAreUniqueAndStable(t *testing.T) {
	ms, err := Generate("p.go", []byte(sample))
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, m := range ms {
		assert.False(t, ids[m.ID], "two mutants share the id %s", m.ID)
		ids[m.ID] = true
		assert.True(t, strings.HasPrefix(m.ID, "p.go:"), m.ID)
	}
	// Code added above a mutation moves its line, not its id.
	moved, err := Generate("p.go", []byte(strings.Replace(sample, "const limit = 4\n", "const limit = 4\n\nvar unrelated = true\n", 1)))
	require.NoError(t, err)
	for _, m := range moved {
		if m.Func == "s.check" {
			assert.True(t, ids[m.ID], "the id of %q changed when the code above it moved", m.Edit)
		}
	}
}
