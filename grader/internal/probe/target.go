package probe

import (
	"debug/buildinfo"

	"mcpcourse/grader/check"
)

// RaceBuilt reports whether the server the grader built was built with the
// race detector (its build settings say -race=true). Such a build keeps
// shadow memory for what it allocates, runs several times slower, and exits
// a second later: a check that measures memory or time allows for it. A
// server the grader did not build (an external command) is taken as not.
func RaceBuilt(t *check.T) bool {
	if t.Target.Binary == "" || len(t.Target.Command) > 0 {
		return false
	}
	info, err := buildinfo.ReadFile(t.Target.Binary)
	if err != nil {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}
