import Foundation
import HeadMesh
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// The mesh of simulated scans, fused by signed distance, against the simulator's exact head
/// and against the measures of the cloud it was made from (the targets of docs/head-mesh.md, "Accuracy").
struct SimulatedHeadMeshTests {
  /// One simulated scan: preset, frames and head.
  struct Conditions: CustomStringConvertible, Sendable {
    var preset: SimulationPreset
    var frames: Int
    var cranialIndex: Double
    var cvai: Double
    var seed: UInt64 = 8

    var description: String {
      String(format: "%@, %d frames, CI %.0f, CVAI %.0f, seed %d", preset.rawValue, frames, cranialIndex, cvai, seed)
    }
  }

  /// What one simulated scan's mesh scores.
  struct Scores {
    var topology: MeshTopology
    var vertices: Int
    var triangles: Int
    var filledFraction: Double
    /// RMS distance to the exact surface, mm, of the mesh's vertices and of the cloud's points on
    /// the vault (8 mm and more above the ears' plane, where `evaluate` scores the
    /// cloud), after the rigid alignment of the registered markers onto the truth.
    var meshRMS: Double
    var cloudRMS: Double
    var filledOnVault: Int
    var verticesOnVault: Int
    /// RMS distance to the exact surface, mm, of the measured (not filled) vertices and of the
    /// cloud's points within 2 cm of the nose tip and of either tragion: the detail a wider
    /// support would round off.
    var meshDetailRMS: Double
    var cloudDetailRMS: Double
    /// Mesh − cloud: CVAI (points) and circumference (mm), both measured by `measure`'s slicing in
    /// the landmarks' head frame, the mesh through a dense sampling of its measured triangles.
    var cvaiDifference: Double
    var circumferenceDifference: Double
    /// Against the exact head measured alike (its surface sampled densely, moved into the
    /// estimate's world, measured in the same head frame), when asked for: circumference (mm) and
    /// CVAI of the mesh and of the cloud minus the exact head's, and of the cloud's own points
    /// moved onto the exact surface (what the cloud's sampling alone adds).
    var againstExact: (mesh: (hc: Double, cvai: Double), cloud: (hc: Double, cvai: Double), cloudSampling: (hc: Double, cvai: Double))?
    /// Wall-clock seconds of the extraction (grid, triangles, finishing).
    var seconds: Double

    func line(_ conditions: Conditions, options: MeshOptions = .default) -> String {
      let exact = againstExact.map {
        String(
          format: "; − exact: mesh circumference %+.3f mm CVAI %+.3f, cloud %+.3f mm %+.3f, the cloud's sampling %+.3f mm %+.3f", $0.mesh.hc,
          $0.mesh.cvai, $0.cloud.hc, $0.cloud.cvai, $0.cloudSampling.hc, $0.cloudSampling.cvai)
      }
      return String(
        format: "%@ at %.1f mm, support %.1f spacings: %d vertices, %d triangles, %.1f %% filled (%d of %d on the vault); vault RMS mesh %.3f mm, cloud %.3f mm; nose and ears RMS mesh %.3f mm, cloud %.3f mm; mesh − cloud: CVAI %+.3f, circumference %+.3f mm; %.1f s; %@%@",
        conditions.description, options.gridSpacing * 1000, options.supportRadius, vertices, triangles, 100 * filledFraction, filledOnVault, verticesOnVault, meshRMS,
        cloudRMS, meshDetailRMS, cloudDetailRMS, cvaiDifference, circumferenceDifference, seconds, topology.description, exact ?? "")
    }
  }

  /// Simulates the scan, reconstructs it with signed-distance fusion, meshes the cloud with
  /// each of `meshes` and scores each mesh.
  static func score(_ conditions: Conditions, meshes: [MeshOptions] = [.default], againstExact: Bool = false) throws -> [Scores] {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions(preset: conditions.preset)
      o.frames = conditions.frames
      o.seed = conditions.seed
      o.head = .init(cranialIndex: conditions.cranialIndex, cvai: conditions.cvai, flattenedSide: .right)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      var options = MeasureOptions.default
      options.bootstrap = false
      options.reconstruction.fusion.method = .signedDistance
      let measured = try measureScan(at: path, options: options)
      let reconstruction = measured.reconstruction
      // The truth's head frame from the estimate's world: the best fit of the markers' corners.
      let truthMarkers = Dictionary(uniqueKeysWithValues: simulated.truth.markers.map { ($0.id, $0) })
      let pairs = reconstruction.markers.compactMap { m in truthMarkers[m.id].map { (m.corners, $0.corners) } }
      let headFromWorld = try #require(RigidTransform.bestFit(from: pairs.flatMap(\.0), to: pairs.flatMap(\.1))).transform
      let head = HeadShape(solving: simulated.truth.parameters)
      let modelFromWorld = head.clinicalFrame.worldFromHead * headFromWorld
      func vaultRMS(_ points: [SIMD3<Float>]) -> Double {
        let distances = points.map(SIMD3<Double>.init).filter { headFromWorld.apply($0).z >= HeadShape.bumpCeiling }
          .map { head.surfaceDistance(modelFromWorld.apply($0)) }
        return (distances.map { $0 * $0 }.reduce(0, +) / Double(max(1, distances.count))).squareRoot() * 1000
      }
      let landmarks = head.landmarks
      func detailRMS(_ points: [SIMD3<Float>]) -> Double {
        let distances = points.map { modelFromWorld.apply(SIMD3<Double>($0)) }
          .filter { q in [landmarks.noseTip, landmarks.leftEar, landmarks.rightEar].contains { (q - $0).length < 0.02 } }
          .map { head.surfaceDistance($0) }
        return (distances.map { $0 * $0 }.reduce(0, +) / Double(max(1, distances.count))).squareRoot() * 1000
      }
      let onCloud = measured.measurement.measures
      var onExact: HeadShapeMeasures?
      var onMoved: HeadShapeMeasures?
      if againstExact {
        let worldFromModel = modelFromWorld.inverse
        var surface = PointSet()
        for z in stride(from: -0.03, to: head.vertexHeight - 0.002, by: 0.00025) {
          for k in 0..<2880 {
            surface.positions.append(SIMD3<Float>(worldFromModel.apply(head.surfacePoint(z: z, phi: Double(k) / 2880 * 2 * .pi))))
          }
        }
        var moved = PointSet()
        moved.positions = reconstruction.cloud.positions.map { p in
          let q = modelFromWorld.apply(SIMD3<Double>(p))
          return SIMD3<Float>(worldFromModel.apply(q - head.surfaceDistance(q) * head.normal(at: q)))
        }
        onExact = try measured.headFrame.measure(surface).measures
        onMoved = try measured.headFrame.measure(moved).measures
      }
      return try meshes.map { meshOptions in
        let extraction = try extractMesh(from: reconstruction.cloud, options: meshOptions)
        let mesh = extraction.mesh
        // For a check by another program (docs/head-mesh.md, "Accuracy"): the mesh as
        // `reconstruct --mesh` writes it, named after the scan.
        if let folder = ProcessInfo.processInfo.environment["HEADSCAN_MESH_TABLE_WRITE"] {
          let name = "\(conditions.preset.rawValue)-\(conditions.frames)-ci\(Int(conditions.cranialIndex))-seed\(conditions.seed)-\(meshOptions.gridSpacing * 1000)mm"
          try mesh.write(to: folder + "/" + name + ".ply")
        }
        let onVault = mesh.positions.indices.filter { headFromWorld.apply(SIMD3<Double>(mesh.positions[$0])).z >= HeadShape.bumpCeiling }

        let sampled = mesh.sampledPoints(spacing: 0.0007)
        let onMesh = try measured.headFrame.measure(sampled).measures
        var exact: (mesh: (hc: Double, cvai: Double), cloud: (hc: Double, cvai: Double), cloudSampling: (hc: Double, cvai: Double))?
        if let onExact, let onMoved {
          func minusExact(_ m: HeadShapeMeasures) -> (hc: Double, cvai: Double) { (m.circumference - onExact.circumference, m.cvai - onExact.cvai) }
          exact = (minusExact(onMesh), minusExact(onCloud), minusExact(onMoved))
        }
        return Scores(
          topology: extraction.topology, vertices: mesh.vertexCount, triangles: mesh.triangleCount,
          filledFraction: extraction.filledFraction, meshRMS: vaultRMS(mesh.positions), cloudRMS: vaultRMS(reconstruction.cloud.positions),
          filledOnVault: onVault.filter { mesh.filled[$0] }.count, verticesOnVault: onVault.count,
          meshDetailRMS: detailRMS(mesh.positions.indices.filter { !mesh.filled[$0] }.map { mesh.positions[$0] }),
          cloudDetailRMS: detailRMS(reconstruction.cloud.positions),
          cvaiDifference: onMesh.cvai - onCloud.cvai, circumferenceDifference: onMesh.circumference - onCloud.circumference, againstExact: exact,
          seconds: extraction.seconds.grid + extraction.seconds.triangles + extraction.seconds.finishing)
      }
    }
  }

  /// The mesh's targets: closed, manifold, one piece of a sphere's topology, the big holes
  /// (under the cap edge, at the neck) filled but hardly any of the vault, within 0.3 mm RMS
  /// of the exact vault, and measuring within 0.1 CVAI point and 0.3 mm of circumference of
  /// the cloud.
  /// `measuresKnownIssue`: why the CVAI and circumference targets are recorded as a known issue.
  static func expectTargets(_ s: Scores, measuresKnownIssue: String? = nil) {
    #expect(s.topology.isClosedManifold, "\(s.topology)")
    #expect(s.topology.selfIntersectingPairs == 0, "\(s.topology)")
    #expect(s.topology.pieces == 1)
    #expect(s.topology.eulerCharacteristic == 2, "\(s.topology)")
    #expect(s.filledFraction > 0.05 && Double(s.filledOnVault) < 0.05 * Double(s.verticesOnVault))
    #expect(s.meshRMS < 0.3)
    if let measuresKnownIssue {
      withKnownIssue(Comment(rawValue: measuresKnownIssue), isIntermittent: true) {
        #expect(abs(s.cvaiDifference) <= 0.1)
        #expect(abs(s.circumferenceDifference) <= 0.3)
      }
    } else {
      #expect(abs(s.cvaiDifference) <= 0.1)
      #expect(abs(s.circumferenceDifference) <= 0.3)
    }
  }

  /// A small scan at the default grid spacing (the realistic preset and longer scans: the
  /// table below, run by hand; with HEADSCAN_MESH_TABLE set, also against the exact head).
  @Test func theDefaultMeshIsOfASpheresTopologyAccurateAndMeasuresLikeTheCloud() throws {
    let conditions = Conditions(preset: .default, frames: 30, cranialIndex: 84, cvai: 6)
    let s = try #require(try Self.score(conditions, againstExact: ProcessInfo.processInfo.environment["HEADSCAN_MESH_TABLE"] != nil).first)
    print(s.line(conditions))
    // This scan's mesh reads +0.007 CVAI point and −0.046 mm of circumference from its cloud.
    Self.expectTargets(s)
  }

  /// The table's seeds: HEADSCAN_MESH_TABLE_SEEDS (comma-separated), 8 by default.
  static let tableSeeds = (ProcessInfo.processInfo.environment["HEADSCAN_MESH_TABLE_SEEDS"] ?? "8").split(separator: ",").compactMap { UInt64($0) }

  /// The scans of docs/method.md's mesh table (minutes each): run with HEADSCAN_MESH_TABLE=1;
  /// each line also gives the mesh's and the cloud's measures against the exact head's. Each
  /// scan is meshed at every grid spacing of HEADSCAN_MESH_TABLE_SPACINGS (mm, 2 by default)
  /// with every support of HEADSCAN_MESH_TABLE_SUPPORTS (grid spacings, the default's by
  /// default); the targets are checked on the default mesh.
  @Test(
    .enabled(if: ProcessInfo.processInfo.environment["HEADSCAN_MESH_TABLE"] != nil, "the mesh table's scans: HEADSCAN_MESH_TABLE=1"),
    arguments: tableSeeds.flatMap { seed in
      [
        Conditions(preset: .default, frames: 36, cranialIndex: 84, cvai: 6, seed: seed),
        Conditions(preset: .realistic, frames: 150, cranialIndex: 84, cvai: 6, seed: seed),
        Conditions(preset: .default, frames: 36, cranialIndex: 92, cvai: 1, seed: seed),
        Conditions(preset: .realistic, frames: 150, cranialIndex: 92, cvai: 1, seed: seed),
      ]
    })
  func theMeshTablesScansMeetTheTargets(conditions: Conditions) throws {
    let environment = ProcessInfo.processInfo.environment
    let spacings = (environment["HEADSCAN_MESH_TABLE_SPACINGS"] ?? "2").split(separator: ",").compactMap { Double($0) }
    let supports = (environment["HEADSCAN_MESH_TABLE_SUPPORTS"]).map { $0.split(separator: ",").compactMap { Double($0) } } ?? [MeshOptions.default.supportRadius]
    let meshes = spacings.flatMap { spacing in
      supports.map { support in
        var options = MeshOptions.default
        options.gridSpacing = spacing / 1000
        options.supportRadius = support
        return options
      }
    }
    for (options, s) in zip(meshes, try Self.score(conditions, meshes: meshes, againstExact: true)) {
      print(s.line(conditions, options: options))
      if options == MeshOptions.default { Self.expectTargets(s) }
    }
  }
}
