internal import _GeometryShim
import PointCloud

/// Swift face of the Eigen/PCL shim; each call turns a bad status into a throw.
enum NativeGeometry {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private static func check(_ status: gs_status, _ message: [CChar]) throws(Failure) {
    guard status == GS_OK else {
      throw Failure(description: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
  }

  /// `target ≈ T · source` by Umeyama; also the RMS residual (same unit as the points).
  static func rigidFit(from source: [SIMD3<Double>], to target: [SIMD3<Double>]) throws(Failure) -> (RigidTransform, Double) {
    precondition(source.count == target.count)
    let a = source.flatMap { [$0.x, $0.y, $0.z] }, b = target.flatMap { [$0.x, $0.y, $0.z] }
    var r = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3)
    var rms = 0.0
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_rigid_fit(a, b, Int32(source.count), &r, &t, &rms, &message, message.count), message)
    let rotation = Rotation3(r0: SIMD3(r[0], r[1], r[2]), r1: SIMD3(r[3], r[4], r[5]), r2: SIMD3(r[6], r[7], r[8]))
    return (RigidTransform(rotation: rotation, translation: SIMD3(t[0], t[1], t[2])), rms)
  }

  /// Solves the symmetric positive definite system `a · x = b` (a row-major n × n).
  static func solveSymmetric(_ a: [Double], _ b: [Double]) throws(Failure) -> [Double] {
    var x = [Double](repeating: 0, count: b.count)
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_solve_symmetric(Int32(b.count), a, b, &x, &message, message.count), message)
    return x
  }

  /// Linear least squares through the normal equations: `row(sample)` gives a sample's
  /// coefficients (one per unknown) and target. `nil` when the system is singular.
  static func leastSquares<Samples: Sequence>(
    _ samples: Samples, unknowns n: Int, row: (Samples.Element) -> (coefficients: [Double], target: Double)
  ) -> [Double]? {
    var m = [Double](repeating: 0, count: n * n), r = [Double](repeating: 0, count: n)
    for sample in samples {
      let (a, target) = row(sample)
      for i in 0..<n {
        r[i] += a[i] * target
        for j in 0..<n { m[n * i + j] += a[i] * a[j] }
      }
    }
    return try? solveSymmetric(m, r)
  }

  /// Inlier mask of PCL's statistical outlier removal.
  static func statisticalInliers(_ points: [SIMD3<Float>], neighbours: Int, stddev: Double) throws(Failure) -> [Bool] {
    let flat = points.flatMap { [$0.x, $0.y, $0.z] }
    var keep = [UInt8](repeating: 0, count: points.count)
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_statistical_outliers(flat, Int32(points.count), Int32(neighbours), stddev, &keep, &message, message.count), message)
    return keep.map { $0 != 0 }
  }

  /// Each point projected onto the plane of its `neighbours` nearest points, and that plane's normal.
  static func projectToLocalPlanes(_ points: [SIMD3<Float>], neighbours: Int) throws(Failure) -> ([SIMD3<Float>], [SIMD3<Float>]) {
    let flat = points.flatMap { [$0.x, $0.y, $0.z] }
    var out = [Float](repeating: 0, count: flat.count), normals = [Float](repeating: 0, count: flat.count)
    var message = [CChar](repeating: 0, count: 256)
    try check(gs_project_to_local_planes(flat, Int32(points.count), Int32(neighbours), &out, &normals, &message, message.count), message)
    let moved = (0..<points.count).map { SIMD3(out[3 * $0], out[3 * $0 + 1], out[3 * $0 + 2]) }
    let units = (0..<points.count).map { SIMD3(normals[3 * $0], normals[3 * $0 + 1], normals[3 * $0 + 2]) }
    return (moved, units)
  }
}
