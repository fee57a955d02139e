import Dispatch
import Foundation
import PointCloud
import ScanIO

/// A sphere through points (algebraic least squares), metres.
struct Sphere {
  var centre: SIMD3<Double>
  var radius: Double

  /// Fits |p|² = 2 c·p + (r² − |c|²); `nil` for fewer than 4 points or a degenerate set.
  init?(fitting points: [SIMD3<Double>]) {
    guard points.count >= 4 else { return nil }
    guard let x = NativeGeometry.leastSquares(points, unknowns: 4, row: { ([2 * $0.x, 2 * $0.y, 2 * $0.z, 1], $0.dot($0)) }) else {
      return nil
    }
    centre = SIMD3(x[0], x[1], x[2])
    let squared = x[3] + centre.dot(centre)
    guard squared > 0 else { return nil }
    radius = squared.squareRoot()
  }
}

/// Running sums of the points that fall in one voxel.
struct VoxelSum {
  var position = SIMD3<Double>.zero
  var colour = SIMD3<Double>.zero
  var count = 0
}

/// Back-projects the registered frames' depth inside the head region into world, averages it per voxel,
/// removes statistical outliers and projects each point onto its local plane (normals outward).
/// With ``ReconstructionOptions/icpRefinement``, each frame is first aligned by ICP to the model
/// fused so far and moved where that lowers its distance to the model; the refined poses
/// (`worldFromCamera` by frame index) are returned.
func fuseDepth(
  _ scan: any ScanReader, solution: RegistrationSolution, diagnostics: [FrameDiagnostics], options: ReconstructionOptions,
  progress: (Int, Int) -> Void
) throws -> (cloud: PointSet, refined: [Int: RigidTransform]) {
  guard let sphere = Sphere(fitting: solution.markers.map(\.worldFromMarker.translation)) else { return (PointSet(), [:]) }
  let outer = sphere.radius + options.headMargin, inner = max(0, sphere.radius - 0.05)
  let registered = diagnostics.filter { $0.worldFromCamera != nil }
  let voxel = options.voxelSize
  var grid: [SIMD3<Int32>: VoxelSum] = [:]
  var refined: [Int: RigidTransform] = [:]
  var fused = 0
  try forEachInParallelBatches(
    registered,
    work: { d in
      let frame = try scan.frame(at: d.index)
      return (d, headPoints(frame, worldFromCamera: d.worldFromCamera!, centre: sphere.centre, inner: inner, outer: outer))
    },
    consume: { d, framePoints in
      var points = framePoints
      fused += 1
      if options.icpRefinement, fused > 3, grid.count >= 2000, points.count >= 500,
        let correction = icpCorrection(points.map(\.0), model: grid, options: options)
      {
        points = points.map { (correction.apply($0.0), $0.1) }
        refined[d.index] = correction * d.worldFromCamera!
      }
      for (p, c) in points {
        let key = SIMD3<Int32>(Int32((p.x / voxel).rounded(.down)), Int32((p.y / voxel).rounded(.down)), Int32((p.z / voxel).rounded(.down)))
        grid[key, default: VoxelSum()].position += p
        grid[key, default: VoxelSum()].colour += c
        grid[key, default: VoxelSum()].count += 1
      }
    },
    progress: progress)
  // Deterministic order: sort voxels by key.
  let cells = grid.sorted { ($0.key.x, $0.key.y, $0.key.z) < ($1.key.x, $1.key.y, $1.key.z) }.map(\.value)
  var positions = cells.map { SIMD3<Float>($0.position / Double($0.count)) }
  var colours = cells.map { SIMD3<UInt8>(clamping: SIMD3<Int>(($0.colour / Double($0.count)).rounded(.toNearestOrEven))) }
  guard positions.count > options.neighbours else { return (PointSet(positions: positions, colors: colours), refined) }
  let keep = try NativeGeometry.statisticalInliers(positions, neighbours: options.neighbours, stddev: 2.0)
  positions = zip(positions, keep).filter(\.1).map(\.0)
  colours = zip(colours, keep).filter(\.1).map(\.0)
  guard positions.count > options.neighbours else { return (PointSet(positions: positions, colors: colours), refined) }
  let (smoothed, normals) = try NativeGeometry.projectToLocalPlanes(positions, neighbours: options.neighbours)
  let centre = SIMD3<Float>(sphere.centre)
  let outward = zip(smoothed, normals).map { p, n in ((p - centre) * n).sum() < 0 ? -n : n }
  return (PointSet(positions: smoothed, normals: outward, colors: colours), refined)
}

/// The small rigid motion (world ← world) that ICP finds for one frame's points against the
/// voxel model so far, if it converges, lowers their mean squared distance to the model by
/// at least a fifth, and moves them by no more than 3 mm and 1°; otherwise `nil`.
func icpCorrection(_ points: [SIMD3<Double>], model: [SIMD3<Int32>: VoxelSum], options: ReconstructionOptions) -> RigidTransform? {
  let source = stride(from: 0, to: points.count, by: 16).map { SIMD3<Float>(points[$0]) }
  // The model only where this frame can reach it: its bounding box and the search margin.
  let reach = Float(3 * options.voxelSize)
  let low = source.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) } - reach
  let high = source.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) } + reach
  let target = model.values.map { SIMD3<Float>($0.position / Double($0.count)) }.filter {
    all($0 .>= low) && all($0 .<= high)
  }
  guard target.count >= 500 else { return nil }
  guard let fit = try? NativeGeometry.icp(source, onto: target, maxDistance: 3 * options.voxelSize, iterations: 30),
    fit.converged, fit.after < 0.8 * fit.before
  else { return nil }
  let (angle, distance) = fit.transform.difference(to: .identity)
  guard angle <= .pi / 180, distance <= 0.003 else { return nil }
  return fit.transform
}

/// World points (metres) and colours (r, g, b) of one frame's depth inside the shell `inner…outer` around `centre`,
/// skipping pixels at depth discontinuities (flying pixels).
func headPoints(
  _ frame: ScanFrame, worldFromCamera: RigidTransform, centre: SIMD3<Double>, inner: Double, outer: Double
) -> [(SIMD3<Double>, SIMD3<Double>)] {
  let depth = frame.depth, colour = frame.color
  let k = depth.intrinsics
  let sx = Double(colour.width) / Double(depth.width), sy = Double(colour.height) / Double(depth.height)
  var out: [(SIMD3<Double>, SIMD3<Double>)] = []
  depth.metres.withUnsafeBufferPointer { z in
    for y in 1..<(depth.height - 1) {
      for x in 1..<(depth.width - 1) {
        let i = y * depth.width + x
        let d = z[i]
        guard d.isFinite else { continue }
        // Flying pixels: every 4-neighbour must have depth within 6 mm (a NaN fails the test).
        func near(_ n: Float) -> Bool { abs(n - d) <= 0.006 }
        guard near(z[i - 1]), near(z[i + 1]), near(z[i - depth.width]), near(z[i + depth.width]) else { continue }
        let p = worldFromCamera.apply(k.unproject(u: Double(x), v: Double(y), depth: Double(d)))
        let r = (p - centre).length
        guard r >= inner && r <= outer else { continue }
        let cx = min(colour.width - 1, Int((Double(x) + 0.5) * sx)), cy = min(colour.height - 1, Int((Double(y) + 0.5) * sy))
        let c = 4 * (cy * colour.width + cx)
        out.append((p, SIMD3(Double(colour.bgra[c + 2]), Double(colour.bgra[c + 1]), Double(colour.bgra[c]))))
      }
    }
  }
  return out
}
