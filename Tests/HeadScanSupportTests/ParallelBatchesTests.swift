import Foundation
import Synchronization
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

  @Test func workersStayWithinTwoBatchesOfTheConsumer() throws {
    let window = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    let count = 10 * window
    let started = Mutex<[Int]>([])
    var consumed = 0, largestLead = 0, startedWhileFirstHeld = 0
    try forEachInParallelBatches(
      Array(0..<count),
      work: { i in
        started.withLock { $0.append(i) }
        return i
      },
      consume: { i in
        #expect(i == consumed)
        consumed += 1
        if i == 0 {
          // Held here, the workers run to the window's edge (items 0…window) and stop there.
          let deadline = ContinuousClock.now + .seconds(20)
          while started.withLock({ $0.count }) < window + 1 && ContinuousClock.now < deadline { usleep(1000) }
          usleep(50_000)
          startedWhileFirstHeld = started.withLock { $0.count }
        }
        largestLead = max(largestLead, (started.withLock { $0.max() } ?? 0) + 1 - consumed)
      })
    #expect(consumed == count)
    #expect(started.withLock { $0.sorted() } == Array(0..<count))
    #expect(startedWhileFirstHeld == window + 1)
    #expect(largestLead <= window)
  }

  @Test func aConsumerThatThrowsFirstStopsWorkersWaitingAtTheWindow() {
    let started = Mutex(0)
    #expect(throws: Failure(item: 0)) {
      try forEachInParallelBatches(
        Array(0..<500),
        work: { i in
          started.withLock { $0 += 1 }
          return i
        },
        consume: { i in
          usleep(20_000)  // the workers reach the window's edge and wait there
          throw Failure(item: i)
        })
    }
    // Returned (no worker left waiting), having started no more than a window beyond item 0.
    #expect(started.withLock { $0 } <= 1 + 2 * max(2, ProcessInfo.processInfo.activeProcessorCount * 2))
  }

  @Test func aBackgroundValueArrivesWhileTheCallerWorks() {
    let gate = Mutex(false)
    let value = BackgroundValue { () -> Int in
      // Waits for the caller, so the value cannot have been computed on the calling thread.
      while !gate.withLock({ $0 }) { usleep(1000) }
      return 42
    }
    gate.withLock { $0 = true }
    #expect(value.wait() == 42)
    #expect(value.wait() == 42)
    let absent = BackgroundValue { () -> Int? in nil }
    #expect(absent.wait() == nil)
  }

  @Test func everyIndexRunsOnceOnEveryWorkerCount() {
    for workers in [1, 2, 5, 40] {
      let slots = ResultSlots<Int>(count: 23)
      let calls = Mutex(0)
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

  @Test func theDispenserHandsOutEachIndexOnce() {
    let dispenser = IndexDispenser(below: 3)
    #expect([dispenser.take(), dispenser.take(), dispenser.take(), dispenser.take()] == [0, 1, 2, nil])
  }
}
