package check

// Causes a failure may name (Failure.Cause, T.Suspect): trouble in the
// first things every check relies on, which a lesson's early checks test.
// Each lesson maps them to its own check ids (Lesson.Causes), so that a
// dozen failures with one cause read as one report.
const (
	// CauseStart: the server did not start, or never answered anything.
	CauseStart = "start"
	// CauseInitialize: the initialize handshake failed.
	CauseInitialize = "initialize"
	// CauseSession: a stateful server's initialize response carried no
	// MCP-Session-Id, so no later request could name its session.
	CauseSession = "session"
	// CauseUnimplemented: the server answered 501 Not Implemented, as an
	// unwritten handler does.
	CauseUnimplemented = "unimplemented"
)
