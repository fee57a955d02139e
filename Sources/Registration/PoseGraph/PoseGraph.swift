import Foundation
import PointCloud

/// Frames and markers linked by observations: the unknowns of the registration.
///
/// Unknowns are `worldFromCamera` of every frame (6 dof) and the four world
/// corners of every marker (12 dof: stickers on a curved cap are not flat
/// squares). Each observation says `worldFromCamera · p = X` for its four
/// lifted corners p and the marker's corners X. One frame is held fixed (the
/// gauge); the result is re-expressed in the world frame afterwards.
struct PoseGraph {
  struct Observation {
    var frame: Int
    var marker: Int
    var corners: [SIMD3<Double>]
    /// Relative weight (1 for depth-lifted corners, less for PnP).
    var weight: Double
  }

  var frames: [RigidTransform]
  var markerCorners: [[SIMD3<Double>]]
  var observations: [Observation]
  var fixedFrame: Int

  /// Per-corner residuals `W_f p − X`, metres, in observation order.
  func residuals() -> [[SIMD3<Double>]] {
    observations.map { o in (0..<4).map { frames[o.frame].apply(o.corners[$0]) - markerCorners[o.marker][$0] } }
  }

  /// Huber cost with threshold `delta` (metres).
  func cost(delta: Double) -> Double {
    var total = 0.0
    for o in observations {
      let pose = frames[o.frame]
      for k in 0..<4 {
        let e = (pose.apply(o.corners[k]) - markerCorners[o.marker][k]).length
        total += o.weight * (e <= delta ? e * e / 2 : delta * (e - delta / 2))
      }
    }
    return total
  }

  /// Levenberg–Marquardt with the frames eliminated (Schur complement onto the marker corners).
  ///
  /// Per iteration the work is linear in the observations plus one dense solve over the
  /// marker corners (3 × 4 × markers unknowns); the per-frame 6 × 6 blocks live in flat
  /// arrays, so an iteration allocates a fixed handful of buffers, not some per observation.
  /// The reduced system is formed on `threads` threads (the same system whatever their number).
  /// - Returns: the number of accepted steps.
  @discardableResult
  mutating func optimise(iterations: Int, delta: Double, threads: Int = 1) throws -> Int {
    var lambda = 1e-3
    var accepted = 0
    var current = cost(delta: delta)
    var work = NormalEquations(for: self)
    for _ in 0..<iterations {
      work.accumulate(self, delta: delta)
      work.reduce(lambda: lambda, threads: threads)
      let dx = try NativeGeometry.solveSymmetric(work.s, work.rhs)
      let candidate = work.stepped(self, cornerStep: dx)
      let next = candidate.cost(delta: delta)
      if next < current {
        let gain = (current - next) / max(current, 1e-30)
        self = candidate
        current = next
        accepted += 1
        lambda = max(lambda / 3, 1e-9)
        if gain < 1e-10 { break }
      } else {
        lambda *= 5
        if lambda > 1e6 { break }
      }
    }
    return accepted
  }

  /// ∂(q)/∂(ω, v) for a left-multiplied increment: [−[q]× | I], as 3 rows of 6.
  static func jacobian(_ q: SIMD3<Double>) -> (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>) {
    (SIMD8(0, q.z, -q.y, 1, 0, 0, 0, 0), SIMD8(-q.z, 0, q.x, 0, 1, 0, 0, 0), SIMD8(q.y, -q.x, 0, 0, 0, 1, 0, 0))
  }

  /// Inverse of a symmetric positive definite 6×6 matrix (Cholesky), `nil` if not positive definite.
  static func invert6(_ m: [Double]) -> [Double]? {
    var l = [Double](repeating: 0, count: 36)
    for i in 0..<6 {
      for j in 0...i {
        var sum = m[6 * i + j]
        for k in 0..<j { sum -= l[6 * i + k] * l[6 * j + k] }
        if i == j {
          guard sum > 0 else { return nil }
          l[6 * i + i] = sum.squareRoot()
        } else {
          l[6 * i + j] = sum / l[6 * j + j]
        }
      }
    }
    var inverse = [Double](repeating: 0, count: 36)
    for column in 0..<6 {
      var y = [Double](repeating: 0, count: 6)
      for i in 0..<6 {
        var sum = i == column ? 1.0 : 0.0
        for k in 0..<i { sum -= l[6 * i + k] * y[k] }
        y[i] = sum / l[6 * i + i]
      }
      var x = [Double](repeating: 0, count: 6)
      for i in stride(from: 5, through: 0, by: -1) {
        var sum = y[i]
        for k in (i + 1)..<6 { sum -= l[6 * k + i] * x[k] }
        x[i] = sum / l[6 * i + i]
      }
      for i in 0..<6 { inverse[6 * i + column] = x[i] }
    }
    return inverse
  }
}
