// swift-tools-version:6.2
import Foundation
import PackageDescription

/// Settings shared by every target of ours: Swift 6 mode with complete concurrency checking, and no
/// warnings tolerated (dependencies are not affected).
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

/// The release link's order of functions and its linker script (packaging/order/record; docs/DECISIONS.md,
/// "Release builds link the code a run touches together").
let order = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("packaging/order").path

/// The release link's own library folder: its `libstdc++.so` is a linker script that takes GCC's static
/// libstdc++.a (packaging/static/libstdc++.so; docs/DECISIONS.md, "libstdc++ is linked in").
let staticLibraries = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("packaging/static").path

let package = Package(
    name: "podq",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podq", targets: ["podq"])
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Already AsyncHTTPClient's: its decompressor, for feeds sent through a proxy by podq itself.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Already AsyncHTTPClient's: RFC 9651 structured fields, for `Repr-Digest` and `Content-Digest`.
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        // Child processes: a private feed's password-command.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // Already swift-subprocess's: FilePath's lexical normalization (paths standardized without a stat).
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // Tests only: certificates made in-process for the TLS server (a private CA, expired, wrong name).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // Layer 0: ncursesw for the TUI, opened with dlopen when the TUI starts (Debian's libncurses-dev
        // to build, libncursesw6 at run time): linked, every podq process loaded it and libtinfo, 0.4 MB
        // of one download's memory. Only PodqTerminal imports it.
        .target(name: "CNcursesw"),

        // Layer 0: libxml2's SAX2 parser for feeds, with its headers kept inside (Debian's libxml2-dev),
        // and zlib for a feed still compressed after HTTP's own decoding (zlib1g-dev). libxml2 is
        // loaded with dlopen when the first document is parsed (linked, it brought ICU and the C++
        // runtime's tables into every run: 1.3 MB of a download's memory); the package depends on it.
        .target(
            name: "CFeedXML",
            cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])],
            linkerSettings: [.linkedLibrary("z")]
        ),

        // Layer 0: SQLite's C API (Debian's libsqlite3-dev to build, libsqlite3-0 at run time).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),

        // Layer 0: system calls Swift's Glibc does not import (renameat2 with RENAME_NOREPLACE).
        .target(name: "CPodqSystem"),

        // Layer 0: podcasts' include/exclude patterns through PCRE2 with a limit on its work (Debian's
        // libpcre2-dev to build; libpcre2-8-0, which grep needs, at run time): docs/DECISIONS.md.
        .target(name: "CPattern", linkerSettings: [.linkedLibrary("pcre2-8")]),

        // Layer 0: streaming digests. XXH3-128 from xxHash's header (Debian's libxxhash-dev), inlined and
        // optimised even in debug builds; MD5, SHA-1 and SHA-2 from libcrypto.so.3 (OpenSSL 3, Debian's
        // libssl3), loaded with dlopen when first needed: linked, it cost every run 2 MB.
        .target(
            name: "CDigest",
            cSettings: [.unsafeFlags(["-O2"])]
        ),

        // Layer 1: what every layer above shares: the one text cleaner (SafeText), the date parser of
        // feeds and HTTP (FeedDate), the version.
        .target(
            name: "PodqBase", dependencies: ["CPodqSystem", .product(name: "SystemPackage", package: "swift-system")], swiftSettings: strict),

        // Layer 1: the store's SQLite layer: connections, statements, rows, a WAL pool of one writer and
        // several readers, migrations, flat Codable records. No Foundation (docs/DECISIONS.md, "The store
        // over SQLite's C API").
        .target(name: "PodqSQLite", dependencies: ["CSQLite"], swiftSettings: strict),

        // Layer 1: the HTTP client (transports over AsyncHTTPClient and podq's own direct connections,
        // redirects, proxies, TLS trust, pacing) and the transfer's errors. Knows nothing of the queue,
        // feeds or files.
        .target(
            name: "PodqHTTP",
            dependencies: [
                "PodqBase",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        // Layer 2: models, downloads, files, the store. No UI, no terminal.
        .target(
            name: "PodqCore",
            dependencies: [
                "PodqBase", "PodqHTTP", "CFeedXML", "CPodqSystem", "CDigest", "CPattern",
                // NIO's buffers and HTTP types, as the client hands them over; the client itself is PodqHTTP's.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "PodqSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        // Layer 2: view models and pure rendering into a cell grid. No ncurses.
        .target(name: "PodqUI", dependencies: ["PodqBase", "PodqCore"], swiftSettings: strict),

        // Layer 3: the one ncurses backend.
        .target(name: "PodqTerminal", dependencies: ["PodqUI", "CNcursesw", "CPodqSystem"], swiftSettings: strict),

        // A small in-process HTTP/1.1 server (SwiftNIO): serves the demo, and the test routes build on it.
        .target(
            name: "PodqServer",
            dependencies: [
                "PodqBase",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),

        // Files shipped beside the binary (the demo podcast), found at run time. The folder is the top-level Resources/.
        .target(
            name: "PodqResources",
            path: "Resources",
            exclude: ["README.md", "demo"],
            sources: ["PodqResources.swift"],
            swiftSettings: strict
        ),

        // Layer 2, beside PodqUI: the application: QueueSession, the one API every front end uses (one run of the queue
        // and every verb a person asks of it), its parts (Session/: feeds, logins, the player, hooks),
        // sync (Sync/), and the words and exit codes every front end shares (Output/). No UI, no terminal.
        .target(
            name: "PodqSession",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "CPodqSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        // Layer 4: the front ends over PodqSession: Commands/ (swift-argument-parser, a file per command or
        // per group: queue, subscriptions), Frontends/ (DownloadRunner, TUISession) and Output/ (the reporter).
        .target(
            name: "PodqCommands",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "PodqSession", "PodqUI", "PodqTerminal", "PodqServer", "PodqResources", "CPodqSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        // Layer 5: the executable, a few lines.
        // Release builds pack the relative relocations (DT_RELR; glibc 2.36) with the toolchain's lld:
        // 24 KB that the loader reads at every start instead of 2.9 MB, 2.4 MB less memory, and still
        // a position-independent executable. They link the functions a run touches together (the
        // recorded order, Swift's unnamed functions gathered), take libstdc++ statically and export no
        // symbols (docs/DECISIONS.md).
        .executableTarget(
            name: "podq", dependencies: ["PodqCommands"], swiftSettings: strict,
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-L", staticLibraries,
                        "-Xlinker", "--symbol-ordering-file=\(order)/podq.order", "-Xlinker", "--no-warn-symbol-ordering",
                        "-Xlinker", "-T", "-Xlinker", "\(order)/podq.ld", "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // Test support: fault-injecting routes, process and tmux drivers, hashing. Not in any product.
        .target(
            name: "PodqTestSupport",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "PodqUI", "PodqServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // Test support that fails a test (XCTest): a wait whose condition never held. Test targets only.
        .target(name: "PodqTestAssertions", dependencies: ["PodqTestSupport"], swiftSettings: strict),

        // Benchmarks that are not tests (memory, cancel latency, throughput). `make bench`.
        .executableTarget(
            name: "podq-bench",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "PodqUI", "PodqCommands", "PodqTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), "PodqSQLite",
            ],
            swiftSettings: strict
        ),

        .testTarget(
            name: "PodqCoreTests",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "PodqTestSupport", "PodqTestAssertions", "PodqServer",
                "PodqSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PodqHTTPTests",
            dependencies: ["PodqBase", "PodqHTTP", "PodqCore", "PodqTestSupport", "PodqTestAssertions", "PodqServer"],
            swiftSettings: strict),
        .testTarget(
            name: "PodqUITests", dependencies: ["PodqBase", "PodqHTTP", "PodqUI", "PodqCore", "PodqTestSupport", "PodqServer"], swiftSettings: strict),
        .testTarget(name: "PodqSQLiteTests", dependencies: ["PodqSQLite", "PodqTestSupport", "PodqServer"], swiftSettings: strict),
        // PodqUI too: the tests build Grids, and a module reached only through another was not rebuilt when
        // Grid's layout changed (the test read a stale layout and crashed).
        .testTarget(name: "PodqTerminalTests", dependencies: ["PodqTerminal", "PodqUI", "PodqServer", "PodqTestSupport"], swiftSettings: strict),
        // Every test target lists each podq module it imports: a module imported only through PodqTestSupport
        // was not rebuilt when its API changed (stale objects, a crash or a link error). InstallTests checks.
        .testTarget(
            name: "PodqServerTests", dependencies: ["PodqTestAssertions", "PodqBase", "PodqServer", "PodqHTTP", "PodqCore", "PodqTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "PodqSessionTests",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqSession", "PodqCore", "PodqTestSupport", "PodqTestAssertions", "PodqSQLite",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PodqCommandsTests",
            dependencies: [
                "PodqBase", "PodqHTTP", "PodqCore", "PodqTestAssertions", "PodqCommands", "PodqSession", "PodqTestSupport", "PodqSQLite",
                "PodqServer", "PodqUI",
            ],
            swiftSettings: strict
        ),
    ]
)

// libFuzzer targets (`make fuzz`): only when PODQ_FUZZ is set, since they link libFuzzer's own main
// and build with -sanitize=fuzzer,address in a scratch folder of their own.
if ProcessInfo.processInfo.environment["PODQ_FUZZ"] != nil {
    package.targets.append(.target(name: "CFuzzMain", path: "Fuzz/CFuzzMain"))
    for name in ["FuzzFeed", "FuzzOPML", "FuzzConfig", "FuzzHeaders", "FuzzNames", "FuzzTranscript"] {
        package.targets.append(.executableTarget(name: name, dependencies: ["PodqBase", "PodqHTTP", "PodqCore", "CFuzzMain"], path: "Fuzz/\(name)"))
    }
}
