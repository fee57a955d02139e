import PointCloud
import Testing
import _HeadScanSupport

@testable import Registration

/// The pose graph's reduced system (frames eliminated onto the marker corners) against the
/// same Schur complement formed densely from every observation's Jacobian.
struct SchurComplementTests {
  /// A small graph: 5 frames, 4 markers, each frame seeing 2–4 of them in a shuffled order
  /// (so a frame's corners come both before and after one another), one frame seeing a
  /// marker twice, weights 1 and 0.4, corners a few millimetres off so the residuals are not zero.
  static func graph(seed: UInt64) -> PoseGraph {
    var random = SeededGenerator(seed: seed)
    func vector(_ scale: Double) -> SIMD3<Double> {
      SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * scale
    }
    let markers = (0..<4).map { _ in (0..<4).map { _ in vector(0.05) } }
    let frames = (0..<5).map { _ in RigidTransform(rotation: Rotation3(rotationVector: vector(0.3)), translation: vector(0.1)) }
    var observations: [PoseGraph.Observation] = []
    for (f, pose) in frames.enumerated() {
      var seen = markers.indices.filter { (f + $0) % 5 != 4 }
      seen.shuffle(using: &random)
      if f == 1, let again = seen.first { seen.append(again) }
      for m in seen {
        let cameraFromWorld = pose.inverse
        let corners = markers[m].map { cameraFromWorld.apply($0 + vector(0.003)) }
        observations.append(PoseGraph.Observation(frame: f, marker: m, corners: corners, weight: m % 2 == 0 ? 1 : 0.4))
      }
    }
    return PoseGraph(frames: frames, markerCorners: markers, observations: observations, fixedFrame: 2)
  }

  @Test(arguments: [UInt64(3), 11, 29])
  func reducedSystemIsTheDenseSchurComplement(seed: UInt64) throws {
    let graph = Self.graph(seed: seed)
    let lambda = 0.01
    var work = NormalEquations(for: graph)
    work.accumulate(graph, delta: 10)  // every corner inside the Huber threshold: weights as given
    work.reduce(lambda: lambda)

    // Dense: unknowns are 6 per frame (the fixed one included, then dropped) and 3 per corner.
    let cornerCount = graph.markerCorners.count * 4, frameCount = graph.frames.count
    let nx = 3 * cornerCount, nf = 6 * frameCount
    var hff = [[Double]](repeating: [Double](repeating: 0, count: nf), count: nf)
    var hfx = [[Double]](repeating: [Double](repeating: 0, count: nx), count: nf)
    var hxx = [Double](repeating: 0, count: nx)
    var gf = [Double](repeating: 0, count: nf), gx = [Double](repeating: 0, count: nx)
    for o in graph.observations {
      for k in 0..<4 {
        let q = graph.frames[o.frame].apply(o.corners[k])
        let r = q - graph.markerCorners[o.marker][k]
        // ∂r/∂(ω, v) = [−[q]× | I]; ∂r/∂X = −I.
        let a: [[Double]] = [[0, q.z, -q.y, 1, 0, 0], [-q.z, 0, q.x, 0, 1, 0], [q.y, -q.x, 0, 0, 0, 1]]
        let c = o.marker * 4 + k, w = o.weight
        for d in 0..<3 {
          hxx[3 * c + d] += w
          gx[3 * c + d] -= w * r[d]
        }
        for i in 0..<6 {
          gf[6 * o.frame + i] += w * (0..<3).reduce(0) { $0 + a[$1][i] * r[$1] }
          for j in 0..<6 { hff[6 * o.frame + i][6 * o.frame + j] += w * (0..<3).reduce(0) { $0 + a[$1][i] * a[$1][j] } }
          for d in 0..<3 { hfx[6 * o.frame + i][3 * c + d] -= w * a[d][i] }
        }
      }
    }
    var expected = [Double](repeating: 0, count: nx * nx), expectedRHS = gx.map { -$0 }
    for i in 0..<nx { expected[i * nx + i] = hxx[i] * (1 + lambda) + 1e-9 }
    for f in 0..<frameCount where f != graph.fixedFrame {
      var block = (0..<36).map { hff[6 * f + $0 / 6][6 * f + $0 % 6] }
      for i in 0..<6 { block[7 * i] = block[7 * i] * (1 + lambda) + 1e-12 }
      let inverse = try #require(PoseGraph.invert6(block))
      // S −= H_xf H_ff⁻¹ H_fx; rhs += H_xf H_ff⁻¹ g_f.
      for row in 0..<nx {
        var left = [Double](repeating: 0, count: 6)  // (H_xf H_ff⁻¹)[row]
        for j in 0..<6 { left[j] = (0..<6).reduce(0) { $0 + hfx[6 * f + $1][row] * inverse[6 * $1 + j] } }
        for column in 0..<nx { expected[row * nx + column] -= (0..<6).reduce(0) { $0 + left[$1] * hfx[6 * f + $1][column] } }
        expectedRHS[row] += (0..<6).reduce(0) { $0 + left[$1] * gf[6 * f + $1] }
      }
    }
    let scale = expected.map(abs).max() ?? 1
    let worst = zip(work.s, expected).map { abs($0 - $1) }.max() ?? .infinity
    #expect(worst <= 1e-12 * scale, "largest difference \(worst) of \(scale)")
    let rhsScale = expectedRHS.map(abs).max() ?? 1
    let worstRHS = zip(work.rhs, expectedRHS).map { abs($0 - $1) }.max() ?? .infinity
    #expect(worstRHS <= 1e-12 * max(rhsScale, 1e-30), "largest rhs difference \(worstRHS) of \(rhsScale)")
    // Symmetric, as the solver's residual check needs.
    for row in 0..<nx {
      for column in 0..<row { #expect(work.s[row * nx + column] == work.s[column * nx + row]) }
    }
  }

  /// Formed on several threads (each its own corners' rows), the reduced system is the one
  /// thread's bit for bit.
  @Test(arguments: [2, 3, 5, 64])
  func threadsFormTheSameSystem(threads: Int) throws {
    let graph = Self.graph(seed: 7)
    var one = NormalEquations(for: graph)
    one.accumulate(graph, delta: 0.001)
    var many = one
    one.reduce(lambda: 0.03)
    many.reduce(lambda: 0.03, threads: threads)
    #expect(one.s.contains { $0 != 0 })
    #expect(many.s == one.s)
    #expect(many.rhs == one.rhs)
    #expect(many.inverses == one.inverses)
    #expect(many.invertible == one.invertible)
  }
}
