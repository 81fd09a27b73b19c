package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// hintLevels name the three levels of a hint.
var hintLevels = [3]string{"a question", "a pointer into the standard library or the spec", "a near-solution"}

func (a *app) hint(args []string) error {
	fs := a.flags("hint", "ID [--level N]")
	level := fs.Int("level", 0, "show this level (1 to 3) instead of the next one")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("name the check, for example: %s hint STDIO-07 (the failure report starts with its id)", self)
	}
	if *level < 0 || *level > 3 {
		return usageError("--level is 1, 2 or 3")
	}
	return showHint(a.stdout, a.root, rest[0], *level)
}

// showHint prints one level of a check's hint: the given level, or else
// the one after the last level shown for that check. The levels shown are
// remembered in .course/hints.json, so each call steps up one level.
func showHint(w io.Writer, root, id string, level int) error {
	id = strings.ToUpper(strings.TrimSpace(id))
	l, c := findCheck(id)
	if c == nil {
		return usageError("no check %q; check ids look like STDIO-07 or HTTP-12", id)
	}
	path := filepath.Join(root, stateDir, "hints.json")
	shown := map[string]int{}
	if data, err := os.ReadFile(path); err == nil {
		json.Unmarshal(data, &shown)
	}
	again := false
	if level == 0 {
		level = shown[id] + 1
		if level > 3 {
			level, again = 3, true
		}
	}
	fmt.Fprintf(w, "%s · %s (lesson %s, step %d)\n", c.ID, c.Title, l.Number, c.Step)
	text, err := c.Hint.Text(root, level)
	if err != nil {
		return fmt.Errorf("the hint of %s quotes the reference, which this course no longer has as the hint says: %w", id, err)
	}
	fmt.Fprintf(w, "Hint %d of 3, %s:\n\n%s\n\n", level, hintLevels[level-1], wrap(text, "  "))
	switch {
	case again:
		fmt.Fprintf(w, "That was the last level, again. To start over: %s hint %s --level 1\n", self, id)
	case level < 3:
		fmt.Fprintf(w, "Still stuck? Run it again for level %d, %s: %s hint %s\n", level+1, hintLevels[level], self, id)
	default:
		fmt.Fprintf(w, "That is the last level. Step %d of %s explains the rule in full.\n", c.Step, l.Guide)
	}
	if level > shown[id] {
		shown[id] = level
		if err := writeJSON(path, shown); err != nil {
			fmt.Fprintf(w, "(could not remember the level shown: %v)\n", err)
		}
	}
	return nil
}

// findCheck finds a check of any lesson by id.
func findCheck(id string) (*check.Lesson, *check.Check) {
	for _, l := range grader.Lessons() {
		if c := l.Check(id); c != nil {
			return l, c
		}
	}
	return nil, nil
}

// wrap wraps prose at about 100 columns, each line prefixed. Lines that
// start with a tab are code, and keep their lines and indentation.
func wrap(text, prefix string) string {
	const width = 100
	var b strings.Builder
	for _, para := range strings.Split(text, "\n") {
		if strings.HasPrefix(para, "\t") || strings.TrimSpace(para) == "" {
			b.WriteString(strings.TrimRight(prefix+strings.ReplaceAll(para, "\t", "    "), " ") + "\n")
			continue
		}
		line := prefix
		for _, word := range strings.Fields(para) {
			if len(line) > len(prefix) && len(line)+1+len(word) > width {
				b.WriteString(line + "\n")
				line = prefix
			}
			if len(line) > len(prefix) {
				line += " "
			}
			line += word
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
