import FoundationEssentials

/// What the JSON readers of transcripts and chapters share: decoding with a byte-order mark allowed and
/// each failure said in words, and times written as numbers or as text (`"0:01:02.5"`).
enum TranscriptJSON {
    /// `bytes` decoded as `type`; `list` names the list a file must have (`segments`, `chapters`).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], list: String, decoder: JSONDecoder = JSONDecoder()) throws(TranscriptError) -> T {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        do {
            return try decoder.decode(type, from: Data(body))
        } catch DecodingError.keyNotFound {
            throw .notJSON("it has no \"\(list)\"")
        } catch DecodingError.typeMismatch {
            throw .notJSON("its \"\(list)\" is not a list of them")
        } catch {
            throw .notJSON("it is not well-formed JSON, or nested deeper than JSON readers go")
        }
    }

    /// The time at `key`: a number of seconds, or a time as text (``CueTime/seconds(_:)``); nil otherwise.
    static func time<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) -> Double? {
        if let number = try? container.decode(Double.self, forKey: key) { return number }
        return (try? container.decode(String.self, forKey: key)).flatMap(CueTime.seconds)
    }
}
