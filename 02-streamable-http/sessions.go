package streamable

import (
	"errors"
	"sync"
	"time"

	"mcpcourse/internal/mcp"
)

// Session is one client's session, known by its id. In stateless mode each
// request has a Session of its own, with no id.
type Session struct {
	*mcp.Session
	id string

	// Guarded by the store's mutex.
	lastUsed time.Time
	active   int // requests running now; a busy session never expires
}

// ID returns the session's MCP-Session-Id, or "" in stateless mode.
func (s *Session) ID() string { return s.id }

// sessionStore holds the live sessions. It ends idle ones after a timeout
// and refuses new ones beyond a cap, so that a flood of initialize requests,
// or clients that never say goodbye, cannot exhaust the server's memory.
type sessionStore struct {
	timeout time.Duration
	max     int

	mu   sync.Mutex
	byID map[string]*Session
	stop chan struct{} // closed by close, to end the sweeper
}

var errTooManySessions = errors.New("too many sessions")

func newSessionStore(timeout time.Duration, maxSessions int) *sessionStore {
	s := &sessionStore{timeout: timeout, max: maxSessions, byID: map[string]*Session{}, stop: make(chan struct{})}
	go s.sweepEvery(max(min(timeout/2, time.Minute), time.Millisecond))
	return s
}

// newSessionID returns a new session id: 128 bits that nobody can guess,
// written in visible ASCII.
func newSessionID() string {
	// TODO(step 2): read 16 bytes from crypto/rand and hex-encode them.
	// Not a counter, a timestamp or math/rand: lesson 02 explains why.
	return ""
}

// create starts a session under a new id, unless the store is full.
func (s *sessionStore) create(server *mcp.Server, id string) (*Session, error) {
	// TODO(step 2): under s.mu, refuse with errTooManySessions when
	// len(s.byID) has reached s.max (sweep the idle ones first), else
	// store &Session{Session: server.NewSession(), id: id, lastUsed: time.Now()}.
	return nil, errTooManySessions
}

// acquire returns the live session with id and marks it busy until release
// is called. An id the store never issued, or one whose session has ended,
// is not found: the server never adopts an id a client made up.
func (s *sessionStore) acquire(id string) (sess *Session, release func(), ok bool) {
	// TODO(step 2): look the id up under s.mu. A session idle past
	// s.timeout has expired: end it and report it not found. Otherwise count
	// it active until release, which also records when it was last used.
	return nil, nil, false
}

// remove ends the session with id, and reports whether there was a live
// one: a session idle past the timeout has already expired, even if the
// sweeper has not come by yet.
func (s *sessionStore) remove(id string) bool {
	// TODO(step 2): under s.mu, end the session (s.endLocked) if it exists,
	// and report whether it was live: one idle past s.timeout, with nothing
	// running, has already expired, as in acquire.
	return false
}

// endLocked forgets a session and cancels what still runs in it. The caller
// holds s.mu.
func (s *sessionStore) endLocked(sess *Session) {
	delete(s.byID, sess.id)
	sess.Close()
}

func (s *sessionStore) sweepEvery(interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-ticker.C:
			s.mu.Lock()
			s.sweepLocked(now)
			s.mu.Unlock()
		}
	}
}

// sweepLocked ends every idle session past its timeout. The caller holds s.mu.
func (s *sessionStore) sweepLocked(now time.Time) {
	// TODO(step 2): end the sessions with no active request whose lastUsed
	// is older than s.timeout.
}

// close ends every session and stops the sweeper.
func (s *sessionStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.stop:
		return // already closed
	default:
		close(s.stop)
	}
	for _, sess := range s.byID {
		s.endLocked(sess)
	}
}
