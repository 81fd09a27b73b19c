// Package layering holds the course's layers to what a reader sees in ls:
// internal/ is the code given to learners, which imports nothing of the
// grader or the tools; the grader's own packages never import package
// grader, their parent; and the tools use the grader only through its
// public packages (Go's internal rule already refuses the rest). Its test
// reads the imports with go list.
package layering
