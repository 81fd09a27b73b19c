// Package steps knows each lesson's steps as states of the reference: the
// code as a learner has it after step N is the reference with the work of
// steps N+1 onwards undone, by small edits applied on demand (never copies
// of solution files). Each undo leaves a TODO(step N) where the step's work
// goes back in.
//
// Two users share these states. The course's proof grades each one and holds
// it to what the lesson says its steps turn green; the course command's
// checkpoint writes one into a learner's stage folder, so that a learner
// stuck at a step can start it from the reference's state before it:
//
//	go run ./cmd/course checkpoint 02 3
package steps

import (
	"fmt"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/stagefiles"
)

// Lesson is one lesson's steps.
type Lesson struct {
	Number string
	Steps  int    // how many steps the lesson has
	Undos  []Undo // from the last step backwards

	// Early lists, by step, the checks of later steps that pass already
	// once that step is done, as the lesson's text says.
	Early map[int][]string
}

// Undo is the work of one step, taken back out of the reference.
type Undo struct {
	Step  int
	Edits []variants.Edit
}

// All returns every lesson's steps, in course order.
func All() []*Lesson { return []*Lesson{lesson01, lesson02, lesson03, lesson04} }

// For returns the steps of the lesson numbered n ("01"), or nil.
func For(n string) *Lesson {
	for _, l := range All() {
		if l.Number == n {
			return l
		}
	}
	return nil
}

// After returns the edits that turn the reference into the code as it
// stands after step n, in the order they apply.
func (l *Lesson) After(n int) []variants.Edit {
	var edits []variants.Edit
	for _, u := range l.Undos {
		if u.Step > n {
			edits = append(edits, u.Edits...)
		}
	}
	return edits
}

// Variant is the code after step n as a variant of the reference, for a
// build with -overlay on the solutions' paths.
func (l *Lesson) Variant(n int) *variants.Variant {
	return &variants.Variant{Name: fmt.Sprintf("after-step-%d", n), Lesson: l.Number, Edits: l.After(n)}
}

// Files returns the lesson's stage folder as it stands after step n
// (1 ≤ n ≤ Steps): the reference's files with the later steps undone,
// pointed at the learner's stage folders. The reference's tests are left
// out: they test every step, the ones still to write included.
func (l *Lesson) Files(root string, n int) (stagefiles.Files, error) {
	gl := grader.LessonByNumber(l.Number)
	if gl == nil {
		return nil, fmt.Errorf("no lesson %s", l.Number)
	}
	if n < 1 || n > l.Steps {
		return nil, fmt.Errorf("lesson %s has steps 1 to %d, not %d", l.Number, l.Steps, n)
	}
	edits := l.After(n)
	used := make([]bool, len(edits))
	files, err := stagefiles.Reference(root, gl.Stage, stagefiles.Options{Edit: func(rel string, src []byte) ([]byte, error) {
		text := string(src)
		for i, e := range edits {
			if e.File != rel {
				continue
			}
			if c := strings.Count(text, e.Old); c != 1 {
				return nil, fmt.Errorf("lesson %s's state after step %d no longer applies: the text to replace occurs %d times in %s, not once:\n%s", l.Number, n, c, e.File, e.Old)
			}
			text = strings.Replace(text, e.Old, e.New, 1)
			used[i] = true
		}
		return []byte(text), nil
	}})
	if err != nil {
		return nil, err
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("lesson %s's state after step %d edits %s, which is not a file of the reference of %s", l.Number, n, edits[i].File, gl.Stage)
		}
	}
	return files, nil
}
