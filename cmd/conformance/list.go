package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/cases"
	"github.com/petstore/petstore/conformance/rules"
	"github.com/petstore/petstore/internal/cli"
)

// listFormats write the catalogue: a table for a person, Markdown for docs/rules.md, JSON
// for tools.
var listFormats = map[string]func(io.Writer, []conformance.Rule) error{
	"text":     listText,
	"markdown": listMarkdown,
	"json":     listJSON,
}

func listCommand(_ context.Context, e env, args []string) error {
	var format, specFile string
	var only, skip globList
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.Var(&only, "only", "list only rules whose ID matches this `glob` or prefix (repeatable, comma-separated)")
	fs.Var(&skip, "skip", "leave out rules whose ID matches this `glob` or prefix (repeatable, comma-separated)")
	fs.StringVar(&format, "format", "text", "`format`: text, markdown or json")
	fs.StringVar(&specFile, "spec", "", "OpenAPI description `FILE`; default the embedded spec/openapi.yaml")
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	write, ok := listFormats[format]
	if !ok {
		return cli.Usagef("conformance list: unknown --format %q (text, markdown, json)", format)
	}
	facts, err := loadFacts(e, "list", specFile)
	if err != nil {
		return err
	}
	selected, err := conformance.Select(rules.All(facts), only, skip)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	return write(e.stdout, selected)
}

func listText(w io.Writer, rules []conformance.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSECTION\tSEVERITY\tCOST\tTITLE")
	total, deep := 0, 0
	for _, r := range rules {
		c := cost(r)
		total, deep = total+c.requests, deep+c.deepRequests
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Section, r.Severity, c, r.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nthe generated cases send about %d requests by default, %d with --depth deep (a hand-written rule sends a few)\n", total, deep)
	return err
}

func listMarkdown(w io.Writer, rules []conformance.Rule) error {
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	var b strings.Builder
	b.WriteString("| ID | Section | Severity | Cost | Title |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, cell.Replace(r.Section), r.Severity, cost(r), cell.Replace(r.Title))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// familyCost is what a family of generated cases sends, by default and with --depth deep;
// the zero value is a hand-written rule's (a few requests).
type familyCost struct{ cases, requests, deepCases, deepRequests int }

func cost(r conformance.Rule) familyCost {
	if r.Cost == nil {
		return familyCost{}
	}
	var c familyCost
	c.cases, c.requests = r.Cost(cases.DepthDefault)
	c.deepCases, c.deepRequests = r.Cost(cases.DepthDeep)
	return c
}

func (c familyCost) String() string {
	if c.requests == 0 {
		return "-"
	}
	s := fmt.Sprintf("%d requests", c.requests)
	if c.deepRequests != c.requests {
		s += fmt.Sprintf(" (deep %d)", c.deepRequests)
	}
	return s
}

// listedRule is the JSON form of a rule in the catalogue.
type listedRule struct {
	ID        string               `json:"id"`
	Section   string               `json:"section"`
	Severity  conformance.Severity `json:"severity"`
	Title     string               `json:"title"`
	Operation string               `json:"operation,omitempty"`
	Creates   bool                 `json:"creates"`
	Needs     conformance.Needs    `json:"needs"`
}

func listJSON(w io.Writer, rules []conformance.Rule) error {
	out := make([]listedRule, len(rules))
	for i, r := range rules {
		out[i] = listedRule{r.ID, r.Section, r.Severity, r.Title, r.Op, r.Creates, r.Needs}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
