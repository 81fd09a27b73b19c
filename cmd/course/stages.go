package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/stages"
	"mcpcourse/tools/starters"
)

// checkpoint starts step S of lesson NN from the reference's state before
// it: the stage folder as a learner has it after steps 1 to S-1, made from
// the regions of the reference (tools/stages): the code of steps 1 to S-1,
// and for step S onwards the starter's stubs, each place marked TODO(step
// N), never a later step's code. The course's proof grades these very
// files, so the checks of steps 1 to S-1 pass, and those of step S and
// later fail, as the lesson says.
func (a *app) checkpoint(args []string) error {
	fs := a.flags("checkpoint", "NN S [--yes]")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usageError("name a lesson and the step to start, for example: %s checkpoint 02 3", self)
	}
	l, err := lessonArg(rest[0])
	if err != nil {
		return err
	}
	last, err := stages.LastStep(a.root, l.Stage)
	if err != nil {
		return err
	}
	step, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(rest[1]), "step"))
	switch {
	case err != nil || step < 1 || step > last:
		return usageError("lesson %s has steps 1 to %d; name the one to start, such as %s checkpoint %s 2", l.Number, last, self, l.Number)
	case step == 1:
		return usageError("step 1 starts from the starter: %s reset %s", self, l.Number)
	}
	want, err := stages.State(a.root, l.Stage, step-1)
	if err != nil {
		return err
	}
	if same, _ := stageHolds(a.root, l.Stage, want); same {
		fmt.Fprintf(a.stdout, "%s/ already holds the checkpoint of lesson %s, step %d. Start step %d: %s\n", l.Stage, l.Number, step, step, stepHeading(a.root, l, step))
		return nil
	}
	fmt.Fprintf(a.stdout, "checkpoint %s %d replaces everything in %s/ with the reference as it stands after step %d\n"+
		"(the code of solutions/%s up to step %d; steps %d to %d are the starter's again, marked TODO(step N); its imports point at your stage folders).\n"+
		"Your files in %s/ are copied to a backup folder first.\n",
		l.Number, step, l.Stage, step-1, l.Stage, step-1, step, last, l.Stage)
	if !*yes && !a.confirm("Replace "+l.Stage+"/?") {
		return &exitError{code: 1, msg: "nothing changed"}
	}
	backup, err := a.replaceStage(l.Stage, want)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Your files are in %s/.\n%s/ now holds the reference as it stands after step %d of lesson %s.\n", backup, l.Stage, step-1, l.Number)
	if err := a.checkBuilds(l); err != nil {
		return err
	}
	done := fmt.Sprintf("steps 1 to %d", step-1)
	if step == 2 {
		done = "step 1"
	}
	fmt.Fprintf(a.stdout, "Next: lesson %s, step %d (%q in %s). The places to write are marked TODO(step %d).\n"+
		"The checks of %s pass now; see for yourself: %s\n", l.Number, step, stepHeading(a.root, l, step), l.Guide, step, done, self)
	return nil
}

// reset puts a stage back to its starter, as the course shipped it.
func (a *app) reset(args []string) error {
	l, yes, err := a.stageCommand("reset", "the lesson whose stage to reset", args)
	if err != nil {
		return err
	}
	want, err := starterFiles(a.root, l.Stage)
	if err != nil {
		return err
	}
	if same, _ := stageHolds(a.root, l.Stage, want); same {
		fmt.Fprintf(a.stdout, "%s/ is the starter as shipped already: nothing to reset.\n", l.Stage)
		return nil
	}
	fmt.Fprintf(a.stdout, "reset %s puts %s/ back as the course shipped it: every file you changed, added or removed there.\n"+
		"Your files in %s/ are copied to a backup folder first.\n", l.Number, l.Stage, l.Stage)
	if !yes && !a.confirm("Reset "+l.Stage+"/ to its starter?") {
		return &exitError{code: 1, msg: "nothing changed"}
	}
	backup, err := a.replaceStage(l.Stage, want)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Your files are in %s/.\n%s/ is the starter again. Start at step 1 of %s.\n", backup, l.Stage, l.Guide)
	return nil
}

// stageCommand parses the command line of a command that rewrites a stage:
// one lesson number, and --yes.
func (a *app) stageCommand(name, what string, args []string) (l *check.Lesson, yes bool, err error) {
	fs := a.flags(name, "NN [--yes]")
	yesFlag := fs.Bool("yes", false, "do not ask for confirmation")
	rest, err := parse(fs, args)
	if err != nil {
		return nil, false, err
	}
	if len(rest) != 1 {
		return nil, false, usageError("name %s, for example: %s %s 02", what, self, name)
	}
	l, err = lessonArg(rest[0])
	return l, *yesFlag, err
}

// referenceFiles reads the reference of a stage, rewritten to be the
// learner's: imports of mcpcourse/solutions/… become mcpcourse/…, and
// commands in comments (go run ./solutions/…) name the learner's folders.
// Paths in the result are relative to the stage folder.
func referenceFiles(root, stage string) (map[string][]byte, error) {
	return stages.Reference(root, stage, true)
}

// starterFiles reads a stage's starter as shipped, from the manifest and
// the git objects it names (see tools/starters). It reads every file
// before anything is changed, so a clone without the history fails cleanly.
func starterFiles(root, stage string) (map[string][]byte, error) {
	manifest, err := starters.Read(root)
	if err != nil {
		return nil, fmt.Errorf("reading the starter manifest: %w", err)
	}
	files := map[string][]byte{}
	for _, f := range manifest {
		rel, ok := strings.CutPrefix(f.Path, stage+"/")
		if !ok {
			continue
		}
		content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil || starters.BlobID(content) != f.Blob {
			if content, err = starters.Pristine(root, f.Blob); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Path, err)
			}
		}
		files[rel] = content
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s lists no starter files for %s", starters.ManifestPath, stage)
	}
	return files, nil
}

// stageHolds reports whether a stage folder holds exactly these files.
func stageHolds(root, stage string, want map[string][]byte) (bool, error) {
	have, err := readTree(filepath.Join(root, stage))
	if err != nil || len(have) != len(want) {
		return false, err
	}
	for path, content := range want {
		if !bytes.Equal(have[path], content) {
			return false, nil
		}
	}
	return true, nil
}

// readTree reads every file under dir, by slash-separated relative path.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	return files, err
}

// replaceStage backs the stage folder up, then makes it hold exactly want.
// It returns the backup folder, relative to the course root.
func (a *app) replaceStage(stage string, want map[string][]byte) (string, error) {
	backup, err := a.backupStage(stage)
	if err != nil {
		return "", fmt.Errorf("backing up %s/ failed, so nothing was changed: %w", stage, err)
	}
	dir := filepath.Join(a.root, stage)
	have, err := readTree(dir)
	if err != nil {
		return backup, err
	}
	for path := range have {
		if _, keep := want[path]; !keep {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(path))); err != nil {
				return backup, err
			}
		}
	}
	if err := writeFiles(dir, want); err != nil {
		return backup, err
	}
	removeEmptyDirs(dir)
	return backup, nil
}

// backupStage copies a stage folder to .course/backups/<time>-<stage>.
func (a *app) backupStage(stage string) (string, error) {
	files, err := readTree(filepath.Join(a.root, stage))
	if err != nil {
		return "", err
	}
	name := time.Now().Format("20060102-150405") + "-" + stage
	rel := filepath.Join(stateDir, "backups", name)
	for n := 2; ; n++ {
		if _, err := os.Stat(filepath.Join(a.root, rel)); errors.Is(err, fs.ErrNotExist) {
			break
		}
		rel = filepath.Join(stateDir, "backups", fmt.Sprintf("%s-%d", name, n))
	}
	dir := filepath.Join(a.root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := writeFiles(dir, files); err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// writeFiles writes files (paths slash-separated, relative to dir) under
// dir, making the folders they need.
func writeFiles(dir string, files map[string][]byte) error {
	for path, content := range files {
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// removeEmptyDirs removes the empty folders under dir (not dir itself).
func removeEmptyDirs(dir string) {
	var dirs []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != dir {
			dirs = append(dirs, path)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, harmlessly, unless empty
	}
}

// checkBuilds builds a lesson's server and reports a failure, which after a
// catch-up means an earlier stage is broken too.
func (a *app) checkBuilds(l *check.Lesson) error {
	defer grader.Cleanup()
	_, err := grader.Prepare(context.Background(), l, grader.Options{Root: a.root, Base: "."})
	if out, ok := grader.BuildOutput(err); ok {
		i := lessonIndex(l)
		more := ""
		if i > 0 {
			more = fmt.Sprintf(" It imports stage %s: if the errors are there, run %s catch-up %s too.", grader.Lessons()[i-1].Stage, self, l.Number)
		}
		return fmt.Errorf("%s/ does not build yet:\n%s%s", l.Stage, out, more)
	}
	return err
}
