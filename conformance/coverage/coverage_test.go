package coverage_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance/coverage"
	"github.com/petstore/petstore/internal/document"
	"github.com/petstore/petstore/spec"
)

func TestTracker(t *testing.T) {
	doc, err := spec.Parse(document.Spec) // known operations and statuses, whatever spec/openapi.yaml says
	require.NoError(t, err)
	tr, err := coverage.New(doc)
	require.NoError(t, err)
	empty := tr.Snapshot()
	assert.Equal(t, 10, empty.Pairs)
	assert.Zero(t, empty.Exercised)
	assert.Len(t, empty.Missing(), 10)

	list := httptest.NewRequest("GET", "/v1/pets?status=sold&status=pending", nil)
	tr.Record("listPets", list, nil, 200)
	tr.Record("listPets", list, nil, 418)
	tr.Record("noSuchOperation", list, nil, 200)
	create := httptest.NewRequest("POST", "/v1/pets", strings.NewReader(""))
	create.Header.Set("Content-Type", "application/json")
	tr.Record("createPet", create, []byte(`{"name":"a","categoryId":1,"status":"sold"}`), 201)
	tr.Record("createPet", create, []byte(`not json`), 400)
	// A body over MaxMemberBody counts as a request; its members are not read.
	padded := func(n int) []byte {
		b := `{"name":"b","status":"sold","pad":"`
		return []byte(b + strings.Repeat("x", n-len(b)-2) + `"}`)
	}
	require.Len(t, padded(coverage.MaxMemberBody+1), coverage.MaxMemberBody+1)
	tr.Record("createPet", create, padded(coverage.MaxMemberBody+1), 413)

	c := tr.Snapshot()
	assert.Equal(t, 3, c.Exercised)
	assert.InDelta(t, 30.0, c.Percent, 0.001)
	assert.NotContains(t, c.Missing(), "listPets 200")
	assert.Contains(t, c.Missing(), "getPet 404")
	byOp := map[string]coverage.OperationCoverage{}
	for _, op := range c.Operations {
		byOp[op.Operation] = op
	}
	assert.Equal(t, 2, byOp["listPets"].Requests)
	assert.Equal(t, []coverage.Count{{Status: 418, Count: 1}}, byOp["listPets"].Undocumented)
	status := byOp["listPets"].Parameters[1]
	assert.Equal(t, "status", status.Name)
	assert.Equal(t, 2, status.Count)
	assert.Equal(t, []coverage.ValueCount{{Value: "available"}, {Value: "pending", Count: 2}, {Value: "sold", Count: 2}}, status.Values)
	body := byOp["createPet"].Parameters
	require.Len(t, body, 3)
	assert.Equal(t, coverage.ParameterCoverage{In: "body", Name: "name", Count: 1}, body[1])
	assert.Equal(t, 1, body[2].Values[2].Count, "sold")
	assert.Equal(t, 3, byOp["createPet"].Requests)
	tr.Record("createPet", create, padded(coverage.MaxMemberBody), 201)
	assert.Equal(t, 2, tr.Snapshot().Operations[1].Parameters[2].Values[2].Count, "a body of MaxMemberBody is read")

	// A snapshot is a copy: later traffic does not change it.
	tr.Record("getPet", httptest.NewRequest("GET", "/v1/pets/1", nil), nil, 404)
	assert.Equal(t, 3, c.Exercised)
	assert.Equal(t, 4, tr.Snapshot().Exercised)
}
