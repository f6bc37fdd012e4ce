package rules

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/spec"
)

// Generated cases. Each family of the cases package is a rule per operation
// ("createPet/cases-fields", "getPet/cases-auth"). A family's rule sends every case, judges each answer by the case's verdict, and tags every
// failure with the case's words and section.

// DefaultMaxCreates caps the animals a run creates when Options.MaxCreates is zero: enough
// for the enumerated cases and a --fuzz of a few hundred, few enough for a shared staging.
const DefaultMaxCreates = 500

// caseFamilies are the families that make one rule per operation, with their titles.
var caseFamilies = []struct{ family, section, title string }{
	{cases.FamilyFields, "4.2; 2; 7", "every variant of each body property (absent, null, other types, boundaries, extremes, odd strings, enumeration values) gets the answer the document gives it"},
	{cases.FamilyBody, "4.2; 1; 7", "every variant of the body as a whole (none, null, array, scalar, malformed, trailing data, BOM, duplicate keys, nesting, size) gets the answer the document gives it"},
	{cases.FamilyHeaders, "4; 1", "Content-Type and Accept variants get the answer the document gives them"},
	{cases.FamilyQuery, "4.1; 7; 8", "every variant of each query parameter (bounds, out of range, wrong type, encodings, repeats, unknown, combined) gets the answer the document gives it"},
	{cases.FamilyPath, "4.3; 7", "every variant of each path parameter (known, unknown, extremes, wrong type, encodings) gets the answer the document gives it"},
	{cases.FamilyAuth, "5.1; 5.2; 5.3", "every way of presenting the key, alone and with a request bad in another way, gets 401 where the key is missing or invalid (whatever else is wrong), and the answer the document gives it otherwise"},
}

// caseRules returns the generated-case rules: a rule per family and operation that has
// such cases.
func caseRules(f *facts) []Rule {
	g := cases.New(cases.Base{Reference: "1", KnownID: "1", Unknown: []string{"0"}, Name: func() string { return cases.NamePrefix }})
	var rules []Rule
	for _, fam := range caseFamilies {
		for _, op := range f.Ops {
			if len(g.Mutations(op, fam.family)) == 0 {
				continue
			}
			rules = append(rules, Rule{
				ID: op.ID + "/cases-" + fam.family, Section: fam.section, Severity: Must, Op: op.ID,
				Title: fmt.Sprintf("%s: %s", op.ID, fam.title), Needs: caseNeeds(f, op, fam.family), Unsafe: unsafe(op),
				Check: func(c *Check) { runFamily(c, f, op, fam.family) },
			})
		}
	}
	return append(rules, Rule{
		ID: "errors/cases-routes", Section: "7; 4", Severity: Must, Unsafe: true,
		Title: "a path no operation has, a trailing slash, or a method the spec does not give a path: never a 5xx, and a 4xx carries an Error record",
		Check: func(c *Check) { runCases(c, f, newGenerator(c, f, "errors/cases-routes").Routes(f.Ops), false) },
	})
}

// fuzzRules are the random combinations, one rule per operation, when the run asks for them.
func fuzzRules(f *facts, n int) []Rule {
	var rules []Rule
	per, extra := n/len(f.Ops), n%len(f.Ops)
	for i, op := range f.Ops {
		k := per
		if i < extra {
			k++
		}
		if k == 0 {
			continue
		}
		rules = append(rules, Rule{
			ID: op.ID + "/cases-fuzz", Section: "4; 5; 7", Severity: Must, Op: op.ID, Unsafe: unsafe(op),
			Title: fmt.Sprintf("%s: %d random combinations of variants (--fuzz, --seed) get the answer the document gives them; a failing one is shrunk", op.ID, k),
			Needs: Needs{Animals: int(f.Limit.Default) + 1},
			Check: func(c *Check) {
				g := newGenerator(c, f, op.ID+"/cases-fuzz")
				rng := rand.New(rand.NewPCG(c.cases.seed, hash("fuzz/"+op.ID)))
				runCases(c, f, g.Random(op, rng, k), true)
			},
		})
	}
	return rules
}

// unsafe: requests of op's method may change the store (RFC 9110 9.2.1).
func unsafe(op spec.Operation) bool { return cases.Unsafe(op.Method) }

// caseNeeds: a listing's cases need more animals than the default limit, of every status (a
// listing that ignores the default or the filter shows it); the cases of an operation with
// a path parameter need an animal to ask for.
func caseNeeds(f *facts, op spec.Operation, family string) Needs {
	switch {
	case family == cases.FamilyQuery:
		return Needs{Animals: int(f.Limit.Default) + 1, PerStatus: 1}
	case strings.Contains(op.Path, "{"):
		return Needs{Animals: 1}
	}
	return Needs{}
}

func runFamily(c *Check, f *facts, op spec.Operation, family string) {
	if strings.Contains(op.Path, "{") {
		c.needPets(1) // the cases ask for a known animal
	}
	g := newGenerator(c, f, op.ID+"/"+family)
	ks := g.Cases(op, family)
	var probes []probe
	for _, o := range runCases(c, f, ks, false) {
		if ks[o.index].RangeProbe {
			probes = append(probes, probe{ks[o.index], o.lastStatus, o.lastExchange})
		}
	}
	judgeRange(c, probes)
}

// caseOutcome is what one case showed, once merged into the rule's recorder.
type caseOutcome struct {
	index        int
	lastStatus   int // the status of the case's last answer (0: none)
	lastExchange int // the index, in the rule's recorder, of the case's last exchange
}

// runCases sends ks on up to the run's workers at once, each case's own requests in order,
// and merges what each showed into the rule's recorder in the order of ks, so that the
// report does not depend on timing. After a case the target did not answer, no further
// case is sent or reported: the rule is then inconclusive, and sending the rest would only
// wait out more timeouts. It returns the outcomes of the cases merged.
func runCases(c *Check, f *facts, ks []cases.Case, shrink bool) []caseOutcome {
	type result struct {
		sub      *Check
		panicked any // what a case's goroutine panicked with, raised again in the rule's
		done     chan struct{}
	}
	results := make([]result, len(ks))
	for i := range results {
		results[i].done = make(chan struct{})
	}
	var halt atomic.Bool
	sem := make(chan struct{}, max(c.workers, 1))
	go func() {
		for i, k := range ks {
			sem <- struct{}{}
			if halt.Load() || c.Ctx.Err() != nil {
				<-sem
				close(results[i].done)
				continue
			}
			go func() {
				defer func() { <-sem; close(results[i].done) }()
				defer func() {
					if v := recover(); v != nil {
						results[i].panicked = v
						halt.Store(true)
					}
				}()
				sub := c.fork()
				if !runCase(sub, f, k, shrink) {
					halt.Store(true)
				}
				results[i].sub = sub
			}()
		}
	}()
	var out []caseOutcome
	stopped := false
	for i := range results {
		<-results[i].done
		if v := results[i].panicked; v != nil && !stopped {
			panic(v) // Execute reports it, as for a check that panics in the rule's goroutine
		}
		sub := results[i].sub
		if stopped || sub == nil {
			stopped = true
			continue
		}
		c.rec.Absorb(sub.rec)
		c.cases.ran += sub.cases.ran
		if sub.cases.skipped > 0 {
			c.cases.skipped += sub.cases.skipped
			c.cases.skipWhy = sub.cases.skipWhy
		}
		out = append(out, caseOutcome{index: i, lastStatus: sub.cases.lastStatus, lastExchange: c.rec.ExchangeCount() - 1})
		stopped = !sub.rec.Answered()
	}
	return out
}

// probe is a range probe, the status it got and the exchange that shows it.
type probe struct {
	k        cases.Case
	status   int
	exchange int
}

// bigID is where a made-up id stops looking like an entry of a table of records: a service
// that takes one this large is not checking that the record exists.
var bigID = new(big.Rat).SetInt64(1 << 31)

// judgeRange: a service may refuse a categoryId it does not know (categories are not shown).
// But one that took a made-up id of at least 2^31 and refused a valid int64 of the same sign
// and larger magnitude is refusing a range of its own (JavaScript's safe integers, say),
// which the document does not give (section 2: int64).
func judgeRange(c *Check, probes []probe) {
	var largestTaken [2]*big.Rat // by sign: 0 negative, 1 positive
	for _, p := range probes {
		v, sign := probeValue(p.k)
		if p.status/100 == 2 && v != nil && v.Cmp(bigID) >= 0 && (largestTaken[sign] == nil || v.Cmp(largestTaken[sign]) > 0) {
			largestTaken[sign] = v
		}
	}
	for _, p := range probes {
		v, sign := probeValue(p.k)
		taken := largestTaken[sign]
		if p.status/100 != 4 || v == nil || taken == nil || v.Cmp(taken) <= 0 {
			continue
		}
		c.rec.SetCase(p.k.Words, "2 (categoryId: integer, int64); 4.2", cases.Accept.String(),
			fmt.Sprintf("the service took the made-up %s, far beyond any table of records, so refusing a larger valid int64 is a range of its own, not an unknown record", taken.RatString()))
		c.rec.FailAt(report.Failure{Message: "a valid int64 is refused while a smaller made-up value of at least 2^31 was accepted",
			Expected: report.StatusText(successStatus(c.cases.create)), Actual: "a 4xx"}, p.exchange)
	}
	c.rec.SetCase("", "", "", "")
}

// probeValue is the magnitude of the single integer a range probe sends, and its sign.
func probeValue(k cases.Case) (*big.Rat, int) {
	for _, f := range k.Request.Body.Fields {
		if len(f.Want) == 1 {
			if v, ok := new(big.Rat).SetString(f.Want[0]); ok && v.IsInt() && f.Name != "" && isProbeField(k, f.Name) {
				if v.Sign() < 0 {
					return v.Neg(v), 0
				}
				return v, 1
			}
		}
	}
	return nil, 0
}

// isProbeField: the field the probe's one mutation changed.
func isProbeField(k cases.Case, name string) bool {
	ms := k.Mutations()
	return len(ms) == 1 && ms[0].Part == "body."+name
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// newGenerator builds the cases' valid requests from the fixture: a categoryId a listed
// animal has, a listed animal's id, ids no listed animal has, and names drawn from the
// run's seed (so that a seed sends the same requests).
func newGenerator(c *Check, f *facts, stream string) *cases.Generator {
	rng := rand.New(rand.NewPCG(c.cases.seed, hash(stream)))
	base := cases.Base{Reference: "1", Name: func() string { return cases.RandomName(rng.IntN) }}
	if ex, ok := f.validNewPet()[categoryField]; ok {
		base.Reference = jsonText(ex)
	}
	if cat, ok := f.borrowedCategory(c.Fixture, nil); ok {
		base.Reference = jsonText(cat)
	}
	seen := map[string]bool{}
	if c.Fixture != nil {
		seen = judge.IDSet(c.Fixture.Pets)
		if len(c.Fixture.Pets) > 0 {
			base.KnownID, _ = judge.IDOf(c.Fixture.Pets[0])
		}
	}
	for _, id := range []string{"9223372036854775807", "0", "-1", "9007199254740993"} {
		if !seen[id] {
			base.Unknown = append(base.Unknown, id)
		}
	}
	return cases.New(base)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// runCase sends one case and judges the answer; a failing random combination is shrunk
// first and reported as its smallest failing form. It returns false when the target gave
// no answer: the rule is then inconclusive, and sending the rest would only wait out more
// timeouts.
func runCase(c *Check, f *facts, k cases.Case, shrink bool) bool {
	release, why := c.cases.mayCreate(k.Creates)
	if release == nil {
		c.cases.skipped++
		c.cases.skipWhy = why
		return true
	}
	defer release()

	if shrink && len(k.Mutations()) > 1 {
		if failed, level := c.probe(func() { judgeCase(c, f, k) }); failed {
			// A smaller form must fail as strongly: dropping a rejected field from a body
			// that also holds bytes that are not UTF-8 must not turn a MUST into a SHOULD.
			small := cases.Shrink(k, func(cand cases.Case) bool {
				release, _ := c.cases.mayCreate(cand.Creates)
				if release == nil {
					return false
				}
				defer release()
				failed, got := c.probe(func() { judgeCase(c, f, cand) })
				return failed && got <= level
			})
			if len(small.Mutations()) < len(k.Mutations()) {
				small.Words += fmt.Sprintf(" (shrunk from %d variants: %s)", len(k.Mutations()), k.Words)
			}
			k = small
		}
	}
	c.rec.SetCase(k.Words, k.Section, k.Verdict.String(), k.Reason)
	defer c.rec.SetCase("", "", "", "")
	judgeCase(c, f, k)
	if why := cmp.Or(c.rec.NotSent(), c.cases.notSent); why != "" {
		c.cases.notSent = ""
		c.cases.skipped++
		c.cases.skipWhy = why
		return true
	}
	c.cases.ran++
	return c.rec.Answered()
}

// caseState is what a run's case families share: the seed, the creation budget, and the
// counts for the rule's result.
type caseState struct {
	seed       uint64
	readOnly   bool
	maxCreates int
	// reserve claims room for n more animals under --max-creates for as long as a case
	// runs (nil release: none left); the claims of cases in flight count as created.
	reserve func(n int) (release func())
	ran     int
	skipped int
	skipWhy string
	// lastStatus is the status of the latest case's answer (0: none).
	lastStatus int
	// create is createPet, whose success status range refusals are judged against.
	create spec.Operation
	// waitedInVain, shared by the run's rules: a created animal never showed up, so later
	// cases do not wait again.
	waitedInVain *atomic.Bool
	// notSent is why the latest case was not sent although it was allowed to be.
	notSent string
}

// notSent marks the case being judged as not sent, with why.
func (c *Check) notSent(why string) { c.cases.notSent = why }

// mayCreate returns the release of the room a case that creates claims (a no-op for one
// that does not), or nil and why the case may not be sent.
func (s *caseState) mayCreate(creates bool) (release func(), why string) {
	switch {
	case !creates:
		return func() {}, ""
	case s.readOnly:
		return nil, "the run is read-only and the case may create an animal"
	}
	if release = s.reserve(1); release == nil {
		return nil, fmt.Sprintf("the run has created %d animals, its --max-creates", s.maxCreates)
	}
	return release, ""
}

// judgeCase sends k and checks the answer against its verdict.
func judgeCase(c *Check, f *facts, k cases.Case) {
	if cases.NeedsOwnAnimal(k.Request.Path) {
		id, err := c.ownAnimal(f)
		if err != nil {
			c.notSent(err.Error())
			return
		}
		k.Request.Path = cases.WithOwnAnimal(k.Request.Path, id)
	}
	req, err := c.caseRequest(k.Request)
	if err != nil {
		c.Failf("the case cannot be sent: %v", err)
		return
	}
	before := c.rec.FailureCount()
	c.cases.lastStatus = 0
	resp, err := c.sendRaw(req, k.Verdict != cases.Accept)
	if err != nil {
		return // recorded: no answer (the rule is inconclusive), or a cut body
	}
	body := readAll(resp)
	got := resp.StatusCode
	c.cases.lastStatus = got
	spoke := c.rec.FailureCount() > before // the spec validation already said what is wrong
	success := successStatus(f.ByID[k.Op])
	switch {
	case got >= 500:
		c.Expectf(expectedFor(k, success), report.StatusText(got), "a request must never get a 5xx")
	case k.Verdict == cases.Reject && k.Lookup && got == success:
		judgeSuccess(c, f, k, body)
	// An answer against the verdict weighs the case's level (READINGS.md); everything else
	// (a 5xx, an error without an Error body, a success that contradicts the request) MUST.
	case k.Verdict == cases.Reject && len(k.Statuses) > 0 && !slices.Contains(k.Statuses, got):
		c.ExpectAtf(k.Level, expectedFor(k, success), report.StatusText(got), "want %s with an Error body, got %s", report.StatusList(k.Statuses), report.StatusText(got))
	case k.Verdict == cases.Reject && (got < 400 || got >= 500):
		c.ExpectAtf(k.Level, expectedFor(k, success), report.StatusText(got), "want a 4xx with an Error body, got %s", report.StatusText(got))
	case k.Verdict == cases.Accept && got != success:
		c.ExpectAtf(k.Level, expectedFor(k, success), report.StatusText(got), "want %s, got %s", report.StatusText(success), report.StatusText(got))
	case got >= 400:
		if !spoke {
			c.fail(judge.ErrorRecord(f.Facts, got, resp.Header, body, false))
		}
	case got/100 == 3 && k.Verdict == cases.Open:
		// A redirect (a trailing slash to the path without it, say): where the document
		// leaves the answer open, it is an answer; the harness does not follow it.
	case got/100 == 2 && k.Op == "":
		// A route the spec does not have: the document shows no such endpoint, and what
		// a service serves there is its own.
	case got/100 == 2 && got != success:
		c.Expectf(report.StatusText(success), report.StatusText(got), "a success must be %s, got %s", report.StatusText(success), report.StatusText(got))
	case got/100 == 2:
		judgeSuccess(c, f, k, body)
	default:
		c.Expectf(expectedFor(k, success), report.StatusText(got), "want %s, got %s", expectedFor(k, success), report.StatusText(got))
	}
}

func expectedFor(k cases.Case, success int) string {
	switch {
	case k.Verdict == cases.Accept:
		return report.StatusText(success)
	case k.Verdict == cases.Reject && len(k.Statuses) > 0:
		return report.StatusList(k.Statuses) + " with an Error body"
	case k.Verdict == cases.Reject:
		return "a 4xx with an Error body"
	}
	return fmt.Sprintf("%s, or a 4xx with an Error body", report.StatusText(success))
}

// judgeSuccess checks a 2xx answer against the request: a created animal holds what was
// sent (and so does getPet of it afterwards), a listing holds at most its limit and only
// animals of the filtered status, getPet returns the animal asked for.
func judgeSuccess(c *Check, f *facts, k cases.Case, body []byte) {
	switch k.Op {
	case spec.OpCreate:
		var pet map[string]any
		if judge.Decode(body, &pet) != nil || pet == nil {
			c.Expectf("a Pet object", report.Clip(string(body), 120), "the created animal must come back as a Pet")
			return
		}
		wants := k.Request.Body.Wants()
		c.fail(judge.Stored(wants, pet, "the created Pet"))
		id, ok := judge.IDOf(pet)
		if !ok || f.ByID[spec.OpGet].Gone(c.Now) || c.Failed() {
			return
		}
		if got := getRaw(c, id); got != nil {
			c.fail(judge.Stored(wants, got, "getPet of the created animal"))
		}
	case spec.OpList:
		var pets []map[string]any
		if judge.Decode(body, &pets) != nil {
			c.Expectf("a JSON array of Pet", report.Clip(string(body), 120), "the listing must be a plain array (4.1 rule 3)")
			return
		}
		c.fail(judge.ListingAsked(f.Facts, k.Request.RawQuery()).Judge(pets))
	case spec.OpGet:
		var pet map[string]any
		if judge.Decode(body, &pet) != nil || pet == nil {
			c.Expectf("a Pet object", report.Clip(string(body), 120), "getPet must answer a Pet")
			return
		}
		raw := k.Request.Path[strings.LastIndex(k.Request.Path, "/")+1:]
		asked, _ := url.PathUnescape(raw)
		if n, ok := new(big.Int).SetString(asked, 10); ok {
			if id, _ := judge.IDOf(pet); !judge.NumEqual(id, n.String()) {
				c.Expectf("the animal with id "+n.String(), "id "+id, "getPet answered another animal than the one asked for (4.3)")
			}
		}
	}
}

// caseRequest builds the HTTP request of a case: the path and query exactly as written,
// the key presented as the case says.
func (c *Check) caseRequest(r cases.Request) (*http.Request, error) {
	u, err := url.Parse(c.BaseURL + r.Path)
	if err != nil {
		return nil, err
	}
	u.RawQuery = r.RawQuery()
	var body []byte
	if r.Body != nil {
		body = r.Body.Bytes()
	}
	var req *http.Request
	if body != nil {
		req, err = http.NewRequestWithContext(c.Ctx, r.Method, u.String(), bytes.NewReader(body))
	} else {
		req, err = http.NewRequestWithContext(c.Ctx, r.Method, u.String(), nil)
	}
	if err != nil {
		return nil, err
	}
	req.URL = u // keep the path's encoding as written
	for _, h := range r.Header {
		req.Header.Add(h.Name, h.Value)
	}
	for _, v := range authValues(r.Auth, c.key) {
		req.Header.Add("Authorization", v)
	}
	if r.Auth == cases.AuthQuery {
		q := "access_token=" + url.QueryEscape(c.key)
		if req.URL.RawQuery != "" {
			q = req.URL.RawQuery + "&" + q
		}
		req.URL.RawQuery = q
	}
	return req, nil
}

// errNoOwnAnimal: the animal a case was to act on could not be created, so the case is not
// sent (its room under --max-creates was claimed by mayCreate).
type errNoOwnAnimal struct{ why string }

func (e errNoOwnAnimal) Error() string {
	return "could not create the animal the case acts on: " + e.why
}

// ownAnimal creates an animal for the case about to be sent and returns its id. The create is
// recorded with the case, so a report shows what the case acted on.
func (c *Check) ownAnimal(f *facts) (string, error) {
	body, _ := json.Marshal(f.petBody(c.Fixture, f.Statuses[0]))
	req, err := http.NewRequestWithContext(c.Ctx, http.MethodPost, c.BaseURL+f.ByID[spec.OpCreate].Path, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", report.CredBearer.Value(c.key))
	resp, err := c.sendRaw(req, false)
	if err != nil {
		return "", errNoOwnAnimal{err.Error()}
	}
	var pet map[string]any
	if judge.Decode(readAll(resp), &pet) != nil || resp.StatusCode/100 != 2 {
		return "", errNoOwnAnimal{"createPet answered " + report.StatusText(resp.StatusCode)}
	}
	id, ok := judge.IDOf(pet)
	if !ok {
		return "", errNoOwnAnimal{"createPet answered no id"}
	}
	return id, nil
}

// authValues are the Authorization fields a case sends.
func authValues(a cases.Auth, key string) []string {
	switch a {
	case cases.AuthKey:
		return []string{report.CredBearer.Value(key)}
	case cases.AuthEmpty:
		return []string{""}
	case cases.AuthSchemeOnly:
		return []string{"Bearer"}
	case cases.AuthOtherScheme:
		return []string{report.CredToken.Value(key)}
	case cases.AuthJunkAfter:
		return []string{report.CredJunkAfter.Value(key)}
	case cases.AuthLowerScheme:
		return []string{report.CredBearerLower.Value(key)}
	case cases.AuthDoubleSpace:
		return []string{report.CredDoubleSpace.Value(key)}
	case cases.AuthTwice:
		return []string{report.CredBearer.Value(key), report.CredBearer.Value(key)}
	case cases.AuthWrongThenKey:
		return []string{"Bearer " + cases.WrongKey, report.CredBearer.Value(key)}
	case cases.AuthOddToken:
		return []string{"Bearer conformance-wrong!key"}
	case cases.AuthQuotedKey:
		return []string{report.CredQuoted.Value(key)}
	case cases.AuthKeyAlone:
		return []string{report.CredKeyAlone.Value(key)}
	}
	return nil
}

// successStatus is the operation's documented 2xx status (201 for createPet).
func successStatus(op spec.Operation) int {
	for _, s := range op.Statuses {
		if s/100 == 2 {
			return s
		}
	}
	return http.StatusOK
}

// getRaw fetches /pets/{id} as the cases do, waiting out a 404 for a while (a store may
// show what it stored only after a while), and returns the object (nil if none). Once a
// rule has waited in vain, it does not wait again: one lag is enough to judge, and a store
// that never shows what it created would cost every case the whole wait.
func getRaw(c *Check, id string) map[string]any {
	var pet map[string]any
	wait := c.wait
	if c.cases.waitedInVain.Load() {
		wait = func(context.Context, time.Duration) error { return context.Canceled }
	}
	found := cases.Eventually(c.Ctx, wait, func() bool {
		req, err := c.caseRequest(cases.Request{Method: http.MethodGet, Path: "/pets/" + url.PathEscape(id), Auth: cases.AuthKey})
		if err != nil {
			return true
		}
		resp, err := c.sendRaw(req, false)
		if err != nil {
			return true
		}
		if resp.StatusCode == http.StatusNotFound {
			return false
		}
		if resp.StatusCode != http.StatusOK {
			c.Expectf(report.StatusText(http.StatusOK), report.StatusText(resp.StatusCode), "getPet of the created animal must answer it")
		} else if judge.Decode(readAll(resp), &pet) != nil {
			c.Failf("getPet of the created animal answered no Pet object")
		}
		return true
	})
	if !found {
		c.cases.waitedInVain.Store(true)
		c.Expectf(report.StatusText(http.StatusOK), report.StatusText(http.StatusNotFound), "getPet does not find the animal just created (4.2; 4.3)")
	}
	return pet
}
