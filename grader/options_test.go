package grader_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

func TestSplitCommand(t *testing.T) {
	for line, want := range map[string][]string{
		"node server.mjs":                 {"node", "server.mjs"},
		`  python3  -m   srv `:            {"python3", "-m", "srv"},
		`node '/my dir/server.mjs' -x`:    {"node", "/my dir/server.mjs", "-x"},
		`sh -c "echo \"hi\" there"`:       {"sh", "-c", `echo "hi" there`},
		`a\ b 'it''s' ""`:                 {"a b", "its", ""},
		`uvx mcp-server-fetch --ua 'x y'`: {"uvx", "mcp-server-fetch", "--ua", "x y"},
	} {
		got, err := grader.SplitCommand(line)
		require.NoError(t, err, line)
		assert.Equal(t, want, got, line)
	}
	for _, bad := range []string{"", "   ", "node 'x", `a "b`, `a\`} {
		_, err := grader.SplitCommand(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, []string{"https://*.example.com", "http://localhost:*"}, grader.SplitList(" https://*.example.com, ,http://localhost:* "))
}
