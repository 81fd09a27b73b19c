package grader

// Hint is a check's hint in three levels, which the course command gives
// one at a time: a question that turns the learner towards the cause; a
// pointer into the Go standard library or the spec; a near-solution.
type Hint [3]string

// hintTables holds the levelled hints of every lesson, one table per
// lesson file (hints_lessonNN.go), by check id.
var hintTables = []map[string]Hint{hintsLesson01, hintsLesson02, hintsLesson03, hintsLesson04}

// HintFor returns the levelled hint of the check with the given id.
func HintFor(id string) (Hint, bool) {
	for _, table := range hintTables {
		if h, ok := table[id]; ok {
			return h, true
		}
	}
	return Hint{}, false
}

// HintIDs lists the check ids that have a levelled hint, in no order, so
// that a test can find hints left behind by a renamed check.
func HintIDs() []string {
	var ids []string
	for _, table := range hintTables {
		for id := range table {
			ids = append(ids, id)
		}
	}
	return ids
}
