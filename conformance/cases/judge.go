package cases

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/petstore/petstore/conformance/judge"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/conformance/wire"
	"github.com/petstore/petstore/spec"
)

// Judging a case's answer by its verdict. The Error record, a listing and a created animal
// are judged by conformance/judge, as every front end judges them.

// failf records a failure with a message.
func (r *run) failf(format string, args ...any) {
	r.to.Fail(report.Failure{Message: fmt.Sprintf(format, args...)})
}

// expectf records a failure stating what was expected and what came back, weighing level
// at most.
func (r *run) expectf(level report.Severity, expected, actual, format string, args ...any) {
	r.to.Fail(report.Failure{Level: level, Message: fmt.Sprintf(format, args...), Expected: expected, Actual: actual})
}

// fail records the findings of the shared judge.
func (r *run) fail(fs []report.Failure) {
	for _, f := range fs {
		r.to.Fail(f)
	}
}

// judgeCase sends k and checks the answer against its verdict.
func (r *run) judgeCase(k Case) {
	if NeedsOwnAnimal(k.Request.Path) {
		id, err := r.ownAnimal()
		if err != nil {
			r.notSent = err.Error()
			return
		}
		k.Request.Path = WithOwnAnimal(k.Request.Path, id)
	}
	ctx := r.Ctx
	if k.Verdict == Reject && slices.Equal(k.Statuses, []int{http.StatusUnauthorized}) {
		ctx = judge.MayAnswerUnread(ctx) // 401 needs none of the body
	}
	if k.Elsewhere {
		ctx = judge.Elsewhere(ctx)
	}
	before := r.to.FailureCount()
	r.lastStatus = 0
	resp, err := r.to.Send(ctx, k.Request, k.Verdict != Accept)
	if err != nil {
		return // recorded: no answer (the rule is inconclusive), or a cut body
	}
	body := readAll(resp)
	got := resp.StatusCode
	r.lastStatus = got
	r.refusedCreate(k, got)
	spoke := r.to.FailureCount() > before // the spec validation already said what is wrong
	success := successStatus(r.fam.facts.ByID[k.Op])
	want, gotText := expectedFor(k, success), report.StatusText(got)
	switch {
	case got >= 500 && !slices.Contains(k.Answers5xx, got):
		// Only a 5xx the verdict names (501 to a transfer coding not understood) is an answer.
		r.expectf(report.Must, want, gotText, "a request must never get a 5xx")
	case k.Keyless && got/100 == 2:
		r.expectf(report.Must, want, gotText, "a request without a valid key must not succeed (5.3), got %s", gotText)
	case k.Verdict == Reject && k.Lookup && got == success:
		r.judgeSuccess(k, body)
	// An answer against the verdict weighs the case's level (READINGS.md); everything else
	// (a 5xx, an error without an Error body, a success that contradicts the request) MUST.
	case k.Verdict == Reject && len(k.Statuses) > 0 && !slices.Contains(k.Statuses, got):
		r.expectf(k.Level, want, gotText, "want %s with an Error body, got %s", report.StatusList(k.Statuses), gotText)
	case k.Verdict == Reject && len(k.Statuses) == 0 && (got < 400 || got >= 500):
		r.expectf(k.Level, want, gotText, "want a 4xx with an Error body, got %s", gotText)
	case k.Verdict == Accept && got != success:
		r.expectf(k.Level, want, gotText, "want status %s, got %s", report.StatusText(success), gotText)
	case k.Verdict == Open && len(k.Statuses) > 0 && got/100 == 4 && !slices.Contains(k.Statuses, got):
		r.expectf(k.Level, want, gotText, "want %s, got %s", want, gotText)
	case got >= 400 && headCase(k):
		// An answer to HEAD carries no content, so no Error record either (RFC 9110 9.3.2).
	case got >= 400:
		if !spoke {
			r.fail(judge.ErrorRecord(r.fam.facts, got, resp.Header, body, false))
		}
	case got/100 == 3 && k.Verdict == Open:
		// A redirect (a trailing slash to the path without it, say): where the document
		// leaves the answer open, it is an answer; the harness does not follow it.
	case got/100 == 2 && k.Elsewhere && k.Verdict == Open:
		// Another method or host than the operation's: its success is its own.
	case got/100 == 2 && k.Op == "":
		// A route the spec does not have: the document shows no such endpoint, and what
		// a service serves there is its own.
	case got == success && headCase(k):
		// HEAD answers as GET without content (RFC 9110 9.3.2): the status is the answer.
	case got/100 == 2 && got != success:
		r.expectf(report.Must, report.StatusText(success), gotText, "want status %s, got %s", report.StatusText(success), gotText)
	case got/100 == 2:
		r.judgeSuccess(k, body)
	default:
		r.expectf(report.Must, want, gotText, "want %s, got %s", want, gotText)
	}
}

func expectedFor(k Case, success int) string {
	switch {
	case k.Verdict == Accept:
		return report.StatusText(success)
	case k.Verdict == Reject && len(k.Statuses) > 0:
		return report.StatusList(k.Statuses) + " with an Error body"
	case k.Verdict == Reject:
		return "a 4xx with an Error body"
	case len(k.Statuses) > 0:
		return fmt.Sprintf("%s, or %s with an Error body", report.StatusText(success), report.StatusList(k.Statuses))
	}
	return fmt.Sprintf("%s, or a 4xx with an Error body", report.StatusText(success))
}

// judgeSuccess checks a 2xx answer against the request: a created animal holds what was
// sent (and so does getPet of it afterwards), a listing holds at most its limit and only
// animals of the filtered status, getPet returns the animal asked for.
func (r *run) judgeSuccess(k Case, body []byte) {
	switch k.Op {
	case spec.OpCreate:
		var pet map[string]any
		if judge.Decode(body, &pet) != nil || pet == nil {
			r.expectf(report.Must, "a Pet object", report.Clip(string(body), 120), "the created animal must come back as a Pet")
			return
		}
		wants := k.Request.Body.Wants()
		r.fail(judge.Stored(wants, pet, "the created Pet"))
		id, ok := judge.IDOf(pet)
		if !ok || r.fam.facts.ByID[spec.OpGet].Gone(r.Now) || r.to.FailureCount() > 0 {
			return
		}
		if got := r.getCreated(id); got != nil {
			r.fail(judge.Stored(wants, got, "getPet of the created animal"))
		}
	case spec.OpList:
		var pets []map[string]any
		if judge.Decode(body, &pets) != nil {
			r.expectf(report.Must, "a JSON array of Pet", report.Clip(string(body), 120), "the listing must be a plain array (4.1 rule 3)")
			return
		}
		r.fail(judge.ListingAsked(r.fam.facts, k.Request.RawQuery()).Judge(pets))
	case spec.OpGet:
		var pet map[string]any
		if judge.Decode(body, &pet) != nil || pet == nil {
			r.expectf(report.Must, "a Pet object", report.Clip(string(body), 120), "getPet must answer a Pet")
			return
		}
		raw := k.Request.Path[strings.LastIndex(k.Request.Path, "/")+1:]
		asked, _ := url.PathUnescape(raw)
		id, _ := judge.IDOf(pet)
		if n, ok := new(big.Int).SetString(asked, 10); ok {
			if !judge.NumEqual(id, n.String()) {
				r.expectf(report.Must, "the animal with id "+n.String(), "id "+id, "getPet answered another animal than the one asked for (4.3)")
			}
		} else if q, ok := new(big.Rat).SetString(asked); ok && !q.IsInt() {
			// A fraction names no int64, so no animal has it: whatever the answer to such a
			// path (open), an animal is not (a parser that drops ".5" answers animal 1).
			r.expectf(report.Must, "no animal: no id is "+asked, "id "+id, "getPet answered animal %s for %s, which no animal's id can be (4.3: ids are int64)", id, asked)
		}
	}
}

// probe is a range probe, the status it got and the exchange that shows it.
type probe struct {
	k        Case
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
func (r *run) judgeRange(probes []probe) {
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
		r.to.SetCase(p.k.Words, "2 (categoryId: integer, int64); 4.2", Accept.String(),
			fmt.Sprintf("the service took the made-up %s, far beyond any table of records, so refusing a larger valid int64 is a range of its own, not an unknown record", taken.RatString()))
		r.to.FailAt(report.Failure{Message: "a valid int64 is refused while a smaller made-up value of at least 2^31 was accepted",
			Expected: report.StatusText(successStatus(r.fam.facts.ByID[spec.OpCreate])), Actual: "a 4xx"}, p.exchange)
	}
	r.to.SetCase("", "", "", "")
}

// probeValue is the magnitude of the single integer a range probe sends, and its sign.
func probeValue(k Case) (*big.Rat, int) {
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
func isProbeField(k Case, name string) bool {
	ms := k.Mutations()
	return len(ms) == 1 && ms[0].Part == "body."+name
}

// errNoOwnAnimal: the animal a case was to act on could not be created, so the case is not
// sent (its room under --max-creates was claimed by mayCreate).
type errNoOwnAnimal struct{ why string }

func (e errNoOwnAnimal) Error() string {
	return "could not create the animal the case acts on: " + e.why
}

// ownAnimal creates an animal for the case about to be sent and returns its id. The create is
// recorded with the case, so a report shows what the case acted on.
func (r *run) ownAnimal() (string, error) {
	body, _ := json.Marshal(r.Fixture.NewPet())
	resp, err := r.to.Send(r.Ctx, Request{Method: http.MethodPost, Path: r.fam.facts.ByID[spec.OpCreate].Path,
		Header: []Header{{Name: "Content-Type", Value: "application/json"}}, Body: wire.JSONBody(body)}, false)
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

// successStatus is the operation's documented 2xx status (201 for createPet).
func successStatus(op spec.Operation) int {
	for _, s := range op.Statuses {
		if s/100 == 2 {
			return s
		}
	}
	return http.StatusOK
}

// getCreated fetches the animal just created, by getPet, waiting out a 404 for a while (a
// store may show what it stored only after a while), and returns the object (nil if none).
// Once a run has waited in vain, it does not wait again: one lag is enough to judge, and a
// store that never shows what it created would cost every case the whole wait.
func (r *run) getCreated(id string) map[string]any {
	var pet map[string]any
	wait := r.Wait
	if r.Budget.WaitedInVain.Load() {
		wait = func(context.Context, time.Duration) error { return context.Canceled }
	}
	path := FillPath(r.fam.facts.ByID[spec.OpGet].Path, url.PathEscape(id))
	found := Eventually(r.Ctx, wait, func() bool {
		resp, err := r.to.Send(r.Ctx, Request{Method: http.MethodGet, Path: path, Auth: AuthKey}, false)
		if err != nil {
			return true
		}
		if resp.StatusCode == http.StatusNotFound {
			return false
		}
		if resp.StatusCode != http.StatusOK {
			r.expectf(report.Must, report.StatusText(http.StatusOK), report.StatusText(resp.StatusCode), "getPet of the created animal must answer it")
		} else if judge.Decode(readAll(resp), &pet) != nil {
			r.failf("getPet of the created animal answered no Pet object")
		}
		return true
	})
	if !found {
		r.Budget.WaitedInVain.Store(true)
		r.expectf(report.Must, report.StatusText(http.StatusOK), report.StatusText(http.StatusNotFound), "getPet does not find the animal just created (4.2; 4.3)")
	}
	return pet
}

// readAll returns a response body the session already read into memory.
func readAll(resp *http.Response) []byte {
	b, _ := io.ReadAll(resp.Body)
	return b
}
