import PointCloud
import _HeadScanSupport

/// The buffers of one ``PoseGraph/optimise(iterations:delta:)`` run: the robust normal equations
/// of every frame and marker corner, and the reduced system over the corners after the frames
/// are eliminated (Schur complement). Sized once; each iteration overwrites them.
struct NormalEquations {
  /// One corner observation as the normal equations see it: its marker corner, robust
  /// weight and the lifted corner moved to the world (`q = W_f p`).
  struct Link {
    var corner: Int
    var w: Double
    var q: SIMD3<Double>
  }

  let cornerCount: Int, frameCount: Int, fixedFrame: Int
  /// Observations grouped by frame (compressed rows): frame f's links are `firstLink[f]..<firstLink[f + 1]`.
  let firstLink: [Int]
  var links: [Link]
  var hff: [Double], gf: [Double]
  var inverses: [Double], invertible: [Bool]
  var hxx: [Double]
  /// g_x = −Σ w r per corner.
  var gx: [SIMD3<Double>]
  /// Unknowns of the reduced system: 3 per corner.
  let n: Int
  /// The reduced system S Δx = rhs (S row-major n × n).
  var s: [Double], rhs: [Double]

  init(for graph: PoseGraph) {
    cornerCount = graph.markerCorners.count * 4
    frameCount = graph.frames.count
    fixedFrame = graph.fixedFrame
    var firstLink = [Int](repeating: 0, count: frameCount + 1)
    for o in graph.observations where o.frame != fixedFrame { firstLink[o.frame + 1] += 4 }
    for f in 0..<frameCount { firstLink[f + 1] += firstLink[f] }
    self.firstLink = firstLink
    links = [Link](repeating: Link(corner: 0, w: 0, q: .zero), count: firstLink[frameCount])
    hff = [Double](repeating: 0, count: 36 * frameCount)
    gf = [Double](repeating: 0, count: 6 * frameCount)
    inverses = [Double](repeating: 0, count: 36 * frameCount)
    invertible = [Bool](repeating: false, count: frameCount)
    hxx = [Double](repeating: 0, count: cornerCount)
    gx = [SIMD3<Double>](repeating: .zero, count: cornerCount)
    n = 3 * cornerCount
    s = [Double](repeating: 0, count: n * n)
    rhs = [Double](repeating: 0, count: n)
  }

  /// The Huber-weighted normal equations at the graph's current estimate.
  mutating func accumulate(_ graph: PoseGraph, delta: Double) {
    for i in hff.indices { hff[i] = 0 }
    for i in gf.indices { gf[i] = 0 }
    for c in 0..<cornerCount { (hxx[c], gx[c]) = (0, .zero) }
    var filled = firstLink.dropLast().map { $0 }
    for o in graph.observations {
      for k in 0..<4 {
        let q = graph.frames[o.frame].apply(o.corners[k])
        let r = q - graph.markerCorners[o.marker][k]
        let e = r.length
        let w = o.weight * (e <= delta ? 1 : delta / e)
        let c = o.marker * 4 + k
        hxx[c] += w
        gx[c] -= w * r
        if o.frame == fixedFrame { continue }
        // A = [−[q]×  I]: ∂(W p)/∂(ω, v) under W ← exp(ω, v) · W.
        let a = PoseGraph.jacobian(q)
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
  }

  /// The reduced system S Δx = rhs over the corners, damped by `lambda`, formed on `threads`
  /// threads.
  ///
  /// Each thread forms the rows of the corners it owns (corner number modulo the threads), all
  /// frames in order: every entry of S and rhs is summed by one thread in frame order, so the
  /// system is the same bit for bit whatever the number of threads.
  mutating func reduce(lambda: Double, threads: Int = 1) {
    for i in s.indices { s[i] = 0 }
    for c in 0..<cornerCount {
      for d in 0..<3 {
        s[(3 * c + d) * n + 3 * c + d] = hxx[c] * (1 + lambda) + 1e-9
        rhs[3 * c + d] = -gx[c][d]  // −g_x
      }
    }
    let stripes = max(1, min(threads, cornerCount)), frameCount = frameCount
    links.withUnsafeBufferPointer { links in
      firstLink.withUnsafeBufferPointer { firstLink in
        hff.withUnsafeBufferPointer { hff in
          gf.withUnsafeBufferPointer { gf in
            inverses.withUnsafeMutableBufferPointer { inverses in
              invertible.withUnsafeMutableBufferPointer { invertible in
                s.withUnsafeMutableBufferPointer { s in
                  rhs.withUnsafeMutableBufferPointer { rhs in
                    let system = Elimination(
                      links: links, firstLink: firstLink, hff: hff, gf: gf, inverses: inverses, invertible: invertible, s: s, rhs: rhs,
                      n: n, fixedFrame: fixedFrame, lambda: lambda)
                    // First every frame's damped block inverted (each by one thread), then the rows.
                    let invert = { @Sendable (stripe: Int) in
                      for f in stride(from: stripe, to: frameCount, by: stripes) { system.invert(frame: f) }
                    }
                    let eliminate = { @Sendable (stripe: Int) in
                      for f in 0..<frameCount { system.eliminate(frame: f, stripe: stripe, of: stripes) }
                    }
                    if stripes == 1 {
                      invert(0)
                      eliminate(0)
                    } else {
                      forEachIndexConcurrently(stripes, workers: stripes, invert)
                      forEachIndexConcurrently(stripes, workers: stripes, eliminate)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    // The frames filled the lower triangle; S is symmetric.
    s.withUnsafeMutableBufferPointer { s in
      for row in 0..<n {
        for column in 0..<row { s[column * n + row] = s[row * n + column] }
      }
    }
  }

  /// The graph moved by the corner step `dx` and the frame steps it implies
  /// (back-substitution: Δf = H⁻¹ (−g_f − H_fx Δx), H_fx = Bᵀ).
  func stepped(_ graph: PoseGraph, cornerStep dx: [Double]) -> PoseGraph {
    var candidate = graph
    for c in 0..<cornerCount {
      candidate.markerCorners[c / 4][c % 4] += SIMD3(dx[3 * c], dx[3 * c + 1], dx[3 * c + 2])
    }
    for f in 0..<frameCount where invertible[f] {
      var g = (0..<6).map { -gf[6 * f + $0] }
      for link in links[firstLink[f]..<firstLink[f + 1]] {
        let a = PoseGraph.jacobian(link.q)
        let step = SIMD3(dx[3 * link.corner], dx[3 * link.corner + 1], dx[3 * link.corner + 2])
        for i in 0..<6 { g[i] += link.w * (a.0[i] * step.x + a.1[i] * step.y + a.2[i] * step.z) }
      }
      let delta6 = (0..<6).map { i in (0..<6).reduce(0) { $0 + inverses[36 * f + 6 * i + $1] * g[$1] } }
      let turn = Rotation3(rotationVector: SIMD3(delta6[0], delta6[1], delta6[2]))
      let move = RigidTransform(rotation: turn, translation: SIMD3(delta6[3], delta6[4], delta6[5]))
      candidate.frames[f] = move * graph.frames[f]
    }
    return candidate
  }
}

/// The normal equations' buffers as the threads forming the reduced system see them
/// (``NormalEquations/reduce(lambda:threads:)``): each frame's inverted block is written by one
/// thread, and each thread writes only the rows of S and rhs of its own corners.
private struct Elimination: @unchecked Sendable {
  let links: UnsafeBufferPointer<NormalEquations.Link>
  let firstLink: UnsafeBufferPointer<Int>
  let hff: UnsafeBufferPointer<Double>, gf: UnsafeBufferPointer<Double>
  let inverses: UnsafeMutableBufferPointer<Double>, invertible: UnsafeMutableBufferPointer<Bool>
  let s: UnsafeMutableBufferPointer<Double>, rhs: UnsafeMutableBufferPointer<Double>
  let n: Int, fixedFrame: Int, lambda: Double

  /// Inverts frame `f`'s damped 6 × 6 block into `inverses` (`invertible[f]` false for the fixed
  /// frame, a frame without observations or a block that is not positive definite).
  func invert(frame f: Int) {
    invertible[f] = false
    guard f != fixedFrame, firstLink[f + 1] > firstLink[f] else { return }
    var h = Array(hff[(36 * f)..<(36 * f + 36)])
    for i in 0..<6 { h[7 * i] = h[7 * i] * (1 + lambda) + 1e-12 }
    guard let hinv = PoseGraph.invert6(h) else { return }
    invertible[f] = true
    for i in 0..<36 { inverses[36 * f + i] = hinv[i] }
  }

  /// Subtracts frame `f`'s Schur complement from the rows of the corners whose number is
  /// `stripe` modulo `stripes`, in the lower triangle of the reduced system (nothing for a frame
  /// whose block ``invert(frame:)`` did not invert).
  ///
  /// The complement's block for links c, d is `P_c B_dᵀ = −w_d P_c A(q_d)ᵀ`, whose row r is
  /// `−w_d (p_r × q_d + t_r)` for P_c's row r split into rotation part p_r and translation part
  /// t_r (`A(q) = [−[q]× | I]`). A row link gives the blocks of every link whose corner is not
  /// above its own.
  func eliminate(frame f: Int, stripe: Int, of stripes: Int) {
    let first = firstLink[f], count = firstLink[f + 1] - first
    guard invertible[f], (first..<(first + count)).contains(where: { links[$0].corner % stripes == stripe }) else { return }
    // Row m of H⁻¹, for P[r, j] = Σₘ B[r, m] H⁻¹[m, j].
    let h = 36 * f
    let inverseRows = (0..<6).map { m in
      SIMD8(
        inverses[h + 6 * m], inverses[h + 6 * m + 1], inverses[h + 6 * m + 2], inverses[h + 6 * m + 3], inverses[h + 6 * m + 4],
        inverses[h + 6 * m + 5], 0, 0)
    }
    let turnGradient = SIMD3(gf[6 * f], gf[6 * f + 1], gf[6 * f + 2])
    let shiftGradient = SIMD3(gf[6 * f + 3], gf[6 * f + 4], gf[6 * f + 5])
    for l in 0..<count where links[first + l].corner % stripes == stripe {
      let link = links[first + l], c = link.corner
      let a = PoseGraph.jacobian(link.q)
      // The rows of P = B · H⁻¹ (B = −w A(q), 3 × 6), split into their rotation (first three)
      // and translation (last three) parts.
      var turnRows = (SIMD3<Double>.zero, SIMD3<Double>.zero, SIMD3<Double>.zero), shiftRows = turnRows
      for row in 0..<3 {
        let bRow = -link.w * (row == 0 ? a.0 : row == 1 ? a.1 : a.2)
        var p = SIMD8<Double>.zero
        for m in 0..<6 { p += bRow[m] * inverseRows[m] }
        let turn = SIMD3(p[0], p[1], p[2]), shift = SIMD3(p[3], p[4], p[5])
        switch row {
        case 0: (turnRows.0, shiftRows.0) = (turn, shift)
        case 1: (turnRows.1, shiftRows.1) = (turn, shift)
        default: (turnRows.2, shiftRows.2) = (turn, shift)
        }
      }
      func turnRow(_ r: Int) -> SIMD3<Double> { r == 0 ? turnRows.0 : r == 1 ? turnRows.1 : turnRows.2 }
      func shiftRow(_ r: Int) -> SIMD3<Double> { r == 0 ? shiftRows.0 : r == 1 ? shiftRows.1 : shiftRows.2 }
      // Block (this link's corner, the other link's corner) −= P_this B_otherᵀ.
      for o in 0..<count {
        let other = links[first + o]
        guard other.corner <= c else { continue }
        for r in 0..<3 {
          let entry = -other.w * (turnRow(r).cross(other.q) + shiftRow(r))
          let start = (3 * c + r) * n + 3 * other.corner
          s[start] -= entry.x
          s[start + 1] -= entry.y
          s[start + 2] -= entry.z
        }
      }
      for r in 0..<3 {
        rhs[3 * c + r] += (turnRow(r) * turnGradient).sum() + (shiftRow(r) * shiftGradient).sum()
      }
    }
  }
}
