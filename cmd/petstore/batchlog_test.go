package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writes records each write the batch log makes, and tells the test when one happened.
type writes struct {
	mu    sync.Mutex
	got   []string
	wrote chan struct{}
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.got = append(w.got, string(p))
	w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.got...)
}

// Lines wait for a tick, then go out as one write, in the order they came.
func TestBatchLogWritesAtTheTick(t *testing.T) {
	w := &writes{wrote: make(chan struct{}, 1)}
	tick := make(chan time.Time)
	b := newBatchLog(w, tick)
	defer b.Close()
	for i := range 3 {
		n, err := fmt.Fprintf(b, "line %d\n", i)
		require.NoError(t, err)
		require.Equal(t, 7, n)
	}
	assert.Empty(t, w.all(), "nothing is written before the tick")
	tick <- time.Time{}
	<-w.wrote
	assert.Equal(t, []string{"line 0\nline 1\nline 2\n"}, w.all())
	tick <- time.Time{} // nothing waiting: no empty write
	require.NoError(t, b.Close())
	assert.Len(t, w.all(), 1)
}

// A full batch is written at once, without waiting for a tick; Close writes the rest, and
// what comes after Close goes straight through. Nothing is lost or reordered.
func TestBatchLogFullBatchAndClose(t *testing.T) {
	w := &writes{wrote: make(chan struct{}, 1)}
	b := newBatchLog(w, nil) // no tick ever
	line := strings.Repeat("x", 99) + "\n"
	var want bytes.Buffer
	for range logBatchBytes/len(line) + 1 {
		_, _ = b.Write([]byte(line))
		want.WriteString(line)
	}
	require.Len(t, w.all(), 1, "the batch was written when full")
	_, _ = b.Write([]byte("last\n"))
	want.WriteString("last\n")
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "a second Close is harmless")
	_, _ = b.Write([]byte("after\n"))
	want.WriteString("after\n")
	got := w.all()
	assert.Len(t, got, 3)
	assert.Equal(t, want.String(), strings.Join(got, ""))
}

// Concurrent writers: every line arrives whole, once.
func TestBatchLogConcurrentWriters(t *testing.T) {
	var out bytes.Buffer
	b := newBatchLog(&out, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(b, "g%d-%d\n", g, i)
			}
		})
	}
	wg.Wait()
	require.NoError(t, b.Close())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Len(t, lines, 8*500)
	seen := map[string]bool{}
	for _, l := range lines {
		assert.False(t, seen[l], l)
		seen[l] = true
	}
}
