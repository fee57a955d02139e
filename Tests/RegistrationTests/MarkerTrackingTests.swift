import ArucoBridge
import Foundation
import Registration
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// The observation stage's marker tracking (``ObservationOptions/wholeImageSearchInterval``, on
/// by default): what it finds is what a whole-image search of every frame finds, with the same
/// corners, less at most markers not seen before in their run.
struct MarkerTrackingTests {
  static let board = TestFiles.sharedData("truedepth-board/ipad-pro-12.9-4th-gen")

  /// Compares tracked observations with observations searched whole every frame; returns the
  /// (frame, id) detections the tracking missed.
  static func compare(_ scan: any ScanReader, interval: Int) throws -> (missed: Int, detections: Int, wholeSearches: Int, disagreeing: Int) {
    var wholeEveryFrame = ObservationOptions()
    wholeEveryFrame.wholeImageSearchInterval = 1
    let tracking = ObservationOptions()
    #expect(tracking.wholeImageSearchInterval == interval)
    let whole = try observeScan(scan, options: wholeEveryFrame)
    let tracked = try observeScan(scan, options: tracking)
    #expect(whole.wholeImageSearches == scan.frameCount)
    var missed = 0, detections = 0, disagreeing = 0
    var seenInRun: Set<Int> = []
    for (w, t) in zip(whole.frames, tracked.frames) {
      if w.diagnostics.index % interval == 0 { seenInRun = [] }
      detections += w.diagnostics.detectedIDs.count
      // Every marker tracking found, the whole-image search found, lifted with the same corners.
      #expect(Set(t.diagnostics.detectedIDs).isSubset(of: w.diagnostics.detectedIDs), "frame \(w.diagnostics.index)")
      for marker in t.lifted {
        let gap = w.lifted.filter { $0.id == marker.id }.map { same in
          zip(same.pixelCorners, marker.pixelCorners).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }.max() ?? 0
        }.min()
        #expect(gap != nil, "frame \(w.diagnostics.index): marker \(marker.id) lifted only when tracked")
        if let gap, gap > 0 { disagreeing += 1 }
      }
      // It misses only markers not seen before in the run.
      let lost = Set(w.diagnostics.detectedIDs).subtracting(t.diagnostics.detectedIDs)
      #expect(lost.isDisjoint(with: seenInRun), "frame \(w.diagnostics.index) lost \(lost.intersection(seenInRun).sorted())")
      missed += lost.count
      seenInRun.formUnion(t.diagnostics.detectedIDs)
    }
    return (missed, detections, tracked.wholeImageSearches, disagreeing)
  }

  @Test func aSimulatedScanIsTrackedWithoutLosingMarkers() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 48
      o.width = 320
      o.height = 240
      o.seed = 8
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      _ = try simulateScan(o, to: path, format: .stream)
      let (missed, detections, wholeSearches, disagreeing) = try Self.compare(try openScan(at: path), interval: 8)
      let counts = "\(missed) of \(detections) detections missed, \(disagreeing) lifted with other corners, \(wholeSearches) of 48 frames searched whole"
      #expect(detections > 200 && disagreeing == 0, "\(counts)")
      #expect(Double(missed) <= 0.005 * Double(detections), "\(counts)")
      #expect(wholeSearches >= 6 && wholeSearches < 48, "\(counts)")
    }
  }

  @Test(.enabled(if: board != nil, "../shared/data/truedepth-board is absent"))
  func theRealBoardIsTrackedWithoutLosingMarkers() throws {
    let scan = try TUMFolderReader(path: try #require(Self.board).path)
    let (missed, detections, wholeSearches, disagreeing) = try Self.compare(scan, interval: 8)
    let counts =
      "\(missed) of \(detections) detections missed, \(disagreeing) lifted with other corners, \(wholeSearches) of \(scan.frameCount) frames searched whole"
    #expect(detections > 700 && disagreeing == 0, "\(counts)")
    #expect(Double(missed) <= 0.005 * Double(detections), "\(counts)")
    #expect(wholeSearches < scan.frameCount, "\(counts)")
  }
}
