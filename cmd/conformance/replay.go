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

// replayOpts are replay's flags: the target's, how many times, and whether elsewhere.
type replayOpts struct {
	targetFlags
	times     int
	elsewhere bool
}

// flagSet defines replay's flags over f.
func (f *replayOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	f.register(fs, 0)
	fs.Lookup("base-url").Usage = "replay against the service at this base `URL` instead of the target the file records (with --elsewhere when it differs)"
	fs.Lookup("max-creates").Usage = "create at most `N` animals in all the runs together"
	fs.Lookup("lag").Usage = "a new animal may stay missing from listings and getPet for `D` (default the lag the file records)"
	fs.BoolVar(&f.elsewhere, "elsewhere", false, "allow a --base-url other than the target the file records; the report says it was replayed elsewhere")
	fs.IntVar(&f.times, "replays", explore.DefaultReplays, "run the sequence `N` times")
	return fs
}

// check refuses flags no replay can be made with.
func (f *replayOpts) check() error {
	if err := f.targetFlags.check("replay"); err != nil {
		return err
	}
	if f.times < 1 {
		return cli.Usagef("conformance replay: --replays must be at least 1")
	}
	if f.elsewhere && f.baseURL == "" {
		return cli.Usagef("conformance replay: --elsewhere needs the --base-url to replay against")
	}
	return nil
}

func replayCommand(ctx context.Context, e env, args []string) error {
	var f replayOpts
	fs := f.flagSet()
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
	if err := f.check(); err != nil {
		return err
	}
	rf, err := explore.ReadReplayFile(file)
	if err != nil {
		return cli.Usagef("conformance replay: %v", err)
	}
	baseURL, err := replayTarget(rf, f.baseURL, f.elsewhere)
	if err != nil {
		return cli.Usagef("conformance replay: %s: %v", file, err)
	}
	s, err := f.openAt("replay", e, baseURL)
	if err != nil {
		return err
	}
	defer s.stop()
	rr, err := explore.Replay(ctx, explore.ReplayConfig{Target: s.target, Doc: s.doc, Facts: s.facts, Lag: f.lag, Times: f.times,
		Timeout: f.timeout, MaxWait: f.maxWait, MaxCreates: f.maxCreates, Fresh: s.fresh, InProcess: s.fresh != nil,
		Provenance: explore.NewProvenance(s.specHash, rf.Provenance.Seed, givenFlags(fs), s.target.APIKey)}, rf)
	if err != nil {
		return unable("replay", err)
	}
	write := explore.WriteReplayText
	if f.format == "json" {
		write = func(w io.Writer, rr *explore.ReplayReport) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rr)
		}
	}
	if err := f.writeOut("replay", e, func(w io.Writer) error { return write(w, rr) }); err != nil {
		return err
	}
	switch {
	case rr.Failed > 0:
		return cli.Failed("")
	case rr.Runs == 0:
		return cli.Usagef("conformance replay: no run could be made: %s", rr.Stopped)
	}
	return nil
}

// replayTarget is the base URL a replay goes to ("": a fresh reference, in-process): the
// target the file records, unless --base-url names another, which --elsewhere must allow.
// PETSTORE_BASE_URL is not read: the file says where its finding was made.
func replayTarget(rf explore.ReplayFile, given string, elsewhere bool) (string, error) {
	recorded, err := rf.Recorded()
	switch {
	case given != "" && (elsewhere || rf.SameTarget(given)):
		return given, nil
	case given != "" && rf.RecordedInProcess():
		return "", errors.New("recorded against the reference in-process, not " + given + "; add --elsewhere to replay it there")
	case given != "":
		return "", errors.New("recorded against " + first(rf.Target, "no target") + ", not " + given + "; add --elsewhere to replay it there")
	case err != nil:
		return "", errors.New(err.Error() + "; give it as --base-url")
	case recorded == "" && !rf.RecordedInProcess():
		return "", errors.New("the file records no target; give one as --base-url and add --elsewhere")
	}
	return recorded, nil
}
