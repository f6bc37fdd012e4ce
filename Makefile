# Everything a user or CI runs. `make test` is what .ci/run calls.
GO        ?= go
NPM_DIR   := .tools/npm
NPM_BIN   := $(NPM_DIR)/node_modules/.bin
SPECTRAL  := @stoplight/spectral-cli@6.16.3
REDOCLY   := @redocly/cli@2.77.0
PRISM_DIR := .tools/prism
PRISM_BIN := $(PRISM_DIR)/node_modules/.bin/prism
PRISM     := @stoplight/prism-cli@5.14.2
# The Pact Foundation's tools (docs/pact.md): pact-cli's platform package carries the Rust
# pact_verifier binary itself, so nothing is downloaded beyond npm.
PACT_DIR      := .tools/pact
PACT_CLI      := @pact-foundation/pact-cli@18.1.2
PACT_VERIFIER := $(PACT_DIR)/node_modules/.bin/pact-verifier
PACT_JS_DIR   := .tools/pact-js
BENCHFLAGS ?=

.PHONY: all build dist image test test-race test-catalogues test-busy run conformance lint vet fmt bench clean docs spec-lint spec-diff spec-check spec-edits sarif-check fuzz mutants explore-mutants e2e screenshot golden load load-peers load-memory zoo zoo-docs pact-verify pact-js

all: build

# -trimpath: the binaries do not depend on where the checkout lies (a fresh clone builds from
# the build cache, as the CI templates' test does).
build:
	$(GO) build -trimpath -buildvcs=auto -o bin/ ./cmd/...

# Release archives (docs/release.md): static binaries (CGO_ENABLED=0) of both commands for
# linux, darwin and windows on amd64 and arm64, stamped with the version (the tag of HEAD, else
# its short commit, -dirty when tracked files changed; DIST_VERSION=... to choose), one tar.gz
# (zip for windows) per platform and SHA256SUMS, into dist/. It then unpacks the archive of this
# machine's platform and checks that both commands print that version.
DIST_VERSION ?=
dist:
	GO=$(GO) $(GO) run ./internal/cmd/release dist -out dist $(if $(DIST_VERSION),-version $(DIST_VERSION))

# The container image (docs/container.md), built without a Docker engine: both commands for
# linux/amd64 and linux/arm64 on an empty base, run as uid 65532, with this machine's CA
# certificates; an OCI image layout in dist/image-layout and docker-load tarballs in dist/.
image:
	GO=$(GO) $(GO) run ./internal/cmd/release image -out dist $(if $(DIST_VERSION),-version $(DIST_VERSION))

# -p 4: four test binaries at once on any machine; several packages spend part of their time
# waiting (a lagging server, a timeout to provoke), which another package's tests fill.
# -timeout 20m bounds a hang; the mutant catalogue's package alone takes minutes under -race,
# and a busy machine had pushed it past go test's default of 10 minutes.
# The mutant catalogues run without -race. Each is some two hundred whole conformance runs
# (a mutant each, then the ablation), whose concurrency the race-checked packages exercise
# already (conformance's worker and determinism tests, the reference's own), and -race makes
# them ten times slower: five of the suite's minutes on 2 cores. Their -parallel is above the
# cores because the mutants that hang or trickle their answers wait most of their time.
# Everything else runs with -race; GORACE's exit pause (1 s per test binary, for races in
# goroutines left running after the last test) is skipped.
# The two halves run side by side.
# The release tool (internal/cmd/release) runs without -race too: it starts no goroutines, and
# gzip and SHA-256 over the tens of megabytes of an archive take 20 s under -race, 2 s without.
# The command's tests (./cmd/conformance) run without -race too: they drive the command (its
# flags, files, exit codes, the clones it builds) over the runner, whose concurrency the
# conformance package's tests check under -race; with -race they were the second longest
# package of the suite. So do the case generator's own tests (./conformance/cases: what it
# generates and how a case is judged; its families run under -race in every whole run of the
# conformance package) and the latency bench's (a measuring tool, not the harness).
# WHOLE_RUNS are tests of ./conformance that are whole runs about what a run concludes, not
# about how its goroutines meet (the varied reference's ten seeds, the faulty servers, the
# reports written from a run): they
# run in the other half too (TestMakefile holds each name to one test of the package); its
# worker, determinism, connection and interruption tests, and a whole run of the reference
# (TestWorkersDoNotChangeTheReport), stay under -race.
# -trimpath everywhere: vet, the half without -race and the tests that build the commands in
# clones of their own (as make build does) share one compile of the module, and the race half
# another, whatever directory the checkout lies in: a fresh clone on a machine that has built
# the module before compiles nothing again (38 s of a fresh clone's make test before).
CATALOGUES = ./conformance/mutants/... ./conformance/explore/seqmutants/...
NORACE     = $(CATALOGUES) ./internal/cmd/release/... ./cmd/conformance/... ./conformance/cases/... ./bench/latency/...
WHOLE_RUNS = TestVariedReferenceIsConformingForSeeds1To10|TestFaultyServers|TestDominantCauseLeads|TestRunTouchesOnlyWhatItCreated|TestReferencePassesAll|TestStabilityMarking|TestKeyOutsideTheHeaderOnce|TestWriteText|TestWriteHTML|TestHTMLNamesTheLevels|TestWritersNeverShowTheKey|TestWriteJUnit|TestDetailsSayEachFailureOnce|TestWritersShowHostileBytes|TestWriteJSON|TestReferenceAndRulesFollowTheSpec|TestReferenceRunCoversTheSpec|TestTwoAuthorizationFieldsAreShould|TestMaxCreates
test:
	$(GO) vet -trimpath ./...
	$(MAKE) --no-print-directory -j2 test-race test-catalogues

test-race:
	GORACE=atexit_sleep_ms=0 $(GO) test -race -trimpath -count=1 -p 4 -timeout 20m -skip '^($(WHOLE_RUNS))$$' $$($(GO) list ./... | grep -v -e /conformance/mutants -e /conformance/explore/seqmutants -e /internal/cmd/release -e /cmd/conformance -e /conformance/cases -e /bench/latency)

test-catalogues:
	$(GO) test -trimpath -count=1 -parallel 8 -timeout 20m $(NORACE)
	$(GO) test -trimpath -count=1 -timeout 20m -run '^($(WHOLE_RUNS))$$' ./conformance

# make test beside BUSY processes that spin on the CPUs (default: twice the cores): a test that
# depends on the machine's speed fails here. Run it a few times before calling a test steady.
BUSY ?= $(shell echo $$(( $$(nproc) * 2 )))
test-busy:
	sh scripts/busy.sh $(BUSY) $(MAKE) --no-print-directory test

# ADDR=127.0.0.1:9090 make run, or ADDR=0.0.0.0:8080 to take connections from other machines.
ADDR ?= 127.0.0.1:8080
run:
	$(GO) run ./cmd/petstore serve --addr $(ADDR) --seed testdata/pets.json

# The project's main job: the whole catalogue against the in-process reference server.
conformance:
	$(GO) run ./cmd/conformance run

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

# Spectral (spectral:oas) and Redocly (recommended), warnings included, on $(SPEC) (make lint
# SPEC=copy.yaml lints the copy). Needs npm; make test does not.
$(NPM_BIN)/spectral $(NPM_BIN)/redocly:
	mkdir -p $(NPM_DIR)
	cd $(NPM_DIR) && ([ -f package.json ] || npm init -y >/dev/null)
	cd $(NPM_DIR) && npm install --no-audit --no-fund $(SPECTRAL) $(REDOCLY)

lint: $(NPM_BIN)/spectral $(NPM_BIN)/redocly
	$(NPM_BIN)/spectral lint --fail-severity=hint $(SPEC)
	@# Redocly exits 0 on warnings; we want none, so its summary must be the clean one.
	$(NPM_BIN)/redocly lint $(SPEC) 2>&1 | tee out-redocly.log | grep -q 'Your API description is valid' && ! grep -qE '[0-9]+ warnings?\b' out-redocly.log; rc=$$?; cat out-redocly.log | grep -v '║\|╔\|╚'; rm -f out-redocly.log; exit $$rc

# docs/rules.md is generated from the catalogue; a test fails when it is stale.
docs:
	mkdir -p docs
	$(GO) run ./cmd/conformance list --format markdown > docs/rules.md

# Spec authors: lint (with the departures from the interface document), what changed since
# the last release, and the catalogue against the reference server built from the working
# spec. spec-check runs all three every time, reports each, and fails at the end if any
# failed. The base is SPEC_BASE when given, else the newest tag, else the merge base with the
# default branch (origin's, fetched when missing, or a local main); with none, the diff fails
# and says to give SPEC_BASE (scripts/spec-base.sh). To accept on purpose:
# LINT_FLAGS=--allow-departures (a departure from the document), DIFF_FLAGS=--allow-breaking
# (a breaking change); docs/spec-authors.md says when.
SPEC       := spec/openapi.yaml
SPEC_BASE  ?=
LINT_FLAGS ?=
DIFF_FLAGS ?=
RUN_FLAGS  ?=

SPEC_LINT = bin/conformance lint $(SPEC) $(LINT_FLAGS)
SPEC_DIFF = base=$$(SPEC_BASE='$(SPEC_BASE)' sh scripts/spec-base.sh) && git show "$$base:spec/openapi.yaml" > bin/spec-base.yaml && \
	bin/conformance diff bin/spec-base.yaml $(SPEC) $(DIFF_FLAGS)
SPEC_RUN  = bin/conformance run --spec $(SPEC) $(RUN_FLAGS)

spec-lint: build
	$(SPEC_LINT)

spec-diff: build
	@$(SPEC_DIFF)

spec-check:
	@echo "spec-check: rebuilding bin/ from the working tree (make build), uncommitted changes included"
	@$(MAKE) --no-print-directory build
	@failed=; passed=; \
	echo "spec-check: lint $(SPEC)"; \
	if $(SPEC_LINT); then passed="$$passed lint"; else failed="$$failed lint"; fi; \
	echo; echo "spec-check: diff against the base"; \
	if $(SPEC_DIFF); then passed="$$passed diff"; else failed="$$failed diff"; fi; \
	echo; echo "spec-check: the catalogue against the reference server"; \
	if $(SPEC_RUN); then passed="$$passed catalogue"; else failed="$$failed catalogue"; fi; \
	echo; \
	if [ -n "$$failed" ]; then \
		echo "spec-check: FAILED:$$failed (passed:$${passed:- none}); docs/spec-authors.md says how to accept a change on purpose"; exit 1; \
	fi; \
	echo "spec-check: lint, diff and catalogue passed"

# Five edits a spec author makes (limit maximum 50, a new status, status required, a new
# query parameter, a new DELETE), each applied to a copy of the checkout: the tests that fail
# after each (docs/spec-authors.md). The whole suite once per edit; not part of make test.
spec-edits:
	sh scripts/spec-edits.sh $(SPEC_EDITS)

# SARIF output of lint checked against the official SARIF 2.1.0 schema (OASIS), kept in
# testdata/schemas (no download); make test runs the same tests.
sarif-check:
	$(GO) test -count=1 -run SARIF -v ./conformance/lint ./cmd/conformance

# The HTML report of a failing run in headless Chromium, driven with chromedp: the verdict,
# the counts, a failing rule opened to its exchanges and curl line (installs Debian's
# chromium when missing, and fails when it cannot). make test runs it too where Chromium is
# installed; with CI=true (.ci/run) a missing Chromium fails it instead of skipping it.
e2e:
	@command -v chromium >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); $$SUDO apt-get update && $$SUDO apt-get install -y chromium; }
	CI=true $(GO) test -count=1 -v ./e2e

# Refresh docs/images/report.png from the end-to-end check.
screenshot:
	$(GO) test -count=1 ./e2e -run TestHTMLReportInChromium -args -screenshot=$(CURDIR)/docs/images/report.png

# Regenerate the golden reports after an intended change (review the diff).
golden:
	$(GO) test ./conformance -run TestGoldenReports -update

# Every faulty server of conformance/mutants against the suite: the table and the score; exits 1
# if a mutant survives.
mutants:
	$(GO) run ./conformance/mutants/cmd/mutants

# conformance explore against every sequence mutant of conformance/explore/seqmutants on 20 seeds: budget,
# found N/20, median time to find, median shrunk length; exits 1 if one is found on fewer than
# 19. EXPLOREFLAGS=-allowed runs the servers that make the open choices otherwise instead.
explore-mutants:
	$(GO) run ./conformance/explore/seqmutants/cmd/explore-mutants $(EXPLOREFLAGS)

# The independent implementations in zoo/ (echo, ogen, Koa, Hono, hapi, Django REST
# framework): installs each (Go modules, npm, Debian's apt for Django), runs the harness plain, --strict and explore against it, prints a row each and
# fails when a verdict recorded in zoo/verdicts.json changes. An implementation that cannot be
# installed, started or judged fails it too (exit 2, named with the reason), unless
# zoo/verdicts.json holds a dated "unavailable" entry for it, which is printed.
# ZOOFLAGS=-update records new failures as unjudged.
zoo:
	$(GO) run ./zoo/cmd/zoo $(ZOOFLAGS)

# The Pact Foundation's verifier verifies a pact the reference wrote (and the pact-js
# fixture) against the reference. Needs npm; make test does not.
$(PACT_VERIFIER):
	mkdir -p $(PACT_DIR)
	cd $(PACT_DIR) && ([ -f package.json ] || npm init -y >/dev/null)
	cd $(PACT_DIR) && npm install --no-audit --no-fund $(PACT_CLI)

pact-verify: build $(PACT_VERIFIER)
	sh scripts/pact-verify.sh bin/petstore $(PACT_VERIFIER)

# testdata/pact/pact-js-*.json (specification v4, v3 and v2), written by the Pact Foundation's
# JS library (@pact-foundation/pact, pinned in scripts/pact-js/package.json) from the consumer
# test in scripts/pact-js/consumer.mjs. Needs npm; the fixtures are committed, and Go tests
# read and verify them.
pact-js:
	mkdir -p $(PACT_JS_DIR)/out
	cp scripts/pact-js/package.json scripts/pact-js/consumer.mjs $(PACT_JS_DIR)/
	cd $(PACT_JS_DIR) && npm install --no-audit --no-fund
	rm -f $(PACT_JS_DIR)/out/*.json
	cd $(PACT_JS_DIR) && PACT_DO_NOT_TRACK=true node consumer.mjs out
	cp $(PACT_JS_DIR)/out/pact-js-*.json testdata/pact/

# docs/zoo.md from zoo/verdicts.json (a test fails when it is stale).
zoo-docs:
	$(GO) run ./zoo/cmd/zoo -docs docs/zoo.md

FUZZTIME ?= 30s

# Each fuzz target for FUZZTIME (go test fuzzes one target per run); make test runs only
# their seed corpora (testdata/fuzz/FuzzXxx).
fuzz:
	@set -e; for dir in $$(git grep -l '^func Fuzz' -- '*_test.go' | xargs -n1 dirname | sort -u); do \
	  for fn in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$dir/*_test.go); do \
	    echo "== $$dir $$fn for $(FUZZTIME)"; \
	    $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) ./$$dir; \
	  done; \
	done

# Go benchmarks of the hot paths, benchstat-readable: make bench BENCHFLAGS=-count=6 > new.txt
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(BENCHFLAGS) ./...

# Loopback load: petstore serve (validated, --no-validation) and a baseline handler, side by side,
# the server on 1 and then 2 cores of its own (taskset) and the load generator on the others.
load:
	$(GO) run ./bench/load/cmd/load $(LOADFLAGS)

$(PRISM_BIN):
	mkdir -p $(PRISM_DIR)
	cd $(PRISM_DIR) && ([ -f package.json ] || npm init -y >/dev/null)
	cd $(PRISM_DIR) && npm install --no-audit --no-fund $(PRISM)

# The same plus Stoplight Prism's mock (installed with npm into .tools/prism).
load-peers:
	@$(MAKE) --no-print-directory $(PRISM_BIN) || echo "load-peers: npm could not install $(PRISM) (see above); Prism is reported as not measured"
	$(GO) run ./bench/load/cmd/load -peers $(LOADFLAGS)

# Resident memory per animal of a server seeded from a file with 1,000,000 animals over one
# seeded with 100, both read after serving the lists, and the list latency on each (issue 28).
# LOADFLAGS=-memory-post creates the animals through POST /v1/pets instead.
load-memory:
	$(GO) run ./bench/load/cmd/load -memory -duration 2s $(LOADFLAGS)

# The default catalogue, generated cases included, against the in-process reference through a
# proxy that waits 0, 25 and 100 ms each way: wall time, requests, the most in flight and the
# verdict, a row each. LATENCYFLAGS='-delays 25ms -fuzz 50' changes them.
# conformance explore against the in-process reference, this working tree's beside the one
# built at BENCH_REV (default 85636d4, before issue 28's work), run in turn for the same
# duration, seed and workers: requests/s and CPU time per request of each, and the ratios.
# BENCHEXPLOREFLAGS='-duration 20s -rounds 5' changes them.
BENCH_REV ?= 85636d4
.PHONY: bench-explore
bench-explore:
	$(GO) run ./bench/explore/cmd/bench-explore -rev $(BENCH_REV) $(BENCHEXPLOREFLAGS)

.PHONY: latency
latency:
	$(GO) run ./bench/latency/cmd/latency $(LATENCYFLAGS)

clean:
	rm -rf bin out dist
