/// What an observation delivers, after Foundation's `NSKeyValueObservingOptions`.
public struct ObservationOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Deliver the current value at once, when the observation starts.
    public static let initial = ObservationOptions(rawValue: 1 << 0)
    /// Include the new value in each change.
    public static let new = ObservationOptions(rawValue: 1 << 1)
    /// Include the previously delivered value in each change.
    public static let old = ObservationOptions(rawValue: 1 << 2)
}

/// One delivered change of an observed value.
public struct ObservedChange<Value: Sendable>: Sendable {
    /// The value delivered before this one, when `.old` was asked for and there was one.
    public let oldValue: Value?
    /// The value now, when `.new` or `.initial` was asked for.
    public let newValue: Value?
    /// True for the delivery that `.initial` triggers.
    public let isInitial: Bool
}
