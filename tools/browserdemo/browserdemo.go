// Package browserdemo is a web page that uses an MCP server the way a
// browser-based client does: fetch for Streamable HTTP (initialize, the
// session id, a tool call, the SSE stream read with a streaming fetch), and
// a WebSocket. Served from an origin the server allows, every step works;
// from any other origin, the browser refuses every step. Lesson 04's browser
// test loads it in a headless Chromium from both (see Visit), and a learner
// can open it by hand (go run ./cmd/browser-demo).
//
// The page writes what it found into its DOM, in <pre id="result">, which
// Chromium's --dump-dom returns. --dump-dom dumps a page as soon as it has
// loaded, so the page holds its own load event with a script that Pages
// serves only once the page reports it is done.
package browserdemo

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"mcpcourse/tools/chromium"
)

//go:embed page.html
var page string

// Pages serves the page at /, and the two endpoints that hold its load
// event while it works: /wait?run=N answers once /done?run=N has been
// posted, or after Hold. A page loaded without a run parameter (by hand)
// is never held.
type Pages struct {
	// Hold bounds how long a page's load is held; zero means 20 s.
	Hold time.Duration

	mu   sync.Mutex
	runs map[string]chan struct{} // closed when the page of that run is done
}

// finished returns the channel closed when the page of run is done.
func (p *Pages) finished(run string) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runLocked(run)
}

// finish notes that the page of run is done.
func (p *Pages) finish(run string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.runLocked(run)
	select {
	case <-c:
	default:
		close(c)
	}
}

func (p *Pages) runLocked(run string) chan struct{} {
	if p.runs == nil {
		p.runs = map[string]chan struct{}{}
	}
	c := p.runs[run]
	if c == nil {
		c = make(chan struct{})
		p.runs[run] = c
	}
	return c
}

func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	run := r.URL.Query().Get("run")
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, strings.Replace(page, "/wait?run=RUN", "/wait?run="+html.EscapeString(url.QueryEscape(run)), 1))
	case "/done":
		if run != "" && r.Method == http.MethodPost {
			p.finish(run)
		}
		w.WriteHeader(http.StatusNoContent)
	case "/wait":
		if run != "" {
			hold := p.Hold
			if hold <= 0 {
				hold = 20 * time.Second
			}
			select {
			case <-p.finished(run):
			case <-time.After(hold):
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, "// the page is done\n")
	default:
		http.NotFound(w, r)
	}
}

// Step is one thing the page tried, and how it went: "ok", "refused" (the
// browser kept the answer from the page, or the socket was never opened),
// or "failed".
type Step struct {
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail"`
}

// Result is what one load of the page found.
type Result struct {
	Origin string `json:"origin"` // the page's own origin
	Server string `json:"server"`
	Steps  []Step `json:"steps"`
}

// String lists the steps as "name: outcome (detail)", one per line.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "page at %s, server %s\n", r.Origin, r.Server)
	for _, s := range r.Steps {
		fmt.Fprintf(&b, "  %-34s %-8s %s\n", s.Name, s.Outcome, s.Detail)
	}
	return b.String()
}

// ParseResult reads the result a page wrote into its DOM.
func ParseResult(dom string) (Result, error) {
	const open, end = `<pre id="result">`, `</pre>`
	i := strings.Index(dom, open)
	if i < 0 {
		return Result{}, errors.New(`the page has no <pre id="result">`)
	}
	text, _, found := strings.Cut(dom[i+len(open):], end)
	if !found {
		return Result{}, errors.New(`the page's <pre id="result"> does not end`)
	}
	var r Result
	if err := json.Unmarshal([]byte(html.UnescapeString(text)), &r); err != nil {
		return Result{}, fmt.Errorf("the page did not finish: its result is %q", text)
	}
	return r, nil
}

// runs numbers the loads of Visit, so that each holds its own load event.
var runs struct {
	sync.Mutex
	n int
}

// Visit loads the page from pageBase (such as http://localhost:8081,
// served by pages) in a fresh headless Chromium, against the MCP server
// at server (such as http://127.0.0.1:8080), and returns what it found.
// Flags are more switches for the browser (see chromium.DumpDOM).
func Visit(ctx context.Context, bin, pageBase, server string, flags ...string) (Result, error) {
	runs.Lock()
	runs.n++
	run := strconv.Itoa(runs.n)
	runs.Unlock()
	u := pageBase + "/?" + url.Values{"run": {run}, "server": {server}}.Encode()
	dom, err := chromium.DumpDOM(ctx, bin, u, flags...)
	if err != nil {
		return Result{}, err
	}
	return ParseResult(dom)
}
