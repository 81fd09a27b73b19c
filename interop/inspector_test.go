package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inspector is one major version of the MCP Inspector, whose CLI mode
// (--cli) calls one method of a server and prints the result as JSON.
type inspector struct {
	name   string // the subtest name
	folder string // the npm folder that pins it
	entry  string // its launcher, inside the folder
}

var inspectors = []inspector{
	{"v1", "inspector-v1", "node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"},
	{"v2", "inspector-v2", "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"},
}

// inspectorTimeout bounds one Inspector run.
const inspectorTimeout = 30 * time.Second

// TestInspectorCLI runs tools/list and tools/call echo with both Inspector
// CLIs, against every stage's reference: stdio, and Streamable HTTP
// stateful and stateless.
func TestInspectorCLI(t *testing.T) {
	eachStage(t, allStages, func(t *testing.T, s stage) {
		for _, in := range inspectors {
			t.Run(in.name, func(t *testing.T) {
				cli := findInspector(t, in) // before any server starts
				if !s.http {
					checkInspector(t, cli, buildServer(t, s.pkg()))
					return
				}
				for _, m := range modes {
					t.Run(m.name, func(t *testing.T) {
						checkInspector(t, cli, startStage(t, s, m.stateless), "--transport", "http")
					})
				}
			})
		}
	})
}

// checkInspector lists the tools of the server at target (a command or a
// URL) and calls echo.
func checkInspector(t *testing.T, cli inspectorCLI, target string, transport ...string) {
	t.Helper()
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	cli.run(t, &list, append(append([]string{target}, transport...), "--method", "tools/list")...)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, notesTools, names, "tools/list")

	var call struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	cli.run(t, &call, append(append([]string{target}, transport...),
		"--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text="+echoText)...)
	assert.False(t, call.IsError, "echo reported an error")
	require.Len(t, call.Content, 1, "echo's content")
	assert.Equal(t, "text", call.Content[0].Type)
	assert.Equal(t, echoText, call.Content[0].Text, "echo")
}

// inspectorCLI is an Inspector's launcher and the Node.js 22 from
// interop/conformance that it runs on. A test finds it first of all, before
// it starts a server, so that a test that cannot run skips with nothing to
// stop.
type inspectorCLI struct {
	inspector
	node, entry string
}

func findInspector(t *testing.T, in inspector) inspectorCLI {
	t.Helper()
	return inspectorCLI{inspector: in, node: node22(t), entry: npmFile(t, in.folder, in.entry)}
}

// run runs the Inspector's CLI with args, and decodes the JSON it prints
// into out.
func (c inspectorCLI) run(t *testing.T, out any, args ...string) {
	t.Helper()
	node, entry, in := c.node, c.entry, c.inspector
	cmd := exec.Command(node, append([]string{entry, "--cli"}, args...)...)
	// The 1.x launcher starts its CLI as "node" from the PATH, so the PATH
	// must lead to Node.js 22 too. 2.x keeps a catalog under the home
	// folder, which a test keeps to itself.
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+t.TempDir(),
		"NO_COLOR=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := runBounded(t, cmd, inspectorTimeout)
	require.NoError(t, err, "inspector %s %s\nstdout:\n%s\nstderr:\n%s", in.name, strings.Join(args, " "), stdout.String(), stderr.String())
	require.NoError(t, json.Unmarshal(stdout.Bytes(), out), "the Inspector's output is not the JSON result:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
}
