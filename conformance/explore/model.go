package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/petstore/petstore/spec"
)

// pet is an animal as sent or as answered, its numbers as JSON text.
type pet struct {
	id        string
	name      string
	category  string
	status    string
	hasStatus bool
}

func decodeObject(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// fromObject reads a Pet (or NewPet) object; ok is false when it is none or a field has the
// wrong type (the spec validation reports that).
func fromObject(m map[string]any) (p pet, ok bool) {
	if v, has := m[fieldID]; has {
		n, isNum := v.(json.Number)
		if !isNum {
			return p, false
		}
		p.id = canonicalInt(n.String())
	}
	if p.name, ok = m[fieldName].(string); !ok {
		return p, false
	}
	n, ok := m[fieldCategory].(json.Number)
	if !ok {
		return p, false
	}
	p.category = canonicalInt(n.String())
	if v, has := m[fieldStatus]; has {
		if p.status, ok = v.(string); !ok {
			return p, false
		}
		p.hasStatus = true
	}
	return p, true
}

func (p pet) fields() string {
	s := fmt.Sprintf("%s=%q %s=%s", fieldName, p.name, fieldCategory, p.category)
	if p.hasStatus {
		s += fmt.Sprintf(" %s=%q", fieldStatus, p.status)
	}
	return s
}

func (p pet) sameFields(q pet) bool {
	return p.name == q.name && p.category == q.category && p.hasStatus == q.hasStatus && p.status == q.status
}

// known is an animal the model has seen: created by the run (own) or listed or got (another
// client's). since is when it was certainly stored: the 201's arrival, or when first seen;
// gone, when the success of its removal arrived (zero: not removed).
type known struct {
	pet         pet
	own         bool
	since, gone time.Time
	where       string
	changes     int // operations sent that may change or remove it
}

// model is what a run has learnt of the store, shared by its workers.
type model struct {
	f    *spec.Facts
	lag  time.Duration
	mu   sync.Mutex
	pets map[string]*known
	// statuses counts the animals known by status. all says that the model knows every
	// animal of the store: the store started empty and the model saw every create
	// (Config.EmptyStore, in a phase that starts on the store as it started).
	statuses map[string]int
	all      bool
	// removable says that the spec removes animals: another client's may go.
	removable bool
}

func newModel(f *spec.Facts, lag time.Duration) *model {
	return &model{f: f, lag: lag, pets: map[string]*known{}, statuses: map[string]int{}, removable: operationsOf(f).removes}
}

// add records an animal the model did not know; the caller holds m.mu.
func (m *model) add(p pet, k *known) {
	m.pets[p.id] = k
	if p.hasStatus {
		m.statuses[p.status]++
	}
}

// absent lists the statuses no animal of the store has, when the model knows every animal:
// a listing filtered by one of them holds no animal of a status (an animal without one does
// not contradict a filter, see judge.Listing), and on the store as it started, none at all.
// A create in flight can still add one: what the listing answers is judged as any listing's.
func (m *model) absent() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.all {
		return nil
	}
	var out []string
	for _, s := range m.f.Statuses {
		if m.statuses[s] == 0 {
			out = append(out, s)
		}
	}
	return out
}

// created records the animal a 201 answered (that it holds what was sent is judge.Stored's).
func (m *model) created(got pet, at time.Time, where string) *Violation {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.pets[got.id]; ok {
		if k.own {
			return violation(ruleIDsUnique, "createPet answered id %s, already answered to %s (%s)", got.id, k.where, k.pet.fields())
		}
		if !k.pet.sameFields(got) {
			return violation(ruleIDsUnique, "createPet answered id %s, which another animal had when %s (%s)", got.id, k.where, k.pet.fields())
		}
		// Listed before its 201 was read: it is ours after all.
		k.own, k.since, k.where = true, at, where
		return nil
	}
	m.add(got, &known{pet: got, own: true, since: at, where: where})
	return nil
}

// seen checks an animal that a listing or getPet answered against what the model knows: its
// fields, and that it is not one removed more than the lag before the request was sent (one
// removed more recently: recheck says how long until it must be gone).
func (m *model) seen(p pet, a *judging) (recheck time.Duration, v *Violation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.pets[p.id]
	switch {
	case !ok:
		m.add(p, &known{pet: p, since: a.at, where: a.where()})
	case !k.pet.sameFields(p):
		return 0, violation(rulePersist, "animal %s has %s, but had %s when %s", p.id, p.fields(), k.pet.fields(), k.where)
	case k.gone.IsZero() || a.sent.Before(k.gone):
	case a.sent.Sub(k.gone) > m.lag:
		return 0, violation(ruleDeletedGone, "%s answered animal %s, removed %s before it was asked for (allowed lag %s)",
			a.st.Op, p.id, a.sent.Sub(k.gone).Round(time.Millisecond), m.lag)
	default:
		return k.gone.Add(m.lag).Sub(a.sent) + time.Millisecond, nil
	}
	return 0, nil
}

// listed checks one page of listPets against what the model knows (what a listing may hold
// whatever the store, its limit and filter, is judge.Listing's).
func (m *model) listed(pets []pet, a *judging) (recheck time.Duration, v *Violation) {
	ids := make(map[string]bool, len(pets))
	for _, p := range pets {
		if ids[p.id] {
			return 0, violation(ruleListArray, "listPets answered two animals with id %s", p.id)
		}
		ids[p.id] = true
		if wait, v := m.seen(p, a); v != nil {
			return 0, v
		} else if wait > recheck {
			recheck = wait
		}
	}
	return recheck, nil
}

// removed records that the removal of animal id succeeded, answered at (zero: that an
// operation that may change or remove it is sent).
func (m *model) removed(id string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.pets[id]; ok && at.IsZero() {
		k.changes++
	} else if ok && k.gone.IsZero() {
		k.gone = at
	}
}

// missing judges a 404 for id, asked at sent by a step that is sending of the changes sent: why says what the model knows of the animal
// when it was certainly stored more than the lag before and not removed; when it was stored
// more recently, wait says how long until a second 404 would be one (zero: the 404 is fine,
// the id is unknown, the animal removed or being removed, or another client's that may go).
func (m *model) missing(id string, sent time.Time, sending int) (wait time.Duration, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.pets[id]
	if !ok || !k.gone.IsZero() || k.changes > sending || m.removable && !k.own {
		return 0, ""
	}
	if age := sent.Sub(k.since); age > m.lag {
		how := "was listed or got"
		if k.own {
			how = "was created"
		}
		return 0, fmt.Sprintf("%s %s earlier (%s; allowed lag %s)", how, age.Round(time.Millisecond), k.where, m.lag)
	}
	return k.since.Add(m.lag).Sub(sent) + time.Millisecond, ""
}

// canonicalInt is s as an int64 in decimal when it is one exactly, else s itself (so that
// 9007199254740993 and 9007199254740992 stay different, and 1.0 stays "1.0").
func canonicalInt(s string) string {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return s
}
