package spec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := NewValidator(documentSpec(t)) // known values, whatever spec/openapi.yaml says
	require.NoError(t, err)
	return v
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": []string{"application/json"}}
}

func TestValidateResponse(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name           string
		method, target string
		status         int
		header         http.Header
		body           string
		want           []Violation // nil: conforms
	}{
		{name: "list conforms", method: "GET", target: "https://staging.example/v1/pets?limit=2", status: 200,
			header: jsonHeader(), body: `[{"id":1,"name":"Rex","categoryId":1,"status":"sold"},{"id":2,"name":"Tom","categoryId":2}]`},
		{name: "empty list conforms", method: "GET", target: "/v1/pets", status: 200, header: jsonHeader(), body: `[]`},
		{name: "extra fields are allowed", method: "GET", target: "/v1/pets/1", status: 200, header: jsonHeader(),
			body: `{"id":1,"name":"Rex","categoryId":1,"tags":["x"]}`},
		{name: "missing categoryId in a list element", method: "GET", target: "/v1/pets", status: 200, header: jsonHeader(),
			body: `[{"id":1,"name":"Rex"}]`,
			want: []Violation{{Operation: "listPets", Direction: Response, Pointer: "#/components/schemas/Pet/required", Location: "body/0/categoryId"}}},
		{name: "id as a string", method: "GET", target: "/v1/pets/1", status: 200, header: jsonHeader(),
			body: `{"id":"1","name":"Rex","categoryId":1}`,
			want: []Violation{{Operation: "getPet", Direction: Response, Pointer: "#/components/schemas/Pet/properties/id/type", Location: "body/id"}}},
		{name: "status outside the enum", method: "POST", target: "/v1/pets", status: 201, header: jsonHeader(),
			body: `{"id":1,"name":"Rex","categoryId":1,"status":"lost"}`,
			want: []Violation{{Operation: "createPet", Direction: Response, Pointer: "#/components/schemas/PetStatus/enum", Location: "body/status"}}},
		{name: "wrapped list", method: "GET", target: "/v1/pets", status: 200, header: jsonHeader(), body: `{"items":[]}`,
			want: []Violation{{Operation: "listPets", Direction: Response, Pointer: "#/components/schemas/Pets/type", Location: "body"}}},
		{name: "undocumented status", method: "GET", target: "/v1/pets", status: 500, header: jsonHeader(), body: `{}`,
			want: []Violation{{Operation: "listPets", Direction: Response, Pointer: "#/paths/~1pets/get/responses", Location: "status"}}},
		{name: "text/plain error", method: "GET", target: "/v1/pets", status: 401,
			header: http.Header{"Content-Type": []string{"text/plain"}}, body: `unauthorized`,
			want: []Violation{{Operation: "listPets", Direction: Response, Pointer: "#/components/responses/Unauthorized/content", Location: "header Content-Type"}}},
		{name: "Error without code, via a shared response", method: "POST", target: "/v1/pets", status: 401, header: jsonHeader(),
			body: `{"message":"no","status":401}`,
			want: []Violation{{Operation: "createPet", Direction: Response, Pointer: "#/components/schemas/Error/required", Location: "body/code"}}},
		{name: "malformed JSON", method: "GET", target: "/v1/pets/1", status: 404, header: jsonHeader(), body: `{"code":`,
			want: []Violation{{Operation: "getPet", Direction: Response, Pointer: "#/paths/~1pets~1{petId}/get/responses/404/content/application~1json/schema", Location: "body"}}},
		{name: "two faults, two violations", method: "GET", target: "/v1/pets", status: 200, header: jsonHeader(),
			body: `[{"id":1,"name":2,"categoryId":1},{"id":2,"name":"x"}]`,
			want: []Violation{
				{Operation: "listPets", Direction: Response, Pointer: "#/components/schemas/Pet/properties/name/type", Location: "body/0/name"},
				{Operation: "listPets", Direction: Response, Pointer: "#/components/schemas/Pet/required", Location: "body/1/categoryId"},
			}},
		{name: "unknown path", method: "GET", target: "/v1/owners", status: 404, header: jsonHeader(), body: `{}`,
			want: []Violation{{Direction: Request, Pointer: PointerNoRoute, Location: "path"}}},
		{name: "outside the base path", method: "GET", target: "/pets", status: 200, header: jsonHeader(), body: `[]`,
			want: []Violation{{Direction: Request, Pointer: PointerNoRoute, Location: "path"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.target, nil)
			got := v.ValidateResponse(req, tt.status, tt.header, []byte(tt.body))
			require.Len(t, got, len(tt.want), "%v", got)
			for i := range got {
				assert.NotEmpty(t, got[i].Message)
				assert.NotContains(t, got[i].Message, "\n", "one line")
				got[i].Message = ""
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateRequest(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name, method, target, auth, body string
		wantPointer, wantLocation        string // "" means: conforms
	}{
		{name: "list conforms", method: "GET", target: "/v1/pets?limit=5&status=sold", auth: "Bearer k"},
		{name: "create conforms", method: "POST", target: "/v1/pets", auth: "bearer k", body: `{"name":"Rex","categoryId":3}`},
		{name: "no token", method: "GET", target: "/v1/pets", wantPointer: "#/security", wantLocation: "header Authorization"},
		{name: "basic scheme", method: "GET", target: "/v1/pets", auth: "Basic a2V5Og==", wantPointer: "#/security", wantLocation: "header Authorization"},
		{name: "limit above the maximum", method: "GET", target: "/v1/pets?limit=101", auth: "Bearer k",
			wantPointer: "#/paths/~1pets/get/parameters/0/schema/maximum", wantLocation: "query limit"},
		{name: "unknown status", method: "GET", target: "/v1/pets?status=lost", auth: "Bearer k",
			wantPointer: "#/components/schemas/PetStatus/enum", wantLocation: "query status"},
		{name: "non-integer petId", method: "GET", target: "/v1/pets/abc", auth: "Bearer k",
			wantPointer: "#/paths/~1pets~1{petId}/get/parameters/0", wantLocation: "path petId"},
		{name: "missing name", method: "POST", target: "/v1/pets", auth: "Bearer k", body: `{"categoryId":3}`,
			wantPointer: "#/components/schemas/NewPet/required", wantLocation: "body/name"},
		{name: "categoryId as a string", method: "POST", target: "/v1/pets", auth: "Bearer k", body: `{"name":"Rex","categoryId":"3"}`,
			wantPointer: "#/components/schemas/NewPet/properties/categoryId/type", wantLocation: "body/categoryId"},
		{name: "wrong method", method: "DELETE", target: "/v1/pets", auth: "Bearer k", wantPointer: PointerNoRoute, wantLocation: "path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			got := v.ValidateRequest(req, []byte(tt.body))
			if tt.wantPointer == "" {
				assert.Empty(t, got)
				return
			}
			require.NotEmpty(t, got)
			assert.Equal(t, tt.wantPointer, got[0].Pointer, got[0].String())
			assert.Equal(t, tt.wantLocation, got[0].Location, got[0].String())
			assert.Equal(t, Request, got[0].Direction)
		})
	}
}

func TestViolationString(t *testing.T) {
	v := Violation{Operation: "getPet", Direction: Response, Message: "boom", Pointer: "#/x", Location: "body/id"}
	assert.Equal(t, "getPet response at body/id: boom (#/x)", v.String())
	assert.Equal(t, "- request: boom (#/x)", Violation{Direction: Request, Message: "boom", Pointer: "#/x"}.String())
}

func TestValidateResponseHead(t *testing.T) {
	v := newValidator(t)
	get := httptest.NewRequest("GET", "/v1/pets", nil)
	assert.Empty(t, v.ValidateResponseHead(get, 200, jsonHeader()))
	got := v.ValidateResponseHead(get, 201, jsonHeader())
	require.Len(t, got, 1)
	assert.Equal(t, "#/paths/~1pets/get/responses", got[0].Pointer)
	got = v.ValidateResponseHead(get, 401, http.Header{"Content-Type": []string{"text/html"}})
	require.Len(t, got, 1)
	assert.Equal(t, "#/components/responses/Unauthorized/content", got[0].Pointer)
	got = v.ValidateResponseHead(httptest.NewRequest("PUT", "/v1/pets", nil), 200, jsonHeader())
	require.Len(t, got, 1)
	assert.Equal(t, PointerNoRoute, got[0].Pointer)
}
