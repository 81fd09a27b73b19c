package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// countdownRequest asks for a countdown of steps with no wait between steps
// and a progress token, so that the answer is an SSE stream of steps
// progress notifications, then the result.
func countdownRequest(id int64, steps int) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"countdown",`+
		`"arguments":{"from":%d,"interval_ms":0},"_meta":{"progressToken":"p%d"}}}`, id, steps, id))
}

// StreamEvents measures events per second on one SSE stream: one client
// calls countdown with steps steps, again and again, and counts the
// progress notifications that reach it. Each call must end with its result;
// a server that loses progress notifications on the way is measured on
// what arrived, and lost says how many went missing.
func StreamEvents(o HTTPOptions, steps int) (r Result, lost int, err error) {
	client := NewClient(1)
	defer client.CloseIdleConnections()
	s := &session{client: client, url: o.URL}
	if err := s.initialize(!o.Stateless); err != nil {
		return Result{}, 0, err
	}
	var n int64
	r, err = closedLoop(o.PID, o.Window, []worker{func() (int, error) {
		n++
		resp, err := s.post(countdownRequest(n, steps))
		if err != nil {
			return 0, err
		}
		body := s.body.Bytes()
		progress := bytes.Count(body, []byte(`"notifications/progress"`))
		if resp.StatusCode != http.StatusOK || progress > steps ||
			!bytes.Contains(body, []byte(fmt.Sprintf("Liftoff! Counted down from %d.", steps))) {
			return 0, fmt.Errorf("countdown %d: HTTP %d, %d progress events, want %d: %.300s", n, resp.StatusCode, progress, steps, body)
		}
		lost += steps - progress
		return progress, nil
	}})
	return r, lost, err
}

// sseEvent is one event of a stream, as far as the benchmark cares.
type sseEvent struct {
	id   string
	data []byte
}

// sseReader reads the events of a stream.
type sseReader struct {
	r  *bufio.Reader
	ev sseEvent
}

// next returns the next event, skipping comments; a priming event comes
// back with empty data.
func (s *sseReader) next() (*sseEvent, error) {
	s.ev.id, s.ev.data = "", s.ev.data[:0]
	seen := false
	for {
		line, err := s.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if seen {
				return &s.ev, nil
			}
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("id:")):
			s.ev.id, seen = string(bytes.TrimSpace(line[3:])), true
		case bytes.HasPrefix(line, []byte("data:")):
			s.ev.data, seen = append(s.ev.data, bytes.TrimSpace(line[5:])...), true
		default:
			seen = true
		}
	}
}

// openGET opens a session's standalone stream (or resumes one, with
// lastEventID).
func openGET(ctx context.Context, client *http.Client, url, sessionID, lastEventID string) (*http.Response, *sseReader, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header["Accept"] = []string{"text/event-stream"}
	req.Header["Mcp-Session-Id"] = []string{sessionID}
	req.Header["Mcp-Protocol-Version"] = []string{ProtocolVersion}
	if lastEventID != "" {
		req.Header["Last-Event-Id"] = []string{lastEventID}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		return nil, nil, fmt.Errorf("GET: HTTP %d: %s", resp.StatusCode, body)
	}
	return resp, &sseReader{r: bufio.NewReaderSize(resp.Body, 16<<10)}, nil
}

// GETStreamsResult is what StreamsEvents measured.
type GETStreamsResult struct {
	Result
	RSSPerStream     float64 // bytes, once every stream is open
	RSSPerStreamLate float64 // bytes, at the end, with each stream's replay log filled by the ticks
}

// GETStreams opens n sessions, each with its standalone GET stream, on a
// server that sends every stream a log message per tick (the reference's
// -tick), and counts the events that reach all the streams in the window.
func GETStreams(o HTTPOptions, n int) (GETStreamsResult, error) {
	posts := NewClient(o.Clients)
	defer posts.CloseIdleConnections()
	gets := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	warm := &session{client: posts, url: o.URL}
	if err := warm.initialize(true); err != nil {
		return GETStreamsResult{}, err
	}
	time.Sleep(200 * time.Millisecond)
	before, _ := RSS(o.PID)

	var (
		counting atomic.Bool
		events   atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		first    error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	opened := make(chan struct{}, n)
	sem := make(chan struct{}, o.Clients)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &session{client: posts, url: o.URL}
			err := s.initialize(true)
			var r *sseReader
			if err == nil {
				var resp *http.Response
				resp, r, err = openGET(ctx, gets, o.URL, s.id, "")
				if err == nil {
					defer resp.Body.Close()
				}
			}
			<-sem
			if err != nil {
				fail(err)
				opened <- struct{}{}
				return
			}
			opened <- struct{}{}
			for {
				ev, err := r.next()
				if err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					return
				}
				if len(ev.data) > 0 && counting.Load() {
					events.Add(1)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		<-opened
	}
	mu.Lock()
	err := first
	mu.Unlock()
	if err != nil {
		cancel()
		wg.Wait()
		return GETStreamsResult{}, err
	}
	open, _ := RSS(o.PID)
	time.Sleep(o.Warmup)
	m := startMeter(o.PID)
	counting.Store(true)
	time.Sleep(o.Duration)
	counting.Store(false)
	r := GETStreamsResult{Result: m.stop()}
	after, _ := RSS(o.PID)
	cancel()
	wg.Wait()
	r.Ops, r.ServerRSS = int(events.Load()), after
	r.RSSPerStream = float64(open-before) / float64(n)
	r.RSSPerStreamLate = float64(after-before) / float64(n)
	return r, nil
}

// ReplayResult is what Replay measured.
type ReplayResult struct {
	Events    int
	FirstByte time.Duration // from the GET to its first event
	LastByte  time.Duration // from the GET to the last replayed event
}

// Replay lets a session's standalone stream run on without its client
// while the server logs an event per tick (the reference's -tick), then
// resumes it with Last-Event-ID and times the replay of the first n events
// missed. The server's replay buffer must hold well over n events.
func Replay(o HTTPOptions, n int, tick time.Duration) (ReplayResult, error) {
	client := NewClient(2)
	defer client.CloseIdleConnections()
	gets := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	s := &session{client: client, url: o.URL}
	if err := s.initialize(true); err != nil {
		return ReplayResult{}, err
	}
	get := func(lastEventID string) (*http.Response, *sseReader, context.CancelFunc, error) {
		ctx, cancel := context.WithCancel(context.Background())
		resp, r, err := openGET(ctx, gets, o.URL, s.id, lastEventID)
		if err != nil {
			cancel()
			return nil, nil, nil, err
		}
		return resp, r, func() { cancel(); resp.Body.Close() }, nil
	}
	_, r, hangUp, err := get("")
	if err != nil {
		return ReplayResult{}, err
	}
	ev, err := r.next() // the priming event, or the first tick
	hangUp()
	if err != nil {
		return ReplayResult{}, err
	}
	from := ev.id
	stream, seq, ok := strings.Cut(from, "-")
	first, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		return ReplayResult{}, fmt.Errorf("event id %q is not the reference's STREAM-N", from)
	}

	// Wait until the log holds n events after the first: a resumption from
	// the n-th is refused (400) until that event exists.
	time.Sleep(time.Duration(n) * tick)
	probe := stream + "-" + strconv.FormatUint(first+uint64(n), 10)
	for deadline := time.Now().Add(time.Duration(n)*tick*10 + 5*time.Second); ; {
		if _, _, hangUp, err := get(probe); err == nil {
			hangUp()
			break
		}
		if time.Now().After(deadline) {
			return ReplayResult{}, fmt.Errorf("the server did not log %d events in time", n)
		}
		time.Sleep(20 * time.Millisecond)
	}

	began := time.Now()
	_, r, hangUp, err = get(from)
	if err != nil {
		return ReplayResult{}, err
	}
	defer hangUp()
	res := ReplayResult{Events: n}
	next := first
	for i := 0; i < n; i++ {
		ev, err := r.next()
		if err != nil {
			return ReplayResult{}, fmt.Errorf("replay: after %d of %d events: %w", i, n, err)
		}
		if i == 0 {
			res.FirstByte = time.Since(began)
		}
		next++
		if want := stream + "-" + strconv.FormatUint(next, 10); ev.id != want || !bytes.Contains(ev.data, []byte(`"ticker"`)) {
			return ReplayResult{}, fmt.Errorf("replay: event %d has id %q, want %q: %.200s", i, ev.id, want, ev.data)
		}
	}
	res.LastByte = time.Since(began)
	return res, nil
}

// DebugVars reads the reference's /debug/vars (its -debug flag): the
// goroutines alive and the live heap after a garbage collection.
func DebugVars(client *http.Client, mcpURL string) (goroutines int, heap int64, err error) {
	resp, err := client.Get(strings.TrimSuffix(mcpURL, "/mcp") + "/debug/vars")
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var v struct {
		Goroutines int   `json:"goroutines"`
		HeapLive   int64 `json:"heap_live"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return 0, 0, fmt.Errorf("/debug/vars: %w", err)
	}
	return v.Goroutines, v.HeapLive, nil
}

// ProducerResult is what Producer measured.
type ProducerResult struct {
	HeapEarly, HeapLate int64 // live heap shortly after the client left, and at the end
	RSSEarly, RSSLate   int64
	Samples             []int64 // live heap, once per second
}

// Producer opens a session's standalone stream and hangs up at once, on a
// server whose ticker (-tick) goes on producing events for it, and watches
// the server's memory for d: it must stay bounded by the replay buffer.
func Producer(o HTTPOptions, sessions int, d time.Duration) (ProducerResult, error) {
	client := NewClient(2)
	defer client.CloseIdleConnections()
	gets := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	for i := 0; i < sessions; i++ {
		s := &session{client: client, url: o.URL}
		if err := s.initialize(true); err != nil {
			return ProducerResult{}, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		resp, r, err := openGET(ctx, gets, o.URL, s.id, "")
		if err != nil {
			cancel()
			return ProducerResult{}, err
		}
		_, err = r.next()
		cancel()
		resp.Body.Close()
		if err != nil {
			return ProducerResult{}, err
		}
	}
	var res ProducerResult
	step := max(d/20, 50*time.Millisecond)
	for t := time.Duration(0); t < d; t += step {
		time.Sleep(step)
		_, heap, err := DebugVars(client, o.URL)
		if err != nil {
			return ProducerResult{}, err
		}
		rss, _ := RSS(o.PID)
		res.Samples = append(res.Samples, heap)
		if res.HeapEarly == 0 && t >= d/10 {
			res.HeapEarly, res.RSSEarly = heap, rss
		}
		res.HeapLate, res.RSSLate = heap, rss
	}
	return res, nil
}

// DropResult is what Drops measured.
type DropResult struct {
	Streams                          int
	GoroutinesBefore, GoroutinesOpen int
	GoroutinesAfter                  int // after the second wave of hang-ups
	HeapBefore, HeapOpen, HeapAfter  int64
	// The live heap once the sessions of the first and of the second wave
	// have expired. Go keeps the descriptors of goroutines that have ended
	// for reuse, and a map keeps its buckets: the first wave leaves that
	// behind, and a second wave must add nothing to it.
	HeapExpired, HeapExpired2 int64
	Settled                   time.Duration // from the hang-ups to the goroutine count settling
}

// Drops opens n sessions, each with its standalone GET stream, all held
// open at once, then drops every stream, and reads the server's goroutines
// and live heap (its /debug/vars) before, while open, after the drop, and
// once the sessions have expired (expiry: the server's -session-timeout and
// its sweep). It does this twice, to tell memory kept for reuse from a leak.
func Drops(o HTTPOptions, n int, expiry time.Duration) (DropResult, error) {
	posts := NewClient(o.Clients)
	defer posts.CloseIdleConnections()
	gets := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	res := DropResult{Streams: n}
	var err error
	// Every idle keep-alive connection holds a goroutine in the server:
	// count with one only, before and after.
	posts.CloseIdleConnections()
	if res.GoroutinesBefore, res.HeapBefore, err = DebugVars(posts, o.URL); err != nil {
		return res, err
	}
	for wave := 1; wave <= 2; wave++ {
		if err := dropWave(o, posts, gets, n, &res); err != nil {
			return res, err
		}
		time.Sleep(expiry)
		_, heap, err := DebugVars(posts, o.URL)
		if err != nil {
			return res, err
		}
		if wave == 1 {
			res.HeapExpired = heap
		} else {
			res.HeapExpired2 = heap
		}
	}
	return res, nil
}

// dropWave opens n streams, drops them all at once, and waits for the
// server's goroutine count to settle.
func dropWave(o HTTPOptions, posts, gets *http.Client, n int, res *DropResult) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		open  sync.WaitGroup
	)
	sem := make(chan struct{}, o.Clients)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		open.Add(1)
		go func() {
			defer wg.Done()
			s := &session{client: posts, url: o.URL}
			err := s.initialize(true)
			var (
				resp *http.Response
				r    *sseReader
			)
			if err == nil {
				if resp, r, err = openGET(ctx, gets, o.URL, s.id, ""); err == nil {
					_, err = r.next() // the stream is open: its priming event came
				}
			}
			<-sem
			open.Done()
			if err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
				return
			}
			<-ctx.Done() // hold the stream until every client drops at once
			resp.Body.Close()
		}()
	}
	open.Wait()
	if first != nil {
		return first
	}
	var err error
	if res.GoroutinesOpen, res.HeapOpen, err = DebugVars(posts, o.URL); err != nil {
		return err
	}
	dropped := time.Now()
	cancel()
	wg.Wait()
	posts.CloseIdleConnections()
	// Wait for the server to notice every hang-up: its goroutine count
	// falls, then holds.
	last, stable := -1, 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && stable < 5; {
		time.Sleep(100 * time.Millisecond)
		g, _, err := DebugVars(posts, o.URL)
		if err != nil {
			return err
		}
		if g == last {
			stable++
		} else {
			last, stable, res.Settled = g, 0, time.Since(dropped)
		}
	}
	res.GoroutinesAfter, res.HeapAfter, err = DebugVars(posts, o.URL)
	return err
}
