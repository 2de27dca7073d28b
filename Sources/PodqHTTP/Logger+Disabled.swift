import Logging

extension Logger {
    /// A logger that writes nothing: the default of podq's types, so that a test or a library
    /// user logs only when they ask to.
    public static let disabled = Logger(label: "podq", factory: { _ in SwiftLogNoOpLogHandler() })
}
