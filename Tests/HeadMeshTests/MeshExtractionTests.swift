import Foundation
@testable import HeadMesh
import PointCloud
import Testing
import _TestSupport

/// Meshing an analytic shape: a sphere sampled with a hole cut out, whose exact surface is known.
struct MeshExtractionTests {
  static let radius: Float = 0.07

  /// Points on a sphere of ``radius`` (metres, centred at the origin) about one per mm², with
  /// outward normals, red above the equator; none below z = `holeBelow` (a neck-like hole).
  static func sphere(holeBelow: Float = -0.045) -> PointSet {
    let count = 60_000
    var cloud = PointSet()
    let golden = Float.pi * (3 - Float(5).squareRoot())
    for i in 0..<count {
      let z = 1 - 2 * (Float(i) + 0.5) / Float(count), r = (1 - z * z).squareRoot()
      let n = SIMD3(r * cos(golden * Float(i)), r * sin(golden * Float(i)), z)
      guard radius * z >= holeBelow else { continue }
      cloud.positions.append(radius * n)
      cloud.normals.append(n)
      cloud.colors.append(z > 0 ? SIMD3(200, 40, 40) : SIMD3(40, 40, 200))
    }
    return cloud
  }

  static func options(spacing: Double = 0.002) -> MeshOptions {
    var o = MeshOptions.default
    o.gridSpacing = spacing
    return o
  }

  @Test func anOpenSphereBecomesOneClosedManifoldSurfaceWithItsHoleFlagged() throws {
    let result = try extractMesh(from: Self.sphere(), options: Self.options())
    let mesh = result.mesh, topology = result.topology
    #expect(topology.isClosedManifold, "\(topology)")
    #expect(topology.eulerCharacteristic == 2 && topology.pieces == 1)
    #expect(mesh.enclosedVolume > 0, "triangles face outward")
    // Measured vertices lie on the sphere: the local algebraic sphere fit is exact on a sphere
    // and each vertex is placed where the fits at its grid edge's ends cross the edge, except
    // that a crossing within 2 % of an edge's end is moved to 1–2 % (kept off the grid vertices:
    // 2.0 µm RMS, 0.1 µm mean, 29 µm at worst); the rest is the float coordinates (a 7 cm radius
    // to about 0.01 µm). A weighted plane instead sits inside by about s²/(2R) for neighbours s
    // away (0.05 mm RMS); the linear interpolation of the distances along the edges, 4.4 µm
    // inside on average (6.0 µm RMS). The bound on the worst: a hundredth of an edge plus a
    // micrometre.
    let measured = mesh.positions.indices.filter { !mesh.filled[$0] }
    let radial = measured.map { Double((mesh.positions[$0] * mesh.positions[$0]).sum().squareRoot() - Self.radius) }
    let rms = (radial.map { $0 * $0 }.reduce(0, +) / Double(radial.count)).squareRoot()
    let mean = radial.reduce(0, +) / Double(radial.count)
    let sphere = String(
      format: "sphere at 2 mm: %d vertices, %d triangles, measured mean %+.3f µm, RMS %.3f µm, worst %.3f µm, %.1f %% filled",
      mesh.vertexCount, mesh.triangleCount, mean * 1e6, rms * 1e6, (radial.map(abs).max() ?? 0) * 1e6, result.filledFraction * 100)
    #expect(abs(mean) < 5e-7 && rms < 3e-6, "\(sphere)")
    #expect((radial.map(abs).max() ?? 1) < MarchingTetrahedra.cornerMargin * 0.002 * Double(3).squareRoot() + 1e-6, "\(sphere)")
    // Filled vertices are exactly the ones over the hole: within the rim's circle (plus the
    // support radius), never on the measured sphere above the rim (the membrane itself may dome
    // into the sphere); everything below the rim (less the support radius) is filled.
    let support = Float(2.5 * 0.002), rimRadius = (Self.radius * Self.radius - 0.045 * 0.045).squareRoot()
    var outsideTheHole = 0, measuredBelowTheRim = 0
    for v in mesh.positions.indices {
      let p = mesh.positions[v]
      let onSphere = abs((p * p).sum().squareRoot() - Self.radius) < 0.0005
      if mesh.filled[v] && ((p.x * p.x + p.y * p.y).squareRoot() > rimRadius + support || (onSphere && p.z > -0.045 + support)) {
        outsideTheHole += 1
      }
      if !mesh.filled[v] && p.z < -0.045 - support { measuredBelowTheRim += 1 }
    }
    #expect(outsideTheHole == 0 && measuredBelowTheRim == 0, "\(outsideTheHole) filled outside the hole, \(measuredBelowTheRim) measured below it")
    #expect(result.filledFraction > 0.05 && result.filledFraction < 0.3, "\(sphere)")
    // The membrane closes the hole smoothly inside the sphere's missing cap: its vertices lie
    // inside the sphere, and its triangles turn by little from one to the next.
    for v in mesh.positions.indices where mesh.filled[v] {
      let p = mesh.positions[v]
      #expect((p * p).sum().squareRoot() < Self.radius + 0.001)
    }
    // Colours: measured vertices carry their points' colours — red where no blue point is within
    // the support of either grid vertex of their edge (a support radius and a spacing above the
    // equator); the filled ones their rim's (blue).
    #expect(mesh.positions.indices.allSatisfy { v in mesh.positions[v].z < support + 0.002 || mesh.colours[v] == SIMD3(200, 40, 40) })
    #expect(mesh.positions.indices.allSatisfy { v in !mesh.filled[v] || mesh.colours[v] == SIMD3(40, 40, 200) })
  }

  @Test func aPatchOfInwardNormalsIsOutvoted() throws {
    // A 6 mm patch of normals pointing in (as orienting each away from a centre can leave
    // where the surface runs along the radius) would swap inside and outside there.
    var cloud = Self.sphere()
    let patchCentre = SIMD3<Float>(0, 0.6, 0.8) * Self.radius
    var flipped = 0
    for i in cloud.positions.indices {
      let d = cloud.positions[i] - patchCentre
      if (d * d).sum() < 0.003 * 0.003 {
        cloud.normals[i] = -cloud.normals[i]
        flipped += 1
      }
    }
    #expect(flipped > 20)
    let result = try extractMesh(from: cloud, options: Self.options())
    #expect(result.topology.isClosedManifold && result.topology.eulerCharacteristic == 2, "\(result.topology)")
    let worst = result.mesh.positions.indices.filter { !result.mesh.filled[$0] }
      .map { abs((result.mesh.positions[$0] * result.mesh.positions[$0]).sum().squareRoot() - Self.radius) }.max() ?? 1
    #expect(worst < 0.0002)
  }

  @Test func aTargetTriangleCountCoarsensTheGridAndStaysClosed() throws {
    var o = Self.options()
    o.targetTriangleCount = 8000
    let result = try extractMesh(from: Self.sphere(), options: o)
    #expect(result.mesh.triangleCount <= 8000 && result.mesh.triangleCount > 4000)
    #expect(result.gridSpacing > 0.002)
    #expect(result.topology.isClosedManifold && result.topology.eulerCharacteristic == 2)
  }

  /// The grid is coarsened to at most 16 spacings across the cloud (14 mm on this 140 mm
  /// sphere): a target that needs coarser is refused by name, before the support's
  /// neighbourhoods take in most of the cloud.
  @Test func aTargetBelowTheCoarsestGridsTrianglesIsRefused() throws {
    var o = Self.options()
    o.targetTriangleCount = 100
    #expect {
      try extractMesh(from: Self.sphere(), options: o)
    } throws: { error in
      guard case .invalidOption(let detail)? = error as? MeshError else { return false }
      return detail.contains("cannot be kept at or under 100 triangles") && detail.contains("16 spacings")
    }
  }

  /// With a radius holding thousands of points, each normal is put to a vote of at most
  /// `NormalOrientation.maximumVoters` neighbours, taken evenly over those within reach: a
  /// patch of inward normals is still outvoted and every normal ends up outward.
  @Test func aWideVoteOutvotesAnInwardPatch() {
    var cloud = Self.sphere()
    let patchCentre = SIMD3<Float>(0, 0.6, 0.8) * Self.radius
    for i in cloud.positions.indices where ((cloud.positions[i] - patchCentre) * (cloud.positions[i] - patchCentre)).sum() < 0.006 * 0.006 {
      cloud.normals[i] = -cloud.normals[i]
    }
    let oriented = NormalOrientation.agreeing(positions: cloud.positions, normals: cloud.normals, radius: 0.02)
    #expect(oriented.indices.allSatisfy { (oriented[$0] * cloud.positions[$0]).sum() > 0 })
    // The 20 mm radius holds about a thousand points of this sphere: each list is cut to 256; at
    // 5 mm (about 80 within reach) every neighbour votes.
    let (first, _) = NormalOrientation.voters(positions: cloud.positions, normals: cloud.normals, radius: 0.02)
    let counts = cloud.positions.indices.map { first[$0 + 1] - first[$0] }
    #expect(counts.max() == NormalOrientation.maximumVoters && counts.min()! > 200)
    let (narrowFirst, _) = NormalOrientation.voters(positions: cloud.positions, normals: cloud.normals, radius: 0.005)
    #expect(cloud.positions.indices.map { narrowFirst[$0 + 1] - narrowFirst[$0] }.max()! < NormalOrientation.maximumVoters)
  }

  @Test func theFilesReadBackWithTheSameVerticesAndBounds() throws {
    let mesh = try extractMesh(from: Self.sphere(), options: Self.options(spacing: 0.004)).mesh
      .transformed(by: RigidTransform(rotation: .identity, translation: [0.01, -0.02, 0.03]), scale: 1000)
    let bounds = try #require(mesh.bounds)
    try TestFiles.withTemporaryFolder { folder in
      for format in MeshFileFormat.allCases {
        let path = folder.appendingPathComponent("head." + format.rawValue).path
        try mesh.write(to: path, comment: "test")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        switch format {
        case .ply:
          let header = try MeshFileReader.plyHeader(data)
          #expect(header.vertices == mesh.vertexCount && header.faces == mesh.triangleCount)
          #expect(header.properties == ["x", "y", "z", "nx", "ny", "nz", "red", "green", "blue", "filled", "vertex_indices"])
          // 28 bytes per vertex, 13 per face after the header.
          #expect(data.count - (data.range(of: Data("end_header\n".utf8))?.upperBound ?? 0) == 28 * mesh.vertexCount + 13 * mesh.triangleCount)
        case .stl, .obj:
          let read = try format == .stl ? MeshFileReader.stl(data) : MeshFileReader.obj(data)
          #expect(read.vertices == mesh.vertexCount, "\(format)")
          #expect(read.triangles == mesh.triangleCount, "\(format)")
          #expect(read.minimum == bounds.minimum && read.maximum == bounds.maximum, "\(format)")
        }
      }
      // No temporary files are left beside them.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["head.obj", "head.ply", "head.stl"])
    }
  }

  @Test func badInputIsATypedError() throws {
    #expect(throws: MeshError.noNormals) { try extractMesh(from: PointSet(positions: Self.sphere().positions)) }
    #expect(throws: MeshError.tooFewPoints(found: 0, needed: 100)) { try extractMesh(from: PointSet()) }
    var o = MeshOptions.default
    o.gridSpacing = -1
    #expect(throws: MeshError.self) { try extractMesh(from: Self.sphere(), options: o) }
    o = .default
    o.gridSpacing = 1e-5
    #expect(throws: MeshError.self) { try extractMesh(from: Self.sphere(), options: o) }
    var nan = Self.sphere()
    nan.positions = nan.positions.map { _ in SIMD3(repeating: .nan) }
    #expect(throws: MeshError.tooFewPoints(found: 0, needed: 100)) { try extractMesh(from: nan) }
    let mesh = try extractMesh(from: Self.sphere(), options: Self.options(spacing: 0.004)).mesh
    #expect(throws: MeshError.self) { try mesh.write(to: "/tmp/head.xyz") }
    #expect(throws: (any Error).self) { try mesh.write(to: "/nonexistent-folder/head.stl") }
  }
}
