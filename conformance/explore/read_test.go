package explore

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/judge"
)

// listingSeeds are listings as services write them, plain and not.
var listingSeeds = []string{
	`[]`, ` [ ] `, `[{"id":1,"name":"Rex","categoryId":2,"status":"sold"}]`,
	`[{"id":1,"name":"Rex","categoryId":2},{"categoryId":3,"status":"pending","name":"Tom","id":-0,"extra":[1,{"a":null}]}]`,
	`[{"id":9007199254740993,"name":"quote \" and \\ backslash","categoryId":9223372036854775807,"status":"available"}]`,
	`[{"id":1.0,"name":"Caf\u00e9 \ud83d\udc08","categoryId":1e2,"status":"SOLD"}]`,
	`[{"id":"1","name":"x","categoryId":1}]`, `[{"id":1,"name":null,"categoryId":1}]`, `[{"id":1,"name":"x","categoryId":1,"status":null}]`,
	`[{"id":1,"name":"x","categoryId":1,"id":2}]`, `[{"i\u0064":1,"name":"x","categoryId":1}]`, `[{"name":"x","categoryId":1}]`,
	`[{"id":1,"name":"x","categoryId":1}] trailing`, `[{"id":1,"name":"a\xffb","categoryId":1}]`, `[1,{"id":1,"name":"x","categoryId":1}]`,
	`{"id":1,"name":"x","categoryId":1}`, `null`, ``, `[{"id":1,"name":"\ud800","categoryId":1,"status":"x\u0000"}]`,
}

// slowListing is how a listing was read before readListing: encoding/json into maps.
func slowListing(body []byte) ([]pet, []map[string]any) {
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	_ = dec.Decode(&objs)
	pets := make([]pet, 0, len(objs))
	for _, o := range objs {
		p, _ := fromObject(o)
		pets = append(pets, p)
	}
	return pets, objs
}

// checkRead holds readListing and readAnimal to what encoding/json says of body, when they
// read it; read says whether readListing did.
func checkRead(t *testing.T, f *Facts, seen animals, body []byte) (read bool) {
	t.Helper()
	var l listing
	if f.readListing(&l, seen, body) {
		read = true
		pets, objs := slowListing(body)
		require.Equal(t, pets, append([]pet{}, l.pets...), "%q", body)
		require.Len(t, l.ids, len(pets))
		for _, asked := range []judge.Listing{{Limit: 1}, {Limit: 100, Statuses: []string{"available"}}, {Limit: 100, Statuses: []string{"sold", "pending"}}} {
			fast := asked.JudgeEach(len(l.pets), func(i int) (string, bool) { return l.pets[i].status, l.pets[i].hasStatus },
				func(i int) string { return string(l.ids[i]) })
			require.Equal(t, asked.Judge(objs), fast, "%q", body)
		}
	}
	if got, ok := f.readAnimal(seen, body); ok {
		obj, _ := decodeObject(body)
		want, _ := fromObject(obj)
		require.Equal(t, want, got, "%q", body)
	}
	return read
}

// readListing and readAnimal read what encoding/json reads, over plain and odd listings and
// their mutations (bytes lost, added, changed), and read the plain ones; the animals read
// before (one set over all the listings) change nothing of what they read.
func TestReadListingAgreesWithEncodingJSON(t *testing.T) {
	f := facts(t)
	rng := rand.New(rand.NewPCG(5, 6))
	marks := []string{"{", "}", "[", "]", ",", ":", `"`, `\`, "1", "-", ".", "e", "n", " ", "\xff", `"id":1,`, `"status":"sold",`}
	read := 0
	seen := animals{}
	for _, seed := range listingSeeds {
		checkRead(t, f, seen, []byte(seed))
		for range 300 {
			b := seed
			for range 1 + rng.IntN(2) {
				if b == "" {
					break
				}
				i := rng.IntN(len(b))
				m := marks[rng.IntN(len(marks))]
				switch rng.IntN(3) {
				case 0:
					b = b[:i] + b[i+1:]
				case 1:
					b = b[:i] + m + b[i:]
				default:
					b = b[:i] + m + b[i+1:]
				}
			}
			if checkRead(t, f, seen, []byte(b)) {
				read++
			}
		}
	}
	assert.Greater(t, read, 200, "mutated listings read in place often enough to test reading")
	for _, plain := range listingSeeds[:5] {
		assert.True(t, f.readListing(&listing{}, nil, []byte(plain)), "a plain listing is read in place: %s", plain)
	}
	_, ok := f.readAnimal(nil, []byte(strings.Trim(listingSeeds[2], "[]")))
	assert.True(t, ok, "a plain animal is read in place")
}

func FuzzReadListing(f *testing.F) {
	for _, s := range listingSeeds {
		f.Add([]byte(s))
	}
	sf := facts(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		seen := animals{}
		checkRead(t, sf, seen, body)
		checkRead(t, sf, seen, body) // read again, as seen
	})
}
