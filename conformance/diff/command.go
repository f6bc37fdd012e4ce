package diff

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/cli"
)

// Command runs `conformance diff BASE HEAD [--allow-breaking] [--format text|json]`; args are
// the arguments after "diff", flags before or after the files. "-" reads a file from stdin,
// so `git show main:spec/openapi.yaml | conformance diff - spec/openapi.yaml` works. It prints
// every change with its classification and returns a cli.Failed error (exit 1) when one is
// breaking, unless --allow-breaking; a cli.Usagef error (exit 2) when the arguments are wrong
// or a file cannot be read or parsed.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return command(ctx, args, os.Stdin, stdout, stderr)
}

func command(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	allow := fs.Bool("allow-breaking", false, "report breaking changes but exit 0")
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conformance diff BASE HEAD [--allow-breaking] [--format text|json]")
		fmt.Fprintln(stderr, "Lists the changes from BASE to HEAD (OpenAPI files, - for stdin), each breaking or not.")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return cli.Usagef("diff: %v", err)
	}
	if len(files) != 2 {
		return cli.Usagef("diff: want BASE and HEAD, got %d files", len(files))
	}
	if files[0] == "-" && files[1] == "-" {
		return cli.Usagef("diff: only one of BASE and HEAD can be read from stdin")
	}
	if *format != "text" && *format != "json" {
		return cli.Usagef("diff: --format %q: want text or json", *format)
	}
	base, err := readSpec(files[0], stdin)
	if err != nil {
		return err
	}
	head, err := readSpec(files[1], stdin)
	if err != nil {
		return err
	}
	changes, err := Compare(base, head)
	if err != nil {
		return cli.Usagef("diff: %v", err)
	}
	if *format == "json" {
		err = writeJSON(stdout, files, changes)
	} else {
		err = writeText(stdout, changes)
	}
	if err != nil {
		return cli.Usagef("diff: %v", err)
	}
	if n := Breaking(changes); n > 0 && !*allow {
		return cli.Failed("diff: %d breaking changes (--allow-breaking to report without failing)", n)
	}
	return nil
}

// parseInterspersed parses flags wherever they appear among the positional arguments, which
// the flag package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func readSpec(name string, stdin io.Reader) (*openapi3.T, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, cli.Usagef("diff: %v", err)
	}
	d, err := Load(data)
	if err != nil {
		return nil, cli.Usagef("diff: %s: %v", name, err)
	}
	return d, nil
}
