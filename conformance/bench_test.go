package conformance_test

import (
	"net/http/httptest"
	"testing"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

// BenchmarkCatalogue is the full catalogue against a fresh in-process reference server each
// time (the target is under 200 ms): the preparation creates every animal the rules need,
// as on a first run against a new deployment. Starting the server is not timed.
// BenchmarkRun (example_test.go) is the same with the animals of earlier runs reused.
func BenchmarkCatalogue(b *testing.B) {
	for _, mode := range []struct {
		name string
		cfg  reference.Config
	}{{"validated", reference.Config{}}, {"no-validation", reference.Config{NoValidation: true}}} {
		b.Run("fresh-reference/"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				srv := httptest.NewServer(newReference(b, beforeSunset, mode.cfg))
				target := conformance.Target{BaseURL: srv.URL + "/v1", APIKey: testKey, Client: srv.Client()}
				b.StartTimer()
				rep := run(b, target, conformance.Options{Now: beforeSunset})
				b.StopTimer()
				srv.Close()
				if !rep.Conforming() {
					b.Fatalf("not conforming: %v", notPassed(rep))
				}
				b.StartTimer()
			}
		})
	}
}
