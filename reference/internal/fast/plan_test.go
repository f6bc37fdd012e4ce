package fast

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/grownspec"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// The plans for the spec as shipped: the GET operations take the request shortcut, and
// every body made of stored animals is taken as validated.
func TestPlansForTheSpec(t *testing.T) {
	plans, err := NewPlans(factsOf(t, spec.MustLoad()), true)
	require.NoError(t, err)
	assert.True(t, plans["listPets"].simpleRequest)
	assert.True(t, plans["getPet"].simpleRequest)
	assert.False(t, plans["createPet"].simpleRequest, "a request body is always validated in full")
	assert.Equal(t, map[int]core.BodyKind{200: core.BodyPets}, plans["listPets"].bodies)
	assert.Equal(t, map[int]core.BodyKind{200: core.BodyPet}, plans["getPet"].bodies)
	assert.Equal(t, map[int]core.BodyKind{201: core.BodyPet}, plans["createPet"].bodies)

	plans, err = NewPlans(factsOf(t, spec.MustLoad()), false)
	require.NoError(t, err)
	assert.Empty(t, plans["listPets"].bodies, "without the store's check nothing is taken as validated")

	// A list schema with a constraint of its own: lists are validated in full.
	doc, err := spec.Parse(spec.Bytes())
	require.NoError(t, err)
	two := uint64(2)
	doc.Components.Schemas["Pets"].Value.MaxItems = &two
	plans, err = NewPlans(factsOf(t, doc), true)
	require.NoError(t, err)
	assert.Empty(t, plans["listPets"].bodies)
}

// The request shortcut accepts only what ValidateRequest accepts, and accepts the usual
// requests (else it would be no shortcut); with a plain string parameter too (listPets' name).
func TestRequestShortcutAgreesWithValidateRequest(t *testing.T) {
	text, err := grownspec.Text(grownspec.NameFilter)
	require.NoError(t, err)
	doc, err := spec.Parse(text)
	require.NoError(t, err)
	rdoc := *doc
	rdoc.Servers = openapi3.Servers{{URL: "/v1/"}}
	router, err := gorillamux.NewRouter(&rdoc)
	require.NoError(t, err)
	plans, err := NewPlans(factsOf(t, doc), true)
	require.NoError(t, err)
	keys, err := core.NewKeySet([]string{"test-key"})
	require.NoError(t, err)
	opts := &openapi3filter.Options{AuthenticationFunc: keys.Authenticate, SkipSettingDefaults: true}

	authed := "Bearer test-key"
	maxLimit, aboveMax := strconv.FormatInt(shipped.Limit.Max, 10), strconv.FormatInt(shipped.Limit.Max+1, 10)
	limitMax := "limit=" + maxLimit
	values := []string{"", "0", "1", "20", "100", "101", maxLimit, aboveMax, "-1", "-0", "01", "+5", "1.0", "1e1", " 5", "5 ",
		"0x10", "１", "9007199254740993", "9223372036854775807", "9223372036854775808", "99999999999999999",
		"sold", "SOLD", "available", "lost", "sold%20", "%73old"}
	var paths []string
	for _, v := range values {
		paths = append(paths, "/v1/pets?limit="+v, "/v1/pets?status="+v, "/v1/pets?limit=5&status="+v, "/v1/pets?name="+v,
			"/v1/pets?limit="+v+"&limit="+v, "/v1/pets/"+v)
	}
	shortcuts := 0
	for _, path := range paths {
		for _, auth := range []string{authed, "Bearer nope", ""} {
			r, err := http.NewRequest("GET", path, nil)
			if err != nil {
				continue // not a URL at all
			}
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			route, params, err := router.FindRoute(r)
			if err != nil {
				continue
			}
			if !plans[route.Operation.OperationID].RequestValid(r, params, keys.Check(r)) {
				continue
			}
			shortcuts++
			in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
			assert.NoError(t, openapi3filter.ValidateRequest(context.Background(), in), "%s with %q", path, auth)
			assert.Equal(t, authed, auth, "%s: the shortcut needs the key", path)
		}
	}
	for _, path := range []string{"/v1/pets", "/v1/pets?" + limitMax + "&status=sold", "/v1/pets/7", "/v1/pets?page=2", "/v1/pets?name=Rex"} {
		r, err := http.NewRequest("GET", path, nil)
		require.NoError(t, err)
		r.Header.Set("Authorization", authed)
		route, params, err := router.FindRoute(r)
		require.NoError(t, err)
		assert.True(t, plans[route.Operation.OperationID].RequestValid(r, params, keys.Check(r)), path)
	}
	assert.Greater(t, shortcuts, 10)
}
