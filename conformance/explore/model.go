package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Violation is one answer the interface document rules out: the model's rule, the section
// of the document it rests on, and what was seen.
type Violation struct {
	Rule    string `json:"rule"`
	Section string `json:"section"`
	Message string `json:"message"`
	// Cause is what makes two violations one finding (see causeOf), set once the step is
	// judged.
	Cause string `json:"cause,omitempty"`
	// detail is what the cause keeps of a message that names what was wrong, until the
	// cause is set.
	detail string
}

// The model's rules and their sections of the interface document.
var sections = map[string]string{
	"no-5xx":          "4 (the documented responses); 7",
	"error-record":    "7",
	"spec":            "2; 4 (responses as the description gives them)",
	"unauthorized":    "5.3",
	"no-answer":       "4",
	"create-accepted": "4.2",
	"create-rejected": "4.2; 7",
	"create-fields":   "2; 4.2",
	"ids-unique":      "2 (Pet.id)",
	"persist":         "2; 4.2; 4.3",
	"list-ok":         "4.1",
	"list-limit":      "4.1 rule 1; 8",
	"list-filter":     "4.1 rule 2",
	"get-id":          "4.3",
}

func violation(rule, format string, args ...any) *Violation {
	return &Violation{Rule: rule, Section: sections[rule], Message: fmt.Sprintf(format, args...)}
}

// verdict is what the document says of a createPet body.
type verdict int

const (
	accept verdict = iota // a 201 is required
	reject                // a 400 is required
	open                  // silent: a 201 or a 4xx Error record
)

// plainName is a name no service could call invalid: the document shows no length or
// character limits, so only short ASCII names are sure to be accepted.
var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$`)

// Plain categoryIds: the document does not show category records, so a service may refuse
// others; these are the ones explore expects a service to accept.
const plainCategoryMax = 1000

// classify gives the verdict on a createPet body: reject when it breaks the NewPet schema
// (section 4.2: missing required fields or invalid values), accept when it is plain, open
// otherwise.
func (f *Facts) classify(body string) verdict {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	if dec.Decode(&v) != nil || dec.More() {
		return reject
	}
	if f.NewPet.VisitJSON(v) != nil {
		return reject
	}
	p, ok := parseSent(body)
	if !ok {
		return open
	}
	if c, err := strconv.ParseInt(p.category, 10, 64); err == nil && c >= 1 && c <= plainCategoryMax && plainName.MatchString(p.name) {
		return accept
	}
	return open
}

// pet is an animal as sent or as answered, its numbers as JSON text.
type pet struct {
	id        string
	name      string
	category  string
	status    string
	hasStatus bool
}

// parseSent reads the fields of a createPet body that is a JSON object.
func parseSent(body string) (pet, bool) {
	m, ok := decodeObject([]byte(body))
	if !ok {
		return pet{}, false
	}
	return fromObject(m)
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

// fromObject reads a Pet (or NewPet) object; ok is false when a field has the wrong type
// (the spec validation reports that).
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
// client's). since is when it was certainly stored: the 201's arrival, or when first seen.
type known struct {
	pet   pet
	own   bool
	since time.Time
	where string
}

// model is what a run has learnt of the store, shared by its workers.
type model struct {
	f    *Facts
	lag  time.Duration
	mu   sync.Mutex
	pets map[string]*known
	// statuses counts the animals known by status. all says that the model knows every
	// animal of the store: the store started empty and the model saw every create
	// (Config.EmptyStore, in a phase that starts on the store as it started).
	statuses map[string]int
	all      bool
}

func newModel(f *Facts, lag time.Duration) *model {
	return &model{f: f, lag: lag, pets: map[string]*known{}, statuses: map[string]int{}}
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
			return violation("ids-unique", "createPet answered id %s, already answered to %s (%s)", got.id, k.where, k.pet.fields())
		}
		if !k.pet.sameFields(got) {
			return violation("ids-unique", "createPet answered id %s, which another animal had when %s (%s)", got.id, k.where, k.pet.fields())
		}
		// Listed before its 201 was read: it is ours after all.
		k.own, k.since, k.where = true, at, where
		return nil
	}
	m.add(got, &known{pet: got, own: true, since: at, where: where})
	return nil
}

// seen checks an animal that a listing or getPet answered against what the model knows.
func (m *model) seen(p pet, at time.Time, where string) *Violation {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.pets[p.id]
	if !ok {
		m.add(p, &known{pet: p, since: at, where: where})
		return nil
	}
	if !k.pet.sameFields(p) {
		return violation("persist", "animal %s has %s, but had %s when %s", p.id, p.fields(), k.pet.fields(), k.where)
	}
	return nil
}

// listed checks one page of listPets against what the model knows (what a listing may hold
// whatever the store, its limit and filter, is judge.Listing's).
func (m *model) listed(pets []pet, at time.Time, where string) *Violation {
	ids := make(map[string]bool, len(pets))
	for _, p := range pets {
		if ids[p.id] {
			return violation("ids-unique", "listPets answered two animals with id %s", p.id)
		}
		ids[p.id] = true
		if v := m.seen(p, at, where); v != nil {
			return v
		}
	}
	return nil
}

// missing judges a 404 for id, asked at sent. It returns a violation when the animal was
// certainly stored more than the lag before; when it was stored more recently, wait says
// how long until a second 404 would be one (zero: the 404 is fine, the id is unknown).
func (m *model) missing(id string, sent time.Time) (wait time.Duration, v *Violation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.pets[id]
	if !ok {
		return 0, nil
	}
	if age := sent.Sub(k.since); age > m.lag {
		how := "was listed or got"
		if k.own {
			how = "was created"
		}
		return 0, violation("persist", "getPet %s answered 404, but the animal %s %s earlier (%s; allowed lag %s)",
			id, how, age.Round(time.Millisecond), k.where, m.lag)
	}
	return k.since.Add(m.lag).Sub(sent) + time.Millisecond, nil
}
