package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The official MCP conformance suite (npm @modelcontextprotocol/conformance)
// is pinned, with the Node.js 22 it needs, in conformance/package.json.
// `npm ci --prefix interop/conformance` installs both; the course's own test
// command does that before it runs this module's tests.
const (
	conformanceDir = "conformance"
	conformanceCLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	nodeBinary     = "node_modules/.bin/node" // Node.js 22, from the npm package "node"
)

// stage02Scenarios are the suite's server scenarios that a server with
// stage 02's features can take part in. The others need tools the notes
// server does not have (images, sampling, …), or features of later stages
// (GET streams, resumption, Origin checks).
var stage02Scenarios = []string{
	"server-initialize",        // initialize, visible-ASCII session id, schema-valid messages
	"server-session-lifecycle", // initialized is accepted, DELETE ends the session, then 404
	"ping",                     // ping answers {}
	"tools-list",               // tools/list is well formed; tool names are valid
}

// scenarioTimeout bounds one run of the suite's CLI.
const scenarioTimeout = 90 * time.Second

// TestConformanceSuite runs the official conformance suite against the
// stage 02 reference server, and requires every check to succeed.
func TestConformanceSuite(t *testing.T) {
	node := filepath.Join(conformanceDir, nodeBinary)
	cli := filepath.Join(conformanceDir, conformanceCLI)
	if _, err := os.Stat(cli); err != nil {
		msg := "the MCP conformance suite is not installed; run: npm ci --prefix interop/conformance"
		if os.Getenv("MCP_CONFORMANCE") == "required" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	endpoint := startHTTPServer(t, false)
	for _, scenario := range stage02Scenarios {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, cli, "server", "--url", endpoint,
				"--scenario", scenario, "--spec-version", "2025-11-25", "--output-dir", out)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			output, err := cmd.CombinedOutput()
			require.NoError(t, err, "the conformance suite reports failures:\n%s", output)

			checks := readChecks(t, out)
			require.NotEmpty(t, checks, "the scenario produced no checks:\n%s", output)
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS", "INFO":
				default:
					t.Errorf("%s: %s %s: %s", scenario, c.Status, c.ID, c.ErrorMessage)
				}
			}
		})
	}
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
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	require.NoError(t, err)
	var all []check
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var checks []check
		require.NoError(t, json.Unmarshal(data, &checks), f)
		all = append(all, checks...)
	}
	return all
}
