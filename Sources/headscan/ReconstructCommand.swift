import ArgumentParser
import Foundation
import PointCloud
import Registration
import ScanIO
import _HeadScanSupport

/// `headscan reconstruct SCAN -o CLOUD.ply` (contract §6).
struct ReconstructCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reconstruct",
    abstract: "Register a scan's frames through the cap markers and fuse them into one head point cloud.",
    discussion: """
      Writes a binary little-endian PLY (x y z in metres in the world frame of contract §5 —
      the lowest registered marker id's own frame — normals, colour), atomically.

      Examples:
        headscan reconstruct fixtures/scans/orbit-small -o head.ply
        headscan reconstruct scan.rgbdscan -o head.ply --json registration.json
        headscan reconstruct scan.rgbdscan -o head.ply -v    # each stage's time and counts
      """)

  @Argument(help: "A .rgbdscan file or a TUM-style scan folder.")
  var scan: String

  @Option(name: .shortAndLong, help: "The point cloud to write (.ply).")
  var output: String

  @Option(help: "Also write the registration summary as JSON.")
  var json: String?

  @Option(help: "Voxel size of the fused cloud, mm.")
  var voxel: Double = 1

  @Flag(help: "Refine each frame by ICP against the model fused so far, where that lowers its distance to it (slower).")
  var icp = false

  @Option(help: "Fusion: voxel-mean (points averaged per voxel, the default) or signed-distance (a truncated signed-distance volume: averages depth noise along the surface normal).")
  var fusion: FusionMethod = .voxelMean

  @OptionGroup(title: "Scan input") var input: ScanInputOptions

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard voxel >= 0.2, voxel <= 10 else { throw ValidationError("--voxel must be 0.2…10 mm") }
    if icp && fusion == .signedDistance { throw ValidationError("--icp works with --fusion voxel-mean only") }
  }

  struct Summary: Encodable {
    struct Rejected: Encodable {
      var frame: Int
      var reason: String
    }
    struct Outlier: Encodable {
      var frame: Int
      var id: Int
    }
    var frames: Int
    var framesRegistered: Int
    var markers: Int
    var markersRegistered: Int
    var worldMarker: Int
    var cornerRMS: Double
    var points: Int
    var offCapDetections: Int
    var framesRefinedByICP: Int
    /// Frames with too little depth placed from their stickers' pixels against the map.
    var framesPlacedByResection: Int
    /// Detections left out for lying more than 1 cm from where their frame's other markers put
    /// them (a misread id or a wrongly lifted sticker).
    var outliers: [Outlier]
    var rejected: [Rejected]
    /// Wall-clock seconds per stage.
    var seconds: [String: Double]
  }

  func run() throws {
    try reportingErrors {
      for path in [output, json].compactMap({ $0 }) { try checkOutput(path, isNot: [scan]) }
      try AtomicFile.checkFolder(of: output)
      let reader = try openScan(at: scan, options: try input.openOptions())
      for warning in reader.warnings { printWarning(warning.description, options: global) }
      var options = ReconstructionOptions.default
      options.fusion.voxelSize = voxel / 1000
      options.fusion.icpRefinement = icp
      options.fusion.method = fusion
      let result = try naming(scan) { try reconstructHead(reader, options: options, progress: stageProgress(global)) }
      try AtomicFile.write(PLYFormat.encode(result.cloud, comment: "headscan reconstruct \(scan)"), to: output)
      let rejected = result.frames.compactMap { f in f.rejection.map { Summary.Rejected(frame: f.index, reason: $0.description) } }
      let summary = Summary(
        frames: result.frames.count, framesRegistered: result.framesRegistered, markers: result.markersDetected.count,
        markersRegistered: result.markers.count, worldMarker: result.worldMarkerID, cornerRMS: result.cornerRMS * 1000,
        points: result.cloud.count, offCapDetections: result.offCapDetections,
        framesRefinedByICP: result.frames.filter(\.refinedByICP).count,
        framesPlacedByResection: result.frames.filter(\.placedByResection).count,
        outliers: result.frames.flatMap { f in f.outlierIDs.map { Summary.Outlier(frame: f.index, id: $0) } }, rejected: rejected,
        seconds: [
          "detection": result.timings.detection, "registration": result.timings.registration, "fusion": result.timings.fusion,
          "cleaning": result.timings.cleaning, "settling": result.timings.settling, "total": result.timings.total,
        ])
      if let json { try writeJSON(summary, to: json) }
      print(render(summary, result: result))
    }
  }

  func render(_ s: Summary, result: HeadReconstruction) -> String {
    var lines = [
      "frames      \(s.framesRegistered) of \(s.frames) registered",
      "markers     \(s.markersRegistered) of \(s.markers) detected ids registered; world = marker \(s.worldMarker)",
      String(format: "residual    corner RMS %.2f mm", s.cornerRMS),
      "cloud       \(s.points) points → \(output)",
    ]
    let rejections = result.frames.compactMap(\.rejection)
    let reasons = Dictionary(grouping: rejections, by: \.kind).map { "\($0.value.count) × \($0.key)" }.sorted()
    if !reasons.isEmpty { lines.append("rejected    " + reasons.joined(separator: ", ") + " (per frame: --json)") }
    let pnp = result.frames.reduce(0) { $0 + $1.liftedByPnP }, depth = result.frames.reduce(0) { $0 + $1.liftedByDepth }
    lines.append("lifting     \(depth) markers by depth, \(pnp) by PnP (no depth)")
    if s.framesPlacedByResection > 0 {
      lines.append("resection   \(s.framesPlacedByResection) frames with too little depth placed from their stickers' pixels")
    }
    if icp { lines.append("ICP         \(s.framesRefinedByICP) frames moved onto the model") }
    if s.offCapDetections > 0 { lines.append("ignored     \(s.offCapDetections) detections with ids not on the cap") }
    if !s.outliers.isEmpty {
      lines.append(
        "ignored     \(s.outliers.count) detections more than 1 cm from where their frame's other markers put them (misread id or bad depth; --json)")
    }
    if global.verbose { lines += result.stages.map(Self.render) }
    let t = result.timings
    lines.append(
      String(
        format: "time        %.1f s: detection %.1f, registration %.1f, fusion %.1f, cleaning %.1f, settling %.1f (%.0f frames/s)",
        t.total, t.detection, t.registration, t.fusion, t.cleaning, t.settling, Double(s.frames) / max(t.total, 1e-9)))
    return lines.joined(separator: "\n")
  }

  /// One stage's line for `--verbose`: its time and its diagnostics counts.
  static func render(_ stage: StageReport) -> String {
    let name = (stage.stage + ":").padding(toLength: 14, withPad: " ", startingAt: 0)
    let counts = stage.counts.map { "\($0.label) \($0.value)" }.joined(separator: ", ")
    return String(format: "stage       %@ %6.2f s  %@", name, stage.seconds, counts)
  }
}

extension FusionMethod: ExpressibleByArgument {}
