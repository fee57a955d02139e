/// Frame-sized buffers that a parallel stage's workers hand back after a work item and take
/// again for the next, instead of allocating and freeing them once a frame.
///
/// The `headscan` command maps every allocation of 512 KiB or more afresh (so that peak memory
/// does not grow with the worker threads' arenas); a buffer taken from here is already mapped
/// and faulted in, which spares the kernel's page zeroing and the unmapping a frame. The pool
/// keeps at most `limit` buffers (one a running worker): memory is bounded by the workers, not
/// by the frames. Values are moved in and out whole, so a buffer taken is uniquely referenced
/// and can be written in place.
package final class SparePool<Value: Sendable>: Sendable {
  private let spares: Locked<[Value]>
  private let limit: Int

  /// An empty pool that keeps at most `limit` (at least 1) buffers.
  package init(limit: Int) {
    self.limit = max(1, limit)
    spares = Locked([])
  }

  /// A buffer handed back earlier, or `nil` when none is spare.
  package func take() -> Value? { spares.withLock { $0.popLast() } }

  /// Frees every buffer kept (a stage calls it when its loop is done, before what comes next allocates).
  package func drain() { spares.withLock { $0 = [] } }

  /// Hands `value` back for reuse; dropped when the pool already keeps `limit` buffers.
  package func put(_ value: Value) {
    spares.withLock { if $0.count < limit { $0.append(value) } }
  }
}
