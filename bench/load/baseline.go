package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// Canned are the answers the baseline gives, captured from the reference server so that
// both send the same bytes: the body of each case, by case name, and the Location header
// of the created animal.
type Canned struct {
	Bodies   map[string][]byte `json:"bodies"`
	Location string            `json:"location"`
}

// Capture sends each case once to the server at base (the URL up to the base path) and
// keeps the answers.
func Capture(ctx context.Context, base, apiKey string, cases []Case) (Canned, error) {
	c := Canned{Bodies: map[string][]byte{}}
	for _, cs := range cases {
		resp, err := cs.do(ctx, http.DefaultClient, base, apiKey)
		if err != nil {
			return c, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return c, fmt.Errorf("%s: %w", cs.Name, err)
		}
		if resp.StatusCode != cs.Want {
			return c, fmt.Errorf("%s: status %d, want %d: %s", cs.Name, resp.StatusCode, cs.Want, body)
		}
		c.Bodies[cs.Name] = body
		if loc := resp.Header.Get("Location"); loc != "" {
			c.Location = loc
		}
	}
	return c, nil
}

// Baseline is the machine's limit: a net/http handler that answers the cases (below base)
// with the canned bytes, with no routing beyond method and query, no validation and no
// store. Anything else gets the first case's body (that includes /healthz, for readiness).
func Baseline(c Canned, cases []Case, base string) http.Handler {
	byRequest := map[string][]byte{}
	want := map[string]int{}
	for _, cs := range cases {
		byRequest[cs.Method+" "+base+cs.Path] = c.Bodies[cs.Name]
		want[cs.Method+" "+base+cs.Path] = cs.Want
	}
	fallback := c.Bodies[cases[0].Name]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.RequestURI()
		body, ok := byRequest[key]
		if !ok {
			body = fallback
		}
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "application/json")
		status := http.StatusOK
		if ok {
			status = want[key]
		}
		if status == http.StatusCreated {
			h.Set("Location", c.Location)
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// ServeBaseline serves Baseline, below base, on addr with the canned answers read from the JSON file at
// path, until ctx ends. It is the baseline server process of a load run.
func ServeBaseline(ctx context.Context, addr, base, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var c Canned
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: Baseline(c, Cases, base), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
