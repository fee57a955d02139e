import Dispatch
import Foundation

/// Runs `work` on `items` in parallel batches of 2 × cores and hands each result to `consume`
/// on the calling thread, in item order, whatever the thread timing.
///
/// The next batch is worked on while the calling thread consumes the current one, so a
/// serial `consume` overlaps with the parallel work; memory holds two batches.
/// - Parameters:
///   - items: what to work on, in order.
///   - work: called concurrently, once an item.
///   - consume: called on the calling thread with each result, in item order.
///   - progress: called on the calling thread after each batch with (items consumed, items).
/// - Throws: the first error in item order (from `work` or `consume`), after the batch in
///   flight has finished.
package func forEachInParallelBatches<Item: Sendable, Value: Sendable>(
  _ items: [Item], work: @escaping @Sendable (Item) throws -> Value, consume: (Value) throws -> Void,
  progress: (Int, Int) -> Void = { _, _ in }
) throws {
  let batch = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
  func launch(_ start: Int) -> (slots: ResultSlots<Result<Value, any Error>>, done: DispatchGroup) {
    let slice = Array(items[start..<min(items.count, start + batch)])
    let slots = ResultSlots<Result<Value, any Error>>(count: slice.count)
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) {
      DispatchQueue.concurrentPerform(iterations: slice.count) { k in
        slots.store(Result { try work(slice[k]) }, at: k)
      }
    }
    return (slots, done)
  }
  var start = 0
  var current = items.isEmpty ? nil : launch(0)
  while let (slots, done) = current {
    done.wait()
    let end = start + slots.count
    current = end < items.count ? launch(end) : nil
    do {
      for k in 0..<slots.count { try consume(slots.take(k).get()) }
    } catch {
      current?.done.wait()
      throw error
    }
    start = end
    progress(start, items.count)
  }
}

/// Calls `body` with each of `0..<count` on `workers` threads, each thread taking the next
/// index as soon as it is free (so slow items do not hold up a whole batch); returns when
/// every call has returned. Indices are handed out in increasing order.
package func forEachIndexConcurrently(_ count: Int, workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let next = IndexDispenser(below: count)
  let group = DispatchGroup()
  for _ in 0..<max(1, min(workers, count)) {
    DispatchQueue.global().async(group: group) {
      while let index = next.take() { body(index) }
    }
  }
  group.wait()
}
