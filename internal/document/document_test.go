package document_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

// The facts are written from the interface document, beside the repository (../shared; skipped
// without it, see ReadFile): each value appears there in the words the document uses, so a
// fact typed wrong fails here and not only against the spec.
func TestFactsAreTheDocuments(t *testing.T) {
	doc := string(document.ReadFile(t))
	for _, o := range document.Operations {
		assert.Contains(t, doc, fmt.Sprintf("- Method and path: %s %s\n- Operation name: %s\n", o.Method, o.Path, o.ID))
		assert.Contains(t, doc, "### "+o.Section+" ")
		for _, s := range o.Statuses {
			assert.Regexp(t, fmt.Sprintf(`(?s)### %s .*\| %d \| [A-Z]`, o.Section, s), doc)
		}
	}
	assert.Contains(t, doc, fmt.Sprintf("| %s | integer | no | minimum %d, maximum %d | %d |",
		document.Limit.Parameter, document.Limit.Min, document.Limit.Max, document.Limit.Default))
	for _, row := range []string{fmt.Sprintf("| limit minimum | %d |", document.Limit.Min),
		fmt.Sprintf("| limit maximum | %d |", document.Limit.Max), fmt.Sprintf("| limit default | %d |", document.Limit.Default)} {
		assert.Contains(t, doc, row)
	}
	assert.Contains(t, doc, "Allowed values: "+strings.Join(document.PetStatus.Values, ", ")+".")
	assert.Contains(t, doc, "| status | PetStatus | no | one of "+strings.Join(document.PetStatus.Values, ", "))
	assert.Contains(t, doc, "The Pet record therefore has required fields id, name and categoryId, and an optional status.")
	for _, r := range document.Records {
		if r.Name == "Pet" {
			assert.ElementsMatch(t, []string{"id", "name", "categoryId"}, r.Required)
			continue
		}
		for _, f := range r.Required {
			assert.Regexp(t, fmt.Sprintf(`(?s)### %s\b.*?\| %s \| [^\n]*\| yes \|`, r.Name, f), doc, "%s.%s", r.Name, f)
		}
	}
	assert.Contains(t, doc, "Every operation requires an API key sent as an HTTP bearer token.")
	assert.Contains(t, doc, "scheduled for removal on 5 December 2030. The replacement is GET /pets with the status filter.")
	assert.Equal(t, "2030-12-05", document.Removal.Date)
}

// The project's spec departs from the document nowhere. This is the one test a departure
// fails (lint and make spec-check report it too): the author changes the document first
// (../shared/pet-store-interface.md, then the facts here), or undoes the edit.
func TestSpecFollowsTheDocument(t *testing.T) {
	assert.Empty(t, document.Compare(spec.MustLoad()), "spec/openapi.yaml departs from the interface document: "+
		"change the document and internal/document first, or undo the edit (docs/spec-authors.md, \"Accepting a change on purpose\")")
}

// The frozen spec the departures are made from follows the document.
func TestDocumentSpecFollowsTheDocument(t *testing.T) {
	doc, err := spec.Parse(document.Spec)
	require.NoError(t, err)
	assert.Empty(t, document.Compare(doc))
}

// Each edit of the spec that contradicts the document is one departure, naming the fact,
// the section and the node.
func TestDepartures(t *testing.T) {
	tests := []struct {
		name, old, new string
		fact, section  string
		pointer        string
		message        string
	}{
		{"limit maximum", "maximum: 100", "maximum: 50", document.FactLimitMax, "4.1; 8",
			"#/paths/~1pets/get/parameters/0/schema/maximum", "listPets limit maximum is 50 in the spec; the document says 100 (section 4.1; 8)"},
		{"limit default", "default: 20", "default: 10", document.FactLimitDefault, "4.1; 8",
			"#/paths/~1pets/get/parameters/0/schema/default", "default is 10"},
		{"new status value", "        - sold\n", "        - sold\n        - lost\n", document.FactPetStatus, "2 (PetStatus)",
			"#/components/schemas/PetStatus/enum", "PetStatus is available, pending, sold, lost in the spec; the document says available, pending, sold"},
		{"status required", "      required:\n        - name\n        - categoryId\n      properties:\n        name:\n          type: string\n          description: The animal's name.\n          example: Rex\n        categoryId:",
			"      required:\n        - name\n        - categoryId\n        - status\n      properties:\n        name:\n          type: string\n          description: The animal's name.\n          example: Rex\n        categoryId:",
			document.FactRequired("NewPet"), "2 (NewPet)", "#/components/schemas/NewPet/required", "NewPet requires name, categoryId, status"},
		{"removal date", "x-sunset: '2030-12-05'", "x-sunset: '2031-12-05'", document.FactRemovalDate, "4.3; 9.3",
			"#/paths/~1pets~1{petId}/get/x-sunset", `"2031-12-05" in the spec; the document says 2030-12-05`},
		{"404 gone", "        '404':\n          description: The requested resource could not be found.\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Error'\n              example:\n                code: not_found\n                message: pet 42 not found\n                status: 404\n", "",
			document.FactResponse("getPet", 404), "4.3", "#/paths/~1pets~1{petId}/get/responses/404", "getPet documents no 404 response"},
		{"no auth", "security:\n  - bearerAuth: []\n", "", document.FactAuth, "5.1", "#/security", "listPets does not require the bearer token"},
		{"renamed", "operationId: getPet", "operationId: readPet", document.FactOperation("getPet"), "4.3", "#/paths/~1pets~1{petId}/get/operationId", `GET /pets/{petId} is operation "readPet" in the spec; the document names it getPet`},
		{"moved", "  /pets/{petId}:", "  /animals/{petId}:", document.FactOperation("getPet"), "4.3", "#/paths/~1animals~1{petId}/get/operationId", "getPet is GET /animals/{petId} in the spec; the document says GET /pets/{petId}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := string(document.Spec)
			require.Equal(t, 1, strings.Count(src, tt.old), "internal/document/spec.yaml changed")
			doc, err := spec.Parse([]byte(strings.Replace(src, tt.old, tt.new, 1)))
			require.NoError(t, err)
			ds := document.Compare(doc)
			d, ok := ds.Of(tt.fact)
			require.True(t, ok, "%+v", ds)
			assert.Equal(t, tt.section, d.Section)
			assert.Equal(t, tt.pointer, d.Pointer)
			assert.Contains(t, d.Message, tt.message)
		})
	}
}

// A document kin-openapi could not make sense of still compares, as far as it goes.
func TestCompareEmpty(t *testing.T) {
	assert.NotEmpty(t, document.Compare(nil))
	assert.Len(t, document.Compare(nil), len(document.Operations)+len(document.Records)+1)
}
