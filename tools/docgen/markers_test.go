package docgen

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFindsBlocksAndInlineParts(t *testing.T) {
	text := "# A lesson\n\nIt runs <!-- gen:count lesson=01 -->26<!-- /gen --> checks.\n\n" +
		"<!-- gen:green lesson=01 step=1 -->\n- STDIO-01 · old\n<!-- /gen -->\n\n" +
		"<!-- gen:splits -->\n<!-- /gen -->\nThe end.\n"
	f, err := Parse("x.md", text)
	require.NoError(t, err)
	require.Len(t, f.Parts, 3)

	assert.Equal(t, "count", f.Parts[0].Kind)
	assert.Equal(t, map[string]string{"lesson": "01"}, f.Parts[0].Args)
	assert.False(t, f.Parts[0].Block)
	assert.Equal(t, "26", f.Parts[0].Content)
	assert.Equal(t, 3, f.Parts[0].Line)

	assert.True(t, f.Parts[1].Block)
	assert.Equal(t, map[string]string{"lesson": "01", "step": "1"}, f.Parts[1].Args)
	assert.Equal(t, "- STDIO-01 · old\n", f.Parts[1].Content)

	assert.True(t, f.Parts[2].Block)
	assert.Equal(t, "", f.Parts[2].Content, "an empty block")

	assert.Equal(t, text, f.With([]string{"26", "- STDIO-01 · old\n", ""}))
	assert.Equal(t, "# A lesson\n\nIt runs <!-- gen:count lesson=01 -->27<!-- /gen --> checks.\n\n"+
		"<!-- gen:green lesson=01 step=1 -->\n- STDIO-01 · new\n- STDIO-02 · two\n<!-- /gen -->\n\n"+
		"<!-- gen:splits -->\n| a |\n<!-- /gen -->\nThe end.\n",
		f.With([]string{"27", "- STDIO-01 · new\n- STDIO-02 · two\n", "| a |\n"}))
}

func TestParseRefusesBrokenMarkers(t *testing.T) {
	for _, bad := range []string{
		"<!-- gen:green lesson=01 step=1 -->\n- STDIO-01\n",                                            // a block never closed
		"runs <!-- gen:count lesson=01 -->26 checks\n<!-- /gen -->\n",                                  // an inline part closed on another line
		"text\n<!-- gen:count lesson=01 -->26<!-- /gen --> checks\n",                                   // an inline part that starts a line
		"<!-- gen:claims lesson=01 -->\nx <!-- gen:count lesson=01 -->1<!-- /gen -->\n<!-- /gen -->\n", // a part in a part
		"a <!-- gen:count lesson=01 lesson=02 -->1<!-- /gen -->\n",                                     // a key twice
	} {
		_, err := Parse("x.md", bad)
		assert.Error(t, err, "%q", bad)
	}
}
