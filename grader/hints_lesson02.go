package grader

// hintsLesson02 are the levelled hints of lesson 02's checks.
var hintsLesson02 = map[string]Hint{}
