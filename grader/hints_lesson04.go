package grader

// hintsLesson04 are the levelled hints of lesson 04's checks.
var hintsLesson04 = map[string]Hint{}
