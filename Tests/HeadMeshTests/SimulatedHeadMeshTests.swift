import Foundation
import HeadMesh
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// The mesh of simulated scans, fused by signed distance, against the simulator's exact head
/// and against the measures of the cloud it was made from.
struct SimulatedHeadMeshTests {
  /// What one simulated scan's mesh scores.
  struct Scores {
    var topology: MeshTopology
    var vertices: Int
    var filledFraction: Double
    /// RMS distance to the exact surface, mm, of the mesh's vertices and of the cloud's points on
    /// the vault (8 mm and more above the ears' plane: contract §4; where `evaluate` scores the
    /// cloud), after the rigid alignment of the registered markers onto the truth.
    var meshRMS: Double
    var cloudRMS: Double
    var filledOnVault: Int
    var verticesOnVault: Int
    /// Mesh − cloud: CVAI (points) and circumference (mm), both measured by `measure`'s slicing in
    /// the landmarks' head frame, the mesh through a dense sampling of its measured triangles.
    var cvaiDifference: Double
    var circumferenceDifference: Double
  }

  /// Simulates a 30-frame orbit of a plagiocephalic head (CI 84, CVAI 6), reconstructs it with
  /// signed-distance fusion, meshes the cloud (default 2 mm grid) and scores it.
  static func score(preset: SimulationPreset, spacings: [Double]) throws -> [Scores] {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions(preset: preset)
      o.frames = 30
      o.seed = 8
      o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      var options = MeasureOptions.default
      options.bootstrap = false
      options.reconstruction.fusion.method = .signedDistance
      let measured = try measureScan(at: path, options: options)
      let reconstruction = measured.reconstruction
      return try spacings.map { spacing in
      var meshOptions = MeshOptions.default
      meshOptions.gridSpacing = spacing
      let extraction = try extractMesh(from: reconstruction.cloud, options: meshOptions)
      let mesh = extraction.mesh

      // The truth's head frame from the estimate's world: the best fit of the markers' corners.
      let truthMarkers = Dictionary(uniqueKeysWithValues: simulated.truth.markers.map { ($0.id, $0) })
      let pairs = reconstruction.markers.compactMap { m in truthMarkers[m.id].map { (m.corners, $0.corners) } }
      let headFromWorld = try #require(RigidTransform.bestFit(from: pairs.flatMap(\.0), to: pairs.flatMap(\.1))).transform
      let head = HeadShape(solving: simulated.truth.parameters)
      let modelFromWorld = head.clinicalFrame.worldFromHead * headFromWorld
      func vaultRMS(_ points: [SIMD3<Float>]) -> (rms: Double, count: Int) {
        let distances = points.map(SIMD3<Double>.init).filter { headFromWorld.apply($0).z >= HeadShape.bumpCeiling }
          .map { head.surfaceDistance(modelFromWorld.apply($0)) }
        return ((distances.map { $0 * $0 }.reduce(0, +) / Double(max(1, distances.count))).squareRoot() * 1000, distances.count)
      }
      let onVault = mesh.positions.indices.filter { headFromWorld.apply(SIMD3<Double>(mesh.positions[$0])).z >= HeadShape.bumpCeiling }

      let sampled = mesh.sampledPoints(spacing: 0.0007)
      let onMesh = try measured.headFrame.measure(sampled).measures
      let onCloud = measured.measurement.measures
      return Scores(
        topology: extraction.topology, vertices: mesh.vertexCount, filledFraction: extraction.filledFraction,
        meshRMS: vaultRMS(mesh.positions).rms, cloudRMS: vaultRMS(reconstruction.cloud.positions).rms,
        filledOnVault: onVault.filter { mesh.filled[$0] }.count, verticesOnVault: onVault.count,
        cvaiDifference: onMesh.cvai - onCloud.cvai, circumferenceDifference: onMesh.circumference - onCloud.circumference)
      }
    }
  }

  // The realistic preset (docs/method.md) takes as long again: measured by hand, not here.
  // Neither grid meets everything yet (docs/method.md): the 2 mm default is of a sphere's
  // topology but reads the circumference 0.65 mm short (the local planes' bias on a convex
  // surface grows with the support); 1 mm measures like the cloud but keeps a few handles.
  @Test(arguments: [SimulationPreset.default])
  func theMeshIsClosedAccurateAndMeasuresLikeTheCloud(preset: SimulationPreset) throws {
    let scores = try Self.score(preset: preset, spacings: [0.002, 0.001])
    for (spacing, s) in zip([2, 1], scores) {
      print(
        String(
          format: "%@ at %d mm: %d vertices, %.1f %% filled (%d of %d on the vault); vault RMS mesh %.3f mm, cloud %.3f mm; mesh − cloud: CVAI %+.3f, circumference %+.3f mm; %@",
          preset.rawValue, spacing, s.vertices, 100 * s.filledFraction, s.filledOnVault, s.verticesOnVault, s.meshRMS, s.cloudRMS,
          s.cvaiDifference, s.circumferenceDifference, s.topology.description))
      #expect(s.topology.isClosedManifold, "\(s.topology)")
      #expect(s.topology.pieces == 1)
      // The big holes are under the cap edge and at the neck; on the vault the cap covers only
      // small gaps between the frames' depth are filled.
      #expect(s.filledFraction > 0.05 && Double(s.filledOnVault) < 0.05 * Double(s.verticesOnVault))
      #expect(s.meshRMS < 0.3)
      #expect(abs(s.cvaiDifference) <= 0.1)
    }
    #expect(scores[0].topology.eulerCharacteristic == 2)
    #expect(abs(scores[1].circumferenceDifference) <= 0.3)
  }
}
