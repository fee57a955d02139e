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
    for o in observations {
      let pose = frames[o.frame]
      for k in 0..<4 {
        let e = (pose.apply(o.corners[k]) - markerCorners[o.marker][k]).length
        total += o.weight * (e <= delta ? e * e / 2 : delta * (e - delta / 2))
      }
    }
    return total
  }

  /// One corner observation as the normal equations see it: its marker corner, robust
  /// weight and the lifted corner moved to the world (`q = W_f p`).
  private struct Link {
    var corner: Int
    var w: Double
    var q: SIMD3<Double>
  }

  /// Levenberg–Marquardt with the frames eliminated (Schur complement onto the marker corners).
  ///
  /// Per iteration the work is linear in the observations plus one dense solve over the
  /// marker corners (3 × 4 × markers unknowns); the per-frame 6 × 6 blocks live in flat
  /// arrays, so an iteration allocates a fixed handful of buffers, not some per observation.
  /// - Returns: the number of accepted steps.
  @discardableResult
  mutating func optimise(iterations: Int, delta: Double) throws -> Int {
    var lambda = 1e-3
    var accepted = 0
    var current = cost(delta: delta)
    let cornerCount = markerCorners.count * 4
    let frameCount = frames.count
    // Observations grouped by frame (compressed rows), fixed for the whole optimisation.
    var firstLink = [Int](repeating: 0, count: frameCount + 1)
    for o in observations where o.frame != fixedFrame { firstLink[o.frame + 1] += 4 }
    for f in 0..<frameCount { firstLink[f + 1] += firstLink[f] }
    let maximumLinks = (0..<frameCount).map { firstLink[$0 + 1] - firstLink[$0] }.max() ?? 0
    var links = [Link](repeating: Link(corner: 0, w: 0, q: .zero), count: firstLink[frameCount])
    var hff = [Double](repeating: 0, count: 36 * frameCount)
    var gf = [Double](repeating: 0, count: 6 * frameCount)
    var inverses = [Double](repeating: 0, count: 36 * frameCount)
    var invertible = [Bool](repeating: false, count: frameCount)
    var hxx = [Double](repeating: 0, count: cornerCount)
    var gx = [SIMD3<Double>](repeating: .zero, count: cornerCount)  // g_x = −Σ w r
    // Per frame: B_c = −w A(q_c) (3 × 6) and P_c = B_c · H⁻¹ for each of its links, 18 values each.
    var b = [Double](repeating: 0, count: 18 * maximumLinks)
    var products = [Double](repeating: 0, count: 18 * maximumLinks)
    let n = 3 * cornerCount
    var s = [Double](repeating: 0, count: n * n)
    var rhs = [Double](repeating: 0, count: n)

    for _ in 0..<iterations {
      for i in hff.indices { hff[i] = 0 }
      for i in gf.indices { gf[i] = 0 }
      for c in 0..<cornerCount { (hxx[c], gx[c]) = (0, .zero) }
      var filled = firstLink.dropLast().map { $0 }
      for o in observations {
        for k in 0..<4 {
          let q = frames[o.frame].apply(o.corners[k])
          let r = q - markerCorners[o.marker][k]
          let e = r.length
          let w = o.weight * (e <= delta ? 1 : delta / e)
          let c = o.marker * 4 + k
          hxx[c] += w
          gx[c] -= w * r
          if o.frame == fixedFrame { continue }
          // A = [−[q]×  I]: ∂(W p)/∂(ω, v) under W ← exp(ω, v) · W.
          let a = Self.jacobian(q)
          for i in 0..<6 {
            gf[6 * o.frame + i] += w * (a.0[i] * r.x + a.1[i] * r.y + a.2[i] * r.z)
            for j in 0..<6 {
              hff[36 * o.frame + 6 * i + j] += w * (a.0[i] * a.0[j] + a.1[i] * a.1[j] + a.2[i] * a.2[j])
            }
          }
          links[filled[o.frame]] = Link(corner: c, w: w, q: q)
          filled[o.frame] += 1
        }
      }

      // Reduced system S Δx = rhs over 3 × cornerCount unknowns.
      for i in s.indices { s[i] = 0 }
      for c in 0..<cornerCount {
        for d in 0..<3 {
          s[(3 * c + d) * n + 3 * c + d] = hxx[c] * (1 + lambda) + 1e-9
          rhs[3 * c + d] = -gx[c][d]  // −g_x
        }
      }
      for f in 0..<frameCount {
        invertible[f] = false
        let range = firstLink[f]..<firstLink[f + 1]
        guard f != fixedFrame, !range.isEmpty else { continue }
        var h = Array(hff[(36 * f)..<(36 * f + 36)])
        for i in 0..<6 { h[7 * i] = h[7 * i] * (1 + lambda) + 1e-12 }
        guard let hinv = Self.invert6(h) else { continue }
        invertible[f] = true
        for i in 0..<36 { inverses[36 * f + i] = hinv[i] }
        for (l, link) in links[range].enumerated() {
          let a = Self.jacobian(link.q)
          for j in 0..<6 {
            (b[18 * l + j], b[18 * l + 6 + j], b[18 * l + 12 + j]) = (-link.w * a.0[j], -link.w * a.1[j], -link.w * a.2[j])
          }
          for row in 0..<3 {
            for j in 0..<6 {
              var v = 0.0
              for m in 0..<6 { v += b[18 * l + 6 * row + m] * hinv[6 * m + j] }
              products[18 * l + 6 * row + j] = v
            }
          }
        }
        for (ci, link) in links[range].enumerated() {
          for (di, other) in links[range].enumerated() {
            for r1 in 0..<3 {
              for r2 in 0..<3 {
                var v = 0.0
                for j in 0..<6 { v += products[18 * ci + 6 * r1 + j] * b[18 * di + 6 * r2 + j] }
                s[(3 * link.corner + r1) * n + 3 * other.corner + r2] -= v
              }
            }
          }
          for r1 in 0..<3 {
            var v = 0.0
            for j in 0..<6 { v += products[18 * ci + 6 * r1 + j] * gf[6 * f + j] }
            rhs[3 * link.corner + r1] += v
          }
        }
      }
      let dx = try NativeGeometry.solveSymmetric(s, rhs)

      // Back-substitute frame steps: Δf = H⁻¹ (−g_f − H_fx Δx), H_fx = Bᵀ.
      var candidate = self
      for c in 0..<cornerCount {
        candidate.markerCorners[c / 4][c % 4] += SIMD3(dx[3 * c], dx[3 * c + 1], dx[3 * c + 2])
      }
      for f in 0..<frameCount where invertible[f] {
        var g = (0..<6).map { -gf[6 * f + $0] }
        for link in links[firstLink[f]..<firstLink[f + 1]] {
          let a = Self.jacobian(link.q)
          let step = SIMD3(dx[3 * link.corner], dx[3 * link.corner + 1], dx[3 * link.corner + 2])
          for i in 0..<6 { g[i] += link.w * (a.0[i] * step.x + a.1[i] * step.y + a.2[i] * step.z) }
        }
        let delta6 = (0..<6).map { i in (0..<6).reduce(0) { $0 + inverses[36 * f + 6 * i + $1] * g[$1] } }
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
