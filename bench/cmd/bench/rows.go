package main

import (
	"fmt"
	"net/http"
	"time"

	"mcpcourse/bench/load"
)

// A cell is one row measured on one target in one round.
type cell struct {
	Row, Target string
	Round       int
	Value       float64            // in the row's unit
	CPUPerOp    time.Duration      // the server's CPU time per operation, when the row has operations
	P50, P99    time.Duration      // latency of one operation
	ClientBusy  float64            // cores the load generator used
	ServerBusy  float64            // cores the server used
	OtherBusy   float64            // cores the rest of the machine used: must be near 0
	Extra       map[string]float64 // the named figures of a streams row
	Lost        int                // events the server lost on the way (the one-stream row)
}

func fromResult(r load.Result) cell {
	return cell{
		Value: r.PerSecond(), CPUPerOp: r.CPUPerOp(), P50: r.P50, P99: r.P99,
		ClientBusy: r.ClientBusy(), ServerBusy: r.ServerBusy(), OtherBusy: r.OtherCPU.Seconds() / r.Elapsed.Seconds(),
	}
}

// A row is one measurement of the table.
type row struct {
	id, title, unit string
	streams         bool // a row of the streams table: the newest reference only, several figures
	applies         func(*target) bool
	run             func(*env, *target) (cell, error)
}

// sizes are the counts of one run: the published run's, or the smoke's.
type sizes struct {
	window        load.Window
	sessions      int // sessions opened for RSS per session
	streams       int // concurrent GET streams
	tick          time.Duration
	replay        int // events replayed
	producerTime  time.Duration
	drops         int // streams dropped at once
	sessionExpiry time.Duration
	countdown     int // progress events per stream
}

var (
	fullSizes = sizes{
		window: load.Window{Warmup: time.Second, Duration: 4 * time.Second}, sessions: 5000,
		streams: 1000, tick: 10 * time.Millisecond, replay: 10000, producerTime: 20 * time.Second,
		drops: 10000, sessionExpiry: 5 * time.Second, countdown: 1000,
	}
	smokeSizes = sizes{
		window: load.Window{Warmup: 50 * time.Millisecond, Duration: 200 * time.Millisecond, Patience: 5 * time.Second}, sessions: 20,
		streams: 20, tick: 10 * time.Millisecond, replay: 200, producerTime: 500 * time.Millisecond,
		drops: 50, sessionExpiry: time.Second, countdown: 50,
	}
)

// onHTTP returns a row's run: start the server over HTTP (with the flags
// the row adds), measure it, stop it.
func onHTTP(stateless bool, flags func(*env) []string, measure func(*env, load.HTTPOptions) (cell, error)) func(*env, *target) (cell, error) {
	return func(e *env, t *target) (cell, error) {
		var extra []string
		if flags != nil {
			extra = flags(e)
		}
		srv, err := e.startHTTP(t, stateless, extra...)
		if err != nil {
			return cell{}, err
		}
		defer srv.Stop()
		return measure(e, load.HTTPOptions{URL: srv.URL, PID: srv.PID(), Stateless: stateless, Window: e.sizes.window})
	}
}

// onStdio returns a row's run over stdio.
func onStdio(measure func(*env, *load.Server) (load.Result, error)) func(*env, *target) (cell, error) {
	return func(e *env, t *target) (cell, error) {
		srv, err := e.startStdio(t)
		if err != nil {
			return cell{}, err
		}
		defer srv.Stop()
		r, err := measure(e, srv)
		return fromResult(r), err
	}
}

func httpRow(id, title string, clients int, stateless bool, header http.Header, applies func(*target) bool) row {
	if applies == nil {
		applies = func(t *target) bool { return t.http != nil }
	}
	return row{id: id, title: title, unit: "req/s", applies: applies, run: onHTTP(stateless, nil, func(e *env, o load.HTTPOptions) (cell, error) {
		o.Clients, o.Header = clients, header
		r, err := load.HTTPEcho(o)
		return fromResult(r), err
	})}
}

func rows(targets []*target) []row {
	sessionful := func(t *target) bool { return t.http != nil && t.kind != "ceiling" }
	stdio := func(t *target) bool { return t.stdio != nil }
	rs := []row{
		httpRow("http-1", "HTTP stateful, 1 client", 1, false, nil, nil),
		httpRow("http-16", "HTTP stateful, 16 clients", 16, false, nil, nil),
		httpRow("http-64", "HTTP stateful, 64 clients", 64, false, nil, nil),
		httpRow("http-stateless-16", "HTTP stateless, 16 clients", 16, true, nil, nil),
		{id: "sessions", title: "new sessions/s (initialize + DELETE, 16 clients)", unit: "sessions/s",
			applies: func(t *target) bool { return t.http != nil },
			run: onHTTP(false, nil, func(e *env, o load.HTTPOptions) (cell, error) {
				o.Clients = 16
				r, err := load.HTTPSessions(o)
				return fromResult(r), err
			})},
		{id: "session-rss", title: "RSS per open session", unit: "KB", applies: sessionful,
			run: onHTTP(false, nil, func(e *env, o load.HTTPOptions) (cell, error) {
				o.Clients = 16
				per, err := load.SessionRSS(o, e.sizes.sessions)
				return cell{Value: per / 1024}, err
			})},
		{id: "stdio-seq", title: "stdio sequential round trips/s", unit: "req/s", applies: stdio,
			run: onStdio(func(e *env, srv *load.Server) (load.Result, error) { return load.StdioSequential(srv, e.sizes.window) })},
		{id: "stdio-pipe", title: "stdio pipelined round trips/s (64 in flight)", unit: "req/s", applies: stdio,
			run: onStdio(func(e *env, srv *load.Server) (load.Result, error) {
				return load.StdioPipelined(srv, 64, e.sizes.window)
			})},
		{id: "sse-one", title: "events/s on one SSE stream (countdown with progress)", unit: "events/s", applies: sessionful,
			run: onHTTP(false, nil, func(e *env, o load.HTTPOptions) (cell, error) {
				r, lost, err := load.StreamEvents(o, e.sizes.countdown)
				c := fromResult(r)
				c.Lost = lost
				return c, err
			})},
	}
	if find(targets, func(t *target) bool { return hasStage(t, "04") }) != nil {
		origin := http.Header{"Origin": {"http://localhost:5173"}}
		rs = append(rs, httpRow("origin-16", "HTTP stateful, 16 clients, allowed Origin header", 16, false, origin,
			func(t *target) bool { return hasStage(t, "03") || hasStage(t, "04") }))
	}
	return append(rs, streamRows()...)
}

// streamRows are the newest reference's rows of the streams table.
func streamRows() []row {
	streamful := func(t *target) bool { return t.kind == "reference" && t.http != nil && t.stage >= "03" }
	const replayTick = 100 * time.Microsecond
	return []row{
		{id: "get-streams", title: "concurrent GET streams", streams: true, applies: streamful,
			run: onHTTP(false, func(e *env) []string { return []string{"-tick", e.sizes.tick.String()} }, func(e *env, o load.HTTPOptions) (cell, error) {
				o.Clients = 16
				r, err := load.GETStreams(o, e.sizes.streams)
				c := fromResult(r.Result)
				c.Extra = map[string]float64{
					"streams": float64(e.sizes.streams), "events/s": r.PerSecond(), "server µs/event": us(r.CPUPerOp()),
					"RSS KB/stream, open": r.RSSPerStream / 1024, "RSS KB/stream, end": r.RSSPerStreamLate / 1024,
					"client cores": r.ClientBusy(), "server cores": r.ServerBusy(),
				}
				return c, err
			})},
		{id: "replay", title: "Last-Event-ID replay", streams: true, applies: streamful,
			run: onHTTP(false, func(e *env) []string {
				return []string{"-tick", replayTick.String(), "-replay-buffer", fmt.Sprint(3 * e.sizes.replay)}
			}, func(e *env, o load.HTTPOptions) (cell, error) {
				r, err := load.Replay(o, e.sizes.replay, replayTick)
				return cell{Extra: map[string]float64{
					"events": float64(r.Events), "first byte ms": ms(r.FirstByte), "last byte ms": ms(r.LastByte),
					"events/s": float64(r.Events) / r.LastByte.Seconds(),
				}}, err
			})},
		{id: "producer", title: "endless producer, no reader", streams: true, applies: streamful,
			run: onHTTP(false, func(*env) []string { return []string{"-tick", "100us", "-debug"} }, func(e *env, o load.HTTPOptions) (cell, error) {
				r, err := load.Producer(o, 1, e.sizes.producerTime)
				return cell{Extra: map[string]float64{
					"seconds": e.sizes.producerTime.Seconds(), "heap KB early": kb(r.HeapEarly), "heap KB late": kb(r.HeapLate),
					"RSS KB early": kb(r.RSSEarly), "RSS KB late": kb(r.RSSLate),
				}}, err
			})},
		{id: "drops", title: "dropped GET streams", streams: true, applies: streamful,
			run: onHTTP(false, func(e *env) []string { return []string{"-debug", "-session-timeout", e.sizes.sessionExpiry.String()} }, func(e *env, o load.HTTPOptions) (cell, error) {
				o.Clients = 64
				r, err := load.Drops(o, e.sizes.drops, 2*e.sizes.sessionExpiry)
				return cell{Extra: map[string]float64{
					"streams":           float64(r.Streams),
					"goroutines before": float64(r.GoroutinesBefore), "goroutines open": float64(r.GoroutinesOpen),
					"goroutines after": float64(r.GoroutinesAfter), "goroutines leaked": float64(r.GoroutinesAfter - r.GoroutinesBefore),
					"heap KB before": kb(r.HeapBefore), "heap KB open": kb(r.HeapOpen), "heap KB after": kb(r.HeapAfter),
					"heap KB expired": kb(r.HeapExpired), "heap KB expired, 2nd wave": kb(r.HeapExpired2), "settled ms": ms(r.Settled),
				}}, err
			})},
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func kb(b int64) float64         { return float64(b) / 1024 }
