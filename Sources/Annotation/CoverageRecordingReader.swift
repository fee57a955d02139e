import Foundation
import HeadScan

/// A scan reader that passes frames through and notes each frame's depth coverage on the way,
/// so the page's strip gets it from the reconstruction's own pass over the scan, without a
/// second read of every frame.
final class CoverageRecordingReader: ScanReader, @unchecked Sendable {
  private let base: any ScanReader
  private let lock = NSLock()
  private var recorded: [Int: Double] = [:]

  init(_ base: any ScanReader) { self.base = base }

  var path: String { base.path }
  var header: ScanHeader { base.header }
  var frameCount: Int { base.frameCount }
  var warnings: [ScanWarning] { base.warnings }

  func frame(at index: Int) throws(ScanIOError) -> ScanFrame {
    let frame = try base.frame(at: index)
    let count = frame.depth.metres.count
    let fraction = count > 0 ? Double(frame.depth.validCount) / Double(count) : 0
    lock.withLock { recorded[index] = fraction }
    return frame
  }

  func timestamp(at index: Int) throws(ScanIOError) -> Double { try base.timestamp(at: index) }

  /// Frame index → fraction of depth pixels with a depth, for every frame read so far.
  var coverage: [Int: Double] { lock.withLock { recorded } }
}
