package load

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// HTTPOptions describe a Streamable HTTP load.
type HTTPOptions struct {
	URL       string
	PID       int // the server's process, for its CPU and memory
	Clients   int
	Stateless bool        // the server runs without sessions: do not expect a session id
	Header    http.Header // extra headers on every request, such as Origin
	Window
}

// NewClient returns an HTTP client that keeps a connection per worker.
func NewClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			MaxIdleConns:        2 * conns,
			MaxIdleConnsPerHost: 2 * conns,
			DisableCompression:  true,
			IdleConnTimeout:     time.Minute,
		},
		Timeout: 30 * time.Second,
	}
}

// session is one client's conversation with an HTTP server.
type session struct {
	client *http.Client
	url    string
	id     string // MCP-Session-Id, once initialize has given one
	extra  http.Header
	body   bytes.Buffer // the last response's body
	req    []byte
}

// post sends one message and reads the whole answer.
func (s *session) post(msg []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h["Accept"] = []string{"application/json, text/event-stream"}
	h["Content-Type"] = []string{"application/json"}
	h["Mcp-Protocol-Version"] = []string{ProtocolVersion}
	if s.id != "" {
		h["Mcp-Session-Id"] = []string{s.id}
	}
	for k, v := range s.extra {
		h[k] = v
	}
	return s.do(req)
}

func (s *session) do(req *http.Request) (*http.Response, error) {
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	s.body.Reset()
	_, err = s.body.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the body of a %s: %w", req.Method, err)
	}
	return resp, nil
}

// initialize starts the session: initialize, then
// notifications/initialized.
func (s *session) initialize(wantID bool) error {
	resp, err := s.post([]byte(initializeBody))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(s.body.Bytes(), []byte(`"protocolVersion"`)) {
		return fmt.Errorf("initialize: HTTP %d: %.200s", resp.StatusCode, s.body.Bytes())
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if wantID && s.id == "" {
		return fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	if resp, err = s.post([]byte(initializedBody)); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.200s", resp.StatusCode, s.body.Bytes())
	}
	return nil
}

// echo calls the echo tool and checks the answer.
func (s *session) echo(id int64) error {
	s.req = echoRequest(s.req[:0], id)
	resp, err := s.post(s.req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !answers(s.body.Bytes(), id) {
		return fmt.Errorf("echo %d: HTTP %d: %.300s", id, resp.StatusCode, s.body.Bytes())
	}
	return nil
}

// remove ends the session with DELETE.
func (s *session) remove() error {
	req, err := http.NewRequest(http.MethodDelete, s.url, nil)
	if err != nil {
		return err
	}
	req.Header["Mcp-Session-Id"] = []string{s.id}
	req.Header["Mcp-Protocol-Version"] = []string{ProtocolVersion}
	resp, err := s.do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE: HTTP %d: %.200s", resp.StatusCode, s.body.Bytes())
	}
	return nil
}

// HTTPEcho runs Clients closed-loop clients, each in a session of its own
// (or none, stateless), calling echo.
func HTTPEcho(o HTTPOptions) (Result, error) {
	client := NewClient(o.Clients)
	defer client.CloseIdleConnections()
	workers := make([]worker, o.Clients)
	for i := range workers {
		s := &session{client: client, url: o.URL, extra: o.Header}
		if err := s.initialize(!o.Stateless); err != nil {
			return Result{}, err
		}
		if o.Stateless {
			s.id = ""
		}
		var n int64
		workers[i] = func() (int, error) { n++; return 1, s.echo(n) }
	}
	return closedLoop(o.PID, o.Window, workers)
}

// HTTPSessions measures new sessions per second: each operation is an
// initialize, which starts a session, and a DELETE, which ends it.
func HTTPSessions(o HTTPOptions) (Result, error) {
	client := NewClient(o.Clients)
	defer client.CloseIdleConnections()
	workers := make([]worker, o.Clients)
	for i := range workers {
		s := &session{client: client, url: o.URL, extra: o.Header}
		workers[i] = func() (int, error) {
			s.id = ""
			resp, err := s.post([]byte(initializeBody))
			if err != nil {
				return 0, err
			}
			if resp.StatusCode != http.StatusOK {
				return 0, fmt.Errorf("initialize: HTTP %d: %.200s", resp.StatusCode, s.body.Bytes())
			}
			if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" {
				return 0, fmt.Errorf("initialize: no Mcp-Session-Id")
			}
			return 1, s.remove()
		}
	}
	return closedLoop(o.PID, o.Window, workers)
}

// SessionRSS opens n sessions (initialize and notifications/initialized,
// then nothing) and returns the server's resident memory per session: the
// growth of its RSS divided by n.
func SessionRSS(o HTTPOptions, n int) (perSession float64, err error) {
	client := NewClient(o.Clients)
	defer client.CloseIdleConnections()
	warm := &session{client: client, url: o.URL, extra: o.Header}
	if err := warm.initialize(true); err != nil {
		return 0, err
	}
	time.Sleep(200 * time.Millisecond)
	before, err := RSS(o.PID)
	if err != nil {
		return 0, err
	}
	jobs := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for w := 0; w < o.Clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				s := &session{client: client, url: o.URL, extra: o.Header}
				if err := s.initialize(true); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	time.Sleep(500 * time.Millisecond)
	after, err := RSS(o.PID)
	if err != nil {
		return 0, err
	}
	return float64(after-before) / float64(n), nil
}
