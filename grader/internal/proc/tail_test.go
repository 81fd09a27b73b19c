package proc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTailKeepsTheLastBytes(t *testing.T) {
	tail := NewTail(8)
	tail.Write([]byte("hello "))
	assert.Equal(t, "hello ", tail.String())
	tail.Write([]byte("world!"))
	assert.Equal(t, "[4 earlier bytes not kept]\no world!", tail.String())
}
