package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/diff"
	"github.com/petstore/petstore/conformance/pact/check"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/pact"
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

// consumerBreaks are the consumer interactions the change from old to neu breaks, nil
// without contracts.
func consumerBreaks(old, neu *openapi3.T, contracts []check.Contract) (*check.Consumers, error) {
	if len(contracts) == 0 {
		return nil, nil
	}
	bs, err := check.Breaks(old, neu, contracts)
	if err != nil {
		return nil, cli.Usagef("conformance diff: %v", err)
	}
	c := check.Summary(bs, contracts)
	return &c, nil
}

// writeDiffJSON writes diff's JSON report, with a "consumers" member after its own when
// --pact was given.
func writeDiffJSON(w io.Writer, files []string, changes []diff.Change, consumers *check.Consumers) error {
	if consumers == nil {
		return diff.WriteJSON(w, files[0], files[1], changes)
	}
	var own, out bytes.Buffer
	if err := diff.WriteJSON(&own, files[0], files[1], changes); err != nil {
		return err
	}
	extra, err := json.Marshal(consumers)
	if err != nil {
		return err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, own.Bytes()); err != nil {
		return err
	}
	merged := append(bytes.TrimSuffix(compact.Bytes(), []byte("}")), []byte(`,"consumers":`)...)
	merged = append(append(merged, extra...), '}')
	if err := json.Indent(&out, merged, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
