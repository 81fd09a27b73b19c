package resume

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventIDsRoundTrip(t *testing.T) {
	for _, e := range []event{{stream: 0, n: 1}, {stream: 7, n: 42}, {stream: 123456, n: 1 << 40}} {
		stream, n, ok := parseEventID(e.id())
		require.True(t, ok, e.id())
		assert.Equal(t, e.stream, stream)
		assert.Equal(t, e.n, n)
	}
}

func TestMalformedEventIDs(t *testing.T) {
	for _, id := range []string{
		"", "-", "1", "1-", "-1", "1-0", "a-1", "1-b", "1-2-3", "+1-2", "1-+2", " 1-2", "1-2 ",
		"1--2", "0x1-2", "1-99999999999999999999999", "99999999999999999999-1", "1_2",
	} {
		_, _, ok := parseEventID(id)
		assert.False(t, ok, "%q should be malformed", id)
	}
}

// collect returns an evicted callback that records what it is given.
func collect(into *[]event) func(event) { return func(e event) { *into = append(*into, e) } }

func TestEventLogEvictsOldestFirst(t *testing.T) {
	l := newEventLog(3, 1<<20)
	var gone []event
	for i := uint64(1); i <= 5; i++ {
		l.add(event{stream: 1, n: i, data: []byte("x")}, collect(&gone))
	}
	require.Len(t, gone, 2)
	assert.Equal(t, []uint64{1, 2}, []uint64{gone[0].n, gone[1].n})
	assert.Equal(t, 3, l.n)
	assert.Equal(t, 3, l.bytes)
}

func TestEventLogByteBound(t *testing.T) {
	l := newEventLog(100, 10)
	var gone []event
	l.add(event{stream: 1, n: 1, data: []byte("aaaaaa")}, collect(&gone))
	l.add(event{stream: 1, n: 2, data: []byte("bbbbbb")}, collect(&gone))
	require.Len(t, gone, 1, "12 bytes do not fit in 10: the oldest goes")
	assert.Equal(t, uint64(1), gone[0].n)

	l.add(event{stream: 1, n: 3, data: make([]byte, 11)}, collect(&gone))
	assert.Equal(t, 0, l.n, "an event larger than the bound is not kept, and pushes everything out")
	assert.Equal(t, 0, l.bytes)
}

func TestEventLogGrowsLazily(t *testing.T) {
	l := newEventLog(1000, 1<<20)
	assert.Nil(t, l.ring, "a new log holds no slots")
	noop := func(event) {}
	for i := uint64(1); i <= 3; i++ {
		l.add(event{stream: 1, n: i, data: []byte("x")}, noop)
	}
	assert.Equal(t, initialRing, len(l.ring), "three events need the initial ring only")
	for i := uint64(4); i <= 2000; i++ {
		l.add(event{stream: 1, n: i, data: []byte("x")}, noop)
	}
	assert.Equal(t, 1000, len(l.ring), "the ring grows to its bound, and no further")
	assert.Equal(t, 1000, l.n)
}

func TestEventLogAfterKeepsToItsStream(t *testing.T) {
	l := newEventLog(100, 1<<20)
	noop := func(event) {}
	l.add(event{stream: 1, n: 1}, noop) // a priming event
	for i := uint64(1); i <= 4; i++ {
		l.add(event{stream: 2, n: i, data: []byte("b")}, noop)
		l.add(event{stream: 1, n: i + 1, data: []byte("a")}, noop)
	}
	got := l.after(1, 2)
	var ns []uint64
	for _, e := range got {
		assert.Equal(t, 1, e.stream, "another stream's event")
		ns = append(ns, e.n)
	}
	assert.Equal(t, []uint64{3, 4, 5}, ns)
	assert.Len(t, l.after(1, 0), 4, "a priming event carries nothing to replay")
	assert.Empty(t, l.after(1, 5))
	assert.Empty(t, l.after(9, 0))
}

func TestEventLogWrapsAround(t *testing.T) {
	l := newEventLog(8, 1<<20)
	noop := func(event) {}
	for i := uint64(1); i <= 21; i++ {
		l.add(event{stream: 3, n: i, data: []byte(fmt.Sprint(i))}, noop)
	}
	got := l.after(3, 0)
	require.Len(t, got, 8)
	for i, e := range got {
		assert.Equal(t, uint64(14+i), e.n, "oldest first, across the ring's end")
	}
}

// BenchmarkEventLogAdd measures logging one event in a full log, which
// evicts one.
func BenchmarkEventLogAdd(b *testing.B) {
	l := newEventLog(DefaultReplayBuffer, DefaultReplayBytes)
	data := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
	noop := func(event) {}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l.add(event{stream: i % 4, n: uint64(i + 1), data: data}, noop)
	}
}

// BenchmarkReplay measures finding what a client missed on one of four
// interleaved streams, in a full log of the default size.
func BenchmarkReplay(b *testing.B) {
	l := newEventLog(DefaultReplayBuffer, DefaultReplayBytes)
	noop := func(event) {}
	for i := 0; i < DefaultReplayBuffer; i++ {
		l.add(event{stream: i % 4, n: uint64(i/4 + 1), data: []byte("{}")}, noop)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := l.after(2, 200); len(got) != 50 {
			b.Fatalf("replayed %d events, want 50", len(got))
		}
	}
}
