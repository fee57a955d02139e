/// Hands out 0, 1, 2, … below a limit to whichever thread asks first.
package final class IndexDispenser: Sendable {
  private let next = Locked(0)
  private let limit: Int

  /// A dispenser of `0..<limit`.
  package init(below limit: Int) { self.limit = limit }

  /// The next index, or `nil` once all are taken.
  package func take() -> Int? {
    next.withLock { value in
      guard value < limit else { return nil }
      value += 1
      return value - 1
    }
  }
}
