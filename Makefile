# podq: build, test, demo, bench. `make help` lists the targets.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= debug

.PHONY: help build release test demo bench format lint install clean

help:
	@echo "make demo     open the TUI on the bundled demo podcast served from 127.0.0.1 (no internet needed)"
	@echo "make test     build and run every test"
	@echo "make build    debug build (.build/debug/podq)"
	@echo "make release  release build (.build/release/podq)"
	@echo "make bench    1 GiB download: peak RSS, CPU, MB/s; cancel latency (release build)"
	@echo "make install  install podq to \$$(PREFIX)/bin (PREFIX=$(PREFIX))"
	@echo "make lint     build with warnings as errors and check the style config"

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product podq

# Tests run one at a time: several drive throttled downloads and child processes on 2 cores.
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

demo:
	@echo "Building podq (the first build takes a few minutes)..."
	@$(SWIFT) build -q --product podq
	.build/debug/podq demo

bench:
	$(SWIFT) build -c release --product podq
	$(SWIFT) build -c release --product podq-bench
	.build/release/podq-bench

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
