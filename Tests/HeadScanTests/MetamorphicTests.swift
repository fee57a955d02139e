import Foundation
import HeadScan
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// Changes to a recording that must not change what it measures: they need no truth, so they
/// catch what cases built with a truth in mind can hide. The frames played backwards, and every
/// other frame dropped (the four landmark frames kept), each measure CVAI, cranial index and
/// circumference within the original's 95 % interval (or the changed scan's own, where wider).
struct MetamorphicTests {
  /// Writes the frames of `source` at `order` (positions in the new scan) to `path` with the
  /// original's header and timestamps in their original sequence, and its landmarks file with
  /// each landmark's frame renumbered.
  static func rewrite(_ source: String, to path: String, order: [Int]) throws {
    let scan = try openScan(at: source)
    let timestamps = try order.sorted().map { try scan.frame(at: $0).timestamp }
    let writer = try RGBDScanWriter(path: path, header: scan.header)
    for (position, index) in order.enumerated() {
      let frame = try scan.frame(at: index)
      try writer.append(timestamp: timestamps[position], depthMetres: frame.depth.metres, colorBGRA: frame.color.bgra)
    }
    try writer.finish()
    var (file, entries) = try landmarkEntries(source)
    for k in entries.indices {
      let frame = try #require(entries[k]["frame"] as? Int)
      entries[k]["frame"] = try #require(order.firstIndex(of: frame), "landmark frame \(frame) dropped")
    }
    file["landmarks"] = entries
    let renamed = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("landmarks.json")
    try JSONSerialization.data(withJSONObject: file).write(to: renamed)
  }

  /// The landmarks file beside `scan`, and its entries.
  static func landmarkEntries(_ scan: String) throws -> (file: [String: Any], entries: [[String: Any]]) {
    let landmarks = URL(fileURLWithPath: scan).deletingPathExtension().appendingPathExtension("landmarks.json")
    let file = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: landmarks)) as? [String: Any])
    return (file, try #require(file["landmarks"] as? [[String: Any]]))
  }

  @Test func reversedOrThinnedFramesMeasureWithinTheIntervals() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 72
      o.seed = 12
      o.head = .init(cranialIndex: 86, cvai: 7, flattenedSide: .left)
      let original = folder.appendingPathComponent("original.rgbdscan").path
      _ = try simulateScan(o, to: original, format: .stream)
      let landmarkFrames = Set(try Self.landmarkEntries(original).entries.compactMap { $0["frame"] as? Int })
      #expect(landmarkFrames.count >= 2)
      let reversed = folder.appendingPathComponent("reversed.rgbdscan").path
      let thinned = folder.appendingPathComponent("thinned.rgbdscan").path
      try Self.rewrite(original, to: reversed, order: Array((0..<o.frames).reversed()))
      try Self.rewrite(original, to: thinned, order: (0..<o.frames).filter { $0 % 2 == 0 || landmarkFrames.contains($0) })
      let base = try measureScan(at: original).report
      let baseIntervals = try #require(base.intervals95)
      for path in [reversed, thinned] {
        let changed = try measureScan(at: path).report
        let intervals = try #require(changed.intervals95, "\(path)")
        for (name, a, b, width) in [
          ("CVAI", base.cvai, changed.cvai, max(baseIntervals.cvai.halfWidth, intervals.cvai.halfWidth)),
          ("CI", base.ci, changed.ci, max(baseIntervals.ci.halfWidth, intervals.ci.halfWidth)),
          ("circumference", base.circumference, changed.circumference,
           max(baseIntervals.circumference.halfWidth, intervals.circumference.halfWidth)),
        ] {
          let line = String(format: "%@: %@ %.3f against %.3f (±%.3f)", URL(fileURLWithPath: path).lastPathComponent, name, b, a, width)
          print(line)
          #expect(abs(b - a) <= width, "\(line)")
        }
        #expect(changed.severity == base.severity)
      }
    }
  }
}
