package lint

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

// Command runs `conformance lint [FILE]`; args are the arguments after "lint". It lints FILE
// (the embedded spec/openapi.yaml when omitted) and prints one line per finding,
// SEVERITY RULE POINTER MESSAGE. It returns nil when there is no error finding (warnings are
// printed), a cli.Failed error (exit 1) when there is one, and a cli.Usagef error (exit 2)
// when the arguments are wrong or the file cannot be read.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return NewCommand(nil)(ctx, args, stdout, stderr)
}

// RefsFunc lists what the conformance rules built for doc expect of it, for CrossCheck.
type RefsFunc func(doc *openapi3.T) ([]RuleRef, error)

// NewCommand returns Command with the rule-to-spec cross-check: refs (nil for none) is called
// with the linted document and its references are checked by CrossCheck. It lets
// cmd/conformance pass the rule catalogue without this package importing it.
func NewCommand(refs RefsFunc) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return run(ctx, refs, args, stdout, stderr)
	}
}

func run(_ context.Context, refs RefsFunc, args []string, stdout, stderr io.Writer) error {
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
	doc, findings := lintData(data)
	if doc != nil && refs != nil {
		findings = sortFindings(append(findings, crossCheck(doc, refs)...))
	}
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

// crossCheck runs refs and CrossCheck; a catalogue that cannot be built from the document is
// itself a finding, since the harness could not run against this spec.
func crossCheck(doc *openapi3.T, refs RefsFunc) []Finding {
	list, err := refs(doc)
	if err != nil {
		return []Finding{{Rule: RuleRefOperation, Severity: Error, Pointer: "#",
			Message: oneLine("the conformance rules cannot be built from this spec: " + err.Error())}}
	}
	return CrossCheck(doc, list)
}
