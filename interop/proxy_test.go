package interop

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// cutProxy is a loopback TCP proxy in front of an HTTP server. It copies
// bytes both ways, and once, on the first connection on which the server
// has sent cutAfter progress notifications, it drops that connection: the
// client sees its SSE stream break mid-way, as when a network goes down,
// while the server sees its client go away.
type cutProxy struct {
	endpoint string // the server's endpoint URL, through the proxy
	ln       net.Listener
	server   string // host:port
	cutAfter int
	didCut   atomic.Bool
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]bool // open connections, both sides, closed at the end
}

// progressMark is how a progress notification looks in an SSE event.
var progressMark = []byte(`"notifications/progress"`)

// startCutProxy starts a proxy for endpoint. It stops when the test ends.
func startCutProxy(t *testing.T, endpoint string, cutAfter int) *cutProxy {
	t.Helper()
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{ln: ln, server: u.Host, cutAfter: cutAfter, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	p.endpoint = u.String()
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// cut reports whether the proxy has cut a connection.
func (p *cutProxy) cut() bool { return p.didCut.Load() }

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		server, err := net.Dial("tcp", p.server)
		if err != nil {
			client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			io.Copy(server, client)
			server.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.forward(client, server)
			client.Close()
		}()
	}
}

// track remembers the two sides of a connection, so close can end them. It
// returns false once the proxy is closing.
func (p *cutProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

// forward copies what the server sends to the client, counting progress
// notifications, and cuts both sides once it has passed cutAfter of them.
func (p *cutProxy) forward(client, server net.Conn) {
	buf := make([]byte, 32<<10)
	var tail []byte // the end of the previous read, for a mark split across reads
	seen := 0
	for {
		n, err := server.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				server.Close()
				return
			}
			window := append(tail, buf[:n]...)
			seen += bytes.Count(window, progressMark)
			tail = append([]byte(nil), window[max(0, len(window)-len(progressMark)+1):]...)
			if seen >= p.cutAfter && p.didCut.CompareAndSwap(false, true) {
				client.Close()
				server.Close()
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// close stops accepting, ends every connection, and waits for the copying
// goroutines.
func (p *cutProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
