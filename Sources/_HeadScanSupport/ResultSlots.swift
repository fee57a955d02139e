/// A fixed number of slots filled concurrently, each once, and read when the work is done.
///
/// The slots sit behind a lock (``Locked``), so the type is `Sendable`.
package final class ResultSlots<Value: Sendable>: Sendable {
  private struct State {
    var values: [Value?]
    var filled = 0
  }

  private let state: Locked<State>

  /// Slots.
  package let count: Int

  /// `count` empty slots.
  package init(count: Int) {
    self.count = count
    state = Locked(State(values: Array(repeating: nil, count: count)))
  }

  /// Fills slot `index`; returns how many slots are filled now, this one included.
  @discardableResult
  package func store(_ value: Value, at index: Int) -> Int {
    state.withLock { state in
      if state.values[index] == nil { state.filled += 1 }
      state.values[index] = value
      return state.filled
    }
  }

  /// How many slots are filled.
  package var filled: Int { state.withLock { $0.filled } }

  /// Empties slot `index` and returns its value.
  /// - Precondition: the slot was filled (the caller waits for its workers first).
  package func take(_ index: Int) -> Value {
    let value: Value? = state.withLock { state in
      defer { state.values[index] = nil }
      return state.values[index]
    }
    guard let value else { preconditionFailure("slot \(index) was read before a worker filled it") }
    return value
  }

  /// Every slot's value, in order.
  /// - Precondition: every slot was filled.
  package func takeAll() -> [Value] { (0..<count).map(take) }
}
