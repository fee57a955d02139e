import Foundation
@testable import Registration
import ScanIO
import Testing
import _TestSupport

/// Workers read their frames into buffers they keep; what they observe does not depend on it.
struct FrameBufferTests {
  /// A reader whose `readFrame(at:into:)` leaves no frame behind: a stage must still observe
  /// every frame (read afresh), not skip one and shift the frame indices.
  final class ForgetfulReader: ScanReader {
    let base: any ScanReader
    init(_ base: any ScanReader) { self.base = base }
    var path: String { base.path }
    var header: ScanHeader { base.header }
    var frameCount: Int { base.frameCount }
    var warnings: [ScanWarning] { base.warnings }
    func frame(at index: Int) throws(ScanIOError) -> ScanFrame { try base.frame(at: index) }
    func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError) { frame = nil }
    func timestamp(at index: Int) throws(ScanIOError) -> Double { try base.timestamp(at: index) }
  }

  @Test func observationsAreTheSameWithKeptBuffersAndWithoutAnyOnEveryWorkerCount() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try MetricScaleTests.smallScan(frames: 12, in: folder)
      var options = ObservationOptions()
      options.workers = 1
      let reference = try observeScan(ForgetfulReader(scan), options: options)
      #expect(reference.frames.count == 12 && reference.frames.map(\.diagnostics.index) == Array(0..<12))
      for workers in [1, 2, 5] {
        options.workers = workers
        let observed = try observeScan(scan, options: options)
        #expect(observed.frames.map(\.diagnostics.index) == Array(0..<12))
        for (a, b) in zip(observed.frames, reference.frames) {
          #expect(a.lifted.map(\.id) == b.lifted.map(\.id))
          #expect(a.lifted.map(\.cameraCorners) == b.lifted.map(\.cameraCorners), "frame \(a.diagnostics.index), \(workers) workers")
        }
      }
    }
  }
}
