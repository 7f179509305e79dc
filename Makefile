# convo's everyday commands. `make demo` and `make test` work on a fresh machine
# with Go installed; modules come from the Go module proxy.
GO       ?= go
BIN      ?= bin/convo
DEMO_DB  ?= $(CURDIR)/bin/demo.db
FUZZTIME ?= 30s

.PHONY: build test test-short bench fuzz demo eval clean

build:
	$(GO) build -o $(BIN) .

# The whole suite, as CI runs it: the heavy process and property tests in
# full without the race detector (it slows modernc.org/sqlite some
# twentyfold), then everything under the race detector with those cut short.
# The store suite runs on SQLite, and on PostgreSQL too when
# CONVO_TEST_POSTGRES names a server (.ci/run starts one; see README).
# Last, every fuzz target for TEST_FUZZTIME, so a parser that panics on new
# input fails here too.
TEST_FUZZTIME ?= 5s
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m -run 'Concurrent|Kill|ExportProperty|Long' .
	$(GO) test -count=1 -timeout 20m -run 'Conformance/(Concurrent|ExportProperty)' ./pkg/store/...
	$(GO) test -race -short -count=1 -timeout 20m ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME)

test-short:
	$(GO) test -short ./...

# Micro-benchmarks, then the end-to-end comparisons (bench/run.sh prints ratios).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bash bench/run.sh $(BIN)

# Every fuzz target, FUZZTIME each.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "$$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# What summarizing saves and keeps on LoCoMo: the default budget, then a
# summary that grows with the conversation. The dataset is not in the
# repository: EVAL_DATA=PATH names data/locomo10.zip of
# github.com/snap-research/locomo (the README says how to fetch it).
EVAL_DATA ?= locomo10.zip
eval:
	$(GO) run ./eval/locomo -data $(EVAL_DATA)
	$(GO) run ./eval/locomo -data $(EVAL_DATA) -args "--max-summary-tokens 3000 --summary-ratio 0.115"

# A short conversation through the main commands, on embedded defaults:
# no API key, no network.
demo: build
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	@bash bench/demo.sh $(BIN) $(DEMO_DB)

clean:
	rm -rf bin
