# stopgate: `make test` installs what the tests need on a fresh machine and runs every check.

GO ?= go
BIN := $(CURDIR)/bin
STATICCHECK_VERSION := v0.8.2
export PATH := $(BIN):$(PATH)

.PHONY: all build test deps vet lint fmt-check unit bench run load dist

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
deps:
	$(GO) mod download
	@test -x $(BIN)/staticcheck || GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	scripts/install-harnesses.sh
	scripts/install-browser.sh

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
unit:
	STOPGATE_TEST_POSTGRES="$$(scripts/postgres.sh)" $(GO) test -race -count=1 ./...

## run: the main job: stopgate serve on the embedded SQLite store, with the sample sessions
## recorded into it first (idempotent), so the dashboard has something to show.
run: build
	$(BIN)/stopgate audit --record ../shared/data/transcripts > /dev/null
	$(BIN)/stopgate serve

## load: the service under load on loopback (every decision persisted and counted afterwards),
## three rounds of a run without recording and one with, back to back, and their ratio.
## PostgreSQL: go run ./loadtest -bin bin/stopgate -postgres "$$(scripts/postgres.sh)" -compare 3
load: build
	$(GO) run ./loadtest -bin $(BIN)/stopgate -n 20000 -c 32 -compare 3

## bench: every benchmark once, for a quick look; use benchstat to compare runs.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
