package lesson04

import (
	"fmt"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// pingRule is where pings stand: RFC 6455 gives WebSocket its ping and
// pong frames, and MCP's custom-transport rule leaves keep-alives to the
// transport; the course asks for them.
var pingRule = check.Spec{Rev: spec.Rev, Section: "basic/transports › Custom Transports (keep-alive is the course's; RFC 6455 §5.5.2 and §5.5.3: ping and pong)",
	Quote: customRule.Quote}

var origin35 = &check.Check{
	ID: "ORIGIN-35", Step: 5, Severity: check.Must, Budget: 10 * time.Second,
	Needs: check.Needs{Course: webSocket, Flags: []string{"-ws-ping"}},
	Title: "/ws pings every -ws-ping, keeps a client that answers or talks, and lets a silent one go",
	Spec:  pingRule,
	Course: "A client whose machine sleeps or whose network drops never closes its socket, and would hold its place and goroutines for ever. The course's " +
		"server pings each socket every -ws-ping (30 s by default) and lets a socket go once it has answered no ping and sent no frame for three of them. " +
		"The grader sets -ws-ping 500ms and opens three sockets: one that answers pings and says nothing after initialize, one that answers none but sends a " +
		"request every 400 ms, and one that does neither, not even initialize. After 3.5 s the first two must still be served, the first having seen at least three pings; the third must " +
		"have been closed by then. -ws-ping 0 means the default, as a zero does for the course's other flags.",
	Hint: check.Hint{
		Report: "In serveSocket, before the loop: a read deadline of pongWait(h.ping) from now, a pong handler that pushes it on by as much, and go ping(ctx, ws, h.ping), " +
			"which sends a ping every h.ping until ctx ends; in frameReader.Read, each text frame pushes the deadline on too (r.wait).",
		Question: "How would your server ever notice a client that vanished without closing its socket, and how does it tell it from one that is only quiet?",
		Pointer:  "gorilla/websocket: Conn.SetReadDeadline (a read past it fails), Conn.SetPongHandler (runs on each pong, while the loop reads), Conn.WriteControl(websocket.PingMessage, ...), safe beside other writes.",
		Near: `In serveSocket:

	wait := pongWait(h.ping)
	ws.SetReadDeadline(time.Now().Add(wait))
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(wait)) })
	go ping(ctx, ws, h.ping)`,
	},
	Claims: []check.Claim{
		{Claim: "each socket is pinged every -ws-ping", Where: "step 5", How: "-ws-ping 500ms: a client that answers pings sees at least three in 3.5 s"},
		{Claim: "a client that answers the pings, or that sends frames, is kept", Where: "step 5",
			How: "-ws-ping 500ms: one client silent but answering pings, one answering none but sending a request every 400 ms: both served after 3.5 s"},
		{Claim: "-ws-ping 0 means the default interval", Where: "step 5", How: "a server started with -ws-ping 0 serves a socket for 3.5 s"},
		{Claim: "a client that answers no ping and sends no frame is let go within three pings", Where: "step 5",
			How: "-ws-ping 500ms: a client that sends no frame after its handshake and answers no ping is closed within 3.5 s"},
	},
	Run: checkWebSocketPings,
}

func checkWebSocketPings(t *check.T) {
	// The server lets a socket go 1.5 s after its last sign of life; the
	// grader looks 3.5 s after the sockets opened, more than twice that,
	// so a socket kept alive only by its first frames is gone by then, and
	// a loaded machine has two seconds to spare. The deaf client sends no
	// frame at all: the deadline must start with the socket.
	const every, look = 500 * time.Millisecond, 3500 * time.Millisecond
	h := startOrigin(t, "-ws-ping", every.String())
	// -ws-ping 0 means the default, as a zero does for every flag of the
	// course: a server that took it as it is would ping without end, or,
	// with a time.Ticker, panic at the first socket.
	byDefault := startOrigin(t, "-ws-ping", "0")
	zero := dialWS(t, byDefault, nil, "a socket of a server started with -ws-ping 0, the default")
	zero.Initialize(spec.Rev)
	answering := dialWS(t, h, nil, "a client that answers pings, and says nothing after initialize")
	talking := dialWS(t, h, nil, "a client that answers no ping, and sends a request every 400 ms")
	talking.IgnorePings()
	deaf := dialWS(t, h, nil, "a client that answers no ping, and sends no frame at all")
	deaf.IgnorePings()
	answering.Initialize(spec.Rev)
	talking.Initialize(spec.Rev)
	until := time.Now().Add(look)

	t.Parallel(func() {
		probe.Pause(t, time.Until(until))
		zero.Call(`2`, "ping", nil)
	}, func() {
		probe.Pause(t, time.Until(until))
		if n := answering.Pings(); n < 3 {
			t.Fail(check.Failure{What: fmt.Sprintf("with -ws-ping %v, a socket saw %d pings in %v", every, n, look),
				Want: "a ping every 500 ms: at least three by then"})
		}
		answering.Call(`2`, "ping", nil)
	}, func() {
		// Sent without waiting for each answer, so that a slow answer
		// cannot stretch the gap between two frames.
		var ids []string
		for time.Now().Before(until) {
			id := fmt.Sprintf(`"talk-%d"`, len(ids))
			if err := talking.TrySend(wire.Request(id, "ping", nil), time.Second); err != nil {
				t.Fail(check.Failure{What: fmt.Sprintf("with -ws-ping %v, a socket that sent a request every 400 ms but answered no ping was closed after %d requests", every, len(ids)),
					Got: err.Error(), Want: "a socket kept open while its client sends frames: each frame pushes the read deadline on, as a pong does"})
			}
			ids = append(ids, id)
			probe.Pause(t, 400*time.Millisecond)
		}
		for _, id := range ids {
			talking.AwaitResponse(id, "ping")
		}
	}, func() {
		if why, ended := deaf.AwaitEnd(time.Until(until)); !ended {
			t.Fail(check.Failure{What: fmt.Sprintf("with -ws-ping %v, a socket that answered no ping and sent no frame was still open %v after its handshake", every, look),
				Want: "the socket closed within three pings (1.5 s) of the handshake: the read deadline starts with the socket, not with its first frame"})
		} else {
			t.Wire.Event("the socket that answered no ping ended (%v)", why)
		}
	})
}
