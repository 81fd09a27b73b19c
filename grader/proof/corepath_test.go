package proof

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/tools/docgen"
)

// TestCorePathsAreShort counts the words of each lesson's core path, as
// docgen.CoreWords defines them (prose, tables and lists; not fenced code,
// commands or captured output), and holds them under docgen.MaxCoreWords:
// about an hour of work for a Go developer, reading included (issue 9).
// The depth goes in the lesson's deep dives, or in sections whose heading
// starts "Optional". The texts that state the limit say so; -v prints the
// counts.
func TestCorePathsAreShort(t *testing.T) {
	root := options(t).Root
	for _, l := range grader.Lessons() {
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		n := docgen.CoreWords(string(text))
		t.Logf("%s: %d words in the core path", l.Guide, n)
		assert.LessOrEqual(t, n, docgen.MaxCoreWords, "%s's core path is too long: move depth to %s, or to a section whose heading starts \"Optional\"", l.Guide, l.DeepDives())
	}
}
