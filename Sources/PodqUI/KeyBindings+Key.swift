import PodqCore

extension KeyBindings {
    /// The one map from a key to what it does in the table (podboat's operation table): a letter
    /// through the config's bindings, and the keys that cannot move (↑ ↓ Home End Enter) to the action
    /// they stand for. Nil for a key that is no action's: PgUp, PgDn, Tab, Esc, Space and the mouse,
    /// which ``TUIController`` reads as keys, and a default letter whose action the config moved.
    public func action(for key: Key) -> Action? {
        switch key {
        case .up: return .up
        case .down: return .down
        case .home: return .top
        case .end: return .bottom
        case .enter: return .open
        case .character(let pressed): return action(for: pressed)
        default: return nil
        }
    }

    /// The action `pressed` is bound to: the config's letter first, then a default letter whose action
    /// the config did not move.
    public func action(for pressed: Character) -> Action? {
        if let bound = custom.first(where: { $0.value == pressed })?.key { return bound }
        return Action.allCases.first { custom[$0] == nil && Self.defaults[$0] == pressed && !isDisplaced($0) }
    }
}
