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

// claimsLessons are the lessons grader/CLAIMS.md covers.
var claimsLessons = []string{"01", "02", "03", "04"}

var checksCell = regexp.MustCompile(`^[A-Z]+-\d+(, [A-Z]+-\d+)*$`)

// TestClaimsTable keeps grader/CLAIMS.md honest: every row names checks
// that exist, or says "none" and why; and every check of the lessons it
// covers enforces at least one row.
func TestClaimsTable(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(options(t).Root, "grader", "CLAIMS.md"))
	require.NoError(t, err)
	known := map[string]bool{}
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks {
			known[c.ID] = true
		}
	}
	named := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "Claim" || cells[0] == "Rule" {
			continue // a header
		}
		rows++
		found := false
		for i, cell := range cells {
			switch {
			case cell == "none":
				found = true
				assert.True(t, i+1 < len(cells) && cells[i+1] != "", "CLAIMS.md says no check enforces %q, but not why", cells[0])
			case checksCell.MatchString(cell):
				found = true
				for _, id := range strings.Split(cell, ", ") {
					assert.True(t, known[id], "CLAIMS.md names %s, which is no check of the course (row %q)", id, cells[0])
					named[id] = true
				}
			default:
				continue
			}
			break
		}
		assert.True(t, found, "CLAIMS.md's row %q names no checks and does not say none", cells[0])
	}
	assert.Greater(t, rows, 50, "CLAIMS.md lost its tables")
	for _, n := range claimsLessons {
		for _, c := range grader.LessonByNumber(n).Checks {
			assert.True(t, named[c.ID], "CLAIMS.md does not say which claim %s enforces", c.ID)
		}
	}
}
