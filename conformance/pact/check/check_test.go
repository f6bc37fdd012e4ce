package check_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/explore/seqmutants"
	"github.com/petstore/petstore/conformance/mutants"
	"github.com/petstore/petstore/conformance/pact/check"
	"github.com/petstore/petstore/internal/pact"
	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/referencetest"
	"github.com/petstore/petstore/spec"
)

// seed holds animals of every status, so that a listing filtered by one has others to leak.
var seed = []reference.NewPet{
	{Name: "Rex", CategoryID: 1, Status: "available"}, {Name: "Tom", CategoryID: 2, Status: "pending"},
	{Name: "Bella", CategoryID: 3, Status: "sold"}, {Name: "Max", CategoryID: 4, Status: "available"},
}

// limitMax is the spec's maximum of listPets' limit.
func limitMax(t *testing.T) int64 {
	t.Helper()
	b, err := spec.QueryInt(spec.MustLoad(), spec.OpList, "limit")
	require.NoError(t, err)
	return b.Max
}

// recordPact is what a client's test writes: a listing with a filter and the spec's
// maximum limit, a create, a get of the animal created and one of an id that does not exist.
func recordPact(t *testing.T) *pact.Pact {
	t.Helper()
	s := referencetest.Start(t, referencetest.Options{Seed: seed})
	c := s.Client()
	send := func(method, path, body string) []byte {
		req, err := http.NewRequest(method, s.URL+path, bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return data
	}
	send("GET", fmt.Sprintf("/pets?status=available&limit=%d", limitMax(t)), "")
	var created struct{ ID int64 }
	require.NoError(t, json.Unmarshal(send("POST", "/pets", `{"name":"Rex","categoryId":7,"status":"pending"}`), &created))
	send("GET", fmt.Sprintf("/pets/%d", created.ID), "")
	send("GET", "/pets/999", "")
	p, err := pact.Read(s.Pact("web", "petstore"))
	require.NoError(t, err)
	require.Len(t, p.Interactions, 4)
	return p
}

func instant(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// verify runs the pact's interactions against target, as conformance pact verify does.
func verify(t *testing.T, p *pact.Pact, target conformance.Target) *conformance.Report {
	t.Helper()
	return verifyAt(t, p, target, time.Time{})
}

// verifyAt is verify with the run's clock at now (zero: the wall clock).
func verifyAt(t *testing.T, p *pact.Pact, target conformance.Target, now time.Time) *conformance.Report {
	t.Helper()
	doc, err := spec.Load()
	require.NoError(t, err)
	f, err := spec.ReadFacts(doc)
	require.NoError(t, err)
	rs, err := check.Rules(f, []check.Contract{{File: "web.json", Pact: p}})
	require.NoError(t, err)
	rep, err := conformance.Run(context.Background(), target, conformance.Options{Spec: doc, Facts: f, Rules: rs, Workers: 1, Wait: instant, Now: now})
	require.NoError(t, err)
	return rep
}

// failed are the results that fail the verification (a deprecated operation only warns).
func failed(rep *conformance.Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Status != conformance.Pass && r.Status != conformance.Warn {
			out = append(out, r.ID+": "+r.Reason)
		}
	}
	return out
}

func TestAPactTheReferenceWroteVerifiesAgainstTheReference(t *testing.T) {
	p := recordPact(t)
	fresh := referencetest.Start(t, referencetest.Options{}) // empty: the replay creates what it needs
	rep := verify(t, p, conformance.Target{BaseURL: fresh.URL, APIKey: fresh.APIKey})
	assert.Empty(t, failed(rep))
	assert.True(t, rep.Conforming())
	assert.Len(t, rep.Results, 4)
}

// Other ids and other orders are the document's open choices: a pact the reference wrote
// does not hold a provider to the reference's (Pact's own verifier would, on the values).
func TestAPactVerifiesAgainstAProviderWithOtherOpenChoices(t *testing.T) {
	p := recordPact(t)
	doc, err := spec.Load()
	require.NoError(t, err)
	for _, m := range seqmutants.Allowed() {
		if !slices.Contains([]string{"random-ids", "newest-first", "short-pages"}, m.Name) {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			target, stop, err := seqmutants.Serve(doc, m)
			require.NoError(t, err)
			defer stop()
			rep := verify(t, p, target)
			assert.Empty(t, failed(rep))
			assert.True(t, rep.Conforming())
		})
	}
}

func TestAPactFailsAgainstAMutantNamingTheInteraction(t *testing.T) {
	p := recordPact(t)
	doc, err := spec.Load()
	require.NoError(t, err)
	all, err := mutants.Catalogue(doc)
	require.NoError(t, err)
	for _, c := range []struct {
		mutant string
		broken []string
	}{
		{"list-status-leaks-one", []string{"pact/web/1"}}, // the filter the consumer relies on
		{"get-wrong-animal", []string{"pact/web/3"}},      // another animal than the one asked for
		{"get-404-empty", []string{"pact/web/4"}},         // a 404 without the Error record
		// 200 where the consumer expects 201; the get's animal is created the same way.
		{"create-200", []string{"pact/web/2", "pact/web/3"}},
	} {
		i := slices.IndexFunc(all, func(m mutants.Mutant) bool { return m.Name == c.mutant })
		if !assert.GreaterOrEqual(t, i, 0, "no mutant %s", c.mutant) {
			continue
		}
		m := all[i]
		t.Run(m.Name, func(t *testing.T) {
			cfg := reference.Config{Spec: doc, APIKeys: []string{mutants.Key}, Seed: seed}
			if m.Config != nil {
				m.Config(&cfg)
			}
			h, err := reference.NewServer(cfg)
			require.NoError(t, err)
			srv := httptest.NewServer(m.Wrap(h))
			defer srv.Close()
			rep := verify(t, p, conformance.Target{BaseURL: srv.URL + "/v1", APIKey: mutants.Key})
			assert.False(t, rep.Conforming())
			fails := failed(rep)
			require.Len(t, fails, len(c.broken), "%v", fails)
			for i, id := range c.broken {
				assert.Contains(t, fails[i], id+": ")
			}
		})
	}
}

// Pacts that other tools wrote verify against the reference: pact-js's of specification v4,
// v3 and v2 (make pact-js), and two written by hand to specification v2 and v3 in the shapes
// pact-go v1 and pact-jvm write. The ids in their paths are mapped to animals the replay
// creates; a listing whose matchers ask for an animal gets one.
func TestPactsOfOtherToolsVerifyAgainstTheReference(t *testing.T) {
	for _, file := range []string{"pact-js-web-petstore.json", "pact-js-v3-web-petstore.json", "pact-js-v2-web-petstore.json",
		"v2-go-client.json", "v3-jvm-client.json"} {
		t.Run(file, func(t *testing.T) {
			p, err := pact.ReadFile("../../../testdata/pact/" + file)
			require.NoError(t, err)
			// pact-js's v2 pact holds an interaction without a key (the 401), which the
			// reference's client rules count against the client that sends it: here, the
			// replay, on purpose.
			s := referencetest.Start(t, referencetest.Options{AllowViolations: []string{double.RuleAuthBearer}})
			rep := verify(t, p, conformance.Target{BaseURL: s.URL, APIKey: s.APIKey})
			// These pacts are consumers' own: a spec edit that fails one breaks that consumer.
			// Meant, it is changed where it was written (pact-js: scripts/pact-js/consumer.mjs,
			// then make pact-js) and the pact committed again.
			const consumer = "a consumer's pact fails against the spec: the edit breaks this consumer. " +
				"If that is meant, change the consumer where it was written (pact-js: scripts/pact-js/consumer.mjs, then make pact-js) and commit its pact"
			assert.Empty(t, failed(rep), consumer)
			assert.Len(t, rep.Results, len(p.Interactions))
			// pact-js's listing asks for at least one available animal: the replay made it.
			if file == "pact-js-web-petstore.json" {
				pets := s.Requests(double.RequestFilter{Operation: spec.OpCreate})
				assert.Len(t, pets, 3, "the listing's animal, the created one, the one got; "+consumer)
			}
		})
	}
}

// edited is the embedded description with one change.
func edited(t *testing.T, edit func(doc *openapi3.T)) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(spec.Bytes())
	require.NoError(t, err)
	edit(doc)
	return doc
}

func limitParam(doc *openapi3.T) *openapi3.Schema {
	return doc.Paths.Find("/pets").Get.Parameters.GetByInAndName("query", "limit").Schema.Value
}

func TestBreaksNamesTheInteractionsAChangeBreaks(t *testing.T) {
	p := recordPact(t)
	contracts := []check.Contract{{File: "web.json", Pact: p}}
	old := edited(t, func(*openapi3.T) {})

	max, half := limitMax(t), limitMax(t)/2
	narrowed := edited(t, func(doc *openapi3.T) { limitParam(doc).Max = openapi3.Float64Ptr(float64(half)) })
	bs, err := check.Breaks(old, narrowed, contracts)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Equal(t, 1, bs[0].Index)
	assert.Contains(t, bs[0].Description, fmt.Sprintf("limit=%d", max))
	assert.Contains(t, bs[0].Reasons[0], fmt.Sprintf("at most %d", half))

	// A change no consumer touches: no consumer sends limit=1.
	min2 := edited(t, func(doc *openapi3.T) { limitParam(doc).Min = openapi3.Float64Ptr(2) })
	bs, err = check.Breaks(old, min2, contracts)
	require.NoError(t, err)
	assert.Empty(t, bs)

	// A field the consumer reads, dropped from the answer: every interaction that reads it.
	noCategory := edited(t, func(doc *openapi3.T) {
		for _, name := range []string{"Pet", "NewPet"} {
			s := doc.Components.Schemas[name].Value
			delete(s.Properties, "categoryId")
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == "categoryId" })
			for _, ref := range s.AllOf {
				delete(ref.Value.Properties, "categoryId")
				ref.Value.Required = slices.DeleteFunc(ref.Value.Required, func(r string) bool { return r == "categoryId" })
			}
		}
	})
	bs, err = check.Breaks(old, noCategory, contracts)
	require.NoError(t, err)
	var named []int
	for _, b := range bs {
		named = append(named, b.Index)
	}
	assert.Equal(t, []int{1, 2, 3}, named, "the listing, the create and the get read categoryId; the 404 does not")
	assert.Contains(t, strings.Join(bs[2].Reasons, "\n"), "$.categoryId")
}

// A consumer that wrote its paths without the base path (a verifier's --base-path) is
// verified under it.
func TestPathsWithoutTheBasePath(t *testing.T) {
	p, err := pact.ReadFile("../../../testdata/pact/v3-jvm-client.json")
	require.NoError(t, err)
	for i := range p.Interactions {
		p.Interactions[i].Request.Path = strings.TrimPrefix(p.Interactions[i].Request.Path, "/v1")
	}
	s := referencetest.Start(t, referencetest.Options{})
	rep := verify(t, p, conformance.Target{BaseURL: s.URL, APIKey: s.APIKey})
	assert.Empty(t, failed(rep))
	assert.Len(t, rep.Results, 2)
}

// A consumer that relies on getPet is warned while it is deprecated, and broken once the
// description's removal date is reached, whatever the provider answers.
func TestARemovedOperationBreaksTheConsumer(t *testing.T) {
	p := recordPact(t)
	s := referencetest.Start(t, referencetest.Options{})
	rep := verify(t, p, conformance.Target{BaseURL: s.URL, APIKey: s.APIKey})
	assert.Equal(t, conformance.Warn, rep.Results[2].Status)
	assert.Contains(t, rep.Results[2].Reason, "ADVISORY: the consumer relies on getPet, which is deprecated and is removed on 2030-12-05: it should move to listPets")

	rep = verifyAt(t, p, conformance.Target{BaseURL: s.URL, APIKey: s.APIKey}, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, []string{
		"pact/web/3: the consumer relies on getPet, which the description removes on 2030-12-05; it must move to listPets",
		"pact/web/4: the consumer relies on getPet, which the description removes on 2030-12-05; it must move to listPets",
	}, failed(rep))
}
