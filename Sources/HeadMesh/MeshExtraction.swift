import PointCloud
import _HeadScanSupport

/// A closed head mesh made from an oriented point cloud, with what it took to make it.
public struct MeshExtraction: Sendable {
  /// The mesh, in the cloud's frame and unit (headscan: world frame, metres).
  public var mesh: TriangleMesh
  /// Its edge and vertex structure (closed, manifold, Euler characteristic).
  public var topology: MeshTopology
  /// Grid spacing the mesh was extracted at, in the cloud's unit (coarser than asked when a
  /// target triangle count needed it).
  public var gridSpacing: Double
  /// Wall-clock seconds of the last extraction's stages: the signed-distance grid (points and
  /// fill), the marching tetrahedra, and the rest (largest piece, flags, smoothing, colours,
  /// topology check).
  public var seconds: (grid: Double, triangles: Double, finishing: Double) = (0, 0, 0)
  /// Separate closed pieces the zero level had before all but the largest were dropped
  /// (specks of outlying points).
  public var piecesDropped: Int
  /// Fraction of the vertices that are filled in rather than measured.
  public var filledFraction: Double { mesh.filledFraction }
}

/// A watertight, manifold triangle mesh of the surface an oriented point cloud samples, its
/// holes closed smoothly and flagged.
///
/// The cloud's points and outward normals define a signed distance near them (an implicit
/// moving-least-squares surface); harmonic interpolation (volumetric diffusion) carries it
/// across the holes — under the cap edge, the neck cut — and through the inside and outside
/// of the head; marching tetrahedra extract its zero level, and the largest closed piece is
/// kept. Normals that point against their neighbours' are flipped first (``NormalOrientation``).
/// Vertices more than about ``MeshOptions/supportRadius`` spacings from any point are
/// flagged ``TriangleMesh/filled``, smoothed, and coloured from their measured neighbours.
/// See the module's article for the method and its measured accuracy.
///
/// ```swift
/// let result = try reconstructHead(scan, options: options)   // options.fusion.method = .signedDistance
/// let head = try extractMesh(from: result.cloud).mesh         // world frame, metres
/// try head.write(to: "head.stl")
/// ```
/// - Parameters:
///   - cloud: positions and unit normals pointing out of the head (e.g.
///     `HeadReconstruction.cloud`); colours optional. Points that are not finite or have no unit
///     normal are ignored.
///   - options: grid spacing (in the cloud's unit, 2 mm by default for metres), support,
///     smoothing, size limit.
/// - Returns: the mesh in the cloud's frame and unit, its topology and diagnostics.
/// - Throws: ``MeshError``.
/// - Complexity: O(points · support³ + grid vertices); a head at 2 mm takes about a second of CPU.
public func extractMesh(from cloud: PointSet, options: MeshOptions = .default) throws(MeshError) -> MeshExtraction {
  guard options.gridSpacing.isFinite, options.gridSpacing > 0 else { throw .invalidOption("the grid spacing must be a positive length") }
  guard options.supportRadius.isFinite, options.supportRadius >= 1.5, options.supportRadius <= 8 else {
    throw .invalidOption("the support radius must be 1.5…8 grid spacings")
  }
  guard options.fillSmoothing >= 0, options.fillSmoothing <= 1000 else { throw .invalidOption("fill smoothing must be 0…1000 rounds") }
  if let target = options.targetTriangleCount, target < 100 { throw .invalidOption("the target triangle count must be at least 100") }
  guard !cloud.positions.isEmpty else { throw .tooFewPoints(found: 0, needed: 100) }
  guard cloud.normals.count == cloud.positions.count else { throw .noNormals }
  var spacing = options.gridSpacing
  var extraction = try extractOnce(cloud, spacing: spacing, options: options)
  // Triangles scale as 1/spacing²: coarsen until under the target (rarely more than twice), but
  // not beyond the coarsest grid that still draws the head (its extent over
  // `MeshOptions.fewestCellsAcross`): coarser, the support's neighbourhoods would take in most of
  // the cloud and the surface no longer closes.
  let coarsest = max(options.gridSpacing, largestExtent(of: cloud) / Double(MeshOptions.fewestCellsAcross))
  for _ in 0..<6 {
    guard let target = options.targetTriangleCount, extraction.mesh.triangleCount > target else { break }
    guard spacing < coarsest else {
      throw .invalidOption(
        "the mesh cannot be kept at or under \(target) triangles: it has \(extraction.mesh.triangleCount) on the coarsest grid "
          + "(\(MeshOptions.fewestCellsAcross) spacings across the cloud)")
    }
    spacing = min(coarsest, spacing * (Double(extraction.mesh.triangleCount) / Double(target)).squareRoot() * 1.03)
    extraction = try extractOnce(cloud, spacing: spacing, options: options)
  }
  if let target = options.targetTriangleCount, extraction.mesh.triangleCount > target {
    throw .invalidOption("the mesh cannot be kept at or under \(target) triangles: it still has \(extraction.mesh.triangleCount) after six coarser grids")
  }
  return extraction
}

/// The largest side of the box round the cloud's finite points (the cloud's unit).
private func largestExtent(of cloud: PointSet) -> Double {
  var low = SIMD3<Float>(repeating: .infinity), high = SIMD3<Float>(repeating: -.infinity)
  for p in cloud.positions where p.x.isFinite && p.y.isFinite && p.z.isFinite {
    low = pointwiseMin(low, p)
    high = pointwiseMax(high, p)
  }
  return low.x <= high.x ? Double((high - low).max()) : 0
}

/// One extraction at one grid spacing.
private func extractOnce(_ cloud: PointSet, spacing: Double, options: MeshOptions) throws(MeshError) -> MeshExtraction {
  var clock = ContinuousClock.now
  var stages: (grid: Double, triangles: Double, finishing: Double) = (0, 0, 0)
  let grid = try ImplicitGrid(
    points: cloud, spacing: spacing, supportRadius: options.supportRadius * spacing, maximumVertices: options.maximumGridVertices)
  stages.grid = seconds(since: clock)
  clock = .now
  let raw = MarchingTetrahedra.extract(grid)
  stages.triangles = seconds(since: clock)
  clock = .now
  let (kept, pieces) = largestPiece(raw.triangles, vertexCount: raw.positions.count)
  guard pieces > 0 else { throw .noSurface }
  // Re-index the kept vertices.
  var newIndex = [Int32](repeating: -1, count: raw.positions.count)
  var positions: [SIMD3<Float>] = [], colours: [SIMD3<UInt8>] = [], filled: [Bool] = []
  var triangles: [SIMD3<Int32>] = []
  triangles.reserveCapacity(kept.count)
  for t in kept {
    var f = SIMD3<Int32>.zero
    for c in 0..<3 {
      let old = Int(t[c])
      if newIndex[old] < 0 {
        newIndex[old] = Int32(positions.count)
        positions.append(raw.positions[old])
        let edge = raw.edges[old]
        let a = grid.measuredSlot[edge.outside], b = grid.measuredSlot[edge.inside]
        if a >= 0 && b >= 0 && grid.surrounded[Int(a)] && grid.surrounded[Int(b)] {
          let ca = grid.colours[Int(a)], cb = grid.colours[Int(b)]
          colours.append(SIMD3<UInt8>(clamping: SIMD3<Int32>((ca + edge.fraction * (cb - ca)).rounded(.toNearestOrEven))))
          filled.append(false)
        } else {
          colours.append(.zero)
          filled.append(true)
        }
      }
      f[c] = newIndex[old]
    }
    triangles.append(f)
  }
  var mesh = TriangleMesh(positions: positions, colours: colours, filled: filled, triangles: triangles)
  mesh.smoothFilledVertices(rounds: options.fillSmoothing)
  mesh.colourFilledVertices()
  var topology = MeshTopology(mesh)
  if topology.selfIntersectingPairs > 0 {
    // Smoothing moves vertices off their grid edges, out of the argument that keeps triangles
    // apart: where a move made triangles intersect, it is undone.
    mesh.undoMovesThatIntersect(before: positions)
    topology = MeshTopology(mesh)
  }
  stages.finishing = seconds(since: clock)
  return MeshExtraction(mesh: mesh, topology: topology, gridSpacing: spacing, seconds: stages, piecesDropped: pieces - 1)
}

/// The triangles of the largest edge-connected piece (by triangle count) and the number of pieces.
private func largestPiece(_ triangles: [SIMD3<Int32>], vertexCount: Int) -> (triangles: [SIMD3<Int32>], pieces: Int) {
  var pieces = VertexPieces(vertexCount: vertexCount, triangles: triangles)
  var counts: [Int: Int] = [:]
  for t in triangles { counts[pieces.root(Int(t.x)), default: 0] += 1 }
  guard let largest = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else { return ([], 0) }
  return (triangles.filter { pieces.root(Int($0.x)) == largest }, counts.count)
}
