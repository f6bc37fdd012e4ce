package reference

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

func listBounds(t *testing.T) spec.IntBounds {
	b, err := spec.QueryInt(spec.MustLoad(), "listPets", "limit")
	require.NoError(t, err)
	require.True(t, b.HasDefault && b.HasMin && b.HasMax)
	return b
}

// 4.1 rule 1 and section 8: without limit at most the default, with limit at most limit.
func TestListLimit(t *testing.T) {
	b := listBounds(t)
	h := newTestServer(t, Config{Seed: seedOf(int(b.Max) + 5)})
	for _, tc := range []struct {
		query string
		want  int64
	}{{"", b.Default}, {"?limit=" + strconv.FormatInt(b.Min, 10), b.Min}, {"?limit=" + strconv.FormatInt(b.Max, 10), b.Max}} {
		got := pets(t, do(t, h, get("/v1/pets"+tc.query)))
		require.Len(t, got, int(tc.want), tc.query)
		for i, p := range got {
			assert.Equal(t, int64(i+1), p.ID, "ascending id order from the first")
		}
	}
	// Fewer animals than the limit: all of them.
	h = newTestServer(t, Config{Seed: seedOf(3)})
	assert.Len(t, pets(t, do(t, h, get("/v1/pets?limit=50"))), 3)
	h = newTestServer(t, Config{})
	w := do(t, h, get("/v1/pets"))
	assert.Equal(t, "[]\n", w.Body.String(), "an empty store lists an empty array")
}

// 4.1 rule 2: with status, only animals with that status, for each value of the spec.
func TestListStatusFilter(t *testing.T) {
	values, err := spec.StatusValues(spec.MustLoad())
	require.NoError(t, err)
	seed := seedOf(200)
	h := newTestServer(t, Config{Seed: seed})
	for _, status := range values {
		var want []int64
		for i, p := range seed {
			if p.Status == status && len(want) < 100 {
				want = append(want, int64(i+1))
			}
		}
		got := pets(t, do(t, h, get("/v1/pets?"+limitMax+"&status="+status)))
		var ids []int64
		for _, p := range got {
			assert.Equal(t, status, p.Status)
			ids = append(ids, p.ID)
		}
		assert.Equal(t, want, ids, status)
	}
}

// 4.1 rule 3: a plain array, no wrapper; animals without status have no status field (when
// the spec lets an animal have none).
func TestListPlainArray(t *testing.T) {
	rex, want := core.NewPet{Name: "Rex", CategoryID: 1}, `{"id":1,"name":"Rex","categoryId":1}`
	if core.StatusRequired(shipped) {
		rex.Status, want = "available", `{"id":1,"name":"Rex","categoryId":1,"status":"available"}`
	}
	h := newTestServer(t, Config{Seed: []core.NewPet{rex, {Name: "Tom", CategoryID: 2, Status: "sold"}}})
	w := do(t, h, get("/v1/pets"))
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `[`+want+`,{"id":2,"name":"Tom","categoryId":2,"status":"sold"}]`, w.Body.String())
}

func TestCreateThenGet(t *testing.T) {
	h := newTestServer(t, Config{Seed: seedOf(4)})
	bodies := []string{`{"name":"Rex","categoryId":7,"status":"pending"}`, `{"name":"Tom","categoryId":0}`}
	if core.StatusRequired(shipped) {
		bodies = bodies[:1] // the one without a status is refused (TestResponses)
	}
	for _, body := range bodies {
		w := do(t, h, req{method: "POST", path: "/v1/pets", auth: authed, contentType: jsonCT, body: body})
		require.Equal(t, http.StatusCreated, w.Code, "body: %s", w.Body)
		var created map[string]any
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &created))
		var sent map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &sent))
		id := created["id"]
		delete(created, "id")
		assert.Equal(t, sent, created, "the created animal is what was sent, plus an id")
		path := "/v1/pets/" + strconv.FormatFloat(id.(float64), 'f', -1, 64)
		assert.Equal(t, path, w.Header().Get("Location"))

		got := do(t, h, get(path))
		require.Equal(t, http.StatusOK, got.Code)
		assert.JSONEq(t, w.Body.String(), got.Body.String())
	}
	ids := pets(t, do(t, h, get("/v1/pets")))
	require.Len(t, ids, 4+len(bodies))
	assert.Equal(t, int64(5), ids[4].ID, "ids continue after the seed")
}

// 4.3 and 9.3: getPet carries Deprecation (RFC 9745) and Sunset (RFC 8594) taken from the spec.
func TestGetPetDeprecationHeaders(t *testing.T) {
	op, err := spec.FindOperation(spec.MustLoad(), "getPet")
	require.NoError(t, err)
	require.True(t, op.Deprecated)
	require.False(t, op.Sunset.IsZero())
	require.False(t, op.DeprecatedSince.IsZero())

	h := newTestServer(t, Config{Seed: seedOf(1)})
	for _, path := range []string{"/v1/pets/1", "/v1/pets/2"} {
		w := do(t, h, get(path))
		assert.Equal(t, "@"+strconv.FormatInt(op.DeprecatedSince.Unix(), 10), w.Header().Get("Deprecation"), path)
		sunset, err := http.ParseTime(w.Header().Get("Sunset"))
		require.NoError(t, err)
		assert.True(t, sunset.Equal(op.Sunset), path)
	}
	assert.Equal(t, "Thu, 05 Dec 2030 00:00:00 GMT", do(t, h, get("/v1/pets/1")).Header().Get("Sunset"),
		"interface document 4.3: removal on 5 December 2030")
	assert.Empty(t, do(t, h, get("/v1/pets")).Header().Get("Deprecation"), "listPets is not deprecated")
}

// 9.3: on and after the sunset date the operation is gone.
func TestGetPetAfterSunset(t *testing.T) {
	op, err := spec.FindOperation(spec.MustLoad(), "getPet")
	require.NoError(t, err)
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{op.Sunset.Add(-time.Nanosecond), http.StatusOK},
		{op.Sunset, http.StatusNotFound},
		{op.Sunset.AddDate(1, 0, 0), http.StatusNotFound},
	} {
		h := newTestServer(t, Config{Seed: seedOf(1), Now: func() time.Time { return tc.now }})
		w := do(t, h, get("/v1/pets/1"))
		require.Equal(t, tc.want, w.Code, tc.now)
		if tc.want == http.StatusNotFound {
			e := errorBody(t, w)
			assert.Equal(t, core.CodeNotFound, e.Code)
			assert.Contains(t, e.Message, "removed on "+op.Sunset.Format(time.DateOnly))
			assert.Empty(t, w.Header().Get("Sunset"))
		}
	}
}
