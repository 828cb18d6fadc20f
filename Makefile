# kafgo build and test entry points. `make run` starts one broker on the
# embedded metadata store; `make test` runs everything CI runs.
GO        ?= go
BIN       := bin/kafgo
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
# Two cores on the reference machine: keep package parallelism modest.
TESTFLAGS ?= -race -p 2 -timeout 30m
FUZZTIME  ?= 10000x

.PHONY: build install run test unit fuzz bench bench-compare bench-scale lint clean e2e-deps

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kafgo

# Puts kafgo on PATH: go install writes it to $(go env GOBIN), or, unset,
# $(go env GOPATH)/bin, which then has to be on PATH.
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/kafgo
	@dir=$$($(GO) env GOBIN); dir=$${dir:-$$($(GO) env GOPATH)/bin}; echo "installed $$dir/kafgo"; \
	  case ":$$PATH:" in *":$$dir:"*) ;; *) echo "$$dir is not on PATH: export PATH=\"$$dir:\$$PATH\"";; esac

run: build
	./$(BIN) broker serve --config examples/dev.yaml

test: build lint e2e-deps unit fuzz

# The kafkajs end-to-end test needs the pinned kafkajs (package-lock.json).
KAFKAJS := internal/e2e/testdata/kafkajs
e2e-deps:
	@test -d $(KAFKAJS)/node_modules/kafkajs || npm ci --prefix $(KAFKAJS) --no-audit --no-fund

# End-to-end tests run broker processes built with -race, so a data race in
# the broker fails the test that provoked it (testcluster scans the logs),
# and with the kafgo_faults tag: the protocol fault hooks tests drive over
# the admin endpoint (broker/api/faults.go), never in `make build`.
# KAFGO_E2E_REQUIRED=1: a test whose tool (ZooKeeper, kcat, tmux, node,
# python3-kafka, ...) is missing fails here; a plain `go test ./...` skips
# it and says why (internal/testing/needs).
unit:
	$(GO) build -race -tags kafgo_faults -ldflags "$(LDFLAGS)" -o bin/kafgo-race ./cmd/kafgo
	KAFGO_E2E_REQUIRED=1 KAFGO_BIN=$(CURDIR)/bin/kafgo-race $(GO) test -tags kafgo_faults $(TESTFLAGS) ./...

# Each fuzz target runs briefly; the seed corpora under testdata/fuzz also run in `unit`.
fuzz:
	@./scripts/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# kafgo against franz-go's in-memory kfake in one interleaved run, plus
# end-to-end latency and a 3-broker RF=3 run (issue 11); writes a Markdown
# report to bench-compare.md. COMPARE_ARGS passes more flags, e.g.
# COMPARE_ARGS='-compare.reps=5 -compare.cases=p6'.
COMPARE_ARGS ?=
bench-compare: build
	KAFGO_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 2h -run '^TestCompare$$' -v ./internal/perfbench/compare/ \
	  -args -compare.full -compare.out $(CURDIR)/bench-compare.md $(COMPARE_ARGS)

# Many clients at once (issue 23), kafgo and kfake interleaved: C = 500,
# 2,000 and 5,000 clients (half idempotent acks=all producers at 1 rec/s,
# half consumers in groups of 2.5), fetch.min.bytes 1 and 1 MiB; a probe
# producer's ack latency, errors, broker CPU and RSS per connection; writes
# bench-scale.md. SCALE_ARGS passes more flags, e.g. SCALE_ARGS='-scale.clients=500'.
SCALE_ARGS ?=
bench-scale: build
	KAFGO_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 3h -run '^TestScale$$' -v ./internal/perfbench/compare/ \
	  -args -scale.full -scale.out $(CURDIR)/bench-scale.md $(SCALE_ARGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files -o --exclude-standard '*.go' 2>/dev/null)); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff || { echo 'go.mod/go.sum are not tidy: run go mod tidy'; exit 1; }

clean:
	rm -rf bin data $(KAFKAJS)/node_modules
