package cases_test

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

// gen is the generator over the description text, and its operations by id. The tests give
// it document.Spec, the spec as the interface document fixes it, or a change of it: they test
// the generator, whatever spec/openapi.yaml says.
func gen(t *testing.T, text string) (*cases.Generator, map[string]spec.Operation) {
	t.Helper()
	doc, err := spec.Parse([]byte(text))
	require.NoError(t, err)
	ops, err := spec.Operations(doc)
	require.NoError(t, err)
	byID := map[string]spec.Operation{}
	for _, o := range ops {
		byID[o.ID] = o
	}
	n := 0
	g := cases.New(cases.Base{Reference: "7", KnownID: "12", Unknown: []string{"0"}, Name: func() string {
		n++
		return "conformance-" + strings.Repeat("a", n%3+1)
	}})
	return g, byID
}

// find returns the case of op, family, named name.
func find(t *testing.T, g *cases.Generator, op spec.Operation, family, name string) cases.Case {
	t.Helper()
	for _, c := range g.Cases(op, family) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%s has no case %s in family %s", op.ID, name, family)
	return cases.Case{}
}

// Each verdict is the one the interface document gives: a sample of every kind.
func TestVerdictsFollowTheDocument(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	for _, tt := range []struct {
		op, family, name string
		verdict          cases.Verdict
		statuses         []int
	}{
		{"createPet", cases.FamilyFields, "name-absent", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "name-other-case", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "name-and-other-case", cases.Open, nil},
		{"createPet", cases.FamilyFields, "name-empty", cases.Open, nil},
		{"createPet", cases.FamilyFields, "name-astral", cases.Open, nil},
		{"createPet", cases.FamilyFields, "categoryId-string", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "categoryId-numeric-string", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "categoryId-null", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "categoryId-2^53+1", cases.Open, nil}, // categories are not shown
		{"createPet", cases.FamilyFields, "categoryId-2^63", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "categoryId-1.5", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "categoryId-1.0", cases.Open, nil},
		{"createPet", cases.FamilyFields, "status-absent", cases.Accept, nil},
		{"createPet", cases.FamilyFields, "status-null", cases.Reject, []int{400}},  // READINGS: MUST 400
		{"createPet", cases.FamilyFields, "status-empty", cases.Reject, []int{400}}, // READINGS: MUST 400
		{"createPet", cases.FamilyFields, "status-sold", cases.Accept, nil},
		{"createPet", cases.FamilyFields, "status-sold-upper", cases.Reject, []int{400}},
		{"createPet", cases.FamilyFields, "unknown-property", cases.Open, nil},
		{"createPet", cases.FamilyBody, "body-trailing-data", cases.Reject, []int{400}},
		{"createPet", cases.FamilyBody, "body-two-values", cases.Reject, []int{400}},
		{"createPet", cases.FamilyBody, "body-none", cases.Reject, []int{400}},
		{"createPet", cases.FamilyBody, "body-trailing-newline", cases.Accept, nil},
		{"createPet", cases.FamilyBody, "body-bom", cases.Open, nil},
		{"createPet", cases.FamilyBody, "body-invalid-utf8", cases.Reject, []int{400}}, // at SHOULD: TestLevelsFollowTheReadings
		{"createPet", cases.FamilyBody, "body-duplicate-name", cases.Open, nil},
		{"createPet", cases.FamilyHeaders, "content-type-charset", cases.Open, nil},
		{"createPet", cases.FamilyHeaders, "content-type-absent", cases.Open, nil},
		{"createPet", cases.FamilyHeaders, "accept-any", cases.Accept, nil},
		{"createPet", cases.FamilyAuth, "no-key", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "junk-after", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "lower-scheme", cases.Open, nil}, // auth/*-scheme-case weighs it at SHOULD
		{"createPet", cases.FamilyAuth, "double-space", cases.Open, nil},
		{"createPet", cases.FamilyAuth, "key-alone", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "twice", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "wrong-then-key", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "wrong-key", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "key-in-cookie-api_key", cases.Reject, []int{401}},
		{"createPet", cases.FamilyAuth, "key-in-header-x-api-key", cases.Reject, []int{401}}, // beside a wrong key too at --depth deep
		{"listPets", cases.FamilyQuery, "limit-max", cases.Accept, nil},
		{"listPets", cases.FamilyQuery, "limit-above-max", cases.Open, nil}, // section 7: not shown
		{"listPets", cases.FamilyQuery, "limit-word", cases.Open, nil},
		{"listPets", cases.FamilyQuery, "status-unknown", cases.Open, nil},
		{"listPets", cases.FamilyQuery, "status-pending", cases.Accept, nil},
		{"listPets", cases.FamilyQuery, "status-pending+limit-below-min", cases.Open, nil},
		{"getPet", cases.FamilyPath, "petId-known", cases.Accept, nil},
		{"getPet", cases.FamilyPath, "petId-unknown-1", cases.Reject, []int{404}},
		{"getPet", cases.FamilyPath, "petId-word", cases.Open, nil},
		{"getPet", cases.FamilyAuth, "key-in-query-api_key", cases.Reject, []int{401}},
	} {
		t.Run(tt.op+"/"+tt.name, func(t *testing.T) {
			c := find(t, g, ops[tt.op], tt.family, tt.name)
			assert.Equal(t, tt.verdict, c.Verdict)
			assert.Equal(t, tt.statuses, nilIfEmpty(c.Statuses))
			assert.NotEmpty(t, c.Section, "every verdict cites its section")
			assert.NotEmpty(t, c.Words)
		})
	}
}

// Levels follow READINGS.md: a name that is not UTF-8 and two Authorization fields are the
// SHOULD ones among the cases, and
// a combination weighs what its verdict rests on: a Reject the strongest of its rejected
// parts, so a MUST fault beside it keeps the case MUST; a rejected key MUST whatever else.
func TestLevelsFollowTheReadings(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	create := ops["createPet"]
	ms := mutations(g, create)
	for name, m := range ms {
		want := report.Must
		if name == "body-invalid-utf8" || name == "twice" || name == "wrong-then-key" {
			want = report.Should
		}
		assert.Equal(t, want, m.Level, name)
	}
	// Two Authorization fields beside another fault: still 401 first, weighed at SHOULD.
	twice := cases.Combine(create.ID, g.Valid(create), ms["twice"], ms["categoryId-string"])
	assert.Equal(t, []int{401}, twice.Statuses)
	assert.Equal(t, report.Should, twice.Level)
	utf8 := find(t, g, create, cases.FamilyBody, "body-invalid-utf8")
	assert.Equal(t, report.Should, utf8.Level)
	assert.Contains(t, string(utf8.Request.Body.Bytes()), `"name":"`+"\xff"+`conformance-`, "the name, and nothing else, holds the byte")
	for _, tt := range []struct {
		with  string
		level report.Severity
	}{
		{"categoryId-string", report.Must}, // a MUST reason to refuse besides
		{"unknown-property", report.Should},
		{"no-key", report.Must}, // 401 whatever else
		{"content-type-charset", report.Should},
	} {
		c := cases.Combine(create.ID, g.Valid(create), ms["body-invalid-utf8"], ms[tt.with])
		assert.Equal(t, cases.Reject, c.Verdict, tt.with)
		assert.Equal(t, tt.level, c.Level, tt.with)
	}
}

// mutations are op's mutations of every family, by name.
func mutations(g *cases.Generator, op spec.Operation) map[string]cases.Mutation {
	by := map[string]cases.Mutation{}
	for _, fam := range cases.Families {
		for _, m := range g.Mutations(op, fam) {
			by[m.Name] = m
		}
	}
	return by
}

func nilIfEmpty(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Where two statements meet, the case says why: a rejected key is 401 whatever else is
// wrong; an open part with a rejected one allows any 4xx.
func TestCombine(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	create := ops["createPet"]
	by := mutations(g, create)
	c := cases.Combine(create.ID, g.Valid(create), by["no-key"], by["name-absent"])
	assert.Equal(t, cases.Reject, c.Verdict)
	assert.Equal(t, []int{http.StatusUnauthorized}, c.Statuses)
	assert.Contains(t, c.Reason, "5.3")

	c = cases.Combine(create.ID, g.Valid(create), by["content-type-charset"], by["name-absent"])
	assert.Equal(t, cases.Reject, c.Verdict)
	assert.Empty(t, c.Statuses, "any 4xx")
	assert.NotEmpty(t, c.Reason)

	c = cases.Combine(create.ID, g.Valid(create), by["status-sold"], by["unknown-property"])
	assert.Equal(t, cases.Open, c.Verdict)
	name := c.Request.Body.Wants()["name"][0]
	assert.Equal(t, `{"categoryId":7,"name":`+name+`,"status":"sold","conformanceExtra":1}`, string(c.Request.Body.Bytes()))
	assert.Equal(t, map[string][]string{"categoryId": {"7"}, "name": {name}, "status": {`"sold"`}}, c.Request.Body.Wants(),
		"the unknown property is not compared")
	assert.True(t, c.Creates)

	// A whole-body change applies to the object the field changes built, whatever the order.
	c = cases.Combine(create.ID, g.Valid(create), by["body-bom"], by["status-pending"])
	assert.True(t, strings.HasPrefix(string(c.Request.Body.Bytes()), "\xef\xbb\xbf{"))
	assert.Contains(t, string(c.Request.Body.Bytes()), `"status":"pending"`)
	assert.Equal(t, []string{`"pending"`}, c.Request.Body.Wants()["status"])
}

// A field sent twice may be stored as either value.
func TestDuplicateKeyWants(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	c := find(t, g, ops["createPet"], cases.FamilyBody, "body-duplicate-name")
	assert.Equal(t, 2, strings.Count(string(c.Request.Body.Bytes()), `"name":`))
	assert.Len(t, c.Request.Body.Wants()["name"], 2)
}

// The cases come from the spec: a lower maximum moves the limit cases, a fourth status
// value gets its own cases.
func TestCasesFollowTheSpec(t *testing.T) {
	text := strings.Replace(string(document.Spec), "maximum: 100", "maximum: 50", 1)
	text = strings.Replace(text, "        - sold\n", "        - sold\n        - reserved\n", 1)
	g, ops := gen(t, text)
	assert.Equal(t, "limit=50", find(t, g, ops["listPets"], cases.FamilyQuery, "limit-max").Request.RawQuery())
	assert.Equal(t, "limit=51", find(t, g, ops["listPets"], cases.FamilyQuery, "limit-above-max").Request.RawQuery())
	assert.Equal(t, cases.Accept, find(t, g, ops["listPets"], cases.FamilyQuery, "status-reserved").Verdict)
	assert.Equal(t, cases.Accept, find(t, g, ops["createPet"], cases.FamilyFields, "status-reserved").Verdict)
}

// Shrinking keeps removing mutations while the case still fails.
func TestShrink(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	create := ops["createPet"]
	ms := mutations(g, create)
	big := cases.Combine(create.ID, g.Valid(create), ms["accept-any"], ms["name-astral"], ms["categoryId-2^53+1"], ms["lower-scheme"])
	calls := 0
	small := cases.Shrink(big, func(c cases.Case) bool {
		calls++
		return slices.ContainsFunc(c.Mutations(), func(m cases.Mutation) bool { return m.Name == "categoryId-2^53+1" })
	})
	assert.Equal(t, "categoryId-2^53+1", small.Name)
	assert.Equal(t, cases.Open, small.Verdict)
	assert.LessOrEqual(t, calls, 10)
}

// The same seed draws the same combinations; another seed others.
func TestRandomIsSeeded(t *testing.T) {
	draw := func(seed uint64) []string {
		g, ops := gen(t, string(document.Spec))
		var names []string
		for _, c := range g.Random(ops["createPet"], rand.New(rand.NewPCG(seed, 1)), 20) {
			names = append(names, c.Name)
			assert.GreaterOrEqual(t, len(c.Mutations()), 2)
		}
		return names
	}
	assert.Equal(t, draw(1), draw(1))
	assert.NotEqual(t, draw(1), draw(2))
}

// Every operation gets cases, and every case of a family names a unique variant.
func TestCasesPerOperation(t *testing.T) {
	g, ops := gen(t, string(document.Spec))
	counts := map[string]int{}
	for id, op := range ops {
		seen := map[string]bool{}
		for _, fam := range cases.Families {
			for _, c := range g.Cases(op, fam) {
				assert.False(t, seen[fam+"/"+c.Name], "%s %s twice", id, c.Name)
				seen[fam+"/"+c.Name] = true
				counts[id]++
			}
		}
	}
	assert.Greater(t, counts["createPet"], 80)
	assert.Greater(t, counts["listPets"], 40)
	assert.Greater(t, counts["getPet"], 20)
}

// The auth family combines the rejected ways of presenting the key with every refused or
// open variant of every other part of the request, and with the key offered elsewhere too:
// every pair is in some case, each case wants 401, and a seed draws the same cases. By
// default the keys are the two kinds of missing key (no field, a wrong key); deeper, every
// rejected form. Under --fuzz's strength, every triple.
func TestAuthCombinationsCoverEveryPair(t *testing.T) {
	_, ops := gen(t, string(document.Spec))
	for _, depth := range []cases.Depth{cases.DepthDefault, cases.DepthDeep} {
		authCombinationsCoverEveryPair(t, ops, depth)
	}
}

func authCombinationsCoverEveryPair(t *testing.T, ops map[string]spec.Operation, depth cases.Depth) {
	for _, op := range ops {
		g := cases.New(cases.Base{Reference: "7", KnownID: "12", Unknown: []string{"0"}, Name: func() string { return "conformance-a" }}).Deep(depth)
		all := g.Cases(op, cases.FamilyAuth)
		var keys, others []string
		for _, m := range g.Mutations(op, cases.FamilyAuth) {
			if m.Verdict == cases.Reject && !strings.Contains(m.Name, "key-in-") && (depth == cases.DepthDeep || m.Name == "no-key" || m.Name == "wrong-key") {
				keys = append(keys, m.Name)
			}
		}
		for _, fam := range []string{cases.FamilyFields, cases.FamilyBody, cases.FamilyHeaders, cases.FamilyQuery, cases.FamilyPath} {
			for _, m := range g.Mutations(op, fam) {
				if m.Verdict != cases.Accept {
					others = append(others, m.Name)
				}
			}
		}
		require.NotEmpty(t, others, op.ID)
		seen := map[[2]string]bool{}
		combos := 0
		for _, c := range all {
			ms := c.Mutations()
			if len(ms) < 2 {
				continue
			}
			combos++
			assert.Equal(t, cases.Reject, c.Verdict, c.Name)
			assert.Equal(t, []int{401}, c.Statuses, c.Name)
			for _, a := range ms {
				for _, b := range ms {
					seen[[2]string{a.Name, b.Name}] = true
				}
			}
		}
		if depth == cases.DepthDefault {
			// By default every other variant once without a valid key, the two kinds of
			// missing key taking turns, in as many cases as the largest part's variants.
			for _, o := range others {
				assert.True(t, seen[[2]string{keys[0], o}] || seen[[2]string{keys[1], o}], "%s: %s never without a valid key", op.ID, o)
			}
			for _, k := range keys {
				assert.True(t, slices.ContainsFunc(others, func(o string) bool { return seen[[2]string{k, o}] }), "%s: %s in no combination", op.ID, k)
			}
			assert.LessOrEqual(t, combos, len(others), op.ID)
			// The key goes elsewhere once a place (key-in-*), never in a combination.
			assert.False(t, seen[[2]string{keys[0], "also-query-api_key"}] || seen[[2]string{keys[1], "also-query-api_key"}], op.ID)
		} else {
			for _, k := range keys {
				for _, o := range others {
					assert.True(t, seen[[2]string{k, o}], "%s: %s never combined with %s", op.ID, k, o)
				}
				assert.True(t, seen[[2]string{k, "also-query-api_key"}], "%s: %s never with the key also in the query", op.ID, k)
			}
			// Every pair with the key at least, in about as many cases as the largest part's
			// variants times the keys'.
			assert.Less(t, combos, len(keys)*len(others)+len(keys)*13, op.ID)
		}
		t.Logf("%s: %d combinations cover %d rejected keys x %d other variants", op.ID, combos, len(keys), len(others))

		again := g.Cases(op, cases.FamilyAuth)
		require.Equal(t, len(all), len(again))
		for i := range all {
			assert.Equal(t, all[i].Name, again[i].Name, "the same seed draws the same combinations")
		}
		other := cases.New(cases.Base{Reference: "7", KnownID: "12", Unknown: []string{"0"}, Name: func() string { return "conformance-a" }}).Combinations(99, cases.DefaultStrength).Deep(depth)
		if depth == cases.DepthDeep {
			assert.NotEqual(t, names(all), names(other.Cases(op, cases.FamilyAuth)), "another seed, other combinations")
		}
	}
}

// Under --fuzz (strength 3, deep), every triple of a rejected key, the key elsewhere and a
// body variant.
func TestAuthCombinationsFuzzCoverEveryTriple(t *testing.T) {
	_, ops := gen(t, string(document.Spec))
	// Strength 3: every triple of a rejected key, the key elsewhere and a body variant.
	create := ops["createPet"]
	g := cases.New(cases.Base{Reference: "7", KnownID: "12", Unknown: []string{"0"}, Name: func() string { return "conformance-a" }}).Combinations(1, cases.FuzzStrength).Deep(cases.DepthDeep)
	seen := map[[3]string]bool{}
	n := 0
	for _, c := range g.Cases(create, cases.FamilyAuth) {
		ms := c.Mutations()
		n++
		for _, a := range ms {
			for _, b := range ms {
				for _, d := range ms {
					seen[[3]string{a.Name, b.Name, d.Name}] = true
				}
			}
		}
	}
	for _, k := range []string{"no-key", "twice"} {
		for _, e := range []string{"also-cookie-token", "also-header-x-api-key"} {
			for _, b := range []string{"body-malformed", "body-oversized", "body-invalid-utf8"} {
				assert.True(t, seen[[3]string{k, e, b}], "strength 3: %s, %s, %s never together", k, e, b)
			}
		}
	}
	t.Logf("createPet at strength 3: %d cases", n)
}

func names(cs []cases.Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}
