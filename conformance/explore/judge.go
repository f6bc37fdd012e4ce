package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
)

// judge checks an answer against the model. recheck > 0 asks for the request again after
// that long (a 404 within the allowed lag).
func (r *runner) judge(m *model, w *worker, i int, st Step, rel string, sent time.Time, status int, body []byte) (recheck time.Duration, v *Violation) {
	where := fmt.Sprintf("worker %d step #%d", w.n, i)
	if st.Auth != "" {
		if status != http.StatusUnauthorized {
			return 0, violation("unauthorized", "%s with %s answered %d, not 401", st.Op, authText(st.Auth), status)
		}
		return 0, nil
	}
	at := time.Now()
	switch st.Op {
	case opCreate:
		return 0, r.judgeCreate(m, w, i, st, where, at, status, body)
	case opList:
		return 0, r.judgeList(m, w, rel, where, at, status, body)
	case opGet:
		return r.judgeGet(m, w, rel, where, at, sent, status, body)
	}
	return 0, nil
}

// judgeCreate judges createPet's answer: the verdict of its body, and the created animal.
func (r *runner) judgeCreate(m *model, w *worker, i int, st Step, where string, at time.Time, status int, body []byte) *Violation {
	verdict := r.f.classify(st.Body)
	switch {
	case verdict == accept && status != http.StatusCreated:
		return violation("create-accepted", "createPet with a valid body answered %d, not 201: %s", status, keep(r.sess.Redact(string(body))))
	case verdict == reject && status != http.StatusBadRequest:
		return violation("create-rejected", "createPet with an invalid body answered %d, not 400", status)
	case status != http.StatusCreated:
		return nil
	}
	obj, _ := decodeObject(body)
	if fs := judge.Stored(r.f.sentFields(st.Body), obj, "the created Pet"); len(fs) > 0 {
		v := violation("create-fields", "createPet answered 201: %s: want %s, got %s", fs[0].Message, fs[0].Expected, fs[0].Actual)
		v.detail = detailOf(fs[0])
		return v
	}
	got, _ := fromObject(obj)
	if v := m.created(got, at, where); v != nil {
		return v
	}
	w.ids[i] = got.id
	return nil
}

// judgeList judges listPets' answer: what the query asked for, and the animals listed.
func (r *runner) judgeList(m *model, w *worker, rel, where string, at time.Time, status int, body []byte) *Violation {
	_, query, _ := strings.Cut(rel, "?")
	asked := judge.ListingAsked(r.f.Facts, query)
	if status != http.StatusOK {
		if asked.Valid {
			return violation("list-ok", "listPets with valid parameters answered %d, not 200", status)
		}
		return nil
	}
	pets, fs := r.readListing(&w.listing, w.seen, asked, body)
	if len(fs) > 0 {
		rule := "list-limit"
		if fs[0].Message == judge.OtherStatus {
			rule = "list-filter"
		}
		return violation(rule, "listPets?%s answered %s, not %s", query, fs[0].Actual, fs[0].Expected)
	}
	if v := m.listed(pets, at, where); v != nil {
		return v
	}
	if len(pets) > 0 {
		w.lastList = w.lastList[:0]
		for _, p := range pets {
			w.lastList = append(w.lastList, p.id)
		}
	}
	return nil
}

// readListing reads the animals of a listing (into l, when they are plain; seen are those
// the worker has read before) and judges them against what was asked.
func (r *runner) readListing(l *listing, seen animals, asked judge.Listing, body []byte) ([]pet, []report.Failure) {
	if r.f.readListing(l, seen, body) {
		return l.pets, asked.JudgeEach(len(l.pets), func(i int) (string, bool) { return l.pets[i].status, l.pets[i].hasStatus },
			func(i int) string { return string(l.ids[i]) })
	}
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	_ = dec.Decode(&objs) // the spec validation checked the shape
	pets := make([]pet, 0, len(objs))
	for _, o := range objs {
		p, _ := fromObject(o)
		pets = append(pets, p)
	}
	return pets, asked.Judge(objs)
}

// judgeGet judges getPet's answer: the animal asked for, or a 404 within the allowed lag
// (recheck > 0 asks for it again after that long).
func (r *runner) judgeGet(m *model, w *worker, rel, where string, at, sent time.Time, status int, body []byte) (recheck time.Duration, v *Violation) {
	id := r.petID(rel)
	if !isID(id) {
		if status/100 == 2 {
			return 0, violation("get-id", "getPet %q, which is no int64 id, answered %d", id, status)
		}
		return 0, nil
	}
	switch status {
	case http.StatusOK:
		got, ok := r.f.readAnimal(w.seen, body)
		if !ok {
			obj, _ := decodeObject(body)
			got, _ = fromObject(obj)
		}
		if got.id != id {
			return 0, violation("get-id", "getPet %s answered the animal with id %s", id, got.id)
		}
		return 0, m.seen(got, at, where)
	case http.StatusNotFound:
		return m.missing(id, sent)
	default:
		return 0, violation("get-id", "getPet %s answered %d, neither 200 nor 404", id, status)
	}
}

func authText(a string) string {
	if a == authNone {
		return "no Authorization header"
	}
	return "a wrong bearer token"
}

// petID is the petId of a getPet path (with query), as sent.
func (r *runner) petID(rel string) string {
	prefix, _, _ := strings.Cut(r.f.ByID[opGet].Path, "{")
	return strings.TrimPrefix(pathOnly(rel), prefix)
}

// isID says whether id is an int64 written the one way an int64 is written.
func isID(id string) bool {
	_, err := strconv.ParseInt(id, 10, 64)
	return err == nil && canonicalInt(id) == id
}
