# podq: build, test, demo, bench. `make help` lists the targets.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= debug

.PHONY: help build release test test-deps demo bench bench-quick bench-deps docs format lint install install-files man clean fuzz fuzz-build deb dist commit-info order

# The version is set in one place, Sources/PodqBase/PodqVersion.swift; the packages take it here.
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/PodqBase/PodqVersion.swift)
# The commit a build from a clone says in `podq --version` (with -dirty for uncommitted changes).
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo -dirty)

help:
	@echo "make demo     open the TUI on the bundled demo podcast served from 127.0.0.1 (no internet needed)"
	@echo "make test     build and run every test (installs the sync tests' Python packages into .build first)"
	@echo "make build    debug build (.build/debug/podq)"
	@echo "make release  release build (.build/release/podq)"
	@echo "make order    re-record the order the release build links functions in (valgrind; see packaging/order/record)"
	@echo "make bench    podq vs curl, wget, aria2c (nginx) and podcastparser, feedparser; writes docs/PERFORMANCE.md (~15 min)"
	@echo "make bench-quick  the same on small files in under 2 minutes: checks every tool's files are identical"
	@echo "make install  install podq, its man page and bash/zsh/fish completions under \$$(PREFIX) (PREFIX=$(PREFIX))"
	@echo "make docs     rewrite the docs' generated sections (config keys, TUI keys, exit codes, feed limits) from the code"
	@echo "make man      regenerate docs/podq.1 from the commands (swift-argument-parser's manual plugin)"
	@echo "make fuzz     build the libFuzzer targets (Fuzz/) with sanitizers and run each for FUZZ_SECONDS (60)"
	@echo "make lint     check the sources against the style config (.swift-format); warnings are errors in every build"
	@echo "make deb      build podq_$(VERSION)_<arch>.deb from the release build (dpkg-deb; lintian checks it when installed)"
	@echo "make dist     build podq-$(VERSION)-linux-<arch>.tar.gz and its .sha256 for other distributions"

# Debug builds (make build, test, demo, docs, man, bench-quick) carry no debug information: DWARF took
# a third of a first build (371 s -> 265 s for podq on 2 cores), and nothing here reads it (lldb does not
# start on these machines; backtraces name functions from the symbol table). A plain `swift build`
# builds the same code with it, in the same .build/debug: switching between the two rebuilds it.
DEBUG_BUILD = $(SWIFT) build -debug-info-format none

build: commit-info
	$(DEBUG_BUILD)

# Sources/CPodqSystem/commit.h names the commit (git ignores it); rewritten only when it changes, so an
# unchanged tree rebuilds nothing.
commit-info:
	@if [ -n "$(COMMIT)" ] && [ "$(COMMIT)" != "-dirty" ]; then \
		line='#define PODQ_COMMIT "$(COMMIT)"'; \
		[ "$$(cat Sources/CPodqSystem/commit.h 2>/dev/null)" = "$$line" ] || echo "$$line" > Sources/CPodqSystem/commit.h; \
	fi

# Release builds link the Swift runtime and Foundation statically: one file to install, and a third of
# the memory (see docs/DECISIONS.md).
# One section per function, so that the link can put the functions a run touches together (the order
# and the linker script are the podq target's release linker settings in Package.swift). No debug
# information either (the installed binary was stripped of it anyway).
RELEASE = $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -Osize -debug-info-format none \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections

release: commit-info
	$(RELEASE) --product podq

# Records which functions podq's common commands run (valgrind) into packaging/order/podq.order, the
# order the release build links them in: the code a run touches then sits together (docs/PERFORMANCE.md,
# "Where one download's memory goes"). Run it after large changes; a stale list costs memory, not
# correctness.
order: release bench-deps
	@command -v valgrind >/dev/null || { echo "make order needs valgrind (apt install valgrind)"; exit 1; }
	bash packaging/order/record .build/release/podq packaging/order/podq.order
	rm -f .build/release/podq # SwiftPM does not see the list change: link again
	$(RELEASE) --product podq

# The Debian package (docs/INSTALL.md): the stripped release binary, the demo, the man page, the three
# completions and the docs, Depends from dpkg-shlibdeps, Recommends mpv; packaging/deb/build does it.
deb: release
	VERSION=$(VERSION) bash packaging/deb/build .build/release/podq .build/package

# A tarball of the same files for other distributions (glibc 2.36 or later), with its SHA-256.
dist: release
	VERSION=$(VERSION) bash packaging/dist/build .build/release/podq .build/package

# `make test` on a fresh machine: first the programs the tests drive (Tests/deps/tools says the apt line
# for what is missing), then the sync tests' server and client from PyPI into .build/test-python (pinned:
# Tests/deps/requirements.txt), then the build, then Tests/run: every test, one at a time (several drive
# throttled downloads and child processes on 2 cores), with HOME and the XDG folders pointed at
# .build/test-home, which must stay empty (a test that writes into "~" fails the run).
# Then the tests that download, resume, split, read feeds and fetch sidecars run again against servers
# that cut every response at random byte boundaries with random pauses (PODQ_TEST_SEGMENTING). The seed
# comes from the commit (the same commit cuts the same way; another commit, other ways) unless given:
# `make test SEGMENT_SEED=1234` repeats a run whose seed a failure printed.
SEGMENT_SEED ?= $(shell git rev-parse HEAD 2>/dev/null | cut -c1-7 | xargs -I{} printf '%d' 0x{} 2>/dev/null || echo 29)
SEGMENTED_TESTS = $(subst $(eval) ,,PodqCommandsTests.DownloadCommandTests,PodqCommandsTests.SearchCommandTests,\
  PodqCommandsTests.SegmentedDownloadTests,PodqCommandsTests.SidecarCommandTests,PodqCommandsTests.SubscriptionCommandTests,\
  PodqCommandsTests.PrivateFeedCommandTests,PodqCommandsTests.IntegrityCommandTests,PodqCommandsTests.RealWebCommandTests,\
  PodqCommandsTests.ProxyCommandTests,PodqCommandsTests.TLSCommandTests,PodqCoreTests.DownloadOperationTests,\
  PodqCoreTests.QueueRunnerTests,PodqHTTPTests.AsyncHTTPTransportTests,PodqCoreTests.SegmentConsistencyTests)
TEST_PYTHON = .build/test-python

test-deps:
	@bash Tests/deps/tools
	@bash Tests/deps/python $(TEST_PYTHON) >/dev/null

test: test-deps
	$(DEBUG_BUILD) --build-tests
	bash Tests/run $(CURDIR)/$(TEST_PYTHON)/bin/python $(SEGMENT_SEED) '$(SEGMENTED_TESTS)'

# The build's own progress lines ([n/m] Compiling ...) show how far a first build is.
demo:
	@echo "Building podq (a first build compiles the dependencies: several minutes on 2 cores)..."
	@$(DEBUG_BUILD) --product podq
	.build/debug/podq demo

bench-deps:
	bash bench/install-deps

bench: bench-deps commit-info
	$(RELEASE) --product podq
	$(RELEASE) --product podq-bench
	.build/release/podq-bench compare --write docs/PERFORMANCE.md
	.build/release/podq-bench cancel
	.build/release/podq-bench frame
	.build/release/podq-bench library --episodes 30000 --queued 500 --idle 5
	.build/release/podq-bench library
	.build/release/podq-bench grep
	.build/release/podq-bench digest --write docs/PERFORMANCE.md
	.build/release/podq-bench sync --feeds 1000,20000 --write docs/PERFORMANCE.md
	.build/release/podq-bench fresh-build --write docs/PERFORMANCE.md
	.build/release/podq-bench size .build/release/podq --write docs/PERFORMANCE.md
	# README's "Why podq" table and the other generated sections, from the PERFORMANCE.md this run wrote.
	.build/release/podq-bench docs --write

# A smoke check for CI on the debug build that `make test` made: small files, one run each, no ratios.
bench-quick: bench-deps
	$(DEBUG_BUILD) --product podq
	$(DEBUG_BUILD) --product podq-bench
	.build/debug/podq-bench compare --quick

# The sections of README.md, docs/*.md, docs/podq-sections.mdoc and docs/podq.1 between "generated"
# markers come from the code (GeneratedDocs); DocsTests fails while one is stale.
docs:
	$(DEBUG_BUILD) --product podq-bench
	.build/debug/podq-bench docs --write

format:
	$(SWIFT) format --in-place --recursive Sources Tests Resources Package.swift

lint:
	$(SWIFT) format lint --strict --parallel --recursive Sources Tests Resources Package.swift

# `make install PREFIX=~/.local`: bin/podq, the demo podcast in share/podq/demo,
# share/man/man1/podq.1, the guides in share/doc/podq, and completions where bash-completion, zsh and
# fish look for them.
install: release
	$(MAKE) install-files BIN=.build/release/podq

BIN ?= .build/release/podq
# The guides messages point to (PodqDocs.guides), installed in share/doc/podq beside the README.
GUIDES = COMMANDS.md CONFIG.md FEEDS.md FILES.md STORE.md SYNC.md TROUBLESHOOTING.md
# Installed stripped (symbols only: Swift's metadata stays); `make install STRIP=` keeps them.
STRIP ?= -s
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(STRIP) $(BIN) $(DESTDIR)$(PREFIX)/bin/podq
	rm -rf $(DESTDIR)$(PREFIX)/share/podq
	install -d $(DESTDIR)$(PREFIX)/share/podq/demo
	install -m 644 Resources/demo/* $(DESTDIR)$(PREFIX)/share/podq/demo/
	install -m 644 docs/podq.1 $(DESTDIR)$(PREFIX)/share/man/man1/podq.1
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/podq
	install -d $(DESTDIR)$(PREFIX)/share/doc/podq
	install -m 644 README.md $(addprefix docs/,$(GUIDES)) $(DESTDIR)$(PREFIX)/share/doc/podq/
	$(BIN) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/podq
	$(BIN) --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_podq
	$(BIN) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/podq.fish

# The man page is generated from the commands' help and committed (a test checks it names every
# command and option), by swift-argument-parser's generate-manual tool run on podq alone (its plugin
# would also run podq-bench, which links the commands but is no ArgumentParser tool), with the sections
# swift-argument-parser cannot know (docs/podq-sections.mdoc: the TUI's keys, ENVIRONMENT, FILES, EXIT
# STATUS) in place of its bare EXIT STATUS.
man:
	$(DEBUG_BUILD) --product podq
	$(DEBUG_BUILD) --product generate-manual
	mkdir -p .build/man
	.build/debug/generate-manual .build/debug/podq --authors "the podq authors" --output-directory .build/man
	awk 'FNR == NR { extra = extra $$0 "\n"; next } /^\.Sh "EXIT STATUS"/ { printf "%s", extra; skip = 1; next } \
	  skip && /^\.Sh / { skip = 0 } /^$$/ { if (!skip) print ".Pp"; next } !skip { print }' docs/podq-sections.mdoc \
	  .build/man/podq.1 > docs/podq.1

# libFuzzer targets for podq's own parsers (Fuzz/), built with -sanitize=fuzzer,address in
# .build/fuzz, seeded from Fuzz/seeds/ and the feed fixtures, each run for FUZZ_SECONDS; findings go
# to fuzz/findings/ (a crash, a leak, a slow unit or a broken invariant stops the run).
# The seed comes from the commit, as make test's SEGMENT_SEED, and is printed: `make fuzz FUZZ_SEED=N`
# repeats a run. CI runs each target FUZZ_SECONDS=30 (.ci/run).
FUZZ_TARGETS = FuzzFeed FuzzOPML FuzzConfig FuzzHeaders FuzzNames FuzzTranscript
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= $(shell git rev-parse HEAD 2>/dev/null | cut -c1-7 | xargs -I{} printf '%d' 0x{} 2>/dev/null || echo 29)
fuzz-build:
	@for t in $(FUZZ_TARGETS); do \
	  PODQ_FUZZ=1 $(SWIFT) build --scratch-path .build/fuzz -c debug -Xswiftc -sanitize=fuzzer,address \
	    -Xswiftc -parse-as-library -Xcc -fsanitize=fuzzer-no-link,address --product $$t || exit 1; \
	done

fuzz: fuzz-build
	@mkdir -p fuzz/findings
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s, seed $(FUZZ_SEED)"; \
	  SWIFT_BACKTRACE=enable=no .build/fuzz/debug/$$t -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	    -artifact_prefix=fuzz/findings/$$t- .build/fuzz/corpus/$$t Fuzz/seeds/$$t \
	    $$( [ $$t = FuzzFeed ] && echo Tests/PodqCoreTests/Fixtures/feeds ) > .build/fuzz/$$t.log 2>&1; rc=$$?; \
	  tail -n 3 .build/fuzz/$$t.log; [ $$rc -eq 0 ] || { tail -n 40 .build/fuzz/$$t.log; \
	    echo "fuzz: $$t found something (seed $(FUZZ_SEED)): fuzz/findings/, .build/fuzz/$$t.log"; exit 1; }; \
	done

clean:
	rm -rf .build
