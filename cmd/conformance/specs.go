package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/internal/cli"
	"github.com/petstore/petstore/spec"
)

// The one spec loader of the commands that read a description as the harness does (run,
// list, proxy, check-har): --spec FILE, or the embedded spec/openapi.yaml for "". lint and
// diff read theirs their own way, since a broken description is what they report on.

// loadSpec reads the description; an unreadable or invalid one is exit 2. The embedded one
// comes with a warning on stderr when the checkout the command runs in has another
// spec/openapi.yaml (a binary built before the spec changed).
func loadSpec(e env, cmd, path string) (*openapi3.T, error) {
	load := spec.Load
	if path != "" {
		load = func() (*openapi3.T, error) { return spec.LoadFile(path) }
	} else {
		warnStale(e, cmd)
	}
	doc, err := load()
	if err != nil {
		return nil, specError(cmd, path, err)
	}
	return doc, nil
}

// loadFacts reads the description and its facts, once for the whole command: the catalogue
// and the runner are built from them (rules.All, conformance.Options.Facts).
func loadFacts(e env, cmd, path string) (*spec.Facts, error) {
	doc, err := loadSpec(e, cmd, path)
	if err != nil {
		return nil, err
	}
	facts, err := spec.ReadFacts(doc)
	if err != nil {
		return nil, specError(cmd, path, err)
	}
	return facts, nil
}

// warnStale writes spec.Stale's line for the working directory, if any, for a command about
// to use the embedded spec.
func warnStale(e env, cmd string) {
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	if w := spec.Stale(wd); w != "" {
		fmt.Fprintf(e.stderr, "conformance %s: %s\n", cmd, w)
	}
}

// specError is the one line of a description the command cannot use, with one prefix (the
// command's, not also the library's "conformance: ").
func specError(cmd, path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "conformance: ")
	if path != "" {
		return cli.Usagef("conformance %s: --spec: %s", cmd, msg)
	}
	return cli.Usagef("conformance %s: %s", cmd, msg)
}
