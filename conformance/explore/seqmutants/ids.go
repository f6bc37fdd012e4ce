package seqmutants

import (
	"net/http"
	"path"
	"strconv"
	"sync"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// ids shows the reference's animals under other ids: the ids the clients see (public) are
// handed out by alloc and translated both ways. It is the base of the faults that concern
// identity and storage (racing ids, a lost write, a store that drops animals) and of the
// random ids the document allows.
type ids struct {
	alloc func() int64 // a fresh public id
	// keep decides whether the animal the reference stored (as answered) is kept: a lost
	// write is not; nil keeps every one.
	keep func(pet map[string]any) bool
	// capacity > 0 drops the oldest animal once more are held.
	capacity int

	mu    sync.Mutex
	toRef map[int64]int64
	toPub map[int64]int64
	order []int64 // public ids, oldest first (for capacity)
}

func newIDs(alloc func() int64) *ids {
	return &ids{alloc: alloc, toRef: map[int64]int64{}, toPub: map[int64]int64{}}
}

func (l *ids) bind(pub, ref int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The last writer wins, as in a store keyed by a racing id.
	l.toRef[pub] = ref
	l.toPub[ref] = pub
	l.order = append(l.order, pub)
	for l.capacity > 0 && len(l.toRef) > l.capacity && len(l.order) > 0 {
		old := l.order[0]
		l.order = l.order[1:]
		if ref, ok := l.toRef[old]; ok {
			delete(l.toRef, old)
			delete(l.toPub, ref)
		}
	}
}

func (l *ids) ref(pub int64) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ref, ok := l.toRef[pub]
	return ref, ok
}

func (l *ids) pub(ref int64) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pub, ok := l.toPub[ref]
	return pub, ok
}

func (l *ids) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case kit.IsCreate(r):
			rp := kit.Capture(next, r)
			if m, ok := rp.Object(); ok && rp.Status == http.StatusCreated {
				ref, _ := idOf(m)
				pub := l.alloc()
				if l.keep == nil || l.keep(m) {
					l.bind(pub, ref)
				}
				setID(m, pub)
				rp.SetBody(m)
			}
			rp.Send(w)
		case kit.IsGet(r):
			pub, err := strconv.ParseInt(path.Base(r.URL.Path), 10, 64)
			if err != nil {
				next.ServeHTTP(w, r) // not an id: the reference's own answer
				return
			}
			ref, ok := l.ref(pub)
			if !ok {
				ref = -1 // no such animal: the reference's 404 (after its key check)
			}
			rp := kit.Capture(next, kit.WithPath(r, path.Join(path.Dir(r.URL.Path), strconv.FormatInt(ref, 10))))
			if m, ok := rp.Object(); ok && rp.Status == http.StatusOK {
				setID(m, pub)
				rp.SetBody(m)
			}
			rp.Send(w)
		case kit.IsList(r):
			rp := kit.Capture(next, r)
			if list, ok := rp.Objects(); ok && rp.Status == http.StatusOK {
				out := make([]map[string]any, 0, len(list))
				for _, m := range list {
					ref, _ := idOf(m)
					if pub, ok := l.pub(ref); ok {
						setID(m, pub)
						out = append(out, m)
					}
				}
				rp.SetBody(out)
			}
			rp.Send(w)
		default:
			next.ServeHTTP(w, r)
		}
	})
}
