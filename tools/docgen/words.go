package docgen

import (
	"regexp"
	"strings"
)

var (
	headingLine = regexp.MustCompile(`^(#+) (.*)$`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	wordLike    = regexp.MustCompile(`[\p{L}\p{N}]`)
)

// MaxCoreWords is the most words a lesson's core path may hold, as
// CoreWords counts them: about an hour of work for a Go developer, reading
// included. The proof's TestCorePathsAreShort holds every lesson to it,
// and the texts that state it take it from here (the part "wordlimit").
const MaxCoreWords = 3000

// CoreWords counts the words of a lesson's core path: every
// whitespace-separated token holding a letter or a digit, tables and lists
// included, outside fenced code blocks (commands, code and captured
// output), HTML comments (the markers of generated parts among them), and
// sections whose heading starts with "Optional" (down to the next heading
// of the same level or above).
func CoreWords(text string) int {
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
