# Everything a user or CI runs. `make test` is what .ci/run calls.
GO        ?= go
NPM_DIR   := .tools/npm
NPM_BIN   := $(NPM_DIR)/node_modules/.bin
SPECTRAL  := @stoplight/spectral-cli@6.16.3
REDOCLY   := @redocly/cli@2.77.0
PRISM_DIR := .tools/prism
PRISM_BIN := $(PRISM_DIR)/node_modules/.bin/prism
PRISM     := @stoplight/prism-cli@5.14.2
BENCHFLAGS ?=

.PHONY: all build test run conformance lint vet fmt bench clean docs spec-lint spec-diff spec-check fuzz mutants explore-mutants e2e screenshot golden load load-peers load-memory zoo zoo-docs

all: build

build:
	$(GO) build -buildvcs=auto -o bin/ ./cmd/...

# -p 4: four test binaries at once on any machine; several packages spend part of their time
# waiting (a lagging server, a timeout to provoke), which another package's tests fill.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -p 4 ./...

run:
	$(GO) run ./cmd/petstore serve --seed testdata/pets.json

# The project's main job: the whole catalogue against the in-process reference server.
conformance:
	$(GO) run ./cmd/conformance run

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

# Spectral (spectral:oas) and Redocly (recommended), warnings included. Needs npm; make test does not.
$(NPM_BIN)/spectral $(NPM_BIN)/redocly:
	mkdir -p $(NPM_DIR)
	cd $(NPM_DIR) && ([ -f package.json ] || npm init -y >/dev/null)
	cd $(NPM_DIR) && npm install --no-audit --no-fund $(SPECTRAL) $(REDOCLY)

lint: $(NPM_BIN)/spectral $(NPM_BIN)/redocly
	$(NPM_BIN)/spectral lint --fail-severity=hint spec/openapi.yaml
	@# Redocly exits 0 on warnings; we want none, so its summary must be the clean one.
	$(NPM_BIN)/redocly lint spec/openapi.yaml 2>&1 | tee out-redocly.log | grep -q 'Your API description is valid' && ! grep -qE '[0-9]+ warnings?\b' out-redocly.log; rc=$$?; cat out-redocly.log | grep -v '║\|╔\|╚'; rm -f out-redocly.log; exit $$rc

# docs/rules.md is generated from the catalogue; a test fails when it is stale.
docs:
	mkdir -p docs
	$(GO) run ./cmd/conformance list --format markdown > docs/rules.md

# Spec authors: lint, what changed since the last release, and the catalogue against the
# reference server built from the working spec. The base is SPEC_BASE when given, else the
# newest tag, else the merge base with the default branch (origin's, fetched when missing, or
# a local main); with none, spec-diff fails and says to give SPEC_BASE (scripts/spec-base.sh).
SPEC      := spec/openapi.yaml
SPEC_BASE ?=

spec-lint: build
	bin/conformance lint $(SPEC)

# DIFF_FLAGS=--allow-breaking reports without failing.
spec-diff: build
	@base=$$(SPEC_BASE='$(SPEC_BASE)' sh scripts/spec-base.sh) && git show "$$base:$(SPEC)" > bin/spec-base.yaml
	bin/conformance diff bin/spec-base.yaml $(SPEC) $(DIFF_FLAGS)

spec-check: spec-lint spec-diff
	bin/conformance run --spec $(SPEC)

# The HTML report opened in headless Chromium (installs Debian's chromium when missing).
e2e:
	@command -v chromium >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); $$SUDO apt-get update && $$SUDO apt-get install -y chromium; }
	$(GO) test -count=1 ./e2e

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

# The independent implementations in zoo/ (echo, ogen, Koa, Hono): installs each (npm, Go
# modules), runs the harness plain, --strict and explore against it, prints a row each and
# fails when a verdict recorded in zoo/verdicts.json changes. An install that fails is
# reported and skipped. ZOOFLAGS=-update records new failures as unjudged.
zoo:
	$(GO) run ./zoo/cmd/zoo $(ZOOFLAGS)

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

# RSS growth per animal from 100 to 1,000,000 animals created through POST, and list latency.
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
	rm -rf bin out
