package grader

// hintsLesson01 are the levelled hints of lesson 01's checks.
var hintsLesson01 = map[string]Hint{}
