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
