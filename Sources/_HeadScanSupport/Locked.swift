import Foundation

/// A value behind a lock, read and changed only inside ``withLock(_:)``.
///
/// The lock is Foundation's `NSLock` (a pthread mutex), which ThreadSanitizer understands:
/// `Synchronization.Mutex` locks inside the Swift runtime on Linux, which is not instrumented,
/// so ThreadSanitizer sees none of its ordering and reports every region it guards as a race.
/// The state is only touched under the lock, which is what makes the type `Sendable`.
package final class Locked<State>: @unchecked Sendable {
  private let lock = NSLock()
  private var state: State

  /// `state` behind a new lock.
  package init(_ state: State) { self.state = state }

  /// `body`'s result, run with the lock held and the state lent to it.
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
