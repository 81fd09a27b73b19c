package proof

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"mcpcourse/grader"
)

// TestEveryCheckHasLevelledHints holds every check to a three-level hint
// (a question, a pointer, a near-solution), which `course hint ID` gives
// one level at a time. A lesson whose hint table is still empty is
// skipped, saying so: a new lesson fills its table (grader/hints_lessonNN.go)
// with its checks, and from then on every one of its checks needs all three
// levels. Hints for checks that no longer exist fail the test too.
func TestEveryCheckHasLevelledHints(t *testing.T) {
	ids := map[string]bool{}
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks {
			ids[c.ID] = true
		}
		t.Run("Lesson"+l.Number, func(t *testing.T) {
			covered := 0
			for _, c := range l.Checks {
				if _, ok := grader.HintFor(c.ID); ok {
					covered++
				}
			}
			if covered == 0 {
				t.Skipf("lesson %s has no levelled hints yet: fill grader/hints_lesson%s.go", l.Number, l.Number)
			}
			for _, c := range l.Checks {
				h, ok := grader.HintFor(c.ID)
				if !assert.True(t, ok, "%s has no levelled hint in grader/hints_lesson%s.go", c.ID, l.Number) {
					continue
				}
				for level, text := range h {
					assert.NotEmpty(t, strings.TrimSpace(text), "%s: hint level %d is empty", c.ID, level+1)
				}
				assert.True(t, strings.HasSuffix(strings.TrimSpace(h[0]), "?"), "%s: hint level 1 should be a question: %q", c.ID, h[0])
			}
		})
	}
	for _, id := range grader.HintIDs() {
		assert.True(t, ids[id], "a levelled hint for %s, which is no check of any lesson", id)
	}
}
