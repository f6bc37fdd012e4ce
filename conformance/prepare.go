package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/exchange"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// prepare lists what the target holds and creates the shortfall of what the selected rules
// need. Only an unreachable target is an error; a target that answers wrongly makes the
// rules that needed animals report an Error with the reason.
func (r *runner) prepare() error {
	need := r.need()
	r.fixture = &Fixture{ByStatus: map[string][]map[string]any{}}
	pets, err := r.list("")
	if err != nil {
		var te transportError
		if errors.As(err, &te) && te.connected() {
			// The connection was made: the target is there and does not answer, which is not
			// a fault of the run's options but a target that cannot be judged.
			return r.sess.Stop(fmt.Sprintf("the target took the connection and sent no answer to GET %s within %s (--timeout)",
				r.facts.ByID[spec.OpList].Path, r.sess.Timeout()))
		}
		if errors.As(err, &te) {
			return fmt.Errorf("conformance: %w: %s: %s%s", ErrUnreachable, r.report.Target, r.sess.Redact(te.cause()), exchange.TLSHint(te.error))
		}
		if errors.Is(err, exchange.ErrCannotJudge) {
			return err
		}
		var se statusError
		if errors.As(err, &se) && se.got == http.StatusNotFound && r.everyOperationMissing() {
			return r.sess.Stop(fmt.Sprintf(
				"every documented operation answered 404 Not Found under %s: the base path is wrong (where does the service answer GET %s?)",
				r.report.Target, r.facts.ByID[spec.OpList].Path))
		}
		if errors.Is(err, ErrKeyRefused) {
			// Every rule that sends the key would fail for the same reason, which is the
			// run's configuration, not the target's conformance.
			hint := "check --api-key or PETSTORE_API_KEY"
			if r.sess.Key() == "" {
				hint = "no API key was given: pass --api-key or set PETSTORE_API_KEY"
			}
			return fmt.Errorf("conformance: %s: %w: %s", r.report.Target, err, hint)
		}
		r.prepErr = r.prepareBeside(r.sess.Redact(err.Error()))
		return nil
	}
	r.fixture.Pets, r.fixture.Listed = pets, true
	r.report.AnimalsFound = len(pets)
	defer func() { r.fixture.Empty = r.empty }()
	if err := r.listByStatus(need, r.fixture); err != nil {
		r.prepErr = r.prepareBeside(r.sess.Redact(err.Error()))
		return nil
	}
	if r.opts.ReadOnly {
		return nil
	}
	created, err := r.createAll(r.plan(need))
	if err != nil {
		r.prepErr = r.sess.Redact(err.Error())
		return nil
	}
	if len(created) > 0 && !r.awaitVisible(need, created) {
		r.prepErr = fmt.Sprintf("created animals not visible in the listing after %s", cases.VisibleWithin)
	}
	return nil
}

// prepareBeside prepares, beside a listing that answered wrongly (why), what the rules
// that need no listing need (an animal to ask for by id): it creates what the listed animals
// fall short of, within --max-creates, known by their 201 answers (a broken listing cannot
// show them). The listing's own rules still meet its fault, and the rules that need what it
// shows say why they could not be judged (unprepared). It returns why preparation failed, ""
// when the fixture holds what those rules need.
func (r *runner) prepareBeside(why string) string {
	switch plan := r.plan(r.needOf(func(rule Rule) bool { return !rule.Needs.OfListing() })); {
	case len(plan) == 0:
	case r.opts.ReadOnly || r.sess.Created()+int64(len(plan)) > int64(r.opts.MaxCreates):
		return why
	default:
		if _, err := r.createAll(plan); err != nil {
			return why + "; creating the animals the other rules need failed too: " + r.sess.Redact(err.Error())
		}
	}
	r.listErr = why
	return ""
}

// plan lists the status of every animal preparation creates, in order: each status's
// shortfall (the first status's covering OfStatus too), then the first status value for the
// rest, so that what status-default-limit needs is met by the animals that default-limit
// needs anyway.
func (r *runner) plan(need Needs) []string {
	var plan []string
	for i, s := range r.facts.Statuses {
		want := need.PerStatus
		if i == 0 {
			want = max(want, need.OfStatus)
		}
		for n := len(r.fixture.ByStatus[s]); n < want; n++ {
			plan = append(plan, s)
		}
	}
	for n := len(r.fixture.Pets) + len(plan); n < need.Animals; n++ {
		plan = append(plan, r.facts.Statuses[0])
	}
	return plan
}

// createAll creates an animal of each status of plan, on the run's workers, and records
// them in the fixture in plan order. The first error in plan order is returned, with the
// animals created before it recorded.
func (r *runner) createAll(plan []string) ([]map[string]any, error) {
	pets := make([]map[string]any, len(plan))
	errs := make([]error, len(plan))
	sem := make(chan struct{}, r.opts.Workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i, status := range plan {
		sem <- struct{}{}
		if failed.Load() {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if pets[i], errs[i] = r.create(status); errs[i] != nil {
				failed.Store(true)
			}
		}()
	}
	wg.Wait()
	var created []map[string]any
	for i, pet := range pets {
		if errs[i] != nil {
			return created, errs[i]
		}
		if pet == nil {
			break
		}
		r.record(pet, plan[i])
		created = append(created, pet)
	}
	return created, nil
}

// need is what the selected rules need of the store. A run creates for ADVISORY rules, and
// one that is not strict for SHOULD rules, at most what the MUST rules of the catalogue need (default limit + 1
// animals): their exact-count checks (limit-max-full) would otherwise make every run against
// a service that pages below the limit create the same shortfall again.
func (r *runner) need() Needs {
	return r.needOf(func(Rule) bool { return true })
}

// needOf is need over the selected rules for which keep holds.
func (r *runner) needOf(keep func(Rule) bool) Needs {
	var need Needs
	lax := int(r.facts.Limit.Default) + 1
	for _, rule := range r.rules {
		if rule.Creates && r.opts.ReadOnly || !keep(rule) {
			continue
		}
		n := rule.Needs
		if rule.Severity == Advisory || rule.Severity == Should && !r.opts.Strict {
			n = Needs{Animals: min(n.Animals, lax), PerStatus: min(n.PerStatus, lax), OfStatus: min(n.OfStatus, lax)}
		}
		need.Animals = max(need.Animals, n.Animals)
		need.PerStatus = max(need.PerStatus, n.PerStatus)
		need.OfStatus = max(need.OfStatus, n.OfStatus)
	}
	return need
}

// listByStatus lists the animals of each status value, side by side, into fx.
func (r *runner) listByStatus(need Needs, fx *Fixture) error {
	if need.PerStatus == 0 && need.OfStatus == 0 {
		return nil
	}
	lists := make([][]map[string]any, len(r.facts.Statuses))
	errs := make([]error, len(r.facts.Statuses))
	var wg sync.WaitGroup
	for i, s := range r.facts.Statuses {
		wg.Go(func() { lists[i], errs[i] = r.list(s) })
	}
	wg.Wait()
	for i, s := range r.facts.Statuses {
		if errs[i] != nil {
			return errs[i]
		}
		fx.ByStatus[s] = lists[i]
	}
	return nil
}

// awaitVisible re-lists until a created animal shows in the listing or in its status's (a
// store may show what it stored only after a while), then keeps the fresh listings
// topped up with what was created: the counts the rules rely on.
func (r *runner) awaitVisible(need Needs, created []map[string]any) bool {
	fresh := &Fixture{ByStatus: map[string][]map[string]any{}}
	visible := cases.Eventually(r.ctx, r.sess.Wait, func() bool {
		var err, byStatus error
		var wg sync.WaitGroup
		wg.Go(func() { byStatus = r.listByStatus(need, fresh) })
		fresh.Pets, err = r.list("")
		if wg.Wait(); err != nil || byStatus != nil {
			return false
		}
		shown := judge.IDSet(fresh.Pets)
		for _, l := range fresh.ByStatus {
			for id := range judge.IDSet(l) {
				shown[id] = true
			}
		}
		// One is enough: a store that pages below the limit may never show the rest,
		// and one that shows writes late shows them together once it does.
		for _, p := range created {
			if id, _ := judge.IDOf(p); shown[id] {
				return true
			}
		}
		return false
	})
	if !visible {
		return false
	}
	have := judge.IDSet(fresh.Pets)
	for _, p := range created {
		id, _ := judge.IDOf(p)
		if !have[id] && int64(len(fresh.Pets)) < r.facts.Limit.Max {
			fresh.Pets = append(fresh.Pets, p)
		}
		if s, _ := p["status"].(string); s != "" && fresh.ByStatus[s] != nil && !judge.IDSet(fresh.ByStatus[s])[id] {
			fresh.ByStatus[s] = append(fresh.ByStatus[s], p)
		}
	}
	for _, s := range r.facts.Statuses {
		if fresh.ByStatus[s] == nil {
			fresh.ByStatus[s] = r.fixture.ByStatus[s]
		}
	}
	r.fixture = fresh
	return true
}

// unprepared says why the fixture may not hold what n asks for, "" when preparation saw to
// it: preparation failed, or the listing answered wrongly and n is of what it shows. A rule
// so unprepared still runs, and judges what its requests show without the fixture.
func (r *runner) unprepared(n Needs) string {
	switch {
	case n == Needs{}:
		return ""
	case r.prepErr != "":
		return "preparation failed: " + r.prepErr
	case r.listErr != "" && n.OfListing():
		return "needs what a listing shows, and preparation's listing answered wrongly: " + r.listErr
	}
	return ""
}

// unmet says which need the fixture does not meet, or "".
func (r *runner) unmet(n Needs) string {
	if r.unprepared(n) != "" {
		return "" // reported as an Error with the reason
	}
	ro := ""
	if r.opts.ReadOnly {
		ro = " and the run is read-only"
	}
	if !r.opts.ReadOnly && !meets(r.need(), n) {
		ro = fmt.Sprintf(" (a run creates more than %d animals for SHOULD rules only when strict)", r.facts.Limit.Default+1)
	}
	if have := len(r.fixture.Pets); have < n.Animals {
		return fmt.Sprintf("needs %d animals, the target has %d%s", n.Animals, have, ro)
	}
	for i, s := range r.facts.Statuses {
		want := n.PerStatus
		if i == 0 {
			want = max(want, n.OfStatus)
		}
		if have := len(r.fixture.ByStatus[s]); have < want {
			return fmt.Sprintf("needs %d animals with status %q, the target has %d%s", want, s, have, ro)
		}
	}
	return ""
}

// statusError is an answer of another status than the one preparation needed.
type statusError struct {
	error
	got int
}

// everyOperationMissing reports whether every documented operation answers 404 under the
// base URL: each is asked without the key (and without a body), which a service that has it
// answers 401 (section 5.3), whatever the path names. Operations that may change state name
// an id no animal can have; a read-only run asks only those it may send.
func (r *runner) everyOperationMissing() bool {
	asked := 0
	for _, op := range r.facts.Ops {
		if r.opts.ReadOnly && cases.Unsafe(op.Method) {
			continue
		}
		resp, _, err := r.sess.SendRequest(r.ctx, wire.Request{Method: op.Method, Path: cases.FillPath(op.Path, cases.ImpossibleID), Auth: wire.AuthNone})
		if errors.Is(err, exchange.ErrNotSent) {
			continue // an operation on a collection, which the run never sends
		}
		if err != nil || resp.StatusCode != http.StatusNotFound {
			return false
		}
		asked++
	}
	return asked > 0
}

// transportError is a request that got no response at all.
type transportError struct{ error }

// connected reports whether the request got as far as a connection: it timed out waiting
// for an answer, not while dialling (a refused or unroutable address, a TLS handshake).
func (e transportError) connected() bool {
	var op *net.OpError
	if errors.As(e.error, &op) && op.Op == "dial" {
		return false
	}
	var ne net.Error
	return errors.Is(e.error, context.DeadlineExceeded) || errors.As(e.error, &ne) && ne.Timeout()
}

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
	q := url.Values{"limit": {strconv.FormatInt(r.facts.Limit.Max, 10)}}
	if status != "" {
		q.Set("status", status)
	}
	path := "/pets?" + q.Encode()
	var raw json.RawMessage
	if err := r.fetch(http.MethodGet, path, nil, http.StatusOK, &raw); err != nil {
		return nil, err
	}
	var pets []map[string]any
	if err := judge.Decode(raw, &pets); err != nil {
		return nil, fmt.Errorf("GET %s: body: %v", path, err)
	}
	if len(pets) == 0 {
		// The representation of nothing, seen before the run created anything: the rule
		// listPets/empty-array judges it.
		r.emptyOnce.Do(func() {
			r.empty = &cases.Listing{Request: "GET " + r.facts.ByID[spec.OpList].Path + "?" + q.Encode(), Body: raw}
		})
	}
	out := pets[:0]
	for _, p := range pets {
		if status == "" || p["status"] == status {
			out = append(out, p)
		}
	}
	return out, nil
}

// meets reports whether have covers every need of want.
func meets(have, want Needs) bool {
	return have.Animals >= want.Animals && have.PerStatus >= want.PerStatus && have.OfStatus >= want.OfStatus
}

// create adds one animal with the given status and returns it.
func (r *runner) create(status string) (map[string]any, error) {
	body := rules.PetBody(r.facts, r.fixture, r.facts.Statuses[0])
	body["status"] = status
	var pet map[string]any
	if err := r.fetch(http.MethodPost, "/pets", body, http.StatusCreated, &pet); err != nil {
		return nil, err
	}
	return pet, nil
}

// record adds an animal preparation created to the fixture.
func (r *runner) record(pet map[string]any, status string) {
	if int64(len(r.fixture.Pets)) < r.facts.Limit.Max {
		r.fixture.Pets = append(r.fixture.Pets, pet)
	}
	r.fixture.ByStatus[status] = append(r.fixture.ByStatus[status], pet)
}

func (r *runner) fetch(method, path string, in any, want int, out any) error {
	q := wire.Request{Method: method, Path: path}
	if in != nil {
		body, _ := json.Marshal(in)
		q.Body, q.Header = wire.JSONBody(body), []wire.Header{{Name: "Content-Type", Value: "application/json"}}
	}
	resp, data, err := r.sess.SendRequest(r.ctx, q)
	if errors.Is(err, exchange.ErrCannotJudge) {
		return err
	}
	if err != nil {
		return transportError{fmt.Errorf("%s %s: %w", method, path, err)}
	}
	if resp.StatusCode == http.StatusUnauthorized && want != http.StatusUnauthorized {
		return fmt.Errorf("%w (401 on %s %s)", ErrKeyRefused, method, path)
	}
	if resp.StatusCode != want {
		return statusError{fmt.Errorf("%s %s: want %s, got %s: %.200s", method, path, report.StatusText(want), report.StatusText(resp.StatusCode), r.sess.Redact(string(data))), resp.StatusCode}
	}
	if err := judge.Decode(data, out); err != nil {
		return fmt.Errorf("%s %s: body: %v", method, path, err)
	}
	return nil
}
