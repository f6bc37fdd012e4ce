package reference

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// bodyKind says what a handler's body is made of: a fast path may know that such a body
// needs no validation (fast_plan.go).
type bodyKind uint8

const (
	bodyOther bodyKind = iota // validated in full
	bodyPet                   // one stored animal, as appendPetJSON encodes it, and "\n"
	bodyPets                  // "[", stored animals joined by ",", "]\n"
)

// recorder holds a handler's response until it has been validated.
type recorder struct {
	header      http.Header
	status      int
	body        bytes.Buffer
	outsideSpec bool     // an Error for a limit the spec cannot document (see writeError)
	kind        bodyKind // what the body is made of (writeStored)
}

var recorders = sync.Pool{New: func() any { return &recorder{header: http.Header{}} }}

func getRecorder() *recorder { return recorders.Get().(*recorder) }

func putRecorder(rec *recorder) {
	rec.reset()
	recorders.Put(rec)
}

func (rec *recorder) reset() {
	clear(rec.header)
	rec.status = 0
	rec.body.Reset()
	rec.outsideSpec = false
	rec.kind = bodyOther
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}

func (rec *recorder) flush(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	rec.WriteHeader(http.StatusOK)
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
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
