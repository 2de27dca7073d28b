# podq: build, test, demo, bench. `make help` lists the targets.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= debug

.PHONY: help build release test demo bench bench-quick bench-deps format lint install clean

help:
	@echo "make demo     open the TUI on the bundled demo podcast served from 127.0.0.1 (no internet needed)"
	@echo "make test     build and run every test"
	@echo "make build    debug build (.build/debug/podq)"
	@echo "make release  release build (.build/release/podq)"
	@echo "make bench    podq vs curl, wget, aria2c (nginx) and podcastparser, feedparser; writes docs/PERFORMANCE.md (~15 min)"
	@echo "make bench-quick  the same on small files in under 2 minutes: checks every tool's files are identical"
	@echo "make install  install podq to \$$(PREFIX)/bin (PREFIX=$(PREFIX))"
	@echo "make lint     build with warnings as errors and check the style config"

build:
	$(SWIFT) build

# Release builds link the Swift runtime and Foundation statically: one file to install, and a third of
# the memory (see docs/DECISIONS.md).
RELEASE = $(SWIFT) build -c release --static-swift-stdlib

release:
	$(RELEASE) --product podq

# Tests run one at a time: several drive throttled downloads and child processes on 2 cores.
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

demo:
	@echo "Building podq (the first build takes a few minutes)..."
	@$(SWIFT) build -q --product podq
	.build/debug/podq demo

bench-deps:
	bash bench/install-deps

bench: bench-deps
	$(RELEASE) --product podq
	$(RELEASE) --product podq-bench
	.build/release/podq-bench compare --write docs/PERFORMANCE.md
	.build/release/podq-bench cancel
	.build/release/podq-bench frame

# A smoke check for CI on the debug build that `make test` made: small files, one run each, no ratios.
bench-quick: bench-deps
	$(SWIFT) build --product podq
	$(SWIFT) build --product podq-bench
	.build/debug/podq-bench compare --quick

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests Package.swift

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/podq $(DESTDIR)$(PREFIX)/bin/podq
	cp -R .build/release/podq_PodqResources.resources $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf .build
