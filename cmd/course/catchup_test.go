package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// starterCount reads, from the lesson's text, how many of its checks the
// untouched starter passes on finished earlier stages: the ✓ and ! lines of
// the grader's summary in the output it captures for the starter (which
// the course's proofs hold to what the grader prints), and how many checks
// that summary lists.
func starterCount(t *testing.T, root string, l *check.Lesson) (pass, total int) {
	t.Helper()
	text := readFile(t, filepath.Join(root, filepath.FromSlash(l.Guide)))
	marker := "<!-- capture lesson=" + l.Number + " target=starter -->"
	_, block, ok := strings.Cut(text, marker)
	require.True(t, ok, "%s captures no output of its starter (%s)", l.Guide, marker)
	_, block, _ = strings.Cut(block, "```\n")
	block, _, _ = strings.Cut(block, "\n```")
	line := regexp.MustCompile(`(?m)^  ([✓✗!–·]) [A-Z]+-\d+ +step \d`)
	for _, m := range line.FindAllStringSubmatch(block, -1) {
		total++
		if m[1] == "✓" || m[1] == "!" {
			pass++
		}
	}
	require.NotZero(t, total, "the captured output of %s's starter lists no checks", l.Guide)
	return pass, total
}

// checkCount is how many checks a lesson has, as the board writes it.
func checkCount(number string) string {
	return strconv.Itoa(len(grader.LessonByNumber(number).Checks()))
}

// boardLine returns the board's line for a lesson.
func boardLine(t *testing.T, board, number string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(▶ |  )` + number + `  .*$`).FindString(board)
	require.NotEmpty(t, m, "the board has no line for lesson %s:\n%s", number, board)
	return m
}

// TestCatchUpOnAFreshCloneLeavesEveryEarlierStageWorking is the learners'
// path of issue 15: on a fresh clone, catch-up NN then the board. Every
// stage before NN becomes the reference (each backed up, after one
// question), each earlier lesson is done, and the board sends the learner
// to step 1 of lesson NN with the count the lesson states for its starter.
func TestCatchUpOnAFreshCloneLeavesEveryEarlierStageWorking(t *testing.T) {
	if testing.Short() {
		t.Skip("grades every lesson up to the one caught up to")
	}
	for _, n := range []string{"03", "04"} {
		t.Run(n, func(t *testing.T) {
			root := copyCourse(t, t.TempDir())
			l := grader.LessonByNumber(n)
			earlier := grader.Lessons()[:lessonIndex(l)]

			a := newTestApp(root, "y\n")
			require.Equal(t, 0, a.run([]string{"catch-up", n}), "%s%s", a.out, a.errs)
			out := a.out.String()
			assert.Equal(t, 1, strings.Count(out, "[y/N]"), "one question for every stage:\n%s", out)
			var stagesList []string
			for _, e := range earlier {
				stagesList = append(stagesList, e.Stage+"/")
				assert.Regexp(t, regexp.QuoteMeta(e.Stage+"/")+` +replaced by the reference: +lesson `+e.Number+` is not started`, out)
				ref, err := referenceFiles(root, e.Stage)
				require.NoError(t, err)
				same, err := stageHolds(root, e.Stage, ref)
				require.NoError(t, err)
				assert.True(t, same, "%s/ holds the reference", e.Stage)
				assert.Contains(t, out, e.Stage+"/ now holds the reference of lesson "+e.Number)
			}
			assert.Contains(t, out, "Replace "+andList(stagesList)+"? [y/N]")
			assert.Equal(t, len(earlier), strings.Count(out, "Your files are in "), "each stage is backed up")
			assert.Contains(t, out, "Next: lesson "+n+", step 1")

			a = newTestApp(root, "")
			require.Equal(t, 0, a.run(nil), a.errs.String())
			board := a.out.String()
			for _, e := range earlier {
				assert.Contains(t, boardLine(t, board, e.Number), "done", "lesson %s", e.Number)
			}
			pass, total := starterCount(t, root, l)
			line := boardLine(t, board, n)
			assert.True(t, strings.HasPrefix(line, "▶ "), "lesson %s is the current one:\n%s", n, board)
			assert.Contains(t, line, strconv.Itoa(pass)+"/"+strconv.Itoa(total)+" ", "the count %s states for its starter", l.Guide)
			assert.Regexp(t, `Next: lesson `+n+`, step 1\b`, board)

			// Run again, catch-up has nothing to do.
			a = newTestApp(root, "")
			require.Equal(t, 0, a.run([]string{"catch-up", n}), a.errs.String())
			assert.Contains(t, a.out.String(), "nothing to replace")
			assert.NotContains(t, a.out.String(), "[y/N]")

			if n != "04" {
				return
			}
			// Lesson 04's basics fail on working stages 01 to 03 (its server
			// does not start): the stages line says so, and sends the
			// learner to stage 04, not to the catch-up just run.
			writeFile(t, filepath.Join(root, "04-origin", "cmd", "server", "main.go"), "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n")
			a = newTestApp(root, "")
			require.Equal(t, 0, a.run(nil), a.errs.String())
			board = a.out.String()
			assert.Contains(t, board, "stages  lessons 01 to 03 pass, so the stages under 04-origin/ work: the trouble is in 04-origin/ itself")
			assert.NotContains(t, board, "catch-up 04")
		})
	}
}

// TestCatchUpKeepsAStageWhoseLessonPasses: a learner who finished lesson 01
// by hand and began lesson 02 keeps stage 01 as written; stage 02, which
// partly passes, is replaced, after a question that names it alone.
func TestCatchUpKeepsAStageWhoseLessonPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lessons 01 and 02")
	}
	root := copyCourse(t, t.TempDir())
	useReference(t, root, "01-stdio")
	mine := filepath.Join(root, "01-stdio", "serve.go")
	writeFile(t, mine, readFile(t, mine)+"\n// finished by hand\n")
	started := filepath.Join(root, "02-streamable-http", "handler.go")
	writeFile(t, started, readFile(t, started)+"\n// begun\n")
	starter02 := readFile(t, started)

	a := newTestApp(root, "n\n")
	assert.Equal(t, 1, a.run([]string{"catch-up", "03"}))
	out := a.out.String()
	assert.Regexp(t, `01-stdio/ +kept, as you wrote it: +lesson 01 passes \(`+checkCount("01")+` of `+checkCount("01")+`\)`, out)
	assert.Regexp(t, `02-streamable-http/ +replaced by the reference: +lesson 02: \d+ of \d+ pass\n`, out)
	assert.Equal(t, 1, strings.Count(out, "Replace 02-streamable-http/? [y/N]"), out)
	assert.Equal(t, starter02, readFile(t, started), "no means nothing changes")
	backups, _ := filepath.Glob(filepath.Join(root, stateDir, "backups", "*-02-streamable-http*"))
	assert.Empty(t, backups, "no means nothing is backed up either")

	a = newTestApp(root, "y\n")
	require.Equal(t, 0, a.run([]string{"catch-up", "03"}), "%s%s", a.out, a.errs)
	assert.Contains(t, readFile(t, mine), "finished by hand", "a stage whose lesson passes is left as the learner wrote it")
	ref, err := referenceFiles(root, "02-streamable-http")
	require.NoError(t, err)
	same, _ := stageHolds(root, "02-streamable-http", ref)
	assert.True(t, same, "02-streamable-http/ holds the reference")
	backup := backupIn(t, root, a.out.String())
	assert.Equal(t, starter02, readFile(t, filepath.Join(backup, "handler.go")))
	assert.Equal(t, 1, strings.Count(a.out.String(), "Your files are in "), "only the stage replaced is backed up")
	assert.Contains(t, a.out.String(), "Next: lesson 03, step 1")
}

// TestCatchUpGradesAStageOnTheReferenceUnderIt: stage 02 is finished, but
// stage 01 under it is not, so lesson 02 fails as the folders stand. Stage
// 01 is replaced, and stage 02 is graded on the reference of stage 01, as
// it will run: it passes, so it is kept; and the cache holds that grade
// for the course as catch-up leaves it.
func TestCatchUpGradesAStageOnTheReferenceUnderIt(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lessons 01 and 02")
	}
	root := copyCourse(t, t.TempDir())
	useReference(t, root, "02-streamable-http")
	mine := filepath.Join(root, "02-streamable-http", "handler.go")
	writeFile(t, mine, readFile(t, mine)+"\n// mine\n")
	begun := filepath.Join(root, "01-stdio", "serve.go")
	writeFile(t, begun, readFile(t, begun)+"\n// begun\n")

	a := newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"catch-up", "03", "--yes"}), "%s%s", a.out, a.errs)
	out := a.out.String()
	assert.Regexp(t, `01-stdio/ +replaced by the reference: +lesson 01: 0 of `+checkCount("01")+` pass`, out)
	assert.Regexp(t, `02-streamable-http/ +kept, as you wrote it: +lesson 02 passes \(`+checkCount("02")+` of `+checkCount("02")+`\) on the reference of 01-stdio/`, out)
	assert.Contains(t, readFile(t, mine), "// mine")
	assert.NotContains(t, readFile(t, begun), "// begun")

	g, err := newTestApp(root, "").newGrading(false)
	require.NoError(t, err)
	r, ok := g.cached(grader.LessonByNumber("02"))
	require.True(t, ok, "the cache holds lesson 02's grade for the stages as they are now")
	assert.True(t, r.Done())
	entries, err := os.ReadDir(os.TempDir())
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "mcp-course-catch-up-"), "the temporary course %s is left behind", e.Name())
	}
}

func TestStagesKnownSaysWhatTheCourseKnows(t *testing.T) {
	l := grader.LessonByNumber("04")
	reports := "FAIL ORIGIN-03 [MUST] …\n  what    the server did not start\n  stages  " + l.Underneath + "\n  got     …\n"
	done := func(n string) lessonResult {
		r := newLessonResult(grader.LessonByNumber(n), stateGraded)
		for i := range r.Checks {
			r.Checks[i].Status = statusPass
		}
		return r
	}
	assert.Equal(t, reports, stagesKnown(l, reports, nil), "without the earlier lessons' results, the grader's line stays")

	known := stagesKnown(l, reports, []lessonResult{done("01"), done("02"), done("03")})
	assert.Contains(t, known, "stages  lessons 01 to 03 pass, so the stages under 04-origin/ work: the trouble is in 04-origin/ itself, in its cmd/server or in how it hands requests to 03-sse-resume/\n")
	assert.NotContains(t, known, "catch-up")

	failing := done("02")
	failing.Checks[0].Status = statusFail
	known = stagesKnown(l, reports, []lessonResult{done("01"), failing, done("03")})
	n, _ := strconv.Atoi(checkCount("02"))
	assert.Contains(t, known, "stages  lesson 02 does not pass ("+strconv.Itoa(n-1)+" of "+checkCount("02")+"), and 04-origin/ runs on it: finish it first, or run go run ./cmd/course catch-up 04")

	l3 := grader.LessonByNumber("03")
	r3 := strings.ReplaceAll(reports, l.Underneath, l3.Underneath)
	assert.Contains(t, stagesKnown(l3, r3, []lessonResult{done("01"), done("02")}), "stages  lessons 01 and 02 pass, so")
}
