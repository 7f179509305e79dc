# convo's everyday commands. `make install`, `make demo` and `make test` work
# on a fresh machine with Go and git installed; modules come from the Go
# module proxy.
GO       ?= go
BIN      ?= bin/convo
DEMO_DB  ?= $(CURDIR)/bin/demo.db
FUZZTIME ?= 30s
# make install puts convo in PREFIX/bin, its man pages in
# PREFIX/share/man/man1 and its completions under PREFIX/share.
PREFIX   ?= $(HOME)/.local
# make man writes the pages here.
MANDIR   ?= man/man1

# convo --version prints these (cmd/version.go).
# Each is computed once per make (:=), so the binary and its man pages agree.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
DATE     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
VERSION  := $(VERSION)
COMMIT   := $(COMMIT)
DATE     := $(DATE)
LDFLAGS  := -X github.com/convo-cli/convo/cmd.version=$(VERSION) \
            -X github.com/convo-cli/convo/cmd.commit=$(COMMIT) \
            -X github.com/convo-cli/convo/cmd.date=$(DATE)
# The binary is remade when a source changes (embedded files included: SQL
# migrations, schemas), not on every make: the build date would otherwise
# relink it each time (5 s).
SOURCES  := main.go go.mod go.sum $(shell find cmd pkg schemas internal -type f -not -name '*_test.go' -not -path '*/testdata/*' 2>/dev/null)

.PHONY: build install uninstall man test test-short bench tokens fuzz demo eval clean release-check release-snapshot

# Release archives (.goreleaser.yaml), by goreleaser run through go run at a
# pinned version, not a go.mod dependency. v2.16.0 is the newest that builds
# with Go 1.26 (later ones need 1.27). The first run compiles it (about four
# minutes); later ones start in a second or two.
GORELEASER_VERSION ?= v2.16.0
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

build: $(BIN)

$(BIN): $(SOURCES)
	@echo "building $(BIN) (the first build takes a few minutes: it compiles every module)"
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# convo on PATH (when PREFIX/bin is), with its man pages and completions for
# bash, zsh and fish where each shell looks under PREFIX/share.
install: $(BIN)
	install -d $(PREFIX)/bin $(PREFIX)/share/bash-completion/completions \
		$(PREFIX)/share/zsh/site-functions $(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BIN) $(PREFIX)/bin/convo
	$(BIN) completion bash > $(PREFIX)/share/bash-completion/completions/convo
	$(BIN) completion zsh > $(PREFIX)/share/zsh/site-functions/_convo
	$(BIN) completion fish > $(PREFIX)/share/fish/vendor_completions.d/convo.fish
	@$(MAKE) --no-print-directory man MANDIR=$(PREFIX)/share/man/man1 VERSION='$(VERSION)' COMMIT='$(COMMIT)' DATE='$(DATE)'
	@echo "installed $(PREFIX)/bin/convo, its man pages and completions"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on PATH";; esac

uninstall:
	rm -f $(PREFIX)/bin/convo $(PREFIX)/share/man/man1/convo.1 $(PREFIX)/share/man/man1/convo-*.1 \
		$(PREFIX)/share/bash-completion/completions/convo $(PREFIX)/share/zsh/site-functions/_convo \
		$(PREFIX)/share/fish/vendor_completions.d/convo.fish

# One man page per command, written by cmd/genman (a program of its own, so
# that convo does not link cobra's doc generator).
man:
	$(GO) run -ldflags '$(LDFLAGS)' ./cmd/genman -dir $(MANDIR)
	@echo "man pages in $(MANDIR)"

# The whole suite, as CI runs it: the heavy process and property tests in
# full without the race detector (it slows modernc.org/sqlite some
# twentyfold), then everything under the race detector with those cut short
# (the root package's testscripts take about 16 minutes there on 2 cores).
# The store suite runs on SQLite, and on PostgreSQL too when
# CONVO_TEST_POSTGRES names a server (.ci/run starts one; see docs/development.md).
# Last, every fuzz target for TEST_FUZZTIME, so a parser that panics on new
# input fails here too.
TEST_FUZZTIME ?= 5s
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m -run 'Concurrent|Kill|ExportProperty|Long|MakeInstall' .
	$(GO) test -count=1 -timeout 20m -run 'Conformance/(Concurrent|ExportProperty)' ./pkg/store/...
	$(GO) test -race -short -count=1 -timeout 45m ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME)

test-short:
	$(GO) test -short ./...

# Micro-benchmarks, then the end-to-end comparisons (bench/run.sh prints ratios).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bash bench/run.sh $(BIN)

# pkg/tokens's vocabulary tables (pkg/tokens/tables/*.bpe), written again
# from tiktoken-go in go.mod: after upgrading it (TestTablesMatchCodec fails
# until they are).
tokens:
	$(GO) generate ./pkg/tokens

# Every fuzz target, FUZZTIME each (.ci/fuzz.sh says how it copes with Go
# 1.26's fuzz-deadline race).
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) bash .ci/fuzz.sh

# What summarizing saves and keeps, domain by domain (LoCoMo, generated
# support chats, generated coding-agent sessions), beside a plain recent
# window of the same size, with the ratio chosen leave-one-domain-out
# (docs/summarize.md). LoCoMo is not in the repository: EVAL_DATA=PATH
# names data/locomo10.zip of github.com/snap-research/locomo, and
# ../shared/eval/locomo10.zip is read when it exists; the generated
# domains need no download.
EVAL_DATA ?=
eval:
	EVAL_DATA='$(EVAL_DATA)' $(GO) run ./eval/summaries

# A short conversation through the main commands, on embedded defaults:
# no API key, no network.
demo: build
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	@bash bench/demo.sh $(BIN) $(DEMO_DB)

# The six archives (linux, darwin, windows; amd64, arm64) with man pages and
# completions, checksums and the Homebrew cask, into dist/: nothing is
# published, and no tag is needed.
release-snapshot:
	$(GORELEASER) release --snapshot --clean --skip=publish

# Is .goreleaser.yaml valid? .ci/run runs this before make test.
release-check:
	$(GORELEASER) check

clean:
	rm -rf bin man dist
