package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

// events builds go test -json output, one event per line.
func events(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const (
	tsPass = `{"Action":"run","Test":"TestTSClient"}
{"Action":"run","Test":"TestTSClient/03-sse-resume"}
{"Action":"run","Test":"TestTSClient/03-sse-resume/stateful"}
{"Action":"pass","Test":"TestTSClient/03-sse-resume/stateful"}
{"Action":"run","Test":"TestTSClient/03-sse-resume/resume"}
{"Action":"output","Test":"TestTSClient/03-sse-resume/resume","Output":"    tsclient_test.go:40: the resumption test needs Node 22\n"}
{"Action":"skip","Test":"TestTSClient/03-sse-resume/resume"}
{"Action":"pass","Test":"TestTSClient/03-sse-resume"}
{"Action":"pass","Test":"TestTSClient"}`
	inspectorSkip = `{"Action":"run","Test":"TestInspectorCLI"}
{"Action":"output","Test":"TestInspectorCLI","Output":"=== RUN   TestInspectorCLI\n"}
{"Action":"output","Test":"TestInspectorCLI","Output":"    npm_test.go:31: inspector-v1 is not installed; run: npm ci --prefix interop/inspector-v1\n"}
{"Action":"output","Test":"TestInspectorCLI","Output":"--- SKIP: TestInspectorCLI (0.00s)\n"}
{"Action":"skip","Test":"TestInspectorCLI"}`
	stdioOnly = `{"Action":"run","Test":"TestGoSDKClientStdio"}
{"Action":"run","Test":"TestGoSDKClientStdio/01-stdio"}
{"Action":"pass","Test":"TestGoSDKClientStdio/01-stdio"}
{"Action":"pass","Test":"TestGoSDKClientStdio"}`
	goHTTPFail = `{"Action":"run","Test":"TestGoSDKClientHTTP"}
{"Action":"run","Test":"TestGoSDKClientHTTP/03-sse-resume"}
{"Action":"output","Test":"TestGoSDKClientHTTP/03-sse-resume","Output":"    gosdk_http_test.go:70: tools/call: connection reset\n"}
{"Action":"fail","Test":"TestGoSDKClientHTTP/03-sse-resume"}
{"Action":"fail","Test":"TestGoSDKClientHTTP"}`
)

func TestParseClientEventsKeepsTheStagesClients(t *testing.T) {
	runs, err := parseClientEvents(strings.NewReader(events(tsPass, inspectorSkip, stdioOnly, "not an event: a build error", goHTTPFail)), "03-sse-resume")
	require.NoError(t, err)
	require.Len(t, runs, 3, "the stdio-only test covers no HTTP stage and is left out")

	assert.Equal(t, "TestTSClient", runs[0].test)
	assert.Equal(t, "pass", runs[0].status)
	assert.Equal(t, []string{"resume: the resumption test needs Node 22"}, runs[0].skipped)

	assert.Equal(t, "TestInspectorCLI", runs[1].test)
	assert.Equal(t, "skip", runs[1].status)
	assert.Equal(t, "inspector-v1 is not installed; run: npm ci --prefix interop/inspector-v1", runs[1].why)

	assert.Equal(t, "fail", runs[2].status)
	assert.Contains(t, strings.Join(runs[2].output, "\n"), "connection reset")
}

func TestClientSummaryClaimsOnlyWhatRan(t *testing.T) {
	l := grader.LessonByNumber("03")
	summary := func(in string) (string, error) {
		a := newTestApp(t.TempDir(), "")
		runs, err := parseClientEvents(strings.NewReader(in), "03-sse-resume")
		require.NoError(t, err)
		err = a.app.clientSummary(l, runs)
		return a.out.String(), err
	}

	out, err := summary(events(inspectorSkip))
	assert.Error(t, err, "nothing ran: no success")
	assert.NotContains(t, out, "passed against")
	assert.Contains(t, out, "skipped, did not run: both MCP Inspector CLIs")
	assert.Contains(t, out, "No real client ran")
	assert.Contains(t, out, "clients 03 --install")

	out, err = summary(events(tsPass, inspectorSkip))
	assert.NoError(t, err)
	assert.Contains(t, out, "Ran and passed against your lesson 03 server: the official TypeScript SDK client (1 more skipped, listed above).")
	assert.NotContains(t, out, "Inspector CLIs (1.x and 2.x);", "a skipped client is never in the success line")

	out, err = summary(events(tsPass, goHTTPFail))
	assert.Error(t, err)
	assert.Contains(t, out, "ran and FAILED: the official Go SDK client over Streamable HTTP")
	assert.NotContains(t, out, "Ran and passed against")
}

func TestBrowserSkipSaysHowToInstallChromium(t *testing.T) {
	l := grader.LessonByNumber("04")
	a := newTestApp(t.TempDir(), "")
	runs, err := parseClientEvents(strings.NewReader(events(
		`{"Action":"output","Test":"TestBrowser04","Output":"    browser_test.go:37: no Chromium found\n"}`,
		`{"Action":"skip","Test":"TestBrowser04"}`)), "")
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Error(t, a.app.clientSummary(l, runs))
	assert.Contains(t, a.out.String(), "skipped, did not run: a real browser (headless Chromium): no Chromium found")
	assert.Contains(t, a.out.String(), "apt-get install chromium")
	assert.NotContains(t, a.out.String(), "is refused from an origin")
}

func TestAClientWhosePartsAllSkippedDidNotRun(t *testing.T) {
	runs, err := parseClientEvents(strings.NewReader(events(
		`{"Action":"run","Test":"TestConformanceNotesServer/03-sse-resume/ping"}`,
		`{"Action":"output","Test":"TestConformanceNotesServer/03-sse-resume/ping","Output":"    npm_test.go:31: conformance is not installed; run: npm ci --prefix interop/conformance\n"}`,
		`{"Action":"skip","Test":"TestConformanceNotesServer/03-sse-resume/ping"}`,
		`{"Action":"output","Test":"TestConformanceNotesServer/03-sse-resume/tools-list","Output":"    npm_test.go:31: conformance is not installed; run: npm ci --prefix interop/conformance\n"}`,
		`{"Action":"skip","Test":"TestConformanceNotesServer/03-sse-resume/tools-list"}`,
		`{"Action":"pass","Test":"TestConformanceNotesServer/03-sse-resume"}`,
		`{"Action":"pass","Test":"TestConformanceNotesServer"}`)), "03-sse-resume")
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, "skip", runs[0].status, "go test passes a parent whose subtests all skipped; the client did not run")
	assert.Equal(t, "conformance is not installed; run: npm ci --prefix interop/conformance", runs[0].why, "one reason, said once")
}
