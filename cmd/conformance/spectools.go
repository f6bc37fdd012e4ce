package main

import (
	"context"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/petstore/petstore/conformance"
	"github.com/petstore/petstore/conformance/diff"
	"github.com/petstore/petstore/conformance/lint"
	"github.com/petstore/petstore/conformance/proxy"
)

// The commands that live in other packages, adapted to this command's table.

// ruleRefs tells lint's cross-check which operation and documented status each rule of the
// catalogue built for doc relies on.
func ruleRefs(doc *openapi3.T) ([]lint.RuleRef, error) {
	rules, err := conformance.All(doc)
	if err != nil {
		return nil, err
	}
	refs := make([]lint.RuleRef, 0, len(rules))
	for _, r := range rules {
		if r.Op != "" {
			refs = append(refs, lint.RuleRef{Rule: r.ID, Operation: r.Op, Status: r.Expects})
		}
	}
	return refs, nil
}

var runLint = lint.NewCommand(ruleRefs)

func lintCommand(ctx context.Context, e env, args []string) error {
	return runLint(ctx, args, e.stdout, e.stderr)
}

func diffCommand(ctx context.Context, e env, args []string) error {
	return diff.Command(ctx, args, e.stdout, e.stderr)
}

func proxyCommand(ctx context.Context, e env, args []string) error {
	return proxy.Command(ctx, args, e.getenv, e.stdout, e.stderr)
}

func checkHARCommand(ctx context.Context, e env, args []string) error {
	return proxy.CheckHARCommand(ctx, args, e.stdout, e.stderr)
}
