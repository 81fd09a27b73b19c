package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/courseroot"
)

// findRoot finds the course from the working directory (courseroot), and
// says how to get there when it is not above it.
func findRoot() (string, error) {
	root, err := courseroot.Find()
	if err != nil {
		return "", fmt.Errorf("%w, then run %s", err, self)
	}
	return root, nil
}

// lessonArg finds the lesson a command-line argument names: "02", "2" or
// "lesson02".
func lessonArg(arg string) (*check.Lesson, error) {
	n := strings.TrimPrefix(strings.ToLower(arg), "lesson")
	if len(n) == 1 {
		n = "0" + n
	}
	if l := grader.LessonByNumber(n); l != nil {
		return l, nil
	}
	var have []string
	for _, l := range grader.Lessons() {
		have = append(have, l.Number)
	}
	return nil, usageError("no lesson %q; the lessons are %s", arg, strings.Join(have, ", "))
}

// lessonsArg parses a comma-separated list of lessons; "" means all.
func lessonsArg(arg string) ([]*check.Lesson, error) {
	if arg == "" {
		return grader.Lessons(), nil
	}
	var out []*check.Lesson
	for _, part := range strings.Split(arg, ",") {
		l, err := lessonArg(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// lessonIndex returns l's position in the course.
func lessonIndex(l *check.Lesson) int {
	for i, x := range grader.Lessons() {
		if x == l {
			return i
		}
	}
	return -1
}

// stepHeading returns the heading of step n in a lesson's text, such as
// "Step 2 · Sessions", or "step n" when the text cannot be read.
func stepHeading(root string, l *check.Lesson, n int) string {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(l.Guide)))
	if err == nil {
		prefix := fmt.Sprintf("## Step %d ", n)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, prefix) {
				return strings.TrimSpace(strings.TrimPrefix(line, "## "))
			}
		}
	}
	return fmt.Sprintf("step %d", n)
}

// confirm asks a yes/no question on the terminal; anything but yes is no.
func (a *app) confirm(question string) bool {
	fmt.Fprintf(a.stdout, "%s [y/N] ", question)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}
