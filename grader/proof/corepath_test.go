package proof

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

// maxCoreWords is the most a lesson's core path may hold: about an hour
// of work for a Go developer, reading included (issue 9). The depth goes in
// the lesson's deep dives, or in sections whose heading starts "Optional".
const maxCoreWords = 3000

// TestCorePathsAreShort counts the words of each lesson's core path, as
// coreWords defines them, and holds them under maxCoreWords.
func TestCorePathsAreShort(t *testing.T) {
	root := options(t).Root
	for _, l := range grader.Lessons() {
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		n := coreWords(string(text))
		t.Logf("%s: %d words in the core path", l.Guide, n)
		assert.LessOrEqual(t, n, maxCoreWords, "%s's core path is too long: move depth to %s, or to a section whose heading starts \"Optional\"", l.Guide, l.DeepDives())
	}
}

var (
	headingLine = regexp.MustCompile(`^(#+) (.*)$`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	wordLike    = regexp.MustCompile(`[\p{L}\p{N}]`)
)

// coreWords counts the words of a lesson's prose: every whitespace-separated
// token holding a letter or a digit, tables and lists included, outside
// fenced code blocks (commands, code and captured output), HTML comments,
// and sections whose heading starts with "Optional" (down to the next
// heading of the same level or above).
func coreWords(text string) int {
	var kept []string
	fenced := false
	skipLevel := 0 // the level of the Optional heading being skipped; 0: none
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			level := len(m[1])
			if skipLevel > 0 && level <= skipLevel {
				skipLevel = 0
			}
			if skipLevel == 0 && strings.HasPrefix(m[2], "Optional") {
				skipLevel = level
			}
		}
		if skipLevel == 0 {
			kept = append(kept, line)
		}
	}
	n := 0
	for _, word := range strings.Fields(htmlComment.ReplaceAllString(strings.Join(kept, "\n"), "")) {
		if wordLike.MatchString(word) {
			n++
		}
	}
	return n
}

func TestCoreWords(t *testing.T) {
	text := "# Title\n\nOne two, three.\n\n```\nnot counted\n```\n\n| a | b |\n|---|---|\n\n## Optional: more\n\nskipped words\n\n### deeper\n\nskipped too\n\n## Back\n\n<!-- a comment -->\nfour → five\n"
	assert.Equal(t, 9, coreWords(text)) // Title One two three a b Back four five
}
