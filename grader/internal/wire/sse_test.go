package wire

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSSEReaderFollowsTheWHATWGRules(t *testing.T) {
	body := "\ufeffid: 1\nretry: 1000\ndata:\n\n" + // a BOM at the start is skipped
		"id\ndata\n\n" + // no colon: the field's value is empty (an empty id resets it)
		"id:  2\ndata:  two spaces\n\n" + // only one space after the colon is dropped
		"id: 3\r\nevent: message\r\ndata: x\r\n\r\n" +
		"id: 4\n\n" // no data: an EventSource does not dispatch it, the reader hands it out
	events, malformed := ParseSSEStrict([]byte(body))
	require.Len(t, events, 5)
	assert.Empty(t, malformed)
	assert.Equal(t, Event{ID: "1", SetID: true, Retry: "1000"}, events[0])
	assert.Equal(t, Event{ID: "", SetID: true}, events[1])
	assert.Equal(t, Event{ID: " 2", SetID: true, Data: " two spaces"}, events[2])
	assert.Equal(t, Event{ID: "3", SetID: true, Event: "message", Data: "x"}, events[3])
	assert.Equal(t, Event{ID: "4", SetID: true, NoData: true}, events[4])
}

func TestSSEReaderReportsWhatAClientIgnores(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{"retry: 1s", "not all ASCII digits"},
		{"retry: -5", "not all ASCII digits"},
		{"retry:", "not all ASCII digits"},
		{"retry: 1000 ", "not all ASCII digits"},
		{"Data: x", "case-sensitive"},
		{"ID: 1-1", "case-sensitive"},
		{"id: 1\x002", "NUL"},
		{"message: x", "unknown field"},
		{" data: x", "unknown field"},
	} {
		events, malformed := ParseSSEStrict([]byte("id: 7\n" + tt.line + "\ndata: ok\n\n"))
		require.Len(t, events, 1, tt.line)
		require.Len(t, events[0].Problems, 1, tt.line)
		assert.Contains(t, events[0].Problems[0], tt.want, tt.line)
		assert.Equal(t, events[0].Problems, malformed, tt.line)
		assert.Equal(t, "7", events[0].ID, "an ignored field changes nothing: %q", tt.line)
		assert.Equal(t, "ok", events[0].Data, tt.line)
		assert.Empty(t, events[0].Retry, tt.line)
	}
}

func TestSSEReaderReportsAnUnfinishedEvent(t *testing.T) {
	r := NewSSEReader(strings.NewReader("id: 1\ndata:\n"))
	_, err := r.Next()
	assert.Equal(t, io.ErrUnexpectedEOF, err)
	require.Len(t, r.Malformed(), 1)
	assert.Contains(t, r.Malformed()[0], "middle of an event")
}

func TestSSEReaderDropsAnEventOfIgnoredFieldsOnly(t *testing.T) {
	events, malformed := ParseSSEStrict([]byte("retry: soon\n\ndata: x\n\n"))
	require.Len(t, events, 1)
	assert.Equal(t, "x", events[0].Data)
	assert.Empty(t, events[0].Problems)
	assert.Len(t, malformed, 1)
}
