import PointCloud
internal import _GeometryShim
import _HeadScanSupport

/// Swift face of the Eigen/PCL shim; each call turns a bad status into a throw.
package enum NativeGeometry {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// Points as the shim takes them: x, y, z packed (SIMD3 has a fourth, padding lane).
  package static func packed<Scalar: SIMDScalar>(_ points: [SIMD3<Scalar>]) -> [Scalar] {
    var flat: [Scalar] = []
    flat.reserveCapacity(3 * points.count)
    for p in points { flat.append(p.x); flat.append(p.y); flat.append(p.z) }
    return flat
  }

  /// The NUL-terminated message a shim wrote into `message`.
  static func text(of message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func check(_ status: gs_status, _ message: [CChar]) throws(Failure) {
    guard status == GS_OK else {
      throw Failure(description: text(of: message))
    }
  }

  /// Hands memory that freed allocations hold in the C library's per-thread arenas back to the
  /// system (glibc's `malloc_trim`). Work done on worker threads (the focal-length check's
  /// bootstrap, the parallel batches) leaves freed memory there that a later peak would add to:
  /// voxel-mean fusion of an 1800-frame realistic scan peaked at 192–199 MB with it and
  /// 200–205 MB without (docs/performance.md).
  package static func releaseFreedMemory() { gs_release_freed_memory() }

  /// Makes every allocation of at least 512 KiB (a 640×480 frame's colour and depth buffers,
  /// 1.2 MB each) a mapping of its own, handed back to the system when freed, and lets each
  /// thread's heap keep up to 4 MiB of freed memory for reuse. Without the first, glibc raises
  /// its threshold as large blocks are freed and then keeps them in each worker thread's arena:
  /// a 600-frame realistic scan's reconstruction peaked at 474 MB with 16 workers instead of
  /// 200 MB. Below the threshold stay the detector's grey-image-sized temporaries (0.3 MB, a few
  /// a frame): as mappings of their own, or trimmed off a heap and grown back, each cost the
  /// kernel a page fault and a zeroed page per 4 KiB, 0.6 ms of a frame's observation
  /// (docs/performance.md, "Workers and memory"). Process-wide: the `headscan` command calls it
  /// first thing; a program using the library may do the same.
  package static func returnLargeBlocksToTheSystem() { gs_return_large_blocks(512 << 10, 4 << 20) }

  /// `target ≈ T · source` by Umeyama; also the RMS residual (same unit as the points).
  package static func rigidFit(from source: [SIMD3<Double>], to target: [SIMD3<Double>]) throws(Failure) -> (RigidTransform, Double) {
    precondition(source.count == target.count)
    let a = packed(source), b = packed(target)
    var r = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3)
    var rms = 0.0
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_rigid_fit(a, b, Int32(source.count), &r, &t, &rms, &message, message.count), message)
    let rotation = Rotation3(r0: SIMD3(r[0], r[1], r[2]), r1: SIMD3(r[3], r[4], r[5]), r2: SIMD3(r[6], r[7], r[8]))
    return (RigidTransform(rotation: rotation, translation: SIMD3(t[0], t[1], t[2])), rms)
  }

  /// Solves the symmetric positive definite system `a · x = b` (a row-major n × n).
  package static func solveSymmetric(_ a: [Double], _ b: [Double]) throws(Failure) -> [Double] {
    var x = [Double](repeating: 0, count: b.count)
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_solve_symmetric(Int32(b.count), a, b, &x, &message, message.count), message)
    return x
  }

  /// Inlier mask of the cleaning's outlier test: a point is kept when its mean distance to its
  /// `neighbours` nearest other points is at most `factor` times the median point's, the
  /// neighbour search on `workers` threads (`nil`: one a core). On a sampled surface that makes
  /// up most of the cloud the median is the surface's own spacing, so the test does not depend
  /// on what else the cloud holds.
  /// A non-finite point is not kept. Every point is kept when there are no more than `neighbours`.
  package static func medianRelativeInliers(
    _ points: [SIMD3<Float>], neighbours: Int, factor: Double, workers: Int? = nil
  ) throws(Failure) -> [Bool] {
    guard points.count > neighbours else { return [Bool](repeating: true, count: points.count) }
    let (distances, valid) = try NearestPointIndex(points).meanNeighbourDistances(neighbours: neighbours, workers: workers)
    let measured = zip(distances, valid).filter { $0.1 != 0 }.map { Double($0.0) }
    guard !measured.isEmpty else { return [Bool](repeating: false, count: points.count) }
    let limit = factor * lowerMedian(measured)
    return zip(distances, valid).map { $0.1 != 0 && Double($0.0) <= limit }
  }

  /// Each query projected onto the plane of its `neighbours` nearest points of `cloud`, and
  /// that plane's unit normal; the queries default to the cloud itself (smoothing). With
  /// `quadratic`, onto the least-squares quadratic height field over that plane instead: a
  /// plane lies about E[s²]/(2R) inside a convex surface of radius R, the quadratic is exact to
  /// second order (and noisier with few neighbours). Otherwise, with `curvatureNeighbours` more
  /// than `neighbours`, the plane's projection is moved by the plane's curvature offset, the
  /// surface's second-order part taken from a quadratic over that many nearest points: as
  /// smooth as the plane, without its E[s²]/(2R).
  package static func projectToLocalPlanes(
    _ cloud: [SIMD3<Float>], queries: [SIMD3<Float>]? = nil, neighbours: Int, quadratic: Bool = false, curvatureNeighbours: Int = 0,
    workers: Int? = nil
  ) throws(Failure) -> ([SIMD3<Float>], [SIMD3<Float>]) {
    let tree = try NearestPointIndex(cloud)
    return try tree.projectToLocalPlanes(
      queries ?? cloud, neighbours: neighbours, quadratic: quadratic, curvatureNeighbours: curvatureNeighbours, workers: workers)
  }

  /// PCL point-to-point ICP of `source` onto `target`: `target ≈ T · source`, and the mean
  /// squared distance to the nearest target point (pairs within `maxDistance`) before and after.
  package static func icp(
    _ source: [SIMD3<Float>], onto target: [SIMD3<Float>], maxDistance: Double, iterations: Int
  ) throws(Failure) -> (transform: RigidTransform, before: Double, after: Double, converged: Bool) {
    let a = packed(source), b = packed(target)
    var t = [Double](repeating: 0, count: 16)
    var before = 0.0, after = 0.0
    var converged: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    try check(
      gs_icp(a, Int32(source.count), b, Int32(target.count), maxDistance, Int32(iterations), &t, &before, &after, &converged,
             &message, message.count),
      message)
    let rotation = Rotation3(r0: SIMD3(t[0], t[1], t[2]), r1: SIMD3(t[4], t[5], t[6]), r2: SIMD3(t[8], t[9], t[10]))
    return (RigidTransform(rotation: rotation, translation: SIMD3(t[3], t[7], t[11])), before, after, converged != 0)
  }
}

extension RigidTransform {
  /// The rigid motion that best maps `source` onto `target` in the least-squares sense
  /// (Umeyama's method through Eigen, no scale), and the RMS residual (units of the points).
  /// - Returns: `nil` for fewer than three pairs or a degenerate (collinear) set.
  public static func bestFit(from source: [SIMD3<Double>], to target: [SIMD3<Double>]) -> (transform: RigidTransform, rms: Double)? {
    precondition(source.count == target.count, "one target point per source point")
    guard source.count >= 3, let (t, rms) = try? NativeGeometry.rigidFit(from: source, to: target) else { return nil }
    return (t, rms)
  }
}
