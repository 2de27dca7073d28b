/// Lets a polling loop sleep until a timeout or until something signals it, whichever comes first.
actor Wakeup {
    private var pending = false
    private var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextID = 0

    /// Wakes the current or the next ``wait(milliseconds:)``.
    func signal() {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume()
        } else {
            pending = true
        }
    }

    /// Returns after `milliseconds`, or sooner when signalled.
    func wait(milliseconds: Int) async {
        if pending {
            pending = false
            return
        }
        nextID += 1
        let id = nextID
        await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                self.timeout(id)
            }
        }
    }

    private func timeout(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }
}
