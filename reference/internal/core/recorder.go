package core

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// bodyKind says what a handler's body is made of: a fast path may know that such a body
// needs no validation (reference/internal/fast).
type BodyKind uint8

const (
	BodyOther BodyKind = iota // validated in full
	BodyPet                   // one stored animal, as appendPetJSON encodes it, and "\n"
	BodyPets                  // "[", stored animals joined by ",", "]\n"
)

// A Handler answers a request of an operation into rec, which the api holds until the answer
// has been validated.
type Handler func(rec *Recorder, r *http.Request)

// Recorder holds a handler's response until it has been validated.
type Recorder struct {
	Headers     http.Header
	Status      int
	Body        bytes.Buffer
	OutsideSpec bool     // an Error for a limit the spec cannot document (see Fail)
	Kind        BodyKind // what the body is made of (Stored)
}

var recorders = sync.Pool{New: func() any { return &Recorder{Headers: http.Header{}} }}

func GetRecorder() *Recorder { return recorders.Get().(*Recorder) }

func PutRecorder(rec *Recorder) {
	rec.reset()
	recorders.Put(rec)
}

func (rec *Recorder) reset() {
	clear(rec.Headers)
	rec.Status = 0
	rec.Body.Reset()
	rec.OutsideSpec = false
	rec.Kind = BodyOther
}

func (rec *Recorder) Header() http.Header { return rec.Headers }

func (rec *Recorder) WriteHeader(status int) {
	if rec.Status == 0 {
		rec.Status = status
	}
}

func (rec *Recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.Body.Write(b)
}

// Stored answers with a body made of stored animals, and says so.
func (rec *Recorder) Stored(status int, kind BodyKind, body []byte) {
	rec.Headers.Set("Content-Type", "application/json")
	rec.Kind = kind
	rec.WriteHeader(status)
	_, _ = rec.Write(append(body, '\n'))
}

func (rec *Recorder) flush(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range rec.Headers {
		h[k] = v
	}
	rec.WriteHeader(http.StatusOK)
	w.WriteHeader(rec.Status)
	_, _ = w.Write(rec.Body.Bytes())
}

// replayBody is a request body the api has read whole: it gives back the bytes, then the
// error that ended the reading (io.EOF for a body read to its end), as the first reading did.
type replayBody struct {
	data []byte
	off  int
	err  error // nil: the body was read to its end
}

var replays = sync.Pool{New: func() any { return &replayBody{data: make([]byte, 0, 512)} }}

func getReplay() *replayBody { return replays.Get().(*replayBody) }

func putReplay(b *replayBody) {
	if cap(b.data) <= 64<<10 {
		b.data, b.off, b.err = b.data[:0], 0, nil
		replays.Put(b)
	}
}

// readFrom reads r to its end or first error, as io.ReadAll does.
func (b *replayBody) readFrom(r io.Reader) {
	b.data, b.off, b.err = b.data[:0], 0, nil
	for {
		if len(b.data) == cap(b.data) {
			b.data = append(b.data, 0)[:len(b.data)]
		}
		n, err := r.Read(b.data[len(b.data):cap(b.data)])
		b.data = b.data[:len(b.data)+n]
		if err != nil {
			if err != io.EOF {
				b.err = err
			}
			return
		}
	}
}

func (b *replayBody) Read(p []byte) (int, error) {
	if b.off == len(b.data) {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *replayBody) Close() error { return nil }

// readBody returns the request body: the api's replay as it is when nothing has read it yet
// (no copy), else all of r.Body.
func readBody(r *http.Request) ([]byte, error) {
	if b, ok := r.Body.(*replayBody); ok && b.off == 0 {
		return b.data, b.err
	}
	return io.ReadAll(r.Body)
}
