package check

import (
	"fmt"
	"slices"
	"strings"
)

// Mode is the kind of Streamable HTTP server a check grades.
type Mode int

const (
	// Stateful: a server that issues session ids (the default).
	Stateful Mode = iota
	// Stateless: a server without sessions (a course server started with
	// -stateless).
	Stateless
	// AnyMode: the check holds for servers with sessions and without. The
	// grader starts a course server for it with sessions.
	AnyMode
)

// Needs says what a check asks of its target beyond a running server of
// the lesson's transport that serves the tool contract (echo, add_note,
// list_notes, countdown). The zero value asks for nothing more, of a
// server with sessions.
type Needs struct {
	// Mode is the kind of HTTP server the check grades.
	Mode Mode
	// Flags are flags of the course's own servers that the check starts
	// the server with, such as "-session-timeout": an external server has
	// no such flags, or not with the same meaning.
	Flags []string
	// Restart: the check starts the server itself, more than once or with
	// command-line arguments of its own. The grader runs an external stdio
	// command afresh for every check, but it cannot restart a server at a
	// URL.
	Restart bool
	// Signal: the check sends the server SIGTERM, which the grader can do
	// to an external stdio command it started, but not to a server at a
	// URL, which someone else started.
	Signal bool
	// Allowlist, when set, is the Origin allowlist the check starts the
	// server with and relies on (which origins are allowed, and which
	// look-alikes are not). A server at a URL must claim exactly these
	// patterns (Target.AllowOrigins). A check of lesson 04 without it
	// relies only on foreign origins (http://evil.example, null) being
	// refused.
	Allowlist []string
	// Course names behaviour of the course's own server that the check
	// relies on beyond the tool contract, such as "the WebSocket at /ws".
	Course string
	// Source: the check reads the server's Go source, not the wire (a
	// source check), which only a server the grader built has
	// (Target.Sources).
	Source bool
	// Optional lists what the check relies on that the spec leaves a
	// server free to offer or not. Whether an external server offers it is
	// known only once it answers: a server without it skips the check then
	// (T.Skip), and a check that finds it missing without declaring it fails
	// as a grader bug (T.Relies).
	Optional []Feature
}

// Feature is something the spec leaves a server free to offer, which some
// checks rely on. The course's servers offer every one.
type Feature string

const (
	// GETStream: the standalone SSE stream a GET opens (a server may
	// answer GET with 405 instead).
	GETStream Feature = "the standalone GET stream"
	// EventIDs: ids on SSE events, which resumption with Last-Event-ID
	// needs (MAY).
	EventIDs Feature = "event ids"
	// History: the history tool, beyond the tool contract, which tells how
	// each of a session's tool calls ended.
	History Feature = "the history tool"
)

// Relies notes that the check relies on f, which the spec leaves optional.
// A check that does not declare f in Needs.Optional fails, as a grader bug:
// grader/EXTERNAL.md lists the checks by what they declare, and a server
// without f skips the checks that rely on it.
func (t *T) Relies(f Feature) {
	if t.Check != nil && !slices.Contains(t.Check.Needs.Optional, f) {
		t.Fail(Failure{What: fmt.Sprintf("grader bug: %s relies on %s, which a server may lack, but does not declare it in Needs.Optional", t.Check.ID, f)})
	}
}

// Unmet says why the target cannot meet n, or "" when it can. A server the
// grader built meets every need.
func (t Target) Unmet(n Needs) string {
	if !t.External() {
		return ""
	}
	// The first reason that applies is the one given, most basic first.
	switch url := t.URL != ""; {
	case url && n.Mode == Stateless && !t.Stateless:
		return "this check grades a server without sessions, and this one has them (grade it again with the stateless option to run it)"
	case url && n.Mode == Stateful && t.Stateless:
		return "this check grades a server with sessions, and this one has none"
	case n.Source:
		return "this check reads the server's Go source, which only a server the grader built has"
	case n.Course != "":
		return "this check relies on " + n.Course + ", which only the course's own server has"
	case len(n.Flags) > 0:
		return fmt.Sprintf("this check starts the server with %s, %s of the course's own servers", strings.Join(n.Flags, " and "), plural(len(n.Flags), "a flag", "flags"))
	case url && n.Restart:
		return "this check starts the server itself, with arguments of its own, and a server at a URL was started by someone else"
	case url && n.Signal:
		return "this check sends SIGTERM to the server, and a server at a URL was started by someone else"
	case url && n.Allowlist != nil && !sameSet(n.Allowlist, t.AllowOrigins):
		claimed := "none"
		if len(t.AllowOrigins) > 0 {
			claimed = strings.Join(t.AllowOrigins, ",")
		}
		return fmt.Sprintf("this check relies on the allowlist %s (it tests wildcards, ports and look-alikes against it), and the server claims %s", strings.Join(n.Allowlist, ","), claimed)
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// SkipReport is the short report of a check skipped for why.
func SkipReport(c *Check, why string) string {
	return fmt.Sprintf("SKIP %s [%s] %s\n  %-7s %s\n", c.ID, c.Severity, c.Title, "why", why)
}
