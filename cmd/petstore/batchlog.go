package main

import (
	"io"
	"sync"
	"time"
)

// The server's log (access log, the reference's errors, net/http's errors) is written in
// batches: every logFlushEvery, as soon as logBatchBytes are waiting, and when the server
// stops. One write(2) per request was about 5% of the server's CPU on a validated GET
// (issue 14); a line now waits at most logFlushEvery before it is seen.
const (
	logFlushEvery = 100 * time.Millisecond
	logBatchBytes = 32 << 10
)

// batchLog gathers writes and passes them on in batches. It is safe for concurrent use, and
// keeps the order of the writes.
type batchLog struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	// closed: Close has run, and writes go straight to w.
	closed bool

	stop, done chan struct{}
	closeOnce  sync.Once
}

// newBatchLog writes to w at every tick, when logBatchBytes are waiting, and at Close.
func newBatchLog(w io.Writer, tick <-chan time.Time) *batchLog {
	b := &batchLog{w: w, buf: make([]byte, 0, logBatchBytes), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			select {
			case <-tick:
				_ = b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write keeps p for the next batch and reports no error: the loggers that write here ignore
// one anyway (gorilla's LoggingHandler, log.Logger).
func (b *batchLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBatchBytes {
		_ = b.flushLocked()
	}
	return len(p), nil
}

// Flush writes what is waiting.
func (b *batchLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *batchLog) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*logBatchBytes { // one huge line does not keep its buffer
		b.buf = make([]byte, 0, logBatchBytes)
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close stops the ticking and writes what is waiting; writes after Close go straight through.
func (b *batchLog) Close() error {
	b.closeOnce.Do(func() {
		close(b.stop)
		<-b.done
	})
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.flushLocked()
	b.closed = true
	return err
}
