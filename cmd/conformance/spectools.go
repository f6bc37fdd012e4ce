package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance/diff"
	"github.com/petstore/petstore/conformance/lint"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/internal/words"
	"github.com/petstore/petstore/spec"
)

// The tools for spec authors: lint and diff.

// lintCommand runs `conformance lint [FILE] [--allow-departures] [--format text|json|sarif]`:
// it lints FILE (the embedded spec/openapi.yaml when omitted) and prints one line per
// finding, FILE:LINE:COLUMN: SEVERITY RULE POINTER MESSAGE, or the findings as JSON or as a
// SARIF 2.1.0 log. A departure from the interface document is an error unless
// --allow-departures, which reports it as a warning. Exit 0 when no finding is an error
// (warnings are printed), 1 when one is, 2 when the arguments are wrong or the file cannot
// be read.
func lintCommand(_ context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	allow := fs.Bool("allow-departures", false, "report departures from the interface document as warnings, not errors")
	format := fs.String("format", "text", "output `format`: text, json or sarif")
	files, err := parseArgs(fs, args, e)
	if err != nil {
		return err
	}
	switch {
	case len(files) > 1:
		return cli.Usagef("conformance lint: want at most one FILE, got %d arguments", len(files))
	case *format != "text" && *format != "json" && *format != "sarif":
		return cli.Usagef("conformance lint: --format %q: want text, json or sarif", *format)
	}
	name, data := "spec/openapi.yaml", spec.Bytes()
	if len(files) == 0 {
		warnStale(e, "lint")
	} else {
		name = files[0]
		if data, err = os.ReadFile(name); err != nil {
			return cli.Usagef("conformance lint: %v", err)
		}
	}
	findings := lint.Check(data, ruleRefs)
	errs := 0
	for i, f := range findings {
		if *allow && f.Rule == lint.RuleDeparture {
			findings[i].Severity = lint.Warning
		}
		if findings[i].Severity == lint.Error {
			errs++
		}
	}
	switch *format {
	case "sarif":
		err = lint.WriteSARIF(e.stdout, filepath.ToSlash(name), findings)
	case "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			File     string         `json:"file"`
			Findings []lint.Finding `json:"findings"`
		}{name, findings})
	default:
		var b strings.Builder
		for _, f := range findings {
			fmt.Fprintf(&b, "%s:%s\n", name, f)
		}
		_, err = io.WriteString(e.stdout, b.String())
	}
	if err != nil {
		return cli.Usagef("conformance lint: %v", err)
	}
	if errs > 0 {
		return cli.Failed("conformance lint: %s, %s%s", words.Plural(errs, "error"), words.Plural(len(findings)-errs, "warning"), departureHint(findings, *allow))
	}
	return nil
}

// departureHint says how to accept departures from the document on purpose, when the
// errors include some.
func departureHint(findings []lint.Finding, allowed bool) string {
	for _, f := range findings {
		if f.Rule == lint.RuleDeparture && !allowed {
			return " (--allow-departures to accept departures from the interface document on purpose)"
		}
	}
	return ""
}

// ruleRefs tells lint's cross-check which operation and documented status each rule of the
// catalogue built for doc relies on.
func ruleRefs(doc *openapi3.T) ([]lint.RuleRef, error) {
	facts, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, err
	}
	var refs []lint.RuleRef
	for _, r := range rules.All(facts) {
		if r.Op != "" {
			refs = append(refs, lint.RuleRef{Rule: r.ID, Operation: r.Op, Status: r.Expects})
		}
	}
	return refs, nil
}

// diffCommand runs `conformance diff BASE HEAD [--allow-breaking] [--format text|json]`,
// flags before or after the files; "-" reads a file from stdin, so
// `git show main:spec/openapi.yaml | conformance diff - spec/openapi.yaml` works. It prints
// every change with whom it breaks (clients, providers: deployments conforming to BASE that
// fail HEAD's catalogue) and the rules and case families that change. Exit 1 when one
// breaks clients or providers, unless --allow-breaking; 2 when the arguments are wrong or a
// file cannot be read or parsed.
func diffCommand(_ context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	allow := fs.Bool("allow-breaking", false, "report breaking changes but exit 0")
	format := fs.String("format", "text", "output `format`: text or json")
	var pacts globList
	fs.Var(&pacts, "pact", "also name the interactions of these consumer contracts (Pact `FILE`s) the change breaks; exit 1 if one breaks (repeatable)")
	files, err := parseArgs(fs, args, e)
	if err != nil {
		return err
	}
	switch {
	case len(files) != 2:
		return cli.Usagef("conformance diff: want BASE and HEAD, got %s", words.Plural(len(files), "file"))
	case files[0] == "-" && files[1] == "-":
		return cli.Usagef("conformance diff: only one of BASE and HEAD can be read from stdin")
	case *format != "text" && *format != "json":
		return cli.Usagef("conformance diff: --format %q: want text or json", *format)
	}
	contracts, err := readPacts("diff", pacts)
	if err != nil {
		return err
	}
	var docs [2]*openapi3.T
	for i, name := range files {
		if docs[i], err = readDiffSpec(name, e.stdin); err != nil {
			return err
		}
	}
	changes, err := diff.Compare(docs[0], docs[1])
	if err != nil {
		return cli.Usagef("conformance diff: %s", strings.TrimPrefix(err.Error(), "diff: "))
	}
	consumers, err := consumerBreaks(docs[0], docs[1], contracts)
	if err != nil {
		return err
	}
	if *format == "json" {
		err = writeDiffJSON(e.stdout, files, changes, consumers)
	} else if err = diff.WriteText(e.stdout, changes); err == nil && consumers != nil {
		err = consumers.WriteText(e.stdout)
	}
	if err != nil {
		return cli.Usagef("conformance diff: %v", err)
	}
	if consumers != nil && len(consumers.Breaks) > 0 {
		// A consumer relies on it: --allow-breaking or not.
		return cli.Failed("conformance diff: the change breaks %s", words.Plural(len(consumers.Breaks), "consumer interaction"))
	}
	if n := diff.Breaks(changes); n > 0 && !*allow {
		return cli.Failed("conformance diff: %s (--allow-breaking to report without failing)", words.Plural(n, "breaking change"))
	}
	return nil
}

func readDiffSpec(name string, stdin io.Reader) (*openapi3.T, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, cli.Usagef("conformance diff: %v", err)
	}
	d, err := diff.Load(data)
	if err != nil {
		return nil, cli.Usagef("conformance diff: %s: %v", name, err)
	}
	return d, nil
}
