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
	"mcpcourse/grader/variants"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/docgen"
)

// What the generator cannot know: where the texts want its parts, and
// what their prose says around them. These tests hold the texts to both.

// TestEveryTextHasItsGeneratedParts: a part the texts should hold but do
// not (a marker deleted, a lesson added without its lists) is stale in a
// way TestGeneratedPartsAreCurrent cannot see.
func TestEveryTextHasItsGeneratedParts(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	files, err := docgen.Texts(root)
	require.NoError(t, err)
	have := map[string]bool{} // "path kind key=value…", keys in a fixed order
	for _, f := range files {
		for _, p := range f.Parts {
			have[f.Path+" "+p.Kind+" lesson="+p.Args["lesson"]+" step="+p.Args["step"]+" variant="+p.Args["variant"]+" need="+p.Args["need"]] = true
		}
	}
	want := func(path, kind, lesson, step, variant, need string) {
		key := path + " " + kind + " lesson=" + lesson + " step=" + step + " variant=" + variant + " need=" + need
		assert.True(t, have[key], "%s has no part <!-- gen:%s lesson=%s step=%s variant=%s need=%s --> (empty keys left out)", path, kind, lesson, step, variant, need)
	}
	for _, l := range grader.Lessons() {
		for s := range l.Steps {
			want(l.Guide, "green", l.Number, strconv.Itoa(s+1), "", "")
		}
		want(l.Guide, "count", l.Number, "", "", "")
		want(l.DeepDives(), "checks", l.Number, "", "", "")
		for _, v := range variants.ForLesson(l.Number) {
			want(l.DeepDives(), "kills", l.Number, "", v.Name, "")
		}
		want("grader/CLAIMS.md", "claims", l.Number, "", "", "")
		if l.Checklist != nil {
			want("grader/CLAIMS.md", "checklist", l.Number, "", "", "")
		}
		want("lessons/README.md", "count", l.Number, "", "", "")
	}
	for _, path := range []string{"README.md", "lessons/README.md", "lessons/INSTRUCTOR.md"} {
		want(path, "wordlimit", "", "", "", "")
	}
	want("grader/CLAIMS.md", "splits", "", "", "", "")
	for _, need := range []string{"stateless", "any-mode", "flags", "restart", "signal", "allowlist", "course", "source"} {
		want("grader/EXTERNAL.md", "needs", "", "", "", need)
	}
}

// TestLessonTextsNameTheirEarlyGreens: a step after which a check of a
// later step already passes (check.Check.Early) says so, since a learner
// who sees it green wonders why; so does the step that turns it red again
// (EarlyEnds).
func TestLessonTextsNameTheirEarlyGreens(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	for _, l := range grader.Lessons() {
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		sections := stepSections(string(text))
		for s := 1; s <= len(l.Steps); s++ {
			require.NotEmpty(t, sections[s], "%s has no section for step %d", l.Guide, s)
			prose := genPart.ReplaceAllString(sections[s], "") // the step's own list names its own checks
			for _, c := range l.Checks() {
				if c.Step > s && c.GreenAfter(s) {
					assert.Contains(t, prose, c.ID, "%s: step %d does not say that %s (step %d) is green after it", l.Guide, s, c.ID, c.Step)
				}
				if c.EarlyEnds == s {
					assert.Contains(t, prose, c.ID, "%s: step %d does not say that it turns %s red again", l.Guide, s, c.ID)
				}
				// A check the untouched starter passes, and that is red after
				// step 1, is one step 1 turns red (ORIGIN-05: the given naive
				// allowlist refuses the wildcards the starter let through).
				if s == 1 && c.StarterMayPass != "" && !c.GreenAfter(1) {
					assert.Contains(t, prose, c.ID, "%s: step 1 does not say that it turns %s red, which the starter passes", l.Guide, c.ID)
				}
			}
		}
	}
}

// TestTheWordLimitIsStatedAsTheProofCountsIt: a text that gives the
// limit on a core path's words takes it from the proof's constant (the
// part wordlimit), and says, in the same paragraph, which command counts
// the words as the proof does: wc -w counts code and captured output too,
// and says more.
func TestTheWordLimitIsStatedAsTheProofCountsIt(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	files, err := docgen.Texts(root)
	require.NoError(t, err)
	limit := regexp.MustCompile(`(?s)<!-- gen:wordlimit -->.*?<!-- /gen -->`)
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		require.NoError(t, err)
		marked := limit.ReplaceAllString(string(text), "LIMIT")
		for _, para := range strings.Split(marked, "\n\n") {
			written := strings.Join(strings.Fields(para), " ")
			assert.NotContains(t, written, docgenThousands(docgen.MaxCoreWords)+" words", "%s states the word limit by hand: use <!-- gen:wordlimit -->", f.Path)
			if strings.Contains(para, "LIMIT") {
				assert.Contains(t, written, "CorePathsAreShort", "%s gives the word limit without the command that counts as the proof does:\n%s", f.Path, para)
			}
		}
	}
}

// docgenThousands writes n as the texts do: 3,000.
func docgenThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var (
	stepHeading = regexp.MustCompile(`(?m)^## Step (\d+) `)
	genPart     = regexp.MustCompile(`(?s)<!-- gen:green .*?<!-- /gen -->`)
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
