import Dispatch
import Foundation
import PointCloud
import ScanIO
import _HeadScanSupport

/// A sphere through points (algebraic least squares), metres.
struct Sphere {
  var centre: SIMD3<Double>
  var radius: Double

  /// Fits |p|² = 2 c·p + (r² − |c|²); `nil` for fewer than 4 points or a degenerate set.
  init?(fitting points: [SIMD3<Double>]) {
    guard points.count >= 4 else { return nil }
    let solution = NativeGeometry.leastSquares(points, unknowns: 4) { p, a in
      (a[0], a[1], a[2], a[3]) = (2 * p.x, 2 * p.y, 2 * p.z, 1)
      return p.dot(p)
    }
    guard let x = solution else {
      return nil
    }
    centre = SIMD3(x[0], x[1], x[2])
    let squared = x[3] + centre.dot(centre)
    guard squared > 0 else { return nil }
    radius = squared.squareRoot()
  }
}

/// Back-projects the registered frames' depth (those held by ReconstructionOptions/minimumMarkersToFuse markers) inside the head region into world, averages it per voxel,
/// removes statistical outliers and projects each point onto its local plane (normals outward).
/// With ``ReconstructionOptions/icpRefinement``, each frame is first aligned by ICP to the model
/// fused so far and moved where that lowers its distance to the model; the refined poses
/// (`worldFromCamera` by frame index) are returned.
func fuseDepth(
  _ scan: any ScanReader, solution: RegistrationSolution, diagnostics: [FrameDiagnostics], options: ReconstructionOptions,
  timings: inout ReconstructionTimings, progress: (Int, Int) -> Void
) throws -> (cloud: PointSet, refined: [Int: RigidTransform]) {
  let started = ContinuousClock.now
  // The head region from every mapped sticker: on a coarse scan only a few are well enough
  // seen to be kept, too few to place a sphere.
  guard let sphere = Sphere(fitting: solution.mappedCentres) else {
    throw ReconstructionError.numerical(
      path: scan.path, detail: "\(solution.mappedCentres.count) mapped markers do not place the head (a sphere needs 4 not on one plane)")
  }
  // A sphere far larger than a head means the marker map is wrong: stop rather than fuse a room.
  guard sphere.radius <= 0.5 else {
    throw ReconstructionError.numerical(
      path: scan.path, detail: String(format: "the markers do not lie on a head-sized sphere (radius %.0f mm)", sphere.radius * 1000))
  }
  let registered = diagnostics.filter { $0.worldFromCamera != nil }
  let wellHeld = registered.filter { $0.liftedByDepth >= options.minimumMarkersToFuse }
  let fused = 4 * wellHeld.count >= registered.count ? wellHeld : registered
  var fusion = FrameFusion(around: sphere, options: options)
  var refined: [Int: RigidTransform] = [:]
  var done = 0
  try forEachInParallelBatches(
    fused,
    work: { [projection = fusion.projection] d in
      (d, projection.points(of: try scan.frame(at: d.index), worldFromCamera: d.worldFromCamera!))
    },
    consume: { d, framePoints in
      var points = framePoints
      done += 1
      if options.icpRefinement, done > 3, fusion.voxelCount >= 2000, points.count >= 500,
        let correction = icpCorrection(points.positions, model: fusion.grid, options: options)
      {
        points = fusion.projection.moved(points, by: correction)
        refined[d.index] = correction * d.worldFromCamera!
      }
      fusion.add(points)
    },
    progress: progress)
  let grid = fusion.grid
  var (positions, colours) = grid.means()
  timings.fusion = ReconstructionTimings.since(started)
  let cleaning = ContinuousClock.now
  defer { timings.cleaning = ReconstructionTimings.since(cleaning) }
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
func icpCorrection(_ points: [SIMD3<Double>], model: VoxelGrid, options: ReconstructionOptions) -> RigidTransform? {
  let source = stride(from: 0, to: points.count, by: 16).map { SIMD3<Float>(points[$0]) }
  // The model only where this frame can reach it: its bounding box and the search margin.
  let reach = Float(3 * options.voxelSize)
  let low = source.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) } - reach
  let high = source.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) } + reach
  let target = model.means(inside: low, high)
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
///
/// A pixel (x, y) with depth d lands at `d · (a_x · R₀ + b_y · R₁ + R₂) + t`, with the camera
/// ray's slopes `a_x = (x − cx)/fx`, `b_y = (y − cy)/fy` and R's columns, so the slopes and the
/// colour pixel of every column and row are worked out once per frame.
func headPoints(
  _ frame: ScanFrame, worldFromCamera: RigidTransform, centre: SIMD3<Double>, inner: Double, outer: Double
) -> (positions: [SIMD3<Double>], colours: [SIMD3<UInt8>]) {
  let depth = frame.depth, colour = frame.color
  let k = depth.intrinsics
  let (c0, c1, c2) = worldFromCamera.rotation.columns
  let t = worldFromCamera.translation
  let slopeX = (0..<depth.width).map { (Double($0) - k.cx) / k.fx }
  let colourX = (0..<depth.width).map { min(colour.width - 1, Int((Double($0) + 0.5) * Double(colour.width) / Double(depth.width))) }
  let innerSquared = inner * inner, outerSquared = outer * outer
  var positions: [SIMD3<Double>] = [], colours: [SIMD3<UInt8>] = []
  positions.reserveCapacity(depth.width * depth.height / 4)
  colours.reserveCapacity(depth.width * depth.height / 4)
  depth.metres.withUnsafeBufferPointer { z in
    colour.bgra.withUnsafeBufferPointer { bgra in
      for y in 1..<(depth.height - 1) {
        let row = (Double(y) - k.cy) / k.fy * c1 + c2
        let colourRow = min(colour.height - 1, Int((Double(y) + 0.5) * Double(colour.height) / Double(depth.height))) * colour.width
        for x in 1..<(depth.width - 1) {
          let i = y * depth.width + x
          let d = z[i]
          guard d.isFinite else { continue }
          // Flying pixels: every 4-neighbour must have depth within 6 mm (a NaN fails the test).
          guard abs(z[i - 1] - d) <= 0.006, abs(z[i + 1] - d) <= 0.006, abs(z[i - depth.width] - d) <= 0.006,
            abs(z[i + depth.width] - d) <= 0.006
          else { continue }
          let p = Double(d) * (slopeX[x] * c0 + row) + t
          let offset = p - centre
          let r2 = (offset * offset).sum()
          guard r2 >= innerSquared && r2 <= outerSquared else { continue }
          let c = 4 * (colourRow + colourX[x])
          positions.append(p)
          colours.append(SIMD3(bgra[c + 2], bgra[c + 1], bgra[c]))
        }
      }
    }
  }
  return (positions, colours)
}
