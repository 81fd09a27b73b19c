package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDKeepsItsJSONType(t *testing.T) {
	for _, in := range []string{`7`, `"7"`, `-3`, `0`, `9007199254740993`, `"a\"b"`} {
		var id ID
		require.NoError(t, json.Unmarshal([]byte(in), &id), in)
		out, err := json.Marshal(id)
		require.NoError(t, err)
		assert.Equal(t, in, string(out))
	}
}

func TestIDRejectsWhatMCPForbids(t *testing.T) {
	for _, in := range []string{`null`, `1.5`, `1e3`, `true`, `{}`, `[]`, `99999999999999999999`} {
		var id ID
		assert.ErrorIs(t, id.UnmarshalJSON([]byte(in)), ErrBadID, in)
	}
}

func TestMessages(t *testing.T) {
	res, err := NewResult(IntID(1), nil)
	require.NoError(t, err)
	b, _ := json.Marshal(res)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(b), "a nil result is {}, never null")

	b, _ = json.Marshal(NewErrorResponse(ID{}, NewError(CodeParseError, "bad")))
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}`, string(b), "an unreadable id is left out")

	n, err := NewNotification("notifications/progress", map[string]int{"progress": 1})
	require.NoError(t, err)
	assert.True(t, n.IsNotification())
	assert.False(t, n.IsRequest())
}
