# stopgate: `make test` installs what the tests need on a fresh machine and runs every check.

GO ?= go
BIN := $(CURDIR)/bin
STATICCHECK_VERSION := v0.8.2
export PATH := $(BIN):$(PATH)

.PHONY: all build test deps preflight vet lint fmt-check unit eval bench run load dist

all: build

VERSION := $(shell cat VERSION)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_TIME := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

build:
	$(GO) build -o $(BIN)/stopgate ./cmd/stopgate

## dist: the release archives (linux, darwin, windows × amd64, arm64; pure Go, CGO_ENABLED=0)
## and their SHA256SUMS in dist/, the version from VERSION and the commit in the binaries.
dist:
	rm -rf dist
	$(GO) run ./internal/cmd/dist -version $(VERSION) -commit $(COMMIT) -mtime $(COMMIT_TIME) -out dist

## deps: Go modules, the linters the checks use, and the real harness CLIs the end-to-end tests
## drive (pinned, from the npm registry, into .cache/harnesses).
deps: preflight
	$(GO) mod download
	@test -x $(BIN)/staticcheck || GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	scripts/install-harnesses.sh
	scripts/install-browser.sh

## preflight: what the tests need is here or can be installed here (root and apt-get for the
## Debian packages); otherwise say what is missing and stop before installing anything.
preflight:
	@scripts/preflight.sh

## test: everything CI checks: formatting, vet, staticcheck, the whole suite under the race detector.
test: deps fmt-check vet lint unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

lint:
	$(BIN)/staticcheck ./...

## unit: the whole suite; PostgreSQL is a real throwaway server on loopback that
## scripts/postgres.sh installs from Debian's packages and starts.
## The server is stopped when the tests end, unless it was running before.
unit:
	@if scripts/postgres.sh status; then was=1; else was=0; fi; \
	trap '[ "$$was" = 1 ] || scripts/postgres.sh stop' EXIT; \
	dsn="$$(scripts/postgres.sh)" || exit 1; \
	echo "STOPGATE_TEST_POSTGRES=$$dsn $(GO) test -race -count=1 ./..."; \
	STOPGATE_TEST_POSTGRES="$$dsn" $(GO) test -race -count=1 ./...

## eval: the tests that need the evaluation data set, which may not be copied into the
## repository: the stall detector's quality on all the labelled endings (its figures are
## printed), and the transcript, harness, audit and command tests on every real session. SHARED_DATA is the
## folder holding transcripts/ and endings/ (default ../shared/data, beside the repository).
SHARED_DATA ?= ../shared/data
eval:
	@test -d "$(SHARED_DATA)/transcripts" -a -d "$(SHARED_DATA)/endings" || { echo "make eval: no evaluation data set at $(SHARED_DATA) (want transcripts/ and endings/ there; set SHARED_DATA=DIR)"; exit 1; }
	@d="$$(cd "$(SHARED_DATA)" && pwd)"; \
	echo "STOPGATE_SHARED_DATA=$$d $(GO) test -count=1 ./harness/... ./audit/ ./stall/ ./cmd/stopgate/"; \
	STOPGATE_SHARED_DATA="$$d" $(GO) test -count=1 ./harness/... ./audit/ ./stall/ ./cmd/stopgate/ && \
	STOPGATE_SHARED_DATA="$$d" $(GO) test -count=1 -run '^TestQuality$$' -v ./stall/ | grep -v -e '^=== RUN' -e '^PASS' -e '^ok'

## run: the main job: stopgate serve on a demo event log of its own under .cache/demo (never
## your own log), with the bundled sessions recorded into it first (idempotent): the sample of
## real Claude Code sessions in testdata/transcripts, and the hand-written sessions in
## audit/testdata/handwritten (Claude Code, Codex, Gemini CLI), where stopgate blocks a stall,
## open todos, an unread failed background process, a loop, a cut-off answer, an API error.
## The demo ignores your configuration file (an empty one is used).
DEMO := $(CURDIR)/.cache/demo
DEMO_SESSIONS := testdata/transcripts audit/testdata/handwritten/claude-code audit/testdata/handwritten/codex audit/testdata/handwritten/gemini
ADDR ?= 127.0.0.1:7318
run: build
	@mkdir -p $(DEMO) && : > $(DEMO)/config.toml
	@$(BIN)/stopgate audit --config $(DEMO)/config.toml --record --store $(DEMO)/events.db $(DEMO_SESSIONS) > /dev/null
	@echo "make run: the dashboard of a demo event log, $(DEMO)/events.db, not yours: the bundled"
	@echo "make run: sample sessions (real ones in testdata/transcripts, hand-written ones in"
	@echo "make run: audit/testdata/handwritten) replayed through stopgate. Open http://$(ADDR)/?window=1y"
	@echo "make run: (the sessions are months old); Ctrl-C stops it."
	$(BIN)/stopgate serve --config $(DEMO)/config.toml --store $(DEMO)/events.db --addr $(ADDR)

## load: the service under load on loopback (every decision persisted and counted afterwards),
## three rounds of a run without recording and one with, back to back, and their ratio.
## PostgreSQL: go run ./loadtest -bin bin/stopgate -postgres "$$(scripts/postgres.sh)" -compare 3
load: build
	$(GO) run ./loadtest -bin $(BIN)/stopgate -n 20000 -c 32 -compare 3

## bench: every benchmark once, for a quick look; use benchstat to compare runs.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
