package double

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/routers"

	"github.com/petstore/petstore/internal/clientrules"
	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Server holds the handles a client's tests use: the journal and the report
// (Config.Double.Journal), the clock and reset (Config.AdminKey). The endpoints under
// /_admin/ are these handles over HTTP.
type Server struct {
	now   func() time.Time // the server's clock
	s     *core.Server
	facts *spec.Facts
	clock *clock     // nil without an admin key
	rec   *recording // nil without a journal
	vary  *varied    // nil without Config.Double.Vary
}

// Varied counts what a varied server (Config.Double.Vary) did so far; nil when not varied.
func (srv *Server) Varied() *VaryCounts {
	if srv.vary == nil {
		return nil
	}
	return &srv.vary.counts
}

// Errors of the handles that need a feature the Config did not turn on.
var (
	ErrNoJournal = errors.New("reference: no journal (Config.Double.Journal is 0)")
	ErrNoClock   = errors.New("reference: the clock moves only with Config.AdminKey set")
)

// Requests returns the journal's entries that f selects, oldest first.
func (srv *Server) Requests(f RequestFilter) (Journal, error) {
	if srv.rec == nil {
		return Journal{}, ErrNoJournal
	}
	return srv.rec.journal.snapshot(f), nil
}

// ClearRequests empties the journal (the report keeps counting).
func (srv *Server) ClearRequests() {
	if srv.rec != nil {
		srv.rec.journal.clear()
	}
}

// Report returns the client report: every request since the server started.
func (srv *Server) Report() (ClientReport, error) {
	if srv.rec == nil {
		return ClientReport{}, ErrNoJournal
	}
	return srv.rec.tally.report(), nil
}

// Facts are what the server read from its spec, once, when it was made.
func (srv *Server) Facts() *spec.Facts { return srv.facts }

// Now returns the server's clock.
func (srv *Server) Now() time.Time { return srv.s.Now() }

// SetNow moves the server's clock to t; it goes on from there.
func (srv *Server) SetNow(t time.Time) error {
	if srv.clock == nil {
		return ErrNoClock
	}
	return srv.clock.set(t)
}

// Reset restores the seed, the clock as configured, and an empty journal, as
// POST /_admin/reset does. Ids are not reused. The report keeps counting.
func (srv *Server) Reset() error {
	srv.s.Store.Restore()
	if srv.clock != nil {
		srv.clock.restore()
	}
	srv.ClearRequests()
	return nil
}

// Check refuses settings that mean nothing and fills in the defaults.
func Check(d *Double) error {
	switch {
	case d.Latency < 0:
		return fmt.Errorf("reference: latency %v is negative", d.Latency)
	case d.FailRate < 0 || d.FailRate > 1 || d.FailRate != d.FailRate:
		return fmt.Errorf("reference: fail rate %v is not between 0 and 1", d.FailRate)
	case d.RateLimit < 0:
		return fmt.Errorf("reference: rate limit %d is negative", d.RateLimit)
	case d.Journal < 0 || d.Journal > MaxJournal:
		return fmt.Errorf("reference: journal size %d is not between 0 and %d", d.Journal, MaxJournal)
	}
	if d.Sleep == nil {
		d.Sleep = sleepFor
	}
	if d.Rand == nil {
		d.Rand = rand.Float64
	}
	if d.WallClock == nil {
		d.WallClock = time.Now
	}
	return nil
}

// MaxJournal is the largest journal: with the caps on each entry, about 100 MB at worst.
const MaxJournal = 10_000

// newRecording keeps a journal of size entries and the client report; secrets are masked
// in both, and route finds a request's operation.
func newRecording(facts *spec.Facts, route func(*http.Request) (*routers.Route, map[string]string, error),
	keys *core.KeySet, size int, secrets []string, now, wall func() time.Time) *recording {
	mask := newMasker(secrets...)
	return &recording{
		journal: newJournal(size),
		tally:   newTally(facts.Ops, facts.BasePath, clientRules(facts)),
		judge:   clientrules.New(facts, judgeOptions(facts, mask, wall)),
		mask:    mask,
		keys:    keys,
		now:     now,
		opOf: func(r *http.Request) string {
			if route, _, err := route(r); err == nil {
				return route.Operation.OperationID
			}
			return ""
		},
	}
}

// AdminRoutes adds the endpoints under /_admin/, each for the admin key only.
func (srv *Server) AdminRoutes(extras map[string]core.ExtraRoute, adminKey string, keys *core.KeySet) error {
	admin, err := core.NewKeySet([]string{adminKey})
	if err != nil {
		return fmt.Errorf("reference: admin key: %w", err)
	}
	ew := srv.s.EW
	only := func(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !admin.Check(r) {
				ew.WriteError(w, r, core.ErrUnauthorized)
				return
			}
			if err := h(w, r); err != nil {
				ew.WriteError(w, r, err)
			}
		}
	}
	extras["/_admin/reset"] = core.ExtraRoute{http.MethodPost: only(func(w http.ResponseWriter, r *http.Request) error {
		if err := srv.Reset(); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})}
	extras["/_admin/pact/state"] = srv.pactStateRoute(admin, keys)
	extras["/_admin/clock"] = core.ExtraRoute{
		http.MethodGet:  only(srv.getClock),
		http.MethodPost: only(srv.setClock),
	}
	if srv.rec == nil {
		return nil
	}
	extras["/_admin/requests"] = core.ExtraRoute{
		http.MethodGet: only(func(w http.ResponseWriter, r *http.Request) error {
			f, err := parseRequestFilter(r.URL.Query(), srv.opIDs())
			if err != nil {
				return err
			}
			core.WriteJSON(w, http.StatusOK, srv.rec.journal.snapshot(f))
			return nil
		}),
		http.MethodDelete: only(func(w http.ResponseWriter, r *http.Request) error {
			srv.ClearRequests()
			w.WriteHeader(http.StatusNoContent)
			return nil
		}),
	}
	extras["/_admin/report"] = core.ExtraRoute{http.MethodGet: only(srv.getReport)}
	extras["/_admin/pact"] = core.ExtraRoute{http.MethodGet: only(srv.getPact)}
	return nil
}

// clockBody is the body of GET and POST /_admin/clock.
type clockBody struct {
	Now string `json:"now"`
}

func (srv *Server) getClock(w http.ResponseWriter, r *http.Request) error {
	core.WriteJSON(w, http.StatusOK, clockBody{Now: srv.Now().UTC().Format(time.RFC3339)})
	return nil
}

func (srv *Server) setClock(w http.ResponseWriter, r *http.Request) error {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return core.UnsupportedMediaType(r)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	if err != nil {
		return err
	}
	var b clockBody
	if err := json.Unmarshal(data, &b); err != nil || b.Now == "" {
		return core.Invalid(`want {"now": "2031-01-01"} or {"now": "2031-01-01T12:00:00Z"}`)
	}
	t, err := ParseTime(b.Now)
	if err != nil {
		return core.Invalid("now: %v", err)
	}
	if err := srv.SetNow(t); err != nil {
		return err
	}
	return srv.getClock(w, r)
}

func (srv *Server) getReport(w http.ResponseWriter, r *http.Request) error {
	rep := srv.rec.tally.report()
	format := r.URL.Query().Get("format")
	if format == "" && strings.Contains(r.Header.Get("Accept"), "text/markdown") {
		format = "markdown"
	}
	switch format {
	case "", "json":
		core.WriteJSON(w, http.StatusOK, rep)
	case "markdown", "md":
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_ = rep.WriteMarkdown(w) // the status is sent: a failed write is the client gone
	default:
		return core.Invalid("format must be json or markdown, got %q", format)
	}
	return nil
}

// opIDs are the spec's operationIds, in the facts' order.
func (srv *Server) opIDs() []string {
	ids := make([]string, len(srv.facts.Ops))
	for i, op := range srv.facts.Ops {
		ids[i] = op.ID
	}
	return ids
}
