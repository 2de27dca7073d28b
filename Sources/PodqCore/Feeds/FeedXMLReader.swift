import CFeedXML
import FoundationEssentials
import Glibc

/// Receives the events of ``FeedXMLReader``: elements by namespace URI ("" for none) and local name
/// (and both as a ``FeedTag``), and text (character data and CDATA alike) as UTF-8 bytes, valid only
/// during the call.
/// After `start` or `text`, a handler that sets `stopRequested` ends the parse (``FeedXMLReader/Outcome/stopped``).
protocol FeedXMLHandler: AnyObject {
    func start(_ tag: FeedTag, ns: String, name: String, attributes: FeedXMLAttributes)
    func end(_ tag: FeedTag, ns: String, name: String)
    func text(_ bytes: UnsafeBufferPointer<UInt8>)
    var stopRequested: Bool { get }
}

/// The attributes of one start tag, read in place from libxml2's records (valid only during the call).
struct FeedXMLAttributes {
    fileprivate let records: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let count: Int

    /// The value of the attribute without a namespace named `name`.
    subscript(name: String) -> String? { value(name, namespace: nil) }

    /// The value of the attribute `name` in `namespace` (`xml:base`: ``FeedNamespace/xml``).
    subscript(name: String, namespace namespace: String) -> String? { value(name, namespace: namespace) }

    private func value(_ name: String, namespace: String?) -> String? {
        guard let records, count > 0 else { return nil }
        return name.withCString { wanted -> String? in
            for i in 0..<count {
                let record = records + i * 5
                guard let local = record[0],
                    strcmp(UnsafeRawPointer(local).assumingMemoryBound(to: CChar.self), wanted) == 0,
                    let start = record[3], let end = record[4]
                else { continue }
                if let namespace {
                    guard let uri = record[2], String(cString: uri) == namespace else { continue }
                } else if record[2] != nil {
                    continue
                }
                return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            }
            return nil
        }
    }
}

/// libxml2's SAX2 parser, straight from C (the `CFeedXML` shim): no `XMLParser`, no string or
/// dictionary built per event, the file read once, 256 KiB at a time, into libxml2's push parser. The document's internal
/// entities expand under libxml2's amplification limits; anything external is refused unread.
struct FeedXMLReader {
    /// How a parse ended.
    enum Outcome: Equatable {
        case wellFormed
        /// Not well-formed: libxml2's error number, where, and its message.
        case malformed(code: Int, line: Int, column: Int, message: String)
        /// The document reached for an external entity or DTD.
        case external
        /// libxml2 stopped entities that expand without end (a billion laughs).
        case entityLoop
        /// The handler asked to stop.
        case stopped
        /// Recovery mode only: libxml2 passed over `count` errors, the first one described.
        case recovered(count: Int, line: Int, column: Int, code: Int, message: String)
    }

    /// Parses the file at `path`, sending the events to `handler`.
    /// - Parameter recover: go on after errors, as libxml2's recovery mode does (for broken feeds).
    static func parse(path: String, handler: any FeedXMLHandler, recover: Bool = false) throws(FeedError) -> Outcome {
        // Not blocking on a FIFO put in the file's place after it was looked at; a regular file reads the same.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let box = Box(handler)
        var callbacks = podq_xml_handler(
            context: Unmanaged.passUnretained(box).toOpaque(),
            start: { context, localname, uri, attributes, count in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                let ns = box.namespace(uri)
                let local = box.local(localname)
                box.handler.start(
                    FeedTag(ns: ns.kind, name: local.kind), ns: ns.text, name: local.text,
                    attributes: FeedXMLAttributes(records: attributes, count: Int(count)))
                return box.handler.stopRequested ? 1 : 0
            },
            end: { context, localname, uri in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                let ns = box.namespace(uri)
                let local = box.local(localname)
                box.handler.end(FeedTag(ns: ns.kind, name: local.kind), ns: ns.text, name: local.text)
            },
            text: { context, bytes, length in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                box.handler.text(UnsafeBufferPointer(start: bytes, count: Int(length)))
                return box.handler.stopRequested ? 1 : 0
            })
        var result = podq_xml_result()
        let code = podq_xml_parse_fd(fd, &callbacks, recover ? 1 : 0, &result)
        if result.unavailable != 0 { throw .parserUnavailable(reason: message(of: &result)) }
        if result.external != 0 { return .external }
        if result.entity_loop != 0 { return .entityLoop }
        if result.stopped != 0 { return .stopped }
        let message = message(of: &result)
        if recover && result.recovered > 0 {
            return .recovered(count: Int(result.recovered), line: Int(result.line), column: Int(result.column), code: Int(result.code), message: message)
        }
        guard code != 0 else { return .wellFormed }
        return .malformed(code: Int(code), line: Int(result.line), column: Int(result.column), message: message)
    }

    private static func message(of result: inout podq_xml_result) -> String {
        withUnsafeBytes(of: &result.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The handler, and the names seen so far by libxml2's interned pointer (each name becomes a
    /// String and a ``FeedTag`` part once per parse).
    private final class Box {
        let handler: any FeedXMLHandler
        var namespaces: [UnsafeRawPointer: (text: String, kind: FeedTag.Namespace)] = [:]
        var locals: [UnsafeRawPointer: (text: String, kind: FeedTag.Name)] = [:]
        init(_ handler: any FeedXMLHandler) { self.handler = handler }

        @inline(__always)
        func namespace(_ pointer: UnsafePointer<CChar>?) -> (text: String, kind: FeedTag.Namespace) {
            guard let pointer else { return ("", .none) }
            let key = UnsafeRawPointer(pointer)
            if let known = namespaces[key] { return known }
            let text = String(cString: pointer)
            let made = (text, FeedTag.Namespace(text))
            namespaces[key] = made
            return made
        }

        @inline(__always)
        func local(_ pointer: UnsafePointer<CChar>?) -> (text: String, kind: FeedTag.Name) {
            guard let pointer else { return ("", .other) }
            let key = UnsafeRawPointer(pointer)
            if let known = locals[key] { return known }
            let text = String(cString: pointer)
            let made = (text, FeedTag.Name(text))
            locals[key] = made
            return made
        }
    }
}
