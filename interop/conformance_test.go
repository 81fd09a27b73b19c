package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/courseroot"
)

// The official MCP conformance suite (npm @modelcontextprotocol/conformance)
// is pinned, with the Node.js 22 it needs, in conformance/package.json.
//
// It runs twice over:
//
//   - TestConformanceNotesServer runs the scenarios that need no fixtures
//     against each HTTP stage's own notes server.
//   - TestConformanceSuite runs the whole server suite of the revision the
//     course teaches against the fixtures of package everything, served by
//     each HTTP stage's transport, and judges the outcome against that
//     stage's expected-failures baseline.
//
// How a WARNING counts: as a failure. The suite's own baseline logic does
// the same (a check fails when its status is FAILURE or WARNING), so a
// warning is either fixed or listed in the baseline with its reason, like
// any failure. SKIPPED and INFO checks pass.
const (
	conformanceCLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js"

	// specVersion is the revision the course teaches; the suite runs the
	// scenarios that apply to it.
	specVersion = "2025-11-25"
)

// notesScenarios are the suite's server scenarios that the notes server can
// take part in: they need no fixture tools.
var notesScenarios = []string{
	"server-initialize",           // initialize, visible-ASCII session id, schema-valid messages
	"server-session-lifecycle",    // initialized is accepted, DELETE ends the session, then 404
	"ping",                        // ping answers {}
	"tools-list",                  // tools/list is well formed; tool names are valid
	"logging-set-level",           // logging/setLevel answers {}
	"server-sse-multiple-streams", // three concurrent POSTs, each answered on its own
}

// scenarioTimeout bounds one run of the suite's CLI on one scenario;
// suiteTimeout bounds the run of the whole suite.
const (
	scenarioTimeout = 90 * time.Second
	suiteTimeout    = 5 * time.Minute
)

// TestConformanceNotesServer runs notesScenarios against every HTTP stage
// (stateful), and requires every check to pass.
func TestConformanceNotesServer(t *testing.T) {
	eachStage(t, httpStages, func(t *testing.T, s stage) {
		suite := findConformance(t) // before the server starts
		endpoint := startStage(t, s, false)
		for _, scenario := range notesScenarios {
			t.Run(scenario, func(t *testing.T) {
				out := t.TempDir()
				output, err := suite.run(t, scenarioTimeout, "server", "--url", endpoint,
					"--scenario", scenario, "--spec-version", specVersion, "--output-dir", out)
				checks := readChecks(t, out)
				require.NotEmpty(t, checks, "the scenario produced no checks:\n%s", output)
				for _, c := range checks {
					if failed(c.Status) {
						t.Errorf("%s: %s %s: %s", scenario, c.Status, c.ID, c.ErrorMessage)
					}
				}
				// A WARNING does not change the suite's exit status; a
				// FAILURE does.
				if !t.Failed() {
					require.NoError(t, err, "the suite reports failures:\n%s", output)
				}
			})
		}
	})
}

// TestConformanceSuite runs every server scenario of specVersion, pending
// ones included (--suite all), against the everything server on each HTTP
// stage's transport, with that stage's baseline.
func TestConformanceSuite(t *testing.T) {
	eachStage(t, httpStages, testConformanceSuite)
}

func testConformanceSuite(t *testing.T, s stage) {
	suite := findConformance(t) // before the server starts
	stageDir := s.dir
	baseline, err := filepath.Abs(filepath.Join("conformance", "expected-failures-"+stageDir+".yml"))
	require.NoError(t, err)
	require.FileExists(t, baseline, "every HTTP stage needs a baseline of what the suite is expected to fail on its transport, with a reason each")

	endpoint := startHTTPServer(t, buildEverything(t, stageDir), false)
	out := t.TempDir()
	output, runErr := suite.run(t, suiteTimeout, "server", "--url", endpoint,
		"--suite", "all", "--spec-version", specVersion, "--expected-failures", baseline, "--output-dir", out)

	// The suite's verdict against the baseline is its exit status: 1 on a
	// failure the baseline does not list, and on a listed one that now
	// passes (a stale entry). Below, the same results in detail.
	results := readResults(t, out)
	m := regexp.MustCompile(`Running all suite \((\d+) scenarios\)`).FindStringSubmatch(output)
	require.NotNil(t, m, "the suite did not say how many scenarios it runs:\n%s", output)
	assert.Equal(t, m[1], fmt.Sprint(len(results)), "scenarios that wrote results")
	for _, name := range []string{"server-sse-multiple-streams", "server-sse-polling", "json-schema-2020-12"} {
		assert.Contains(t, results, name, "the suite must run %s", name)
	}
	var lines []string
	for _, name := range sortedKeys(results) {
		var bad []string
		for _, c := range results[name] {
			if failed(c.Status) {
				bad = append(bad, fmt.Sprintf("%s %s: %s", c.Status, c.ID, c.ErrorMessage))
			}
		}
		verdict := "pass"
		if len(bad) > 0 {
			verdict = "FAIL\n      " + strings.Join(bad, "\n      ")
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", name, verdict))
	}
	t.Logf("conformance %s, fixtures served by %s/%s, baseline %s:\n%s",
		specVersion, target(), stageDir, filepath.Base(baseline), strings.Join(lines, "\n"))
	require.NoError(t, runErr, "against the baseline, the suite found unexpected failures or stale entries:\n%s", baselineReport(output))
}

// failed reports whether a check's status counts as a failure: FAILURE,
// and WARNING too (see the comment at the top of this file).
func failed(status string) bool { return status == "FAILURE" || status == "WARNING" }

// conformanceSuite is the suite's CLI and the Node.js 22 installed beside
// it. A test finds it first of all, before it starts a server, so that a
// test that cannot run skips with nothing to stop.
type conformanceSuite struct{ node, cli string }

func findConformance(t *testing.T) conformanceSuite {
	t.Helper()
	return conformanceSuite{node: node22(t), cli: npmFile(t, "conformance", conformanceCLI)}
}

// run runs the suite's CLI with args.
func (s conformanceSuite) run(t *testing.T, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(s.node, append([]string{s.cli}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := runBounded(t, cmd, timeout)
	// The baseline report is coloured whatever NO_COLOR says.
	return ansi.ReplaceAllString(output.String(), ""), err
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// baselineReport keeps the end of the suite's output, where it lists what
// disagrees with the baseline.
func baselineReport(output string) string {
	if i := strings.Index(output, "=== SUMMARY ==="); i >= 0 {
		return output[i:]
	}
	return output
}

// check is one result in the suite's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads every checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	var all []check
	for _, checks := range readResults(t, dir) {
		all = append(all, checks...)
	}
	return all
}

// readResults reads the checks of each scenario the suite ran, by scenario.
// The suite writes them to DIR/server-SCENARIO-TIMESTAMP/checks.json.
func readResults(t *testing.T, dir string) map[string][]check {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	require.NoError(t, err)
	stamp := regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)
	results := map[string][]check{}
	for _, f := range files {
		m := stamp.FindStringSubmatch(filepath.Base(filepath.Dir(f)))
		require.NotNil(t, m, "unexpected result folder %s", f)
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var checks []check
		require.NoError(t, json.Unmarshal(data, &checks), f)
		results[m[1]] = append(results[m[1]], checks...)
	}
	return results
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// everythingImport is the line of cmd/everything/stage.go that chooses the
// stage whose transport serves the fixtures.
var everythingImport = regexp.MustCompile(`stage "mcpcourse/solutions/([^"]+)"`)

const everythingStageFile = "cmd/everything/stage.go"

// everythingStage returns the stage folder cmd/everything imports.
func everythingStage() (string, error) {
	src, err := os.ReadFile(filepath.FromSlash(everythingStageFile))
	if err != nil {
		return "", err
	}
	m := everythingImport.FindSubmatch(src)
	if m == nil {
		return "", fmt.Errorf("%s imports no stage of the form %s", everythingStageFile, everythingImport)
	}
	return string(m[1]), nil
}

// TestEverythingServesNewestStage keeps cmd/everything, the server people
// point the suite at by hand, on the newest HTTP stage of the reference: the
// one import line to change when a stage lands.
func TestEverythingServesNewestStage(t *testing.T) {
	got, err := everythingStage()
	require.NoError(t, err)
	root, err := courseroot.Find()
	require.NoError(t, err)
	newest := ""
	for _, s := range stages {
		if _, err := os.Stat(filepath.Join(root, "solutions", s.dir)); err == nil && s.http {
			newest = s.dir
		}
	}
	assert.Equal(t, newest, got, "%s should import the newest reference stage", everythingStageFile)
}

// buildEverything builds cmd/everything with the transport of stage
// stageDir in the target folder. cmd/everything/stage.go imports the newest
// reference stage; for any other stage or target, a build overlay rewrites
// that import, so that the fixtures run on every stage's transport.
func buildEverything(t *testing.T, stageDir string) string {
	t.Helper()
	return buildOnce(t, "everything-"+strings.ReplaceAll(path.Join(target(), stageDir), "/", "-"), func(out string) error {
		dir, err := os.Getwd()
		if err != nil {
			return err
		}
		file := filepath.Join(dir, filepath.FromSlash(everythingStageFile))
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		want := everythingImport.ReplaceAll(src, []byte(`stage "mcpcourse/`+path.Join(target(), stageDir)+`"`))
		overlay := ""
		if !bytes.Equal(want, src) {
			if overlay, err = writeOverlay(file, want); err != nil {
				return err
			}
		}
		return goBuild(dir, out, "./cmd/everything", overlay)
	})
}
