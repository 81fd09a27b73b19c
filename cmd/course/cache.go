package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/starters"
)

// stateDir is the course's own folder for what it keeps between runs
// (cached grades, hint levels, backups). Go tools ignore folders whose name
// starts with a dot, and .gitignore lists it.
const stateDir = ".course"

// Whether a stage folder still holds the starter as shipped.
const (
	stagePristine = "pristine" // every file as the course shipped it
	stageChanged  = "changed"  // the learner has written code here
	stageMissing  = "missing"  // the folder is not there
)

// stageStates compares the stage folders under root with the starter
// manifest under manifestRoot (the same folder, except when grading a
// learner's checkout with the instructor's course). Without a manifest every
// stage counts as changed, so that it is graded.
func stageStates(root, manifestRoot string, lessons []*check.Lesson) map[string]string {
	states := map[string]string{}
	manifest, err := starters.Read(manifestRoot)
	for _, l := range lessons {
		states[l.Stage] = stageState(root, l.Stage, manifest, err)
	}
	return states
}

func stageState(root, stage string, manifest []starters.File, manifestErr error) string {
	if fi, err := os.Stat(filepath.Join(root, stage)); err != nil || !fi.IsDir() {
		return stageMissing
	}
	if manifestErr != nil {
		return stageChanged
	}
	want := map[string]string{}
	for _, f := range manifest {
		if strings.HasPrefix(f.Path, stage+"/") {
			want[f.Path] = f.Blob
		}
	}
	have, err := starters.Scan(root, []string{stage})
	if err != nil || len(want) == 0 || len(have) != len(want) {
		return stageChanged
	}
	for _, f := range have {
		if want[f.Path] != f.Blob {
			return stageChanged
		}
	}
	return stagePristine
}

// fingerprint hashes the content of every file under the given paths
// (folders or files, relative to root) that the build of a server can see:
// Go sources, go.mod and go.sum. Two equal fingerprints mean the grader
// would build the same server.
func fingerprint(root string, paths []string) string {
	h := sha256.New()
	for _, p := range paths {
		var files []string
		filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if name := d.Name(); path != filepath.Join(root, p) && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if name := d.Name(); strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum" || name == "starters.sum" {
				files = append(files, path)
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			rel, _ := filepath.Rel(root, f)
			sum := sha256.Sum256(data)
			fmt.Fprintf(h, "%s\x00%x\n", filepath.ToSlash(rel), sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lessonInputs are the paths a lesson's grade depends on: the stages it
// grades (its own and those it runs on), the given code, the grader and the
// module files.
func lessonInputs(l *check.Lesson) []string {
	return append([]string{"go.mod", "go.sum", "internal", "grader"}, l.Stages...)
}

// gradeCache keeps the latest grade of each lesson, keyed by a content hash
// of everything the grade depends on. It only ever saves work: a result is
// reused only while the hash matches, and the board grades afresh before it
// says the course is done.
type gradeCache struct {
	path    string
	goVer   string // the go command's version, part of every key
	race    bool
	Entries map[string]cacheEntry `json:"entries"` // by lesson number
}

type cacheEntry struct {
	Key    string       `json:"key"`
	Result lessonResult `json:"result"`
}

// openCache reads the cache of the course at root; a missing or unreadable
// cache is an empty one.
func openCache(root string, race bool) *gradeCache {
	c := &gradeCache{path: filepath.Join(root, stateDir, "grades.json"), race: race, Entries: map[string]cacheEntry{}}
	if data, err := os.ReadFile(c.path); err == nil {
		if json.Unmarshal(data, c) != nil || c.Entries == nil {
			c.Entries = map[string]cacheEntry{}
		}
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		c.goVer = strings.TrimSpace(string(out))
	}
	return c
}

func (c *gradeCache) key(root string, l *check.Lesson) string {
	return fmt.Sprintf("v2 %s race=%t %s", c.goVer, c.race, fingerprint(root, lessonInputs(l)))
}

func (c *gradeCache) get(number, key string) (lessonResult, bool) {
	e, ok := c.Entries[number]
	if !ok || e.Key != key {
		return lessonResult{}, false
	}
	e.Result.Cached = true
	return e.Result, true
}

func (c *gradeCache) put(number, key string, r lessonResult) error {
	c.Entries[number] = cacheEntry{Key: key, Result: r}
	return writeJSON(c.path, c)
}

// writeJSON writes v to path as indented JSON, atomically (a temporary
// file renamed into place), creating the folder.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// grading grades lessons of one course, through the cache when it has one.
type grading struct {
	root  string
	opts  grader.Options
	cache *gradeCache // nil: always grade afresh
	fresh bool        // ignore cached results (but update the cache)

	// run grades one lesson for real: gradeNow, except in tests.
	run func(context.Context, *check.Lesson, grader.Options) lessonResult
}

// newGrading grades the course at a.root as the GRADER_* variables say.
// It caches only the learner's own code: not the reference, a variant or
// the pristine starters.
func (a *app) newGrading(fresh bool) (*grading, error) {
	opts, err := grader.OptionsFromEnv()
	if err != nil {
		return nil, err
	}
	opts.Root = a.root
	if opts.Variant != "" && !hasVariant(opts.Variant) {
		return nil, usageError("no lesson has a variant %q: see grader/variants (GRADER_VARIANT)", opts.Variant)
	}
	g := &grading{root: a.root, opts: opts, fresh: fresh, run: gradeNow}
	if filepath.Clean(opts.Base) == "." && opts.Variant == "" {
		g.cache = openCache(a.root, opts.Race)
	}
	return g, nil
}

// ownCode reports whether the grading is of the learner's own stage folders.
func (g *grading) ownCode() bool { return filepath.Clean(g.opts.Base) == "." && g.opts.Variant == "" }

func (g *grading) grade(ctx context.Context, l *check.Lesson) lessonResult {
	var key string
	if g.cache != nil {
		key = g.cache.key(g.root, l)
		if r, ok := g.cache.get(l.Number, key); ok && !g.fresh {
			return r
		}
	}
	r := g.run(ctx, l, g.opts)
	if g.cache != nil && (r.State == stateGraded || r.State == stateBuildError) {
		// A failure to save only costs a re-grade next time.
		_ = g.cache.put(l.Number, key, r)
	}
	return r
}

// cached returns l's grade from the cache when it is valid for the files
// as they are now, without grading.
func (g *grading) cached(l *check.Lesson) (lessonResult, bool) {
	if g.cache == nil {
		return lessonResult{}, false
	}
	return g.cache.get(l.Number, g.cache.key(g.root, l))
}

// hasVariant reports whether any lesson has a known-bad variant of that name.
func hasVariant(name string) bool {
	for _, l := range grader.Lessons() {
		if variants.Lookup(l.Number, name) != nil {
			return true
		}
	}
	return false
}

// earlierCached returns the cached grades of every lesson before l, valid
// for the files as they are; nil unless the cache holds each of them.
func (g *grading) earlierCached(l *check.Lesson) []lessonResult {
	var out []lessonResult
	for _, x := range grader.Lessons()[:max(0, lessonIndex(l))] {
		r, ok := g.cached(x)
		if !ok {
			return nil
		}
		out = append(out, r)
	}
	return out
}
