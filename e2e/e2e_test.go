// Package e2e holds end-to-end checks that need programs outside Go: the HTML report opened
// in headless Chromium. Each check skips with a message where its program is missing;
// `make e2e` installs them.
package e2e

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/reference"
)

var screenshotOut = flag.String("screenshot", "", "also copy the screenshot to this `file` (docs/images/report.png)")

const key = "e2e-key-5a7d"

// faulty is the reference with two faults a person should spot in the report: GET /pets
// lets requests without a key in (MUST rules fail), and no 401 names its scheme in
// WWW-Authenticate (SHOULD rules warn).
func faulty(t *testing.T) http.Handler {
	h, err := reference.NewServer(reference.Config{APIKeys: []string{key},
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	require.NoError(t, err)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/pets" && r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		h.ServeHTTP(dropHeader{w, "WWW-Authenticate"}, r)
	})
}

type dropHeader struct {
	http.ResponseWriter
	name string
}

func (d dropHeader) WriteHeader(code int) {
	d.Header().Del(d.name)
	d.ResponseWriter.WriteHeader(code)
}

func (d dropHeader) Write(b []byte) (int, error) {
	d.Header().Del(d.name)
	return d.ResponseWriter.Write(b)
}

// The HTML report of a failing run, opened in headless Chromium, renders to a screenshot
// that is not blank.
func TestHTMLReportInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; `make e2e` does it)")
	}
	srv := httptest.NewServer(faulty(t))
	t.Cleanup(srv.Close)
	rep, err := conformance.Run(context.Background(), conformance.Target{BaseURL: srv.URL + "/v1", APIKey: key, Client: srv.Client()},
		conformance.Options{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Waivers: []conformance.Waiver{
			{Rule: "auth/listPets-www-authenticate", Reason: "the staging gateway strips WWW-Authenticate, OPS-142", Expires: "2099-03-01"}}})
	require.NoError(t, err)
	require.Positive(t, rep.Counts.Fail)
	require.Positive(t, rep.Counts.Waived)

	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var html bytes.Buffer
	require.NoError(t, conformance.WriteHTML(&html, rep))
	require.NoError(t, os.WriteFile(page, html.Bytes(), 0o644))
	shot := filepath.Join(dir, "report.png")

	// Chromium's first start on a cold machine can take long; this bounds a hang, not speed.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1280,2000", "file://"+page)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "chromium: %s", out)

	data, err := os.ReadFile(shot)
	require.NoError(t, err, "chromium wrote no screenshot: %s", out)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, 1280, img.Bounds().Dx())
	assert.Equal(t, 2000, img.Bounds().Dy())
	// A blank page compresses to a few kilobytes; a rendered report holds text and colour.
	assert.Greater(t, len(data), 50_000, "the screenshot looks blank")
	colours := map[uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>12<<8|g>>12<<4|b>>12] = true
		}
	}
	assert.Greater(t, len(colours), 20, "the screenshot has too few colours to be the report")

	if *screenshotOut != "" {
		require.NoError(t, os.WriteFile(*screenshotOut, data, 0o644))
	}
}
