package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// prepare lists what the target holds and creates the shortfall of what the selected rules
// need. Only an unreachable target is an error; a target that answers wrongly makes the
// rules that needed animals report an Error with the reason.
func (r *runner) prepare() error {
	var need Needs
	for _, rule := range r.rules {
		if rule.Creates && r.opts.ReadOnly {
			continue
		}
		need.Animals = max(need.Animals, rule.Needs.Animals)
		need.PerStatus = max(need.PerStatus, rule.Needs.PerStatus)
	}
	r.fixture = &Fixture{ByStatus: map[string][]map[string]any{}}
	pets, err := r.list("")
	if err != nil {
		var te transportError
		if errors.As(err, &te) {
			return fmt.Errorf("conformance: %w: %s: %s%s", ErrUnreachable, r.sess.baseURL, r.sess.redact(te.cause()), tlsHint(te.error))
		}
		if errors.Is(err, ErrKeyRefused) {
			// Every rule that sends the key would fail for the same reason, which is the
			// run's configuration, not the target's conformance.
			hint := "check --api-key or PETSTORE_API_KEY"
			if r.sess.key == "" {
				hint = "no API key was given: pass --api-key or set PETSTORE_API_KEY"
			}
			return fmt.Errorf("conformance: %s: %w: %s", r.sess.baseURL, err, hint)
		}
		r.prepErr = r.sess.redact(err.Error())
		return nil
	}
	r.fixture.Pets = pets
	r.report.AnimalsFound = len(pets)
	if need.PerStatus > 0 {
		for _, s := range r.facts.statuses {
			if r.fixture.ByStatus[s], err = r.list(s); err != nil {
				r.prepErr = r.sess.redact(err.Error())
				return nil
			}
		}
	}
	if r.opts.ReadOnly {
		return nil
	}
	for _, s := range r.facts.statuses {
		for len(r.fixture.ByStatus[s]) < need.PerStatus {
			if err := r.create(s); err != nil {
				r.prepErr = r.sess.redact(err.Error())
				return nil
			}
		}
	}
	for i := 0; len(r.fixture.Pets) < need.Animals; i++ {
		if err := r.create(r.facts.statuses[i%len(r.facts.statuses)]); err != nil {
			r.prepErr = r.sess.redact(err.Error())
			return nil
		}
	}
	return nil
}

// unmet says which need the fixture does not meet, or "".
func (r *runner) unmet(n Needs) string {
	if r.prepErr != "" {
		return "" // reported as an Error with the preparation's reason
	}
	ro := ""
	if r.opts.ReadOnly {
		ro = " and the run is read-only"
	}
	if have := len(r.fixture.Pets); have < n.Animals {
		return fmt.Sprintf("needs %d animals, the target has %d%s", n.Animals, have, ro)
	}
	if n.PerStatus > 0 {
		for _, s := range r.facts.statuses {
			if have := len(r.fixture.ByStatus[s]); have < n.PerStatus {
				return fmt.Sprintf("needs %d animals with status %q, the target has %d%s", n.PerStatus, s, have, ro)
			}
		}
	}
	return ""
}

// transportError is a request that got no response at all.
type transportError struct{ error }

// cause is the innermost reason (connection refused, timeout), without the URL.
func (e transportError) cause() string {
	var ue *url.Error
	if errors.As(e.error, &ue) {
		return ue.Err.Error()
	}
	return e.Error()
}

// list returns the animals the target lists with the maximum limit, filtered by status
// unless it is "". Only animals whose status matches are kept, so a broken filter cannot
// make the fixture look fuller than it is.
func (r *runner) list(status string) ([]map[string]any, error) {
	q := url.Values{"limit": {strconv.FormatInt(r.facts.limit.Max, 10)}}
	if status != "" {
		q.Set("status", status)
	}
	var pets []map[string]any
	if err := r.fetch(http.MethodGet, "/pets?"+q.Encode(), nil, http.StatusOK, &pets); err != nil {
		return nil, err
	}
	out := pets[:0]
	for _, p := range pets {
		if status == "" || p["status"] == status {
			out = append(out, p)
		}
	}
	return out, nil
}

// create adds one animal with the given status and records it in the fixture.
func (r *runner) create(status string) error {
	body := r.facts.validNewPet("fixture")
	body["status"] = status
	var pet map[string]any
	if err := r.fetch(http.MethodPost, "/pets", body, http.StatusCreated, &pet); err != nil {
		return err
	}
	if int64(len(r.fixture.Pets)) < r.facts.limit.Max {
		r.fixture.Pets = append(r.fixture.Pets, pet)
	}
	r.fixture.ByStatus[status] = append(r.fixture.ByStatus[status], pet)
	return nil
}

func (r *runner) fetch(method, path string, in any, want int, out any) error {
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	req, err := http.NewRequestWithContext(r.ctx, method, r.sess.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+r.sess.key)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, data, _, err := r.sess.send(req)
	if err != nil {
		return transportError{fmt.Errorf("%s %s: %w", method, path, err)}
	}
	if resp.StatusCode == http.StatusUnauthorized && want != http.StatusUnauthorized {
		return fmt.Errorf("%w (401 on %s %s)", ErrKeyRefused, method, path)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: want %d, got %d: %.200s", method, path, want, resp.StatusCode, r.sess.redact(string(data)))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: body: %v", method, path, err)
	}
	return nil
}
