import ArucoBridge
import Dispatch
import Foundation
import ScanIO

/// The markers found in one frame, with a little about its depth.
public struct FrameDetections: Sendable, Hashable {
  /// Index of the frame in its scan.
  public var frameIndex: Int
  /// Capture time, seconds.
  public var timestamp: Double
  /// Markers found, sorted by id; corners in colour-image pixels.
  public var markers: [DetectedMarker]
  /// Fraction of depth pixels that carry a depth, 0…1.
  public var validDepthFraction: Double
}

/// Detects markers in frames of a scan, several frames at a time.
///
/// Frames are read and detected in parallel batches bounded by the cores; the
/// result is in frame order and does not depend on thread timing.
/// - Parameters:
///   - scan: an open scan.
///   - detector: the detector (shared between threads; it is immutable).
///   - frames: which frame indices to look at; default all.
///   - progress: called from the calling thread with (done, total) after each batch.
/// - Throws: the first ``ScanIOError`` or `ArucoError` in frame order.
public func detectMarkers(
  in scan: any ScanReader, detector: MarkerDetector, frames: [Int]? = nil,
  progress: ((Int, Int) -> Void)? = nil
) throws -> [FrameDetections] {
  let indices = frames ?? Array(0..<scan.frameCount)
  var results: [FrameDetections] = []
  results.reserveCapacity(indices.count)
  try forEachInParallelBatches(
    indices,
    work: { index in
      let frame = try scan.frame(at: index)
      let markers = try detector.detect(bgra: frame.color.bgra, width: frame.color.width, height: frame.color.height)
      return FrameDetections(
        frameIndex: frame.index, timestamp: frame.timestamp, markers: markers,
        validDepthFraction: Double(frame.depth.validCount) / Double(frame.depth.metres.count))
    },
    consume: { results.append($0) }, progress: { progress?($0, $1) })
  return results
}

/// Runs `work` on `items` in parallel batches of 2 × cores and hands each result to `consume`
/// on the calling thread, in item order, whatever the thread timing.
///
/// The next batch is worked on while the calling thread consumes the current one, so a
/// serial `consume` overlaps with the parallel work; memory holds two batches.
/// - Throws: the first error in item order (from `work` or `consume`), after the batch in
///   flight has finished.
package func forEachInParallelBatches<Item: Sendable, Value>(
  _ items: [Item], work: @escaping @Sendable (Item) throws -> Value, consume: (Value) throws -> Void,
  progress: (Int, Int) -> Void = { _, _ in }
) throws {
  let batch = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
  func launch(_ start: Int) -> (slots: ResultSlots<Value>, done: DispatchGroup) {
    let slice = Array(items[start..<min(items.count, start + batch)])
    let slots = ResultSlots<Value>(count: slice.count)
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) {
      DispatchQueue.concurrentPerform(iterations: slice.count) { k in slots.set(k, Result { try work(slice[k]) }) }
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
      for k in 0..<slots.count { try consume(slots.get(k).get()) }
    } catch {
      current?.done.wait()
      throw error
    }
    start = end
    progress(start, items.count)
  }
}

/// Fixed slots written once each from concurrent workers.
private final class ResultSlots<Value>: @unchecked Sendable {
  private var slots: [Result<Value, any Error>?]
  private let lock = NSLock()
  let count: Int

  init(count: Int) {
    self.count = count
    slots = Array(repeating: nil, count: count)
  }

  func set(_ index: Int, _ value: Result<Value, any Error>) {
    lock.lock()
    slots[index] = value
    lock.unlock()
  }

  func get(_ index: Int) -> Result<Value, any Error> {
    lock.lock()
    defer { lock.unlock() }
    return slots[index]!
  }
}
