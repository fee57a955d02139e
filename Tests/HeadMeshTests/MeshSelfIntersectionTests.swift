import Foundation
@testable import HeadMesh
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// No two triangles of a mesh `extractMesh` makes intersect (``MeshIntersections``' exact test):
/// the marching tetrahedra's vertices stay inside their grid edges, and a smoothing move of a
/// filled vertex that makes triangles intersect is undone.
struct MeshSelfIntersectionTests {
  /// A head the simulator makes.
  struct Head: CustomStringConvertible, Sendable {
    var name: String
    var cranialIndex: Double
    var cvai: Double
    var side: HeadShape.FlattenedQuarter = .right
    var seed: UInt64

    var description: String { "\(name) (CI \(cranialIndex), CVAI \(cvai), seed \(seed))" }
  }

  /// The marching tetrahedra keep every vertex at least ``MarchingTetrahedra/cornerMargin`` of
  /// its edge from the edge's ends, in order along the edge.
  @Test func verticesStayInsideTheirGridEdges() throws {
    let m = MarchingTetrahedra.cornerMargin
    var previous = -1.0
    for step in 0...1000 {
      let t = MarchingTetrahedra.keptOffCorners(Double(step) / 1000)
      #expect(t >= m && t <= 1 - m)
      #expect(t > previous)
      previous = t
    }
    #expect(MarchingTetrahedra.keptOffCorners(0.5) == 0.5)
    let grid = try ImplicitGrid(
      points: MeshExtractionTests.sphere(), spacing: 0.002, supportRadius: MeshOptions.default.supportRadius * 0.002,
      maximumVertices: MeshOptions.default.maximumGridVertices)
    let raw = MarchingTetrahedra.extract(grid)
    #expect(!raw.triangles.isEmpty)
    #expect(raw.edges.allSatisfy { Double($0.fraction) >= m * 0.999 && Double($0.fraction) <= 1 - m * 0.999 })
    #expect(MeshIntersections(TriangleMesh(positions: raw.positions, triangles: raw.triangles)).count == 0)
  }

  /// A move that makes two triangles cross is undone; one that does not is kept.
  @Test func smoothingMovesThatMakeTrianglesCrossAreUndone() {
    // Two triangles one above the other, 0.1 apart, and a third far off.
    let before: [SIMD3<Float>] = [
      [0, 0, 0], [1, 0, 0], [0, 1, 0],
      [0.2, 0.2, 0.1], [0.8, 0.2, 0.1], [0.2, 0.8, 0.1],
      [5, 5, 5], [6, 5, 5], [5, 6, 5],
    ]
    var mesh = TriangleMesh(positions: before, triangles: [SIMD3(0, 1, 2), SIMD3(3, 4, 5), SIMD3(6, 7, 8)])
    #expect(MeshIntersections(mesh).count == 0)
    mesh.positions[3].z = -0.1  // through the first triangle
    mesh.positions[6].z = 5.5  // harmless
    #expect(MeshIntersections(mesh).count == 1)
    #expect(mesh.undoMovesThatIntersect(before: before) == 1)
    #expect(MeshIntersections(mesh).count == 0)
    #expect(mesh.positions[3] == before[3])
    #expect(mesh.positions[6].z == 5.5)
  }

  /// Heads of every type the simulator makes, meshed at the default 2 mm (the filled vertices
  /// smoothed, as `reconstruct --mesh` writes them) and without smoothing (every vertex on its
  /// grid edge): closed, manifold and free of intersecting triangles.
  @Test(arguments: [
    Head(name: "normal", cranialIndex: 80, cvai: 0, seed: 1),
    Head(name: "plagiocephaly, right", cranialIndex: 84, cvai: 8, seed: 2),
    Head(name: "plagiocephaly, left", cranialIndex: 82, cvai: 12, side: .left, seed: 3),
    Head(name: "brachycephaly", cranialIndex: 95, cvai: 1, seed: 4),
    Head(name: "dolichocephaly", cranialIndex: 72, cvai: 0, seed: 5),
  ])
  func noTwoTrianglesOfAHeadsMeshIntersect(head: Head) throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions(preset: .default)
      o.frames = 24
      o.seed = head.seed
      o.head = .init(cranialIndex: head.cranialIndex, cvai: head.cvai, flattenedSide: head.side)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      _ = try simulateScan(o, to: path, format: .stream)
      var options = ReconstructionOptions.default
      options.fusion.method = .signedDistance
      let cloud = try reconstructHead(try openScan(at: path), options: options).cloud
      var unsmoothed = MeshOptions.default
      unsmoothed.fillSmoothing = 0
      var meshes: [TriangleMesh] = []
      for meshOptions in [MeshOptions.default, unsmoothed] {
        let extraction = try extractMesh(from: cloud, options: meshOptions)
        let pairs = MeshIntersections(extraction.mesh)
        #expect(pairs.count == 0, "\(head), smoothing \(meshOptions.fillSmoothing): triangles \(pairs.pairs.prefix(5))")
        #expect(extraction.topology.isWatertight, "\(head): \(extraction.topology)")
        #expect(extraction.topology.eulerCharacteristic == 2, "\(head): \(extraction.topology)")
        meshes.append(extraction.mesh)
      }
      // What the smoothing alone would leave, and how many of its moves were undone.
      var smoothed = meshes[1]
      smoothed.smoothFilledVertices(rounds: MeshOptions.default.fillSmoothing)
      let undone = (0..<smoothed.vertexCount).filter { smoothed.positions[$0] != meshes[0].positions[$0] }.count
      print("\(head): \(meshes[0].triangleCount) triangles; the smoothing alone leaves \(MeshIntersections(smoothed).count) intersecting pairs, \(undone) vertices put back")
    }
  }
}
