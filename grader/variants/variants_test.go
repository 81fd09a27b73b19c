package variants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpcourse/tools/courseroot"
)

// TestEveryEditApplies applies every edit of every variant to the files as
// they are, without building or grading anything: when a change of wording
// in a solution leaves a variant's text behind, this says which variant,
// which file and which text, in a second, rather than at grading time.
func TestEveryEditApplies(t *testing.T) {
	root, err := courseroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, v := range All() {
		key := v.Lesson + "/" + v.Name
		if seen[key] {
			t.Errorf("lesson %s has two variants named %s", v.Lesson, v.Name)
		}
		seen[key] = true
		if len(v.Edits) == 0 {
			t.Errorf("variant %s (lesson %s) edits nothing", v.Name, v.Lesson)
		}
		edited := map[string]string{} // file → its text so far, as Overlay applies the edits
		for i, e := range v.Edits {
			text, ok := edited[e.File]
			if !ok {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
				if err != nil {
					t.Errorf("variant %s (lesson %s), edit %d: %v", v.Name, v.Lesson, i+1, err)
					continue
				}
				text = string(b)
			}
			if e.Old == e.New {
				t.Errorf("variant %s (lesson %s), edit %d of %s changes nothing", v.Name, v.Lesson, i+1, e.File)
			}
			if n := strings.Count(text, e.Old); n != 1 {
				t.Errorf("variant %s (lesson %s) no longer applies: edit %d's text occurs %d times in %s, not once. "+
					"Fix the variant's Old text so that it makes the same mistake. The text:\n%s", v.Name, v.Lesson, i+1, n, e.File, e.Old)
				continue
			}
			edited[e.File] = strings.Replace(text, e.Old, e.New, 1)
		}
	}
}

// TestMayKillIsForRaces: only a racy variant may fail a check by chance,
// and a check it must fail is not one it may fail.
func TestMayKillIsForRaces(t *testing.T) {
	for _, v := range All() {
		if len(v.MayKill) > 0 && !v.Racy {
			t.Errorf("variant %s lists MayKill but is not Racy: a mistake that is not a race fails the same checks every time", v.Name)
		}
		for _, id := range v.MayKill {
			for _, k := range v.Kills {
				if id == k {
					t.Errorf("variant %s lists %s both in Kills and in MayKill", v.Name, id)
				}
			}
		}
	}
}
