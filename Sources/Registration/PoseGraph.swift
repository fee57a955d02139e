import Foundation
import PointCloud

/// Frames and markers linked by observations: the unknowns of the registration.
///
/// Unknowns are `worldFromCamera` of every frame (6 dof) and the four world
/// corners of every marker (12 dof: stickers on a curved cap are not flat
/// squares). Each observation says `worldFromCamera · p = X` for its four
/// lifted corners p and the marker's corners X. One frame is held fixed (the
/// gauge); the result is re-expressed in the contract §5 world afterwards.
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
    for (o, r) in zip(observations, residuals()) {
      for e in r.map(\.length) { total += o.weight * (e <= delta ? e * e / 2 : delta * (e - delta / 2)) }
    }
    return total
  }

  /// Levenberg–Marquardt with the frames eliminated (Schur complement onto the marker corners).
  /// - Returns: the number of accepted steps.
  @discardableResult
  mutating func optimise(iterations: Int, delta: Double) throws -> Int {
    var lambda = 1e-3
    var accepted = 0
    var current = cost(delta: delta)
    let cornerCount = markerCorners.count * 4
    for _ in 0..<iterations {
      // Per-frame blocks.
      var hff = [[Double]](repeating: [Double](repeating: 0, count: 36), count: frames.count)
      var gf = [[Double]](repeating: [Double](repeating: 0, count: 6), count: frames.count)
      var hxx = [Double](repeating: 0, count: cornerCount)
      var gx = [SIMD3<Double>](repeating: .zero, count: cornerCount)  // g_x = −Σ w r
      // For the Schur complement: per frame, its (corner index, weight, A) terms.
      var links = [[(corner: Int, w: Double, q: SIMD3<Double>)]](repeating: [], count: frames.count)
      for o in observations {
        for k in 0..<4 {
          let q = frames[o.frame].apply(o.corners[k])
          let x = markerCorners[o.marker][k]
          let r = q - x
          let e = r.length
          let w = o.weight * (e <= delta ? 1 : delta / e)
          let c = o.marker * 4 + k
          hxx[c] += w
          gx[c] -= w * r
          if o.frame == fixedFrame { continue }
          // A = [−[q]×  I]: ∂(W p)/∂(ω, v) under W ← exp(ω, v) · W.
          let a = Self.jacobian(q)
          for i in 0..<6 {
            var gi = 0.0
            for row in 0..<3 { gi += a[row][i] * r[row] }
            gf[o.frame][i] += w * gi
            for j in 0..<6 {
              var s = 0.0
              for row in 0..<3 { s += a[row][i] * a[row][j] }
              hff[o.frame][6 * i + j] += w * s
            }
          }
          links[o.frame].append((c, w, q))
        }
      }

      // Reduced system S Δx = rhs over 3 × cornerCount unknowns.
      let n = 3 * cornerCount
      var s = [Double](repeating: 0, count: n * n)
      var rhs = [Double](repeating: 0, count: n)
      for c in 0..<cornerCount {
        for d in 0..<3 {
          s[(3 * c + d) * n + 3 * c + d] = hxx[c] * (1 + lambda) + 1e-9
          rhs[3 * c + d] = -gx[c][d]  // −g_x
        }
      }
      var inverses = [[Double]](repeating: [], count: frames.count)
      for f in frames.indices where f != fixedFrame && !links[f].isEmpty {
        var h = hff[f]
        for i in 0..<6 { h[7 * i] = h[7 * i] * (1 + lambda) + 1e-12 }
        guard let hinv = Self.invert6(h) else { continue }
        inverses[f] = hinv
        // B_c = H_xf for corner c = −w A (3×6); Hinv·B_dᵀ etc.
        let terms = links[f].map { link -> [[Double]] in
          let a = Self.jacobian(link.q)
          return (0..<3).map { row in (0..<6).map { -link.w * a[row][$0] } }
        }
        // P_c = B_c · Hinv (3×6).
        let products = terms.map { b in (0..<3).map { row in (0..<6).map { j in (0..<6).reduce(0) { $0 + b[row][$1] * hinv[6 * $1 + j] } } } }
        for (ci, link) in links[f].enumerated() {
          for (di, other) in links[f].enumerated() {
            for r1 in 0..<3 {
              for r2 in 0..<3 {
                var v = 0.0
                for j in 0..<6 { v += products[ci][r1][j] * terms[di][r2][j] }
                s[(3 * link.corner + r1) * n + 3 * other.corner + r2] -= v
              }
            }
          }
          for r1 in 0..<3 {
            var v = 0.0
            for j in 0..<6 { v += products[ci][r1][j] * gf[f][j] }
            rhs[3 * link.corner + r1] += v
          }
        }
      }
      let dx = try NativeGeometry.solveSymmetric(s, rhs)

      // Back-substitute frame steps: Δf = Hinv (−g_f − H_fx Δx), H_fx = Bᵀ.
      var candidate = self
      for c in 0..<cornerCount {
        candidate.markerCorners[c / 4][c % 4] += SIMD3(dx[3 * c], dx[3 * c + 1], dx[3 * c + 2])
      }
      for f in frames.indices where !inverses[f].isEmpty {
        var b = gf[f].map { -$0 }
        for link in links[f] {
          let a = Self.jacobian(link.q)
          let step = SIMD3(dx[3 * link.corner], dx[3 * link.corner + 1], dx[3 * link.corner + 2])
          for i in 0..<6 {
            var v = 0.0
            for row in 0..<3 { v += -link.w * a[row][i] * step[row] }
            b[i] -= v
          }
        }
        let delta6 = (0..<6).map { i in (0..<6).reduce(0) { $0 + inverses[f][6 * i + $1] * b[$1] } }
        let turn = Rotation3(rotationVector: SIMD3(delta6[0], delta6[1], delta6[2]))
        let move = RigidTransform(rotation: turn, translation: SIMD3(delta6[3], delta6[4], delta6[5]))
        candidate.frames[f] = move * frames[f]
      }
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
  static func jacobian(_ q: SIMD3<Double>) -> [[Double]] {
    [[0, q.z, -q.y, 1, 0, 0], [-q.z, 0, q.x, 0, 1, 0], [q.y, -q.x, 0, 0, 0, 1]]
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
