package double

import (
	"net/http"
	"time"

	"github.com/petstore/petstore/reference/internal/core"
	"github.com/petstore/petstore/spec"
)

// Settings are what the double reads of the server's Config besides Double.
type Settings struct {
	Double   Double
	AdminKey string   // with one, the clock can move (Server.SetNow, POST /_admin/clock)
	Secrets  []string // masked in the journal and the report: the admin key and the API keys
}

// NewServer makes the handles of a server whose clock is now; with an admin key the clock
// can move, and Server.Clock is the server's clock.
func NewServer(now func() time.Time, set Settings) *Server {
	srv := &Server{now: now}
	if set.AdminKey != "" {
		// Only then can the clock move; otherwise it costs nothing on the way of a request.
		srv.clock = &clock{base: now}
		srv.now = srv.clock.now
	}
	return srv
}

// Clock is the server's clock: the configured one, or the one that moves.
func (srv *Server) Clock() func() time.Time { return srv.now }

// Wrap puts the double's features that set.Double turns on around the pure reference's api
// a: chosen answers, faults and the journal. It returns the handler of the API, a itself
// when no fault is asked for.
func (srv *Server) Wrap(set Settings, facts *spec.Facts, s *core.Server, a *core.API, keys *core.KeySet) http.Handler {
	srv.s, srv.facts = s, facts
	d := set.Double
	if d.Scenarios {
		a.Choose = (&scenarios{sleep: d.Sleep, ew: s.EW}).apply
	}
	if d.Journal > 0 {
		srv.rec = newRecording(facts, a.Route, keys, d.Journal, set.Secrets, srv.now, d.WallClock)
	}
	var h http.Handler = a
	if d.Vary != 0 {
		srv.vary = newVaried(ChooseVariations(d.Vary), s.PetPath, facts.BasePath+facts.ByID[spec.OpList].Path, d.Sleep, s.EW, h)
		h = srv.vary
	}
	if d.Scenarios {
		h = slowBodies{next: h} // outside the varied answer: Prefer: fault=slow trickles it
	}
	if d.Latency > 0 || d.FailRate > 0 || d.RateLimit > 0 {
		return &faults{d: d, ew: s.EW, now: srv.now, next: h}
	}
	return h
}

// Record puts the journal around h, when there is one: outside the guard, so that it records
// the 500 of a panic too.
func (srv *Server) Record(h http.Handler) http.Handler {
	if srv.rec == nil {
		return h
	}
	return srv.rec.middleware(h)
}
