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

// maxCoreWords is the most a lesson's core path may hold: about an hour
// of work for a Go developer, reading included (issue 9). The depth goes in
// the lesson's deep dives, or in sections whose heading starts "Optional".
const maxCoreWords = 3000

// TestCorePathsAreShort counts the words of each lesson's core path, as
// docgen.CoreWords defines them, and holds them under maxCoreWords.
func TestCorePathsAreShort(t *testing.T) {
	root := options(t).Root
	for _, l := range grader.Lessons() {
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		n := docgen.CoreWords(string(text))
		t.Logf("%s: %d words in the core path", l.Guide, n)
		assert.LessOrEqual(t, n, maxCoreWords, "%s's core path is too long: move depth to %s, or to a section whose heading starts \"Optional\"", l.Guide, l.DeepDives())
	}
}
