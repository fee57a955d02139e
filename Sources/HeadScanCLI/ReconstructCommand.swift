import ArgumentParser
import Foundation
import HeadMesh
import HeadScan
import PointCloud
import Registration
import ScanIO
import _HeadScanSupport

/// `headscan reconstruct SCAN -o CLOUD.ply` (docs/command-line.md).
struct ReconstructCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reconstruct",
    abstract: "Register a scan's frames through the cap markers and fuse them into one head point cloud.",
    discussion: """
      Writes a binary little-endian PLY (x y z in metres in the world frame — the lowest registered marker id's own frame — normals, colour), atomically.

      Examples:
        headscan reconstruct fixtures/scans/orbit-small -o head.ply
        headscan reconstruct scan.rgbdscan -o head.ply --json registration.json
        headscan reconstruct scan.rgbdscan -o head.ply -v    # each stage's time and counts
        headscan reconstruct scan.rgbdscan -o head.ply --fusion signed-distance --mesh head-mesh.ply
        headscan reconstruct scan.rgbdscan -o head.ply --mesh head.stl --head-frame --millimetres   # for CAD

      --mesh also writes a closed, manifold triangle mesh of the fused surface (PLY with colours and a per-vertex `filled` flag marking the closed holes, binary STL, or OBJ with vertex colours), in metres in the world frame unless --head-frame (docs/head-frame-and-measures.md, from the landmarks) or --millimetres say otherwise.
      """)

  @Argument(help: "A scan: a .rgbdscan file, a TUM-style folder or a Record3D .r3d export.")
  var scan: String

  @Option(name: .shortAndLong, help: "The point cloud to write (.ply).")
  var output: String

  @Option(help: "Also write the registration summary as JSON.")
  var json: String?

  @Option(help: "Voxel size of the fused cloud, \(optionRange(OptionBounds.voxel, unit: "mm")) (signed-distance fusion needs at least a depth pixel's footprint, ~0.5 mm at 30 cm for 640 px; use --fusion voxel-mean for finer).")
  var voxel: Double = 1

  @Flag(help: "Refine each frame by ICP against the model fused so far, where that lowers its distance to it (slower).")
  var icp = false


  @OptionGroup(title: "Depth lifting") var depthLifting: FocalLengthOption
  @OptionGroup(title: "Marker detection") var detection: DetectionOption

  @OptionGroup(title: "Fusion") var fusionChoice: FusionChoice

  @Option(help: "Also write a closed triangle mesh of the head: .ply (colours, per-vertex `filled` flag), .stl or .obj.")
  var mesh: String?

  @Option(help: "Grid spacing of the mesh, \(optionRange(OptionBounds.meshSpacing, unit: "mm")) (finer follows noise and may leave handles: docs/head-mesh.md).")
  var meshSpacing: Double = 2

  @Option(help: "Keep the mesh at or under this many triangles, \(optionRange(OptionBounds.meshTriangles)) (extracted on a coarser grid).")
  var meshTriangles: Int?

  @Flag(help: "Write the mesh in the head frame (origin between the ears, x forward, z up), from the landmarks.")
  var headFrame = false

  @Option(help: "The landmarks file for --head-frame (docs/formats.md); default SCAN's name with .landmarks.json.")
  var landmarks: String?

  @Flag(help: "Write the mesh in millimetres instead of metres.")
  var millimetres = false

  @OptionGroup(title: "Scan input") var input: ScanInputOptions
  @OptionGroup(title: "De-identification") var deidentification: DeidentifyOptions

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    if let mesh, MeshFileFormat(path: mesh) == nil { throw ValidationError("--mesh must end in .ply, .stl or .obj") }
    if mesh == nil && (headFrame || millimetres || meshTriangles != nil) {
      throw ValidationError("--head-frame, --millimetres and --mesh-triangles go with --mesh")
    }
    if landmarks != nil && !headFrame && !deidentification.deidentify { throw ValidationError("--landmarks goes with --head-frame or --deidentify") }
    try checkOption(meshSpacing, "--mesh-spacing", OptionBounds.meshSpacing, unit: "mm")
    if mesh == nil && meshTriangles != nil { throw ValidationError("--mesh-triangles goes with --mesh") }
    if mesh == nil && meshSpacing != 2 { throw ValidationError("--mesh-spacing goes with --mesh") }
    try checkOption(meshTriangles, "--mesh-triangles", OptionBounds.meshTriangles)
    try checkOption(voxel, "--voxel", OptionBounds.voxel, unit: "mm")
    if icp && fusionChoice.fusion == .signedDistance { throw ValidationError("--icp works with --fusion voxel-mean only") }
  }

  func run() throws {
    try reportingErrors {
      let landmarksInput = landmarks ?? companionBase(of: scan) + ".landmarks.json"
      try checkOutputs(
        [("--output", output), ("--json", json), ("--mesh", mesh)],
        isNot: [scan, landmarksInput] + input.inputFiles(forScan: scan) + deidentification.inputFiles)
      input.warnIfCapUnused(forScan: scan, global)
      let reader = try openScan(at: scan, options: try input.openOptions())
      for warning in reader.warnings { printWarning(warning.description, options: global) }
      // The landmarks are read and checked before the long work starts.
      let deidentified = try deidentification.header()
      let landmarksPath = headFrame || deidentified != nil ? (landmarks ?? LandmarkSource.besideScan.path(forScan: scan)) : nil
      if deidentified != nil, let landmarksPath, !FileManager.default.fileExists(atPath: landmarksPath) {
        throw CommandError("\(scan): cannot locate the face: no landmarks file \(landmarksPath)")
      }
      let landmarksFile = try landmarksPath.map { ($0, try LandmarkFile(path: $0)) }
      if let (path, file) = landmarksFile { try checkLandmarks(file, path: path, scan: reader) }
      var options = ReconstructionOptions.default
      options.fusion.voxelSize = voxel / 1000
      options.fusion.icpRefinement = icp
      options.fusion.method = fusionChoice.fusion
      options.fusion.maximumFrames = try fusionChoice.maximumFrames()
      options.focalLength = depthLifting.focalLength
      options.scale = depthLifting.scale
      detection.apply(to: &options.observation)
      options.workers = workers.jobs
      let result = try naming(scan) { try reconstructHead(reader, options: options, progress: stageProgress(global)) }
      let face = try deidentified.map { _ in try faceRegion(of: result, scan: reader, landmarks: landmarksFile) }
      let cloud = face.map { result.cloud.removingFace($0) } ?? result.cloud
      let summary = ReconstructionReport(result, fusion: options.fusion)
      // The mesh (and its head frame) is made before any file is written, so a mesh that cannot
      // be made leaves the user's existing cloud, mesh and report as they were.
      let meshMade = try mesh.map { try makeMesh(of: result, cloud: cloud, for: $0, scan: reader, landmarks: headFrame ? landmarksFile : nil, face: face) }
      try AtomicFile.write(PLYFormat.encode(cloud, comment: "headscan reconstruct \(scan)"), to: output)
      if let mesh, let meshMade { try meshMade.mesh.write(to: mesh, comment: meshMade.comment) }
      if let json { try writeJSON(summary, to: json) }
      print(render(summary, result: result) + (meshMade.map { "\n" + $0.line } ?? ""))
    }
  }

  func render(_ s: ReconstructionReport, result: HeadReconstruction) -> String {
    var lines = [
      "frames      \(s.framesRegistered) of \(s.frames) registered"
        + (s.framesFused < s.framesRegistered ? ", \(s.framesFused) fused" : ""),
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
      let limit = s.noise.outlierDistance.map { String(format: "%.1f mm", $0) } ?? "a printed side"
      lines.append(
        "ignored     \(s.outliers.count) detections more than \(limit) (this scan's limit) from where their frame's other markers put them (misread id or bad depth; --json)")
    }
    if let at20 = result.noise.depthNoise(atDistance: 0.2), let at30 = result.noise.depthNoise(atDistance: 0.3) {
      lines.append(
        String(
          format: "noise       depth σ %.2f mm at 20 cm, %.2f mm at 30 cm (estimated from %d sticker views)",
          at20 * 1000, at30 * 1000, s.noise.depthSamples))
      if let band = s.noise.signedDistanceBand, let far = s.noise.farDepth {
        lines.append(String(format: "fusion      signed-distance band ± %.1f mm (the depth noise at %.0f cm, the far stickers' depth)", band, far / 10))
      }
    }
    lines += focalLengthLines(result.intrinsicsCheck, used: result.focalLengthUsed, scale: result.scale)
    if global.verbose { lines += result.stages.map(Self.render) }
    let t = result.timings
    lines.append(
      String(
        format: "time        %.1f s: detection %.1f, registration %.1f, fusion %.1f, cleaning %.1f, settling %.1f (%.0f frames/s)",
        t.total, t.detection, t.registration, t.fusion, t.cleaning, t.settling, Double(s.frames) / max(t.total, 1e-9)))
    return lines.joined(separator: "\n")
  }

  /// Meshes `cloud` (the fused cloud as written, the face taken out when de-identifying) and moves
  /// it into the frame and unit asked for; returns it with the comment to write in its file and the
  /// line to print (`path` names the file it will be written to).
  func makeMesh(
    of result: HeadReconstruction, cloud: PointSet, for path: String, scan reader: any ScanReader, landmarks: (String, LandmarkFile)?,
    face: FaceRegion? = nil
  ) throws -> (mesh: TriangleMesh, comment: String, line: String) {
    var options = MeshOptions.default
    options.gridSpacing = meshSpacing / 1000
    options.targetTriangleCount = meshTriangles
    let extraction: MeshExtraction
    do {
      extraction = try extractMesh(from: cloud, options: options)
    } catch {
      throw CommandError("\(scan): \(error)")
    }
    var headFromWorld = RigidTransform.identity
    if let (landmarksPath, file) = landmarks {
      headFromWorld = try HeadFrameEstimate.fromLandmarks(file, path: landmarksPath, scan: reader, reconstruction: result).headFromWorld
    }
    let frame = landmarks == nil ? "world frame" : "head frame", unit = millimetres ? "millimetres" : "metres"
    let mesh = face.map { face in extraction.mesh.removingTriangles { face.contains(SIMD3<Double>($0)) } } ?? extraction.mesh
    let written = mesh.transformed(by: headFromWorld, scale: millimetres ? 1000 : 1)
    // The mesh as written: where the face was removed its topology and filled share are counted
    // on what is left; where the move to the head frame or millimetres rounded the positions
    // anew, its self-intersections are counted again.
    let t = face == nil ? extraction.topology : MeshTopology(written)
    let pairs = face != nil || written.positions == extraction.mesh.positions ? t.selfIntersectingPairs : MeshIntersections(written).count
    let line = String(
      format: "mesh        %d vertices, %d triangles (%.1f %% filled), %@, Euler characteristic %d, self-intersecting pairs: %d, %@ in %@ → %@",
      written.vertexCount, written.triangleCount, 100 * written.filledFraction, t.isClosedManifold ? "closed manifold" : "NOT closed",
      t.eulerCharacteristic, pairs, unit, frame, path) + (face == nil ? "" : " (de-identified: the face's triangles removed, open there)")
    return (written, "headscan reconstruct \(scan): \(frame), \(unit)", line)
  }

  /// `--deidentify`: where the face lies, from the landmarks' head frame.
  func faceRegion(of result: HeadReconstruction, scan reader: any ScanReader, landmarks: (String, LandmarkFile)?) throws -> FaceRegion {
    guard let (landmarksPath, file) = landmarks else { throw CommandError("\(scan): cannot locate the face without landmarks") }
    do {
      return FaceRegion(headFromWorld: try HeadFrameEstimate.fromLandmarks(file, path: landmarksPath, scan: reader, reconstruction: result).headFromWorld)
    } catch {
      throw CommandError("\(scan): cannot locate the face: \(error)")
    }
  }

  /// One stage's line for `--verbose`: its time and its diagnostics counts.
  static func render(_ stage: StageReport) -> String {
    let name = (stage.stage + ":").padding(toLength: 14, withPad: " ", startingAt: 0)
    let counts = stage.counts.map { "\($0.label) \($0.value)" }.joined(separator: ", ")
    let cpu = stage.processorSeconds.map { String(format: " (CPU %.2f s)", $0) } ?? ""
    return String(format: "stage       %@ %6.2f s%@  %@", name, stage.seconds, cpu, counts)
  }
}

extension FusionMethod: ExpressibleByArgument {}
