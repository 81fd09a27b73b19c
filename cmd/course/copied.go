package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mcpcourse/grader/check"
	"mcpcourse/tools/stages"
)

// copiedNote says, in the classroom report, what a "copied" mark means.
const copiedNote = "A stage marked copied holds, file for file, the course's own code after gofmt and import rewriting: " +
	"the reference (what catch-up writes, or solutions/ copied in), or the reference as it stands after a step (what checkpoint writes). " +
	"A pass there is the course's code passing, not the participant's. It is not proof of cheating: catch-up and checkpoint are course commands, " +
	"and the lessons send people who fall behind to them."

// copyIndex knows every version of each stage that the course itself
// writes or ships, as a learner's files: the finished reference (rendered
// as catch-up writes it, and copied straight from solutions/), and the
// state after each step (what checkpoint writes). A stage folder that is
// byte-equal to one of them, after the same rewriting, is a copy.
type copyIndex map[string]map[string]string // stage → digest of its files → what it is

// newCopyIndex renders the versions of the lessons' stages from the
// reference under root: the instructor's course, never a checkout's own
// solutions/, which its owner could have edited.
func newCopyIndex(root string, lessons []*check.Lesson) (copyIndex, error) {
	idx := copyIndex{}
	for _, l := range lessons {
		known := map[string]string{}
		add := func(files stages.Files, what string) {
			d := stageDigest(files)
			if _, ok := known[d]; !ok {
				known[d] = what
			}
		}
		ref, err := stages.Reference(root, l.Stage, false)
		if err != nil {
			return nil, err
		}
		add(ref, "reference")
		raw, err := readStage(filepath.Join(root, "solutions", l.Stage))
		if err != nil {
			return nil, err
		}
		add(raw, "reference")
		last, err := stages.LastStep(root, l.Stage)
		if err != nil {
			return nil, err
		}
		// State 0 is the starter: "not started", not a copy.
		for s := 1; s < last; s++ {
			files, err := stages.State(root, l.Stage, s)
			if err != nil {
				return nil, err
			}
			add(files, fmt.Sprintf("checkpoint %s %d", l.Number, s+1))
		}
		idx[l.Stage] = known
	}
	return idx, nil
}

// copied says which of the course's versions a checkout's stage folder is
// ("reference", "checkpoint 03 2"), or "" when it is none of them.
func (idx copyIndex) copied(checkout, stage string) string {
	known := idx[stage]
	if len(known) == 0 {
		return ""
	}
	files, err := readStage(filepath.Join(checkout, stage))
	if err != nil || len(files) == 0 {
		return ""
	}
	return known[stageDigest(files)]
}

// markCopied sets Copied on each lesson result from the checkout's stages.
func (idx copyIndex) markCopied(checkout string, results []lessonResult) {
	for i := range results {
		results[i].Copied = idx.copied(checkout, results[i].Stage)
	}
}

// readStage reads the Go files of a stage folder as a learner's files
// (stages.AsLearner): its code, without the tests, which a learner may add
// to anything, the files that Go tools ignore (names starting with . or _),
// and whatever else lies there (a server built in place, notes).
func readStage(dir string) (stages.Files, error) {
	files := stages.Files{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name := d.Name(); path != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		files[rel] = stages.AsLearner(rel, data)
		return nil
	})
	return files, err
}

// stageDigest hashes the Go files of a stage, their paths included, tests
// left out: equal digests, the same code.
func stageDigest(files stages.Files) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%x\n", p, sha256.Sum256(files[p]))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
