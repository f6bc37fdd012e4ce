package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/petstore/petstore/conformance/explore"
	"github.com/petstore/petstore/internal/cli"
)

func replayCommand(ctx context.Context, e env, args []string) error {
	var f targetFlags
	var times int
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	f.register(fs, 0)
	fs.IntVar(&times, "replays", explore.DefaultReplays, "run the sequence `N` times")
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, e); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if file == "" {
		return cli.Usagef("conformance replay: want a replay FILE (conformance replay FILE [flags])")
	}
	if err := f.check("replay"); err != nil {
		return err
	}
	if times < 1 {
		return cli.Usagef("conformance replay: --replays must be at least 1")
	}
	rf, err := explore.ReadReplayFile(file)
	if err != nil {
		return cli.Usagef("conformance replay: %v", err)
	}
	s, err := f.open("replay", e)
	if err != nil {
		return err
	}
	defer s.stop()
	rr, err := explore.Replay(ctx, explore.ReplayConfig{Target: s.target, Doc: s.doc, Facts: s.facts, Now: s.now, Lag: f.lag, Times: times,
		Timeout: f.timeout, MaxCreates: f.maxCreates, Fresh: s.fresh,
		Provenance: explore.NewProvenance(s.specHash, rf.Provenance.Seed, givenFlags(fs), s.target.APIKey)}, rf)
	if err != nil {
		return unable("replay", err)
	}
	w, closeOut, err := f.out(e)
	if err != nil {
		return cli.Usagef("conformance replay: --output: %v", err)
	}
	write := explore.WriteReplayText
	if f.format == "json" {
		write = func(w io.Writer, rr *explore.ReplayReport) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rr)
		}
	}
	if err := write(w, rr); err != nil {
		closeOut()
		return cli.Usagef("conformance replay: %v", err)
	}
	if err := closeOut(); err != nil {
		return cli.Usagef("conformance replay: --output: %v", err)
	}
	switch {
	case rr.Failed > 0:
		return cli.Failed("")
	case rr.Runs == 0:
		return cli.Usagef("conformance replay: no run could be made: %s", rr.Stopped)
	}
	return nil
}
