package check

import (
	"fmt"
	"regexp"
	"strings"
)

// Claim is a rule the lesson texts state, and how the course's checks hold
// it true, or why none does: a row of grader/CLAIMS.md, whose tables are
// generated from these values.
type Claim struct {
	Claim string // the rule, as the lesson texts state it
	Where string // where they state it, such as "concept, step 1" or "deep dives"
	// How says how the check observes the rule, when that is worth saying
	// (what it sends, what it cannot see from outside); for a claim no check
	// enforces, why none does.
	How string
	// Also names, by id, the other checks that enforce the rule with the
	// check that holds the claim.
	Also []string
}

// Split is a check's row in grader/CLAIMS.md's table of spec rules and
// course rules: for a check whose Course text asks for more than the spec,
// which of its failures break the spec's own rule, and which only the
// course's (see Failure.Spec). Graded on an external server, every failure
// says which kind it is.
type Split struct {
	Rule  string   // what the row is about, such as "progress"
	Parts string   // the spec's part, and the course's
	Also  []string // other checks that split the same way, by id
}

// Checklist is a table of the transport checklist's rules
// (shared/spec/transport-checklist.md) that apply to some of the course's
// lessons, each with the checks that observe it: the checks are not listed
// here but found from the checks' own Checklist ids.
type Checklist struct {
	Lessons []string // the lessons whose checks the table covers, by number
	Rows    []ChecklistRow
}

// ChecklistRow is one rule of the checklist, or a few that go together.
type ChecklistRow struct {
	// Rule starts with the checklist ids it covers, then says what they
	// ask: "C11, C12, C14 the response on the stream, notifications
	// before it, then the end", or "C16 to C18 priming, retry, polling".
	Rule string
	// Notes say how the checks observe the rule, or why none does.
	Notes string
}

var checklistID = regexp.MustCompile(`^[A-Z]\d+[a-z]?$`)

// IDs are the checklist ids the row's Rule starts with.
func (r ChecklistRow) IDs() []string {
	var ids []string
	words := strings.Fields(r.Rule)
	for i := 0; i < len(words); i++ {
		w := strings.TrimSuffix(words[i], ",")
		switch {
		case checklistID.MatchString(w):
			ids = append(ids, w)
		case w == "to" && len(ids) > 0 && i+1 < len(words) && checklistID.MatchString(strings.TrimSuffix(words[i+1], ",")):
			// a range, such as "C16 to C18"
			from, to := ids[len(ids)-1], strings.TrimSuffix(words[i+1], ",")
			var a, b int
			fmt.Sscanf(from[1:], "%d", &a)
			fmt.Sscanf(to[1:], "%d", &b)
			for n := a + 1; n <= b; n++ {
				ids = append(ids, fmt.Sprintf("%c%d", from[0], n))
			}
			i++
		default:
			return ids
		}
	}
	return ids
}

// Observes reports whether c observes one of the row's rules.
func (r ChecklistRow) Observes(c *Check) bool {
	for _, id := range r.IDs() {
		for _, k := range c.Checklist {
			if k == id {
				return true
			}
		}
	}
	return false
}
