package browserdemo

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

func TestThePageNamesItsRun(t *testing.T) {
	srv := httptest.NewServer(&Pages{})
	defer srv.Close()
	body := get(t, srv.URL+"/?run=7&server=http://127.0.0.1:1")
	assert.Contains(t, body, `<script src="/wait?run=7"></script>`)
	assert.Contains(t, get(t, srv.URL+"/?server=x"), `<script src="/wait?run="></script>`, "a page opened by hand has no run")
}

func TestWaitHoldsUntilDone(t *testing.T) {
	pages := &Pages{Hold: 5 * time.Second}
	srv := httptest.NewServer(pages)
	defer srv.Close()
	assert.Contains(t, get(t, srv.URL+"/wait?run="), "done", "a page opened by hand is never held")

	answered := make(chan time.Time, 1)
	go func() {
		if resp, err := http.Get(srv.URL + "/wait?run=1"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		answered <- time.Now()
	}()
	// The handler makes the run's channel before it waits on it.
	require.Eventually(t, func() bool {
		pages.mu.Lock()
		defer pages.mu.Unlock()
		return pages.runs["1"] != nil
	}, 2*time.Second, time.Millisecond, "/wait?run=1 never reached the handler")
	select {
	case <-answered:
		t.Fatal("/wait answered before the page was done")
	default:
	}
	done := time.Now()
	resp, err := http.Post(srv.URL+"/done?run=1", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	select {
	case at := <-answered:
		assert.False(t, at.Before(done))
	case <-time.After(2 * time.Second):
		t.Fatal("/wait still held after /done")
	}
}

func TestWaitGivesUp(t *testing.T) {
	srv := httptest.NewServer(&Pages{Hold: 100 * time.Millisecond})
	defer srv.Close()
	start := time.Now()
	get(t, srv.URL+"/wait?run=never")
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestParseResult(t *testing.T) {
	dom := `<html><body><pre id="result">{"origin":"http://localhost:1","server":"http://127.0.0.1:2","steps":[{"name":"a &amp; b","outcome":"ok","detail":"&lt;x&gt;"}]}</pre></body></html>`
	r, err := ParseResult(dom)
	require.NoError(t, err)
	assert.Equal(t, "http://localhost:1", r.Origin)
	require.Len(t, r.Steps, 1)
	assert.Equal(t, Step{Name: "a & b", Outcome: "ok", Detail: "<x>"}, r.Steps[0])
	assert.True(t, strings.Contains(r.String(), "a & b"))

	_, err = ParseResult(`<pre id="result">running…</pre>`)
	assert.ErrorContains(t, err, "did not finish")
	_, err = ParseResult(`<p>nothing</p>`)
	assert.Error(t, err)
}
