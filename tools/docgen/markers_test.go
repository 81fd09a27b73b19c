package docgen

import (
	"os"
	"path/filepath"
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

// TestWriteReachesAFixedPoint: the words of a lesson count the lists its
// own parts hold, so a change to a list changes a count in another file.
func TestWriteReachesAFixedPoint(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "lessons"), 0o755))
	lesson := "# Lesson 01\n\n## Step 1 · One\n\n<!-- gen:green lesson=01 step=1 -->\n<!-- /gen -->\n"
	words := "The core path has <!-- gen:words lesson=01 -->0<!-- /gen --> words.\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "lessons", "01-stdio.md"), []byte(lesson), 0o644))
	// The instructor's file is read before the lesson, so a single pass
	// would count the lesson's words before its list is written.
	require.NoError(t, os.WriteFile(filepath.Join(root, "lessons", "00-words.md"), []byte(words), 0o644))
	written, err := Write(root)
	require.NoError(t, err)
	assert.Len(t, written, 2)
	stale, err := Check(root)
	require.NoError(t, err)
	assert.Empty(t, stale)
	text, err := os.ReadFile(filepath.Join(root, "lessons", "01-stdio.md"))
	require.NoError(t, err)
	counted, err := os.ReadFile(filepath.Join(root, "lessons", "00-words.md"))
	require.NoError(t, err)
	assert.Contains(t, string(counted), "-->"+thousands(CoreWords(string(text)))+"<!--")
}
