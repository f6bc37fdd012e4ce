package proxy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"

	"github.com/petstore/petstore/conformance/proxy"
)

// A proxy in front of a server whose animals lack categoryId: the client gets the
// server's answer unchanged, and the log names the violation.
func ExampleNew() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":1,"name":"Rex"}`)
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/v1")
	p, err := proxy.New(proxy.Config{Upstream: u, Log: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(p)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/v1/pets/1", nil)
	req.Header.Set("Authorization", "Bearer my-secret-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("client got", resp.Status)
	// Output:
	// violation: getPet response at body/categoryId: property "categoryId" is missing (#/components/schemas/Pet/required) [GET /v1/pets/1 -> 200]
	// client rule: client/deprecated-operation (ADVISORY, section 4.3; 9.3): GET /v1/pets/1: getPet is deprecated and is removed on 2030-12-05; use listPets [GET /v1/pets/1 -> 200]
	// client got 200 OK
}

func ExampleCheckHAR() {
	har := `{"log": {"version": "1.2", "creator": {"name": "devtools", "version": "1"}, "entries": [
	  {"request": {"method": "GET", "url": "https://api.example/v1/pets?limit=0",
	               "headers": [{"name": "authorization", "value": "Bearer k-123456"}]},
	   "response": {"status": 200, "headers": [{"name": "content-type", "value": "application/json"}],
	                "content": {"size": 2, "mimeType": "application/json", "text": "[]"}}},
	  {"request": {"method": "GET", "url": "https://cdn.example/app.js", "headers": []},
	   "response": {"status": 200, "headers": [], "content": {"size": 0, "mimeType": "text/javascript", "text": ""}}}
	]}}`
	sum, err := proxy.CheckHAR(strings.NewReader(har), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range sum.Findings {
		fmt.Println(f)
	}
	fmt.Println(sum.Checked, "checked,", sum.Ignored, "ignored")
	// Output:
	// violation: listPets request at query limit: parameter "limit" in query: number must be at least 1 (#/paths/~1pets/get/parameters/0/schema/minimum) [GET /v1/pets?limit=0 -> 200]
	// 1 checked, 1 ignored
}
