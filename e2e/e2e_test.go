// Package e2e holds end-to-end checks that need programs outside Go: the HTML report opened
// in headless Chromium, driven with chromedp. A check skips with a message where its
// program is missing, except under CI=true, where it fails; `make e2e` and .ci/run install
// them.
package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/report"
	"github.com/petstore/petstore/internal/words"
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

// chromiumPath finds Chromium, or skips the test; when CI=true a missing Chromium fails it
// instead (.ci/run installs Debian's chromium): a browser test that skips in CI proves
// nothing.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: the browser test must run in CI (Debian: apt-get install chromium; .ci/run and make e2e do it)")
	}
	t.Skip("chromium is not installed (Debian: apt-get install chromium; `make e2e` does it)")
	return ""
}

// failingRun is a run against faulty, with one failure waived.
func failingRun(t *testing.T) *conformance.Report {
	t.Helper()
	srv := httptest.NewUnstartedServer(faulty(t))
	srv.Listener = reference.Listener(srv.Listener) // net/http's own answers as Error records
	srv.Start()
	t.Cleanup(srv.Close)
	rep, err := conformance.Run(context.Background(), conformance.Target{BaseURL: srv.URL + "/v1", APIKey: key, Client: srv.Client()},
		conformance.Options{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Waivers: []conformance.Waiver{
			{Rule: "auth/listPets-www-authenticate", Reason: "the staging gateway strips WWW-Authenticate, OPS-142", Expires: "2099-03-01"}}})
	require.NoError(t, err)
	require.Positive(t, rep.Counts.Fail)
	require.Positive(t, rep.Counts.Waived)
	return rep
}

// The HTML report of a failing run, opened in headless Chromium and driven through the
// DevTools protocol (chromedp), shows what a person reads: the verdict, the counts, and a
// failing rule that opens on a click to its exchanges and its curl line, each as the
// report holds them. The screenshot (make screenshot) is taken of the same page.
func TestHTMLReportInChromium(t *testing.T) {
	chromium := chromiumPath(t)
	rep := failingRun(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var html bytes.Buffer
	require.NoError(t, conformance.WriteHTML(&html, rep))
	require.NoError(t, os.WriteFile(page, html.Bytes(), 0o644))

	// The rule the test opens: the failing rule that lets requests without a key in, with
	// the exchange that shows it.
	const ruleID = "auth/listPets-missing"
	res, ok := rep.Result(ruleID)
	require.True(t, ok)
	require.Equal(t, conformance.Fail, res.Status, "the fault of faulty")
	require.NotEmpty(t, res.Exchanges)
	ex := res.Exchanges[0]

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1280, 2000))
	// Chromium's first start on a cold machine can take long; this bounds a hang, not speed.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	rule := `details.rule[id="rule-` + ruleID + `"]`
	require.NoError(t, chromedp.Do(bctx, chromedp.EmulateViewport(1280, 2000), chromedp.Navigate("file://"+page)))
	// text is the visible text of sel; it waits until sel is visible, which inside a closed
	// details element it is not.
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		require.NoError(t, err, sel)
		return s
	}
	isOpen := func() bool {
		t.Helper()
		open, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.querySelector('`+rule+`').open`))
		require.NoError(t, err)
		return open
	}
	click := func(sel string) {
		t.Helper()
		require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)), sel)
	}
	verdict, why := text("header .verdict"), text("header .why")
	title, err := chromedp.Run(bctx, chromedp.Title())
	require.NoError(t, err)
	legend, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("ul.legend li")).map(li => li.innerText)`))
	require.NoError(t, err)
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	openAtFirst := isOpen()
	// A person closes the failing rule and opens it again with clicks on its summary.
	click(rule + " > summary")
	openAfterClose := isOpen()
	click(rule + " > summary")
	openAfterClick := isOpen()
	requestText := text(rule + " .exchange .pair > div:first-child pre")
	responseText := text(rule + " .exchange .pair > div:last-child pre")
	curl := text(rule + " .exchange .curl code")

	assert.Equal(t, "NOT CONFORMING", verdict)
	assert.True(t, strings.HasPrefix(title, "NOT conforming: "), title)
	assert.Contains(t, why, words.Plural(rep.Counts.Fail, "rule")+" failed.")
	c := rep.Counts
	assert.Equal(t, []string{
		fmt.Sprintf("%d passed", c.Pass), fmt.Sprintf("%d failed", c.Fail), words.Plural(c.Warn, "warning"),
		fmt.Sprintf("%d waived", c.Waived), fmt.Sprintf("%d skipped", c.Skip), words.Plural(c.Error, "error"),
	}, legend, "the counts of the report")

	assert.True(t, openAtFirst, "a failed rule is open when the page loads")
	assert.False(t, openAfterClose, "a click on its summary closes it")
	assert.True(t, openAfterClick, "and another opens it")
	assert.True(t, strings.HasPrefix(requestText, ex.Request.Method+" "+ex.Request.URL+"\n"), "the request: %q", requestText)
	assert.NotContains(t, requestText, "Authorization: Bearer", "the failing request was sent without a key")
	require.NotNil(t, ex.Response)
	assert.True(t, strings.HasPrefix(responseText, report.StatusText(ex.Response.Status)+"\n"), "the response: %q", responseText)
	assert.Equal(t, ex.Curl, curl, "the curl line")
	assert.True(t, strings.HasPrefix(curl, "curl "), curl)

	// The screenshot, of the window as the page loaded: rendered, not blank.
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	assert.Equal(t, 1280, img.Bounds().Dx())
	assert.Equal(t, 2000, img.Bounds().Dy())
	assert.Greater(t, len(shot), 50_000, "the screenshot looks blank")
	if *screenshotOut != "" {
		require.NoError(t, os.WriteFile(*screenshotOut, shot, 0o644))
	}
}
