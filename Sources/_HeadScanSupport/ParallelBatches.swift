import Dispatch
import Foundation

/// The cores this process may run on: the CPUs of its affinity mask (what `taskset` or a
/// cluster's scheduler grants; Linux's `Cpus_allowed` in `/proc/self/status`), at most the
/// machine's active cores, at least 1; or the count in ``coresVariable`` where that is set to one.
package let coresAvailable: Int = {
  if let text = ProcessInfo.processInfo.environment[coresVariable], let count = coreCount(text) { return count }
  let active = max(1, ProcessInfo.processInfo.activeProcessorCount)
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
  else { return active }
  let allowed = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in count + (digit.hexDigitValue?.nonzeroBitCount ?? 0) }
  return min(active, max(1, allowed))
}()

/// The environment variable that sets ``coresAvailable``: `HEADSCAN_CORES=16` runs the parallel
/// stages as on a machine of 16 cores (16 workers by default, running at once), whatever
/// this one has: the way to measure the memory of many workers on a small machine (they share
/// its real cores, so the time is not that machine's).
package let coresVariable = "HEADSCAN_CORES"

/// The core count ``coresVariable`` holds: a whole number of 1…4096 written in decimal digits;
/// `nil` for anything else.
package func coreCount(_ text: String) -> Int? {
  guard !text.isEmpty, text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(text), (1...4096).contains(count)
  else { return nil }
  return count
}

/// The worker threads of a parallel stage: `requested` (at least 1) or, when `nil`, one a core
/// this process may use (``coresAvailable``).
package func workerCount(_ requested: Int?) -> Int { max(1, requested ?? coresAvailable) }

/// The most items a parallel stage of `workers` has in flight (being worked on, or done and
/// waiting for the consumer): 16, or one a running thread (``threadsRunning(workers:)``) where
/// more than 16 run. The consumer can fall behind by that many items before a worker waits.
package func itemsInFlight(workers: Int) -> Int { max(16, threadsRunning(workers: workers)) }

/// The threads a parallel stage of `workers` runs on: at most one a core this process may use
/// (``coresAvailable``). More would only hold more frames in memory at once, not run faster.
package func threadsRunning(workers: Int) -> Int { min(max(1, workers), coresAvailable) }

/// Runs `work` on `items` in parallel and hands each result to `consume` on the calling thread,
/// in item order, whatever the thread timing.
///
/// `workers` threads take the next item as soon as they are free, while the calling thread
/// consumes finished results in order, so a serial `consume` overlaps with the parallel work
/// and no worker waits for the slowest item of a batch. At most ``threadsRunning(workers:)``
/// threads work at once, and they stay at most ``itemsInFlight(workers:)`` items ahead of the
/// consumer (or `inFlight`): memory holds that many items at most, the same for 16 workers as
/// for one a core.
/// - Parameters:
///   - items: what to work on, in order.
///   - workers: worker threads (``workerCount(_:)``: `nil` is one a core this process may use).
///   - inFlight: the most items in flight, where a stage's items are large enough to bound more
///     tightly than ``itemsInFlight(workers:)`` (at least 1; `nil`: that count).
///   - work: called concurrently, once an item.
///   - consume: called on the calling thread with each result, in item order.
///   - progress: called on the calling thread after each batch (2 × workers items, at least 2)
///     and after the last item, with (items consumed, items).
/// - Throws: the first error in item order (from `work` or `consume`), after the items in
///   flight have finished.
package func forEachInParallelBatches<Item: Sendable, Value: Sendable>(
  _ items: [Item], workers requested: Int? = nil, inFlight: Int? = nil, work: @escaping @Sendable (Item) throws -> Value,
  consume: (Value) throws -> Void, progress: (Int, Int) -> Void = { _, _ in }
) throws {
  let workers = workerCount(requested)
  let batch = max(2, workers * 2)
  let pipeline = OrderedResults<Value>(count: items.count, window: inFlight ?? itemsInFlight(workers: workers))
  let threads = WorkerThreads(min(threadsRunning(workers: workers), items.count)) {
    while let index = pipeline.nextIndex() { pipeline.store(Result { try work(items[index]) }, at: index) }
  }
  defer {
    pipeline.stop()
    threads.wait()
  }
  for index in items.indices {
    try consume(pipeline.take(index).get())
    if (index + 1) % batch == 0 || index + 1 == items.count { progress(index + 1, items.count) }
  }
}

/// `count` threads of their own running one body each (not the shared dispatch pool, which
/// runs no more CPU-bound blocks at once than there are cores): a worker count above the cores
/// gets its threads. Their stacks are 8 MiB, as the main thread's.
package final class WorkerThreads: @unchecked Sendable {
  // `running` is read and written only with `condition` locked.
  private let condition = NSCondition()
  private var running: Int

  /// Starts `count` threads, each running `body` once.
  package init(_ count: Int, _ body: @escaping @Sendable () -> Void) {
    running = max(0, count)
    for _ in 0..<max(0, count) {
      let thread = Thread { [self] in
        body()
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  /// Returns when every thread's body has returned.
  package func wait() {
    condition.lock()
    defer { condition.unlock() }
    while running > 0 { condition.wait() }
  }
}

/// The results of ``forEachInParallelBatches(_:workers:inFlight:work:consume:progress:)``: indices handed to
/// workers in increasing order, at most `window` ahead of the consumer, and results taken in order.
private final class OrderedResults<Value: Sendable>: @unchecked Sendable {
  // Every stored property is read and written only with `condition` locked.
  private let condition = NSCondition()
  private var results: [Result<Value, any Error>?]
  private var handedOut = 0, taken = 0
  private var stopped = false
  private let window: Int

  init(count: Int, window: Int) {
    results = Array(repeating: nil, count: count)
    self.window = max(1, window)
  }

  /// The next index to work on, waiting while the workers are a window ahead; `nil` when every
  /// index is handed out or the consumer stopped.
  func nextIndex() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while !stopped && handedOut < results.count && handedOut >= taken + window { condition.wait() }
    guard !stopped, handedOut < results.count else { return nil }
    handedOut += 1
    return handedOut - 1
  }

  func store(_ result: Result<Value, any Error>, at index: Int) {
    condition.lock()
    results[index] = result
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for `index`'s result (handed out in order, so a worker has it or will take it) and
  /// empties its slot.
  func take(_ index: Int) -> Result<Value, any Error> {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let result = results[index] {
        results[index] = nil
        taken = index + 1
        condition.broadcast()
        return result
      }
      condition.wait()
    }
  }

  /// No more indices are handed out.
  func stop() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}

/// A value worked out on another thread while the calling thread goes on; ``wait()`` returns it.
package final class BackgroundValue<Value: Sendable>: @unchecked Sendable {
  // `result` is read and written only with `condition` locked.
  private let condition = NSCondition()
  private var result: Value?

  /// Starts `work` on a global queue.
  package init(_ work: @escaping @Sendable () -> Value) {
    DispatchQueue.global().async {
      let value = work()
      self.condition.lock()
      self.result = value
      self.condition.broadcast()
      self.condition.unlock()
    }
  }

  /// The value, once `work` has returned.
  package func wait() -> Value {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let result { return result }
      condition.wait()
    }
  }
}

/// Calls `body` with each of `0..<count` on `workers` threads, each thread taking the next
/// index as soon as it is free (so slow items do not hold up a whole batch); returns when
/// every call has returned. Indices are handed out in increasing order. The threads are not
/// limited to the cores (a batch's workers each wait on a process of their own): CPU-bound
/// callers pass ``threadsRunning(workers:)``. With one worker (or one index) the calls run on
/// the calling thread, in order: a thread of its own would only add its memory arena.
package func forEachIndexConcurrently(_ count: Int, workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
  guard workers > 1 && count > 1 else {
    for index in 0..<count { body(index) }
    return
  }
  let next = IndexDispenser(below: count)
  WorkerThreads(max(1, min(workers, count))) {
    while let index = next.take() { body(index) }
  }.wait()
}

/// `transform` of each of `0..<count`, in index order, computed on `workers` threads as
/// ``forEachIndexConcurrently(_:workers:_:)`` hands them out (CPU-bound callers pass
/// ``threadsRunning(workers:)``); the result does not depend on the thread count.
package func mapConcurrently<Value: Sendable>(_ count: Int, workers: Int, _ transform: @escaping @Sendable (Int) -> Value) -> [Value] {
  let slots = ResultSlots<Value>(count: count)
  forEachIndexConcurrently(count, workers: workers) { slots.store(transform($0), at: $0) }
  return slots.takeAll()
}
