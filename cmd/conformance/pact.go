package main

import (
	"context"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/pact"
	"github.com/petstore/petstore/conformance/pact/check"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// pactCommand is `conformance pact verify FILE... [run's flags]`: the interactions of the
// pact files run as the rules of a run, with its reports and exit codes.
func pactCommand(ctx context.Context, e env, args []string) error {
	verb := len(args) > 0 && args[0] == "verify"
	if verb {
		args = args[1:]
	}
	var f runFlags
	fs := f.flagSet()
	fs.Init("pact", fs.ErrorHandling())
	files, err := parseArgs(fs, args, e) // --help and a bad flag are answered without the verb
	switch {
	case err != nil:
		return err
	case !verb:
		return cli.Usagef("conformance pact: want verify FILE... (conformance pact --help)")
	case len(files) == 0:
		return cli.Usagef("conformance pact verify: want at least one pact FILE")
	}
	contracts, err := readPacts("pact verify", files)
	if err != nil {
		return err
	}
	return f.run(ctx, e, fs, func(facts *spec.Facts) ([]rules.Rule, error) {
		return check.Rules(facts, contracts)
	})
}

// readPacts reads the pact files a command names; a file that cannot be read is exit 2.
func readPacts(cmd string, files []string) ([]check.Contract, error) {
	out := make([]check.Contract, 0, len(files))
	for _, name := range files {
		p, err := pact.ReadFile(name)
		if err != nil {
			return nil, cli.Usagef("conformance %s: %v", cmd, err)
		}
		out = append(out, check.Contract{File: name, Pact: p})
	}
	return out, nil
}

// consumerBreaks writes the consumer interactions the change from old to neu breaks; one
// broken interaction fails the command, --allow-breaking or not: a consumer relies on it.
func consumerBreaks(e env, old, neu *openapi3.T, contracts []check.Contract) error {
	bs, err := check.Breaks(old, neu, contracts)
	if err != nil {
		return cli.Usagef("conformance diff: %v", err)
	}
	if err := check.WriteBreaks(e.stdout, bs, contracts); err != nil {
		return cli.Usagef("conformance diff: %v", err)
	}
	if len(bs) > 0 {
		return cli.Failed("conformance diff: the change breaks %s", words.Plural(len(bs), "consumer interaction"))
	}
	return nil
}
