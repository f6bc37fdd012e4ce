package conformance_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// A service checks itself: serve it with httptest and run the catalogue against it.
func ExampleRun() {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{"example-key"}})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	defer srv.Close()

	rep, err := conformance.Run(context.Background(),
		conformance.Target{BaseURL: srv.URL + "/v1", APIKey: "example-key"},
		conformance.Options{Only: []string{"listPets"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d rules fail\n", rep.Verdict, rep.Counts.Fail)
	// Output: conforming: 0 rules fail
}

// BenchmarkRun measures the whole catalogue against the in-process reference (the
// preparation included; later iterations reuse the animals the first one created).
func BenchmarkRun(b *testing.B) {
	target := serve(b, newReference(b, beforeSunset, reference.Config{}))
	b.ReportAllocs()
	for b.Loop() {
		rep := run(b, target, conformance.Options{Now: beforeSunset})
		if !rep.Conforming() {
			b.Fatalf("not conforming: %v", notPassed(rep))
		}
	}
}
