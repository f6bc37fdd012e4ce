package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// The one flag parser of both commands: flags are written --name in help and in errors, as
// the README writes them (Go's flag package writes -name), and may stand before or after the
// positional arguments.

// Parse parses args into fs and returns the positional arguments, which may come before,
// between or after the flags (`check-har FILE.har --spec x.yaml`); everything after "--" is
// positional. fs prints nothing: the error is flag.ErrHelp for -h or --help, and otherwise
// one line that names the flag as --name.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errors.New(doubleDash(err.Error()))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// singleDash matches a flag written -name in the flag package's errors; a one-letter
// shorthand (-H) keeps its one dash.
var singleDash = regexp.MustCompile(`(^|[\s:])-([a-z][a-z0-9-]+)`)

func doubleDash(msg string) string { return singleDash.ReplaceAllString(msg, "$1--$2") }

// shortUsage is the usage of a shorthand that Shorthand declares; PrintFlags lists the
// shorthand beside its long flag instead of on a line of its own.
const shortUsage = "short for --"

// Shorthand declares -short as another name of the flag --long, already declared in fs.
func Shorthand(fs *flag.FlagSet, short, long string) {
	fs.Var(fs.Lookup(long).Value, short, shortUsage+long)
}

// PrintFlags writes every flag of fs, in name order, as the README writes them:
//
//	--timeout duration
//	    per-request timeout (default 10s)
//
// with a shorthand beside its long flag (-H, --header 'Name: value'). A default that is
// the zero value (empty, 0, false) is not shown.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	shorts := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, shortUsage); ok {
			shorts[long] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, shortUsage) {
			return
		}
		name, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if short, ok := shorts[f.Name]; ok {
			line = "  -" + short + ", --" + f.Name
		}
		if name != "" {
			line += " " + name
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" {
			text += " (default " + d + ")"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, text)
	})
}
