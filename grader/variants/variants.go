// Package variants holds known-bad versions of the reference solutions: each
// is one mistake a learner could plausibly make, written as a small edit to a
// solution file. The course's own tests build every variant and prove that
// the grader catches it, and catches nothing else: a check that no variant
// can fail would be a check that cannot fail.
//
// Names are unique within a lesson; the same mistake can appear in two
// lessons, where it fails different checks. A learner can grade a variant
// too, to see what a mistake looks like:
//
//	GRADER_VARIANT=banner-on-stdout go test ./grader -run Lesson01
package variants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Variant is one known mistake.
type Variant struct {
	Name    string   // names the mistake, such as "banner-on-stdout"
	Lesson  string   // the lesson it belongs to, such as "01"
	Mistake string   // what the code does wrong, in a sentence
	Kills   []string // the ids of exactly the checks that must not pass
	Edits   []Edit

	// Racy marks a mistake that shows only when goroutines happen to
	// interleave, as two unguarded writers do, or only in a window of time
	// a busy machine can close, as a sweeper that runs before a late probe
	// does. The checks provoke it, but on a busy or single-CPU machine a
	// run can miss it,
	// so the course's proof grades such a variant up to a few times until it
	// fails exactly its Kills: a run that misses it, or that the race makes
	// fail another check by chance, is graded again. A failure outside Kills
	// and MayKill that shows in every attempt fails the proof.
	Racy bool
	// MayKill, for a Racy variant, are checks that catch the race too when
	// it happens to show on their traffic, and pass when it does not: the
	// proof accepts either for them, and still wants every one of Kills.
	MayKill []string
}

// Edit replaces one piece of a file of the reference.
type Edit struct {
	File string // relative to the course root, such as "solutions/01-stdio/writer.go"
	Old  string // text that occurs exactly once in the file
	New  string // what replaces it
}

// All returns every variant, grouped by lesson.
func All() []*Variant {
	var all []*Variant
	all = append(all, lesson01...)
	all = append(all, lesson02...)
	all = append(all, lesson03...)
	all = append(all, lesson04...)
	return all
}

// ForLesson returns the variants of one lesson.
func ForLesson(number string) []*Variant {
	var out []*Variant
	for _, v := range All() {
		if v.Lesson == number {
			out = append(out, v)
		}
	}
	return out
}

// Lookup returns the variant of a lesson with the given name, or nil.
func Lookup(lesson, name string) *Variant {
	for _, v := range ForLesson(lesson) {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Names lists the names of a lesson's variants, sorted.
func Names(lesson string) []string {
	var names []string
	for _, v := range ForLesson(lesson) {
		names = append(names, v.Name)
	}
	sort.Strings(names)
	return names
}

// Overlay applies the edits to copies of the files, in a new folder inside
// tmp, and writes a `go build -overlay` file that swaps the copies in. It
// returns the overlay file's path.
func (v *Variant) Overlay(root, tmp string) (string, error) {
	dir, err := os.MkdirTemp(tmp, "variant-"+v.Name+"-")
	if err != nil {
		return "", err
	}
	replace := map[string]string{}
	edited := map[string]string{} // file → its text so far, for several edits to one file
	for _, e := range v.Edits {
		src := filepath.Join(root, filepath.FromSlash(e.File))
		text, ok := edited[src]
		if !ok {
			b, err := os.ReadFile(src)
			if err != nil {
				return "", fmt.Errorf("variant %s: %w", v.Name, err)
			}
			text = string(b)
		}
		if n := strings.Count(text, e.Old); n != 1 {
			return "", fmt.Errorf("variant %s no longer applies: the text to replace occurs %d times in %s, not once:\n%s", v.Name, n, e.File, e.Old)
		}
		edited[src] = strings.Replace(text, e.Old, e.New, 1)
	}
	i := 0
	for src, text := range edited {
		i++
		dst := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(src)))
		if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
			return "", err
		}
		replace[src] = dst
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, overlay, 0o644)
}
