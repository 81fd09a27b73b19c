package grader

// hintsLesson03 are the levelled hints of lesson 03's checks.
var hintsLesson03 = map[string]Hint{}
