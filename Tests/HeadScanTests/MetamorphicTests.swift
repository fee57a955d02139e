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
  /// original's header and timestamps in their original sequence, every depth times
  /// `depthScale`, and its landmarks file with each landmark's frame renumbered.
  static func rewrite(_ source: String, to path: String, order: [Int], depthScale: Float = 1) throws {
    let scan = try openScan(at: source)
    let timestamps = try order.sorted().map { try scan.frame(at: $0).timestamp }
    let writer = try RGBDScanWriter(path: path, header: scan.header)
    for (position, index) in order.enumerated() {
      let frame = try scan.frame(at: index)
      let depth = depthScale == 1 ? frame.depth.metres : frame.depth.metres.map { $0 * depthScale }
      try writer.append(timestamp: timestamps[position], depthMetres: depth, colorBGRA: frame.color.bgra)
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

  /// A default-preset scan of `frames` frames of `head`, `original.rgbdscan` in `folder` with
  /// its landmarks beside it.
  static func simulate(frames: Int, seed: UInt64, head: HeadShape.Parameters, in folder: URL) throws -> String {
    var o = SimulationOptions()
    o.frames = frames
    o.seed = seed
    o.head = head
    let path = folder.appendingPathComponent("original.rgbdscan").path
    _ = try simulateScan(o, to: path, format: .stream)
    return path
  }

  /// The landmarks file beside `scan`, and its entries.
  static func landmarkEntries(_ scan: String) throws -> (file: [String: Any], entries: [[String: Any]]) {
    let landmarks = URL(fileURLWithPath: scan).deletingPathExtension().appendingPathExtension("landmarks.json")
    let file = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: landmarks)) as? [String: Any])
    return (file, try #require(file["landmarks"] as? [[String: Any]]))
  }

  @Test func reversedOrThinnedFramesMeasureWithinTheIntervals() throws {
    try TestFiles.withTemporaryFolder { folder in
      let frames = 72
      let original = try Self.simulate(frames: frames, seed: 12, head: .init(cranialIndex: 86, cvai: 7, flattenedSide: .left), in: folder)
      let landmarkFrames = Set(try Self.landmarkEntries(original).entries.compactMap { $0["frame"] as? Int })
      #expect(landmarkFrames.count >= 2)
      let reversed = folder.appendingPathComponent("reversed.rgbdscan").path
      let thinned = folder.appendingPathComponent("thinned.rgbdscan").path
      try Self.rewrite(original, to: reversed, order: Array((0..<frames).reversed()))
      try Self.rewrite(original, to: thinned, order: (0..<frames).filter { $0 % 2 == 0 || landmarkFrames.contains($0) })
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

  /// A head and its mirror image (the simulator's heads flattened on the left and on the right
  /// are reflections of each other across the midsagittal plane; the cap, its stickers and the
  /// camera's path are the same) measure the same CVAI, CI and circumference within their 95 %
  /// intervals, with the flattening on the other side.
  @Test func aMirroredHeadMeasuresTheSameWithTheFlatteningSwapped() throws {
    try TestFiles.withTemporaryFolder { folder in
      let left = folder.appendingPathComponent("left"), right = folder.appendingPathComponent("right")
      for sub in [left, right] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
      let a = try measureScan(at: Self.simulate(frames: 72, seed: 14, head: .init(cranialIndex: 84, cvai: 8, flattenedSide: .left), in: left)).report
      let b = try measureScan(at: Self.simulate(frames: 72, seed: 14, head: .init(cranialIndex: 84, cvai: 8, flattenedSide: .right), in: right)).report
      let ia = try #require(a.intervals95), ib = try #require(b.intervals95)
      for (name, x, y, width) in [
        ("CVAI", a.cvai, b.cvai, max(ia.cvai.halfWidth, ib.cvai.halfWidth)),
        ("CI", a.ci, b.ci, max(ia.ci.halfWidth, ib.ci.halfWidth)),
        ("circumference", a.circumference, b.circumference, max(ia.circumference.halfWidth, ib.circumference.halfWidth)),
      ] {
        let line = String(format: "mirrored: %@ %.3f against %.3f (±%.3f)", name, y, x, width)
        print(line)
        #expect(abs(x - y) <= width, "\(line)")
      }
      #expect(a.flattenedSide == .leftPosterior && b.flattenedSide == .rightPosterior)
      #expect(a.severity == b.severity)
    }
  }

  /// A depth sensor reading every distance 1 % long scales the whole head by 1 % (lateral
  /// positions are pixel offsets times depth). Kept at the depth's scale (`--scale depth`), the
  /// circumference grows 1 %, CVAI and CI (ratios) do not move, and the markers' focal-length
  /// check, which sees the focal length times that scale against the printed stickers, makes
  /// the verdict flag the scan. With the stickers' scale applied (`--scale markers`) both
  /// scans measure the same lengths; the default (`auto`) applies it to the long scan.
  @Test func depthOnePercentLongMeasuresTheSameOnceTheStickersScaleIt() throws {
    try TestFiles.withTemporaryFolder { folder in
      let frames = 60
      let original = try Self.simulate(frames: frames, seed: 13, head: .init(cranialIndex: 82, cvai: 5, flattenedSide: .right), in: folder)
      let long = folder.appendingPathComponent("long.rgbdscan").path
      try Self.rewrite(original, to: long, order: Array(0..<frames), depthScale: 1.01)
      func measured(_ path: String, _ scale: ScaleSource) throws -> MeasureReport {
        var options = MeasureOptions.default
        options.reconstruction.scale = scale
        return try measureScan(at: path, options: options).report
      }
      let base = try measured(original, .depth), scaled = try measured(long, .depth)
      let focal = try #require(scaled.verdict?.checks.focalLengthDeviationPercent)
      let baseFocal = try #require(base.verdict?.checks.focalLengthDeviationPercent)
      let line = String(
        format: "depth ×1.01, depth's scale: circumference %.2f against %.2f mm (%+.2f %%), CVAI %.3f against %.3f, CI %.3f against %.3f, focal deviation %.2f %% against %.2f %%",
        scaled.circumference, base.circumference, 100 * (scaled.circumference / base.circumference - 1), scaled.cvai, base.cvai,
        scaled.ci, base.ci, focal, baseFocal)
      print(line)
      #expect(abs(scaled.circumference / base.circumference - 1.01) <= 0.002, "\(line)")
      #expect(abs(scaled.cvai - base.cvai) <= 0.15 && abs(scaled.ci - base.ci) <= 0.15, "\(line)")
      #expect(abs(focal - baseFocal - 1) <= 0.25 && scaled.verdict?.usable == false, "\(line)")
      #expect(scaled.verdict?.reasons.contains { $0.hasPrefix("focal length") } == true, "\(line)")
      // The stickers see the depth's 1 %.
      let baseScale = try #require(base.scale), longScale = try #require(scaled.scale)
      #expect(abs(longScale.depthScaleFactor / baseScale.depthScaleFactor - 1.01) <= 0.001, "×\(longScale.depthScaleFactor) against ×\(baseScale.depthScaleFactor)")

      let baseMarkers = try measured(original, .markers), longMarkers = try measured(long, .markers)
      let markersLine = String(
        format: "depth ×1.01, stickers' scale: circumference %.2f against %.2f mm (%+.3f %%), CVAI %.3f against %.3f",
        longMarkers.circumference, baseMarkers.circumference, 100 * (longMarkers.circumference / baseMarkers.circumference - 1),
        longMarkers.cvai, baseMarkers.cvai)
      print(markersLine)
      #expect(abs(longMarkers.circumference / baseMarkers.circumference - 1) <= 0.002, "\(markersLine)")
      #expect(abs(longMarkers.cvai - baseMarkers.cvai) <= 0.15, "\(markersLine)")
      // Default: the long scan's 1.4 % is well outside the stickers' interval, and applied.
      #expect(try measured(long, .auto).scale?.applied == true)
    }
  }
}
