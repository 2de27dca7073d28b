import FoundationEssentials
import Glibc
import Synchronization

/// KVO-style observation for Linux, where Foundation's `observe(_:options:changeHandler:)` is missing.
///
/// ```swift
/// let token = operation.observe(\.progress, options: [.initial, .new]) { op, change in
///     print(change.newValue!)
/// }
/// ```
/// The conforming type calls ``ObservationCenter/valueDidChange()`` on its ``observationCenter``
/// whenever an observable property changes.
public protocol KeyValueObservable: AnyObject, Sendable {
    /// The registry that delivers this object's changes.
    var observationCenter: ObservationCenter { get }
}

extension KeyValueObservable {
    /// Observes the value at `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: an `Equatable` property; the handler runs only when its value changed.
    ///   - options: `.initial` delivers the current value at once; `.new` and `.old` fill the change.
    ///   - changeHandler: called with the object and the change, on the delivering thread; coalesced to
    ///     at most one call per ``ObservationCenter/interval`` except for flushes.
    /// - Returns: a token; the observation lasts until it is cancelled or released.
    public func observe<Value: Equatable & Sendable>(
        _ keyPath: KeyPath<Self, Value> & Sendable,
        options: ObservationOptions = [.new],
        changeHandler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken {
        let entry = KeyPathEntry(object: self, keyPath: keyPath, options: options, handler: changeHandler)
        return observationCenter.add(entry, initial: options.contains(.initial))
    }
}

/// One observer of one key path. Its last value is only touched under the center's delivery lock;
/// the `Mutex` around it is never contended and keeps the type plainly `Sendable`.
private final class KeyPathEntry<Object: AnyObject & Sendable, Value: Equatable & Sendable>: ObservationEntry, Sendable {
    private weak let object: Object?
    private let keyPath: KeyPath<Object, Value> & Sendable
    private let options: ObservationOptions
    private let handler: @Sendable (Object, ObservedChange<Value>) -> Void
    private let last: Mutex<Value>

    init(
        object: Object, keyPath: KeyPath<Object, Value> & Sendable, options: ObservationOptions,
        handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void
    ) {
        self.object = object
        self.keyPath = keyPath
        self.options = options
        self.handler = handler
        self.last = Mutex(object[keyPath: keyPath])
    }

    func deliverInitial() {
        guard let object else { return }
        let value = object[keyPath: keyPath]
        last.withLock { $0 = value }
        handler(object, ObservedChange(oldValue: nil, newValue: value, isInitial: true))
    }

    func deliverIfChanged() {
        guard let object else { return }
        let value = object[keyPath: keyPath]
        let old: Value? = last.withLock { last in
            guard value != last else { return nil }
            defer { last = value }
            return last
        }
        guard let old else { return }
        handler(
            object,
            ObservedChange(
                oldValue: options.contains(.old) ? old : nil,
                newValue: options.contains(.new) ? value : nil,
                isInitial: false))
    }
}
