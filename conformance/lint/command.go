package lint

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

// Command runs `conformance lint [FILE]`; args are the arguments after "lint". It lints FILE
// (the embedded spec/openapi.yaml when omitted) and prints one line per finding,
// SEVERITY RULE POINTER MESSAGE. It returns nil when there is no error finding (warnings are
// printed), a cli.Failed error (exit 1) when there is one, and a cli.Usagef error (exit 2)
// when the arguments are wrong or the file cannot be read.
func Command(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance lint [FILE]")
		fmt.Fprintln(stderr, "Lints an OpenAPI description (default: the embedded spec/openapi.yaml) against")
		fmt.Fprintln(stderr, "kin-openapi validation and the house rules. Exit 1 on an error finding.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usagef("lint: %v", err)
	}
	if fs.NArg() > 1 {
		return cli.Usagef("lint: want at most one FILE, got %d arguments", fs.NArg())
	}
	data := spec.Bytes()
	if fs.NArg() == 1 {
		var err error
		if data, err = os.ReadFile(fs.Arg(0)); err != nil {
			return cli.Usagef("lint: %v", err)
		}
	}
	findings := LintData(data)
	errs := 0
	for _, f := range findings {
		if _, err := fmt.Fprintln(stdout, f); err != nil {
			return cli.Usagef("lint: %v", err)
		}
		if f.Severity == Error {
			errs++
		}
	}
	if errs > 0 {
		return cli.Failed("lint: %d errors, %d warnings", errs, len(findings)-errs)
	}
	return nil
}
