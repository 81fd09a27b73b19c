package docgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader/check"
)

// lesson99 is a small lesson of two steps, then X-03,
// which passes early after step 1 and the starter may pass.
func lesson99() *check.Lesson {
	c := func(id string, step int, title string) *check.Check {
		return &check.Check{ID: id, Step: step, Title: title, Severity: check.Must, Budget: time.Second,
			Spec: check.Spec{Rev: "2025-11-25", Section: "basic/index"}, Run: func(*check.T) {},
			Hint: check.Hint{Report: "r", Question: "q?", Pointer: "p", Near: "n"}}
	}
	x1, x2, x3 := c("X-01", 1, "one"), c("X-02", 1, "two"), c("X-03", 2, "three")
	x1.Claims = []check.Claim{{Claim: "it answers", Where: "step 1", Also: []string{"X-02"}}}
	x1.Checklist = []string{"A1", "C12"}
	x3.Claims = []check.Claim{{Claim: "it answers later", Where: "step 2", How: "twice"}}
	x3.Course = "the course asks more"
	x3.Early, x3.StarterMayPass = 1, "it is there already"
	x3.Split = &check.Split{Rule: "answers", Parts: "the spec's and the course's", Also: []string{"X-01"}}
	x3.Checklist = []string{"C16"}
	return &check.Lesson{Number: "99", Stage: "99-x", Title: "t", Guide: "lessons/99-x.md", Transport: check.HTTP, Stages: []string{"99-x"},
		Steps: []check.Step{
			{Checks: []*check.Check{x1, x2}, Unchecked: []check.Claim{{Claim: "logs go to stderr", Where: "step 1", How: "never judged"}}},
			{Checks: []*check.Check{x3}},
		},
		Unchecked: []check.Claim{{Claim: "out of scope", Where: "deep dives", How: "later"}},
		Checklist: &check.Checklist{Lessons: []string{"99"}, Rows: []check.ChecklistRow{
			{Rule: "A1 every message is JSON-RPC"},
			{Rule: "C11, C12 the response on the stream"},
			{Rule: "C16 to C18 priming", Notes: "one check"},
			{Rule: "B4 (client)", Notes: "learners write no client"},
		}},
	}
}

func gen(t *testing.T, g *generator, kind string, args map[string]string) string {
	t.Helper()
	out, err := g.part(&Part{Marker: Marker{Kind: kind, Args: args}})
	require.NoError(t, err)
	return out
}

func TestPartsOfALesson(t *testing.T) {
	l := lesson99()
	require.NoError(t, check.ValidateCourse([]*check.Lesson{l}))
	g := &generator{lessons: []*check.Lesson{l}}
	n := map[string]string{"lesson": "99"}
	with := func(k, v string) map[string]string { return map[string]string{"lesson": "99", k: v} }

	assert.Equal(t, "- X-01 · one\n- X-02 · two\n", gen(t, g, "green", with("step", "1")))
	assert.Equal(t, "3", gen(t, g, "count", n))
	assert.Equal(t, "0", gen(t, g, "count", with("after", "0")))
	assert.Equal(t, "3", gen(t, g, "count", with("after", "1")), "X-03 is early after step 1")
	assert.Equal(t, "2", gen(t, g, "count", with("step", "1")))
	assert.Equal(t, "1", gen(t, g, "count", with("starter", "pass")))
	assert.Equal(t, "1", gen(t, g, "count", with("starter", "blocked")), "two fail, one report lists the other")

	assert.Equal(t, "| Claim | Where | Checks | How it is checked, or why it is not |\n|---|---|---|---|\n"+
		"| it answers | step 1 | X-01, X-02 | |\n"+
		"| logs go to stderr | step 1 | none | never judged |\n"+
		"| it answers later | step 2 | X-03 | twice |\n"+
		"| out of scope | deep dives | none | later |\n", gen(t, g, "claims", n))
	assert.Equal(t, "| Rule | Checks | Notes |\n|---|---|---|\n"+
		"| A1 every message is JSON-RPC | X-01 | |\n"+
		"| C11, C12 the response on the stream | X-01 | |\n"+
		"| C16 to C18 priming | X-03 | one check |\n"+
		"| B4 (client) | none | learners write no client |\n", gen(t, g, "checklist", n))
	assert.Equal(t, "| Rule | Checks | The spec's part, and the course's |\n|---|---|---|\n"+
		"| answers | X-03, X-01 | the spec's and the course's |\n", gen(t, g, "splits", map[string]string{}))
	assert.Equal(t, "| Id | Severity | Step | Title | Spec section | Course rule |\n|---|---|---|---|---|---|\n"+
		"| X-01 | MUST | 1 | one | MCP 2025-11-25 · basic/index | |\n"+
		"| X-02 | MUST | 1 | two | MCP 2025-11-25 · basic/index | |\n"+
		"| X-03 | MUST | 2 | three | MCP 2025-11-25 · basic/index | yes |\n", gen(t, g, "checks", n))

	for _, bad := range []map[string]string{{"lesson": "98"}, with("colour", "red"), with("step", "3"), {"lesson": "99", "after": "1", "starter": "pass"}} {
		_, err := g.part(&Part{Marker: Marker{Kind: "count", Args: bad}})
		assert.Error(t, err, "%v", bad)
	}
	_, err := g.part(&Part{Marker: Marker{Kind: "nonsense", Args: n}})
	assert.ErrorContains(t, err, "the parts are")

	assert.Equal(t, "3,000", gen(t, g, "wordlimit", nil), "the limit the proof holds core paths to")

	// A checklist row that no check observes must say why.
	l.Checklist.Rows = append(l.Checklist.Rows, check.ChecklistRow{Rule: "D2 nobody"})
	_, err = g.part(&Part{Marker: Marker{Kind: "checklist", Args: n}})
	assert.ErrorContains(t, err, "do not say why")
}

func TestListsOfIDs(t *testing.T) {
	assert.Equal(t, "SSE-12, SSE-14, SSE-21 to SSE-29, ORIGIN-03", ranges([]string{"SSE-12", "SSE-14", "SSE-21", "SSE-22", "SSE-23", "SSE-24", "SSE-25", "SSE-26", "SSE-27", "SSE-28", "SSE-29", "ORIGIN-03"}))
	assert.Equal(t, "SSE-01, SSE-02, SSE-30", ranges([]string{"SSE-01", "SSE-02", "SSE-30"}), "two in a row are not a range")
	assert.Equal(t, "STDIO-11, -12, -20, HTTP-01", shortIDs([]string{"STDIO-11", "STDIO-12", "STDIO-20", "HTTP-01"}))
	assert.Equal(t, "2,618", thousands(2618))
	assert.Equal(t, "618", thousands(618))
	assert.Equal(t, "nine", inWords(9))
	assert.Equal(t, "30", inWords(30))
}
