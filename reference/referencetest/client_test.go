package referencetest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/reference"
	"github.com/petstore/petstore/reference/double"
	"github.com/petstore/petstore/reference/referencetest"
)

// availableNames is the client under test: the names of the available animals.
func availableNames(c *http.Client, baseURL string) ([]string, error) {
	resp, err := c.Get(baseURL + "/pets?status=available")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listPets: %s", resp.Status)
	}
	var pets []struct{ Name string }
	if err := json.NewDecoder(resp.Body).Decode(&pets); err != nil {
		return nil, err
	}
	names := make([]string, len(pets))
	for i, p := range pets {
		names[i] = p.Name
	}
	return names, nil
}

func TestAvailableNames(t *testing.T) {
	srv := referencetest.Start(t, referencetest.Options{
		Seed: []reference.NewPet{
			{Name: "Rex", CategoryID: 1, Status: "available"},
			{Name: "Tom", CategoryID: 2, Status: "sold"},
		},
		Now:       time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), // after getPet's removal
		Scenarios: true,
	})

	names, err := availableNames(srv.Client(), srv.URL)
	require.NoError(t, err)
	assert.Equal(t, []string{"Rex"}, names)

	// An answer the interface allows but that rarely happens: the key is refused.
	_, err = availableNames(srv.Client("Prefer", "code=401"), srv.URL)
	assert.EqualError(t, err, "listPets: 401 Unauthorized")

	// What the client sent, and what the server thought of it.
	sent := srv.Requests(double.RequestFilter{Operation: "listPets"})
	require.Len(t, sent, 2)
	assert.Equal(t, "status=available", sent[0].Query)
	assert.Equal(t, []string{"Bearer <redacted>"}, sent[0].Headers["Authorization"])
	for _, op := range srv.Report().Operations {
		assert.Zero(t, op.Rejected, "%s: %v", op.Operation, op.Reasons)
	}
	assert.Empty(t, srv.Report().Warnings, "no deprecated operation used")
}
