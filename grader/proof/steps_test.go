package proof

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/steps"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/stagefiles"
)

// A lesson promises, step by step, which checks each step turns green. The
// proof holds it to that: it rebuilds the learner's code as it stands after
// each step, as the reference with the later steps' work undone (package
// grader/steps, whose files the course command's checkpoint writes), and grades
// it. After step N, every check of steps 1 to N must pass, and every check
// of a later step must fail, unless the lesson says it goes green early
// (check.Check.Early and EarlyEnds; see GreenAfter).

// TestEachStepTurnsItsChecksGreen grades the code as it stands after each
// step of each lesson: all of them built first, then graded several at once,
// as the variants are.
func TestEachStepTurnsItsChecksGreen(t *testing.T) {
	type state struct {
		lesson  *check.Lesson
		step    int
		target  check.Target
		err     error
		results []check.Result
	}
	var states []*state
	for _, ls := range steps.All() {
		l := grader.LessonByNumber(ls.Number)
		require.NotNil(t, l)
		for n := 1; n <= ls.Steps; n++ {
			states = append(states, &state{lesson: l, step: n})
		}
	}
	root := options(t).Root
	inParallel(len(states), runtime.NumCPU(), func(i int) {
		st := states[i]
		st.target, st.err = buildStepState(root, st.lesson, st.step)
	})
	inParallel(len(states), gradeParallel(), func(i int) {
		if st := states[i]; st.err == nil {
			st.results = grader.RunAll(context.Background(), st.lesson, st.target)
		}
	})
	for _, st := range states {
		st := st
		t.Run("Lesson"+st.lesson.Number+"/step"+strconv.Itoa(st.step), func(t *testing.T) {
			require.NoError(t, st.err, "building lesson %s as it stands after step %d", st.lesson.Number, st.step)
			var wrong []string
			var reports strings.Builder
			for _, r := range st.results {
				c := r.Check
				wantGreen := c.GreenAfter(st.step)
				if (r.Status == check.Pass) == wantGreen {
					continue
				}
				wrong = append(wrong, c.ID)
				if wantGreen {
					reports.WriteString(r.Report + "\n")
				} else {
					reports.WriteString(c.ID + " passes, but the lesson says it is not green after step " + strconv.Itoa(st.step) + " (its step is " + strconv.Itoa(c.Step) + "; check.Check.Early says when it goes green early)\n")
				}
			}
			sort.Strings(wrong)
			assert.Empty(t, wrong, "after step %d of lesson %s, these checks do not match what the lesson says:\n%s",
				st.step, st.lesson.Number, reports.String())
		})
	}
}

// buildStepState builds the lesson's server from the files the course
// command's checkpoint writes for the start of step n+1 (the stage as it
// stands after step n), on the reference of the stages before it, as
// catch-up writes them: what a learner's clone holds after
// go run ./cmd/course checkpoint NN n+1.
func buildStepState(root string, l *check.Lesson, n int) (check.Target, error) {
	folders := map[string]stagefiles.Files{}
	for _, x := range grader.Lessons() {
		var err error
		if x == l {
			folders[x.Stage], err = steps.For(l.Number).Files(root, n)
		} else {
			folders[x.Stage], err = stagefiles.Reference(root, x.Stage, stagefiles.Options{})
		}
		if err != nil {
			return check.Target{}, err
		}
		if x == l {
			break
		}
	}
	tmp, err := build.TempDir()
	if err != nil {
		return check.Target{}, err
	}
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("lesson%s-step%d-", l.Number, n))
	if err != nil {
		return check.Target{}, err
	}
	replace, err := stagefiles.Replacements(root, dir, folders)
	if err != nil {
		return check.Target{}, err
	}
	o := grader.Options{Root: root, Base: "."}
	req := build.Request{Root: root, Package: o.Package(l)}
	if req.Overlay, err = stagefiles.WriteOverlay(dir, replace); err != nil {
		return check.Target{}, err
	}
	bin, err := build.Binary(context.Background(), req)
	return check.Target{Name: "the code after step " + strconv.Itoa(n), Package: req.Package, Binary: bin}, err
}

// TestLessonTextsListTheChecks holds each lesson's text to the checks: every
// step's "Make it pass" list names exactly the checks of that step, with
// their titles; the early greens the proof allows are the ones the step's
// text mentions; the table of checks (in the lesson or its deep dives)
// lists every check with its step and title; and "Common mistakes" has a
// row for every variant, with the checks that catch it.
func TestLessonTextsListTheChecks(t *testing.T) {
	root := options(t).Root
	for _, ls := range steps.All() {
		l := grader.LessonByNumber(ls.Number)
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		sections := stepSections(string(text))
		// The tables may live in the lesson's companion of deep dives.
		all := string(text)
		if more, err := os.ReadFile(filepath.Join(root, l.DeepDives())); err == nil {
			all += "\n" + string(more)
		}
		for step := 1; step <= ls.Steps; step++ {
			section := sections[step]
			require.NotEmpty(t, section, "%s has no section for step %d", l.Guide, step)
			listed := map[string]string{}
			for _, m := range makeItPassItem.FindAllStringSubmatch(afterHeading(section, "### Make it pass"), -1) {
				listed[m[1]] = strings.TrimSpace(m[2])
			}
			for _, c := range l.Checks() {
				if c.Step != step {
					assert.NotContains(t, listed, c.ID, "%s lists %s under step %d, but it is a step %d check", l.Guide, c.ID, step, c.Step)
					continue
				}
				if assert.Contains(t, listed, c.ID, "%s does not list %s under step %d's \"Make it pass\"", l.Guide, c.ID, step) {
					assert.Equal(t, c.Title, listed[c.ID], "%s: the title of %s under step %d", l.Guide, c.ID, step)
				}
			}
			for _, id := range ls.Early[step] {
				assert.Contains(t, section, id, "%s: step %d does not say that %s goes green early", l.Guide, step, id)
			}
		}
		mistakes := map[string]string{}
		for _, m := range variantRow.FindAllStringSubmatch(afterHeading(all, "## Common mistakes"), -1) {
			mistakes[m[1]] = m[2]
		}
		for _, v := range variants.ForLesson(ls.Number) {
			caught, ok := mistakes[v.Name]
			if !assert.True(t, ok, "%s's \"Common mistakes\" has no row for the variant %s", l.Guide, v.Name) {
				continue
			}
			want := append([]string(nil), v.Kills...)
			sort.Strings(want)
			got := checkID.FindAllString(caught, -1)
			if strings.HasPrefix(caught, "every check") {
				got = nil
				for _, c := range l.Checks() {
					got = append(got, c.ID)
				}
			}
			sort.Strings(got)
			assert.Equal(t, want, got, "%s: the checks that catch %s", l.Guide, v.Name)
		}
		for _, m := range doneLine.FindAllStringSubmatch(all, -1) {
			assert.Equal(t, []string{strconv.Itoa(len(l.Checks())), strconv.Itoa(len(l.Checks()))}, m[1:3],
				"%s says %q, but the lesson has %d checks", l.Guide, m[0], len(l.Checks()))
		}
		courseMap, err := os.ReadFile(filepath.Join(root, "lessons", "README.md"))
		require.NoError(t, err)
		if m := regexp.MustCompile("-run Lesson" + l.Number + "` \\((\\d+) checks\\)").FindStringSubmatch(string(courseMap)); assert.NotNil(t, m, "the course map gives no count of lesson %s's checks", l.Number) {
			assert.Equal(t, strconv.Itoa(len(l.Checks())), m[1], "the course map's count of lesson %s's checks", l.Number)
		}
		rows := map[string][]string{}
		for _, m := range tableRow.FindAllStringSubmatch(all, -1) {
			rows[m[1]] = m
		}
		for _, c := range l.Checks() {
			row, ok := rows[c.ID]
			if assert.True(t, ok, "%s's table of checks has no row for %s", l.Guide, c.ID) {
				assert.Equal(t, strconv.Itoa(c.Step), row[3], "%s's table: the step of %s", l.Guide, c.ID)
				assert.Equal(t, c.Title, row[4], "%s's table: the title of %s", l.Guide, c.ID)
			}
		}
	}
}

var (
	stepHeading    = regexp.MustCompile(`(?m)^## Step (\d+) `)
	makeItPassItem = regexp.MustCompile(`(?m)^- ([A-Z]+-\d+) (?:· )?(.+)$`)
	tableRow       = regexp.MustCompile(`(?m)^\| ([A-Z]+-\d+) \| (MUST|SHOULD) \| (\d+) \| (.+?) \| .* \|$`)
	variantRow     = regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| .* \\| ([^|]+) \\|$")
	checkID        = regexp.MustCompile(`[A-Z]+-\d+`)
	doneLine       = regexp.MustCompile(`(\d+) of (\d+) checks pass\. Lesson \d+ is done`)
)

// stepSections splits a lesson into its "## Step N" sections, by N.
func stepSections(text string) map[int]string {
	out := map[int]string{}
	locs := stepHeading.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if next := strings.Index(text[loc[1]:end], "\n## "); next >= 0 {
			end = loc[1] + next
		}
		n, _ := strconv.Atoi(text[loc[2]:loc[3]])
		out[n] = text[loc[0]:end]
	}
	return out
}

// afterHeading returns the part of section from heading to the next
// heading of the same level or higher.
func afterHeading(section, heading string) string {
	i := strings.Index(section, heading)
	if i < 0 {
		return ""
	}
	rest := section[i+len(heading):]
	level := strings.Fields(heading)[0] // "##", "###"
	for j := 0; j < len(rest); j++ {
		if rest[j] != '\n' || !strings.HasPrefix(rest[j+1:], "#") {
			continue
		}
		hashes := strings.Fields(rest[j+1:])[0]
		if strings.Trim(hashes, "#") == "" && len(hashes) <= len(level) {
			return rest[:j]
		}
	}
	return rest
}
