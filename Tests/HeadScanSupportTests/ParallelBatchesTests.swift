import Foundation
import Testing
import _HeadScanSupport

/// The parallel helpers give results in item order, whatever the thread timing, and stop at
/// the first error in item order.
struct ParallelBatchesTests {
  struct Failure: Error, Equatable { var item: Int }

  @Test(arguments: [0, 1, 3, 50, 257])
  func resultsArriveInItemOrder(count: Int) throws {
    var seen: [Int] = []
    var reports: [(Int, Int)] = []
    try forEachInParallelBatches(
      Array(0..<count),
      work: { i in
        // Uneven work, so later items often finish first.
        var x = 0
        for k in 0..<((count - i) * 200) { x &+= k }
        return i * i + (x == -1 ? 1 : 0)
      },
      consume: { seen.append($0) }, progress: { reports.append(($0, $1)) })
    #expect(seen == (0..<count).map { $0 * $0 })
    #expect(reports.last.map { $0 == (count, count) } ?? (count == 0))
    #expect(reports.map(\.0) == reports.map(\.0).sorted())
  }

  @Test func theFirstErrorInItemOrderIsThrown() {
    var consumed: [Int] = []
    #expect(throws: Failure(item: 7)) {
      try forEachInParallelBatches(
        Array(0..<100),
        work: { i in
          if i == 7 || i == 9 || i == 60 { throw Failure(item: i) }
          return i
        },
        consume: { consumed.append($0) })
    }
    #expect(consumed == Array(0..<7))
  }

  /// The items the workers have started, and a wait for a count of them: the tests hold the
  /// consumer until the workers provably got somewhere, never for a fixed time.
  final class StartedItems: @unchecked Sendable {
    // `items` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var items: [Int] = []

    func record(_ item: Int) {
      condition.lock()
      items.append(item)
      condition.broadcast()
      condition.unlock()
    }

    /// A copy made under the lock into a buffer of its own: handing out `items` itself would
    /// share its storage, and the next `record` would then write that storage once the
    /// reader's copy is released — ordered by the Swift runtime's reference count, which
    /// ThreadSanitizer does not see.
    var all: [Int] {
      condition.lock()
      defer { condition.unlock() }
      return items.map { $0 }
    }

    /// Waits until `count` items have started; `false` only if that took over a minute (a hang
    /// guard: a correct implementation gets there in microseconds).
    func waitFor(count: Int) -> Bool {
      let deadline = Date().addingTimeInterval(60)
      condition.lock()
      defer { condition.unlock() }
      while items.count < count {
        if !condition.wait(until: deadline) { return items.count >= count }
      }
      return true
    }
  }

  /// The window of ``forEachInParallelBatches`` with the default workers.
  static let window = itemsInFlight(workers: coresAvailable)

  /// However many workers, they stay within a window of the consumer set by the cores: the
  /// memory of the items in flight does not grow with the worker count beyond the cores.
  @Test(arguments: [1, 2, 8, 16])
  func workersStayWithinTheWindowOfTheConsumer(workers: Int) throws {
    let window = itemsInFlight(workers: workers)
    let count = 10 * window
    let started = StartedItems()
    var consumed = 0, largestLead = 0
    var startedWhileFirstHeld: [Int] = []
    try forEachInParallelBatches(
      Array(0..<count), workers: workers,
      work: { i in
        started.record(i)
        return i
      },
      consume: { i in
        #expect(i == consumed)
        consumed += 1
        if i == 0 {
          // Held here, the workers run to the window's edge (items 0…window) and stop there:
          // wait until they have started window + 1 items. That they start no more is the
          // lead's bound below, checked on every item.
          #expect(started.waitFor(count: window + 1), "the workers never reached the window's edge: \(started.all.sorted())")
          startedWhileFirstHeld = started.all.sorted()
        }
        // Every item started so far was handed out while at most `consumed` results were
        // taken, so it lies within the window beyond them.
        largestLead = max(largestLead, (started.all.max() ?? 0) + 1 - consumed)
      })
    #expect(consumed == count)
    #expect(started.all.sorted() == Array(0..<count))
    #expect(startedWhileFirstHeld == Array(0...window))
    #expect(largestLead <= window)
  }

  @Test func aConsumerThatThrowsFirstStopsWorkersWaitingAtTheWindow() {
    let window = Self.window
    let started = StartedItems()
    #expect(throws: Failure(item: 0)) {
      try forEachInParallelBatches(
        Array(0..<(10 * window)),
        work: { i in
          started.record(i)
          return i
        },
        consume: { i in
          // The workers reach the window's edge and wait there: then the consumer throws.
          #expect(started.waitFor(count: window + 1), "the workers never reached the window's edge: \(started.all.sorted())")
          throw Failure(item: i)
        })
    }
    // Returned (no worker left waiting), having started exactly the window beyond item 0.
    #expect(started.all.sorted() == Array(0...window))
  }

  /// `HEADSCAN_CORES` takes whole numbers of 1…4096 in decimal digits only.
  @Test func coreCountsAreWholeNumbersUpTo4096() {
    for (text, count) in [("1", 1), ("2", 2), ("16", 16), ("0016", 16), ("4096", 4096)] { #expect(coreCount(text) == count, "\(text)") }
    for text in ["", "0", "4097", "10000", "-1", "+4", "1.5", "1e2", " 8", "8 ", "0x10", "abc", "١٦", "１６"] {
      #expect(coreCount(text) == nil, "\(text)")
    }
  }

  /// One worker a core runs that many items at once (each item waits until all have started).
  @Test func oneWorkerACoreRunsThatManyAtOnce() throws {
    let workers = coresAvailable
    let started = StartedItems()
    var consumed: [Int] = []
    try forEachInParallelBatches(
      Array(0..<(2 * workers)), workers: workers,
      work: { i in
        started.record(i)
        if i < workers { #expect(started.waitFor(count: workers), "only \(started.all.count) of \(workers) workers ran at once") }
        return i
      },
      consume: { consumed.append($0) })
    #expect(consumed == Array(0..<(2 * workers)))
    #expect(workerCount(nil) == coresAvailable)
    #expect(workerCount(3) == 3)
    #expect(workerCount(0) == 1)
  }

  /// More workers than cores run no more items at once than there are cores (more would hold
  /// more frames in memory and not run faster); `forEachIndexConcurrently` runs the threads it
  /// is given, which CPU-bound callers limit with ``threadsRunning(workers:)``.
  @Test func workersBeyondTheCoresDoNotRunAtOnce() throws {
    let workers = 4 * coresAvailable + 3, limit = coresAvailable
    #expect(threadsRunning(workers: workers) == limit)
    let running = Locked((now: 0, most: 0))
    @Sendable func busy() {
      running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
      usleep(2000)
      running.withLock { $0.now -= 1 }
    }
    try forEachInParallelBatches(Array(0..<(8 * workers)), workers: workers, work: { _ in busy() }, consume: { _ in })
    forEachIndexConcurrently(8 * workers, workers: threadsRunning(workers: workers)) { _ in busy() }
    let most = running.withLock { $0.most }
    #expect(most >= min(2, limit) && most <= limit, "\(most) items ran at once with \(workers) workers on \(coresAvailable) cores")
    // A batch's workers wait on processes, not cores: all of them run at once.
    let waiting = StartedItems()
    forEachIndexConcurrently(workers, workers: workers) { i in
      waiting.record(i)
      #expect(waiting.waitFor(count: workers), "only \(waiting.all.count) of \(workers) threads ran at once")
    }
  }

  @Test func aBackgroundValueArrivesWhileTheCallerWorks() {
    let gate = DispatchSemaphore(value: 0)
    let value = BackgroundValue { () -> Int in
      // Waits for the caller, so the value cannot have been computed on the calling thread.
      gate.wait()
      return 42
    }
    gate.signal()
    #expect(value.wait() == 42)
    #expect(value.wait() == 42)
    let absent = BackgroundValue { () -> Int? in nil }
    #expect(absent.wait() == nil)
  }

  @Test func everyIndexRunsOnceOnEveryWorkerCount() {
    for workers in [1, 2, 5, 40] {
      let slots = ResultSlots<Int>(count: 23)
      let calls = Locked(0)
      forEachIndexConcurrently(23, workers: workers) { i in
        calls.withLock { $0 += 1 }
        slots.store(i * 2, at: i)
      }
      #expect(calls.withLock { $0 } == 23)
      #expect(slots.filled == 23)
      #expect(slots.takeAll() == (0..<23).map { $0 * 2 })
    }
  }

  @Test func slotsCountEachSlotOnce() {
    let slots = ResultSlots<String>(count: 3)
    #expect(slots.store("a", at: 1) == 1)
    #expect(slots.store("b", at: 1) == 1)
    #expect(slots.store("c", at: 0) == 2)
    #expect(slots.take(1) == "b")
  }

  @Test func aSparePoolKeepsAtMostItsLimitAndHandsEachBufferOutOnce() {
    let pool = SparePool<[Int]>(limit: 2)
    #expect(pool.take() == nil)
    for k in 1...3 { pool.put([k]) }
    let taken = [pool.take(), pool.take(), pool.take()]
    #expect(taken == [[2], [1], nil], "the third buffer handed back was dropped")
    // Workers taking and handing back at once: every buffer out is one that was handed back.
    let shared = SparePool<[Int]>(limit: 4)
    let seen = Locked<[Int]>([])
    DispatchQueue.concurrentPerform(iterations: 64) { k in
      let buffer = shared.take() ?? [k]
      seen.withLock { $0.append(buffer[0]) }
      shared.put(buffer)
    }
    #expect(seen.withLock { $0.count } == 64)
    var left: [Int] = []
    while let buffer = shared.take() { left.append(buffer[0]) }
    #expect(left.count <= 4 && Set(left).count == left.count)
    shared.put([1])
    shared.drain()
    #expect(shared.take() == nil)
  }

  @Test func theDispenserHandsOutEachIndexOnce() {
    let dispenser = IndexDispenser(below: 3)
    #expect([dispenser.take(), dispenser.take(), dispenser.take(), dispenser.take()] == [0, 1, 2, nil])
  }
}
