// Package conformance checks that an HTTP service implements the pet store interface. It is
// the harness's public surface and its runner: Run and RunT take a Target and Options,
// prepare the animals the rules need, run the catalogue (conformance/rules) and its
// generated cases (conformance/cases) through one session (conformance/exchange), and
// return a Report (conformance/report), whose types and writers are re-exported here.
package conformance
