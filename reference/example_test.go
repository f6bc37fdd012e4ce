package reference_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/petstore/petstore/reference"
)

func ExampleNewServer() {
	h, err := reference.NewServer(reference.Config{
		APIKeys: []string{"secret"},
		Seed:    []reference.NewPet{{Name: "Rex", CategoryID: 1, Status: "available"}},
	})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	call := func(method, path, body string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer secret")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Printf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	call("POST", "/v1/pets", `{"name":"Tom","categoryId":2,"status":"pending"}`)
	call("GET", "/v1/pets", "")
	call("GET", "/v1/pets?limit=0", "")
	// Output:
	// POST /v1/pets: 201 {"id":2,"name":"Tom","categoryId":2,"status":"pending"}
	// GET /v1/pets: 200 [{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":2,"status":"pending"}]
	// GET /v1/pets?limit=0: 400 {"code":"invalid_request","message":"parameter \"limit\" in query has an error: number must be at least 1","status":400}
}
