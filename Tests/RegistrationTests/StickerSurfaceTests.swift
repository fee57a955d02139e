import Foundation
@testable import Registration
import ScanIO
import Testing
import _HeadScanSupport

/// The sticker-surface fit that gives lifted corners their depth: its sampling and its quadric.
struct StickerSurfaceTests {
  /// A reproducible stream of doubles in `range`.
  private struct Numbers {
    var state: UInt64
    mutating func next(in range: ClosedRange<Double>) -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return range.lowerBound + Double(state >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
  }

  @Test func quadricFitIsTheGeneralLeastSquaresToTheLastBit() throws {
    var numbers = Numbers(state: 7)
    for count in [6, 7, 40, 333, 2000] {
      let samples = (0..<count).map { _ in
        (u: numbers.next(in: -1.3...1.3), v: numbers.next(in: -1.3...1.3), z: numbers.next(in: 2...4))
      }
      let general = try #require(
        leastSquares(samples, unknowns: 6) { q, a in
          (a[0], a[1], a[2], a[3], a[4], a[5]) = (1, q.u, q.v, q.u * q.u, q.u * q.v, q.v * q.v)
          return q.z
        })
      let fitted = try #require(LiftedMarker.quadricFit(samples))
      #expect(fitted.map(\.bitPattern) == general.map(\.bitPattern), "\(count) samples")
    }
  }

  @Test func quadricFitRecoversAKnownSurface() throws {
    let truth = [2.5, -0.3, 0.2, 0.04, -0.02, 0.03]
    var samples: [(u: Double, v: Double, z: Double)] = []
    for i in -5...5 {
      for j in -5...5 {
        let (u, v) = (Double(i) / 5, Double(j) / 5)
        samples.append((u, v, LiftedMarker.quadric(truth, u, v)))
      }
    }
    let fitted = try #require(LiftedMarker.quadricFit(samples))
    for (a, b) in zip(fitted, truth) { #expect(abs(a - b) < 1e-12) }
  }

  /// The per-pixel rule as stated: walk the sides in order, and a pixel is outside as soon as
  /// one side sees it opposite to the first side that saw it off its line.
  private static func inside(_ quad: [SIMD2<Double>], _ x: Double, _ y: Double) -> Bool {
    var sign = 0.0
    for k in 0..<4 {
      let start = quad[k], step = quad[(k + 1) % 4] - quad[k]
      let cross = step.x * (y - start.y) - step.y * (x - start.x)
      if sign == 0 { sign = cross } else if cross * sign < 0 { return false }
    }
    return true
  }

  @Test func samplesAreTheValidPixelsInsideTheQuad() {
    var numbers = Numbers(state: 11)
    let (width, height) = (64, 48)
    let intrinsics = CameraIntrinsics(fx: 60, fy: 60, cx: 32, cy: 24, width: width, height: height)
    // A depth map with holes, and quads of every orientation and both windings, some with
    // corners on pixel centres (on a side counts as inside) and some reaching past the map.
    let metres = (0..<(width * height)).map { i -> Float in i % 7 == 3 ? .nan : 0.3 + Float(i % 13) * 0.001 }
    let depth = DepthMap(width: width, height: height, metres: metres, intrinsics: intrinsics)
    for trial in 0..<60 {
      let centre = SIMD2(numbers.next(in: 10...54), numbers.next(in: 8...40))
      let half = numbers.next(in: 3...14), angle = numbers.next(in: 0...(2 * .pi))
      var quad = (0..<4).map { k -> SIMD2<Double> in
        let a = angle + Double(k) * .pi / 2 + numbers.next(in: -0.2...0.2)
        return centre + half * SIMD2(cos(a), sin(a))
      }
      if trial % 3 == 0 { quad = quad.map { $0.rounded(.toNearestOrEven) } }
      if trial % 2 == 1 { quad.reverse() }
      // The whole map, or (every other trial) a window that cuts the quad through its centre.
      let cut = SIMD2(Int(centre.x), Int(centre.y))
      let columns = trial % 2 == 0 ? 0...(width - 1) : cut.x...(width - 1), rows = trial % 2 == 0 ? 0...(height - 1) : 0...cut.y
      let samples = LiftedMarker.stickerSamples(depth, quad: quad, columns: columns, rows: rows, centre: centre, scale: half)
      var expected: [(u: Double, v: Double, z: Double)] = []
      for y in rows {
        for x in columns where metres[y * width + x].isFinite && Self.inside(quad, Double(x), Double(y)) {
          expected.append(((Double(x) - centre.x) / half, (Double(y) - centre.y) / half, 1 / Double(metres[y * width + x])))
        }
      }
      #expect(!expected.isEmpty)
      #expect(samples.count == expected.count, "trial \(trial)")
      #expect(zip(samples, expected).allSatisfy { $0.u == $1.u && $0.v == $1.v && $0.z == $1.z }, "trial \(trial)")
    }
  }

  @Test func aTiltedPlaneGivesItsCornerDepths() throws {
    let (width, height) = (160, 120)
    let intrinsics = CameraIntrinsics(fx: 150, fy: 150, cx: 80, cy: 60, width: width, height: height)
    // The plane n·X = d seen obliquely; depth along each pixel's ray.
    let normal = SIMD3<Double>(0.3, -0.2, 1), offset = 0.4
    func depthAt(_ u: Double, _ v: Double) -> Double {
      let ray = SIMD3((u - intrinsics.cx) / intrinsics.fx, (v - intrinsics.cy) / intrinsics.fy, 1)
      return offset / (normal * ray).sum()
    }
    var metres = [Float](repeating: .nan, count: width * height)
    for y in 0..<height {
      for x in 0..<width { metres[y * width + x] = Float(depthAt(Double(x), Double(y))) }
    }
    let depth = DepthMap(width: width, height: height, metres: metres, intrinsics: intrinsics)
    let corners = [SIMD2(70.3, 50.8), SIMD2(93.1, 52.2), SIMD2(91.6, 73.9), SIMD2(68.7, 72.5)]
    let surface = try #require(LiftedMarker.stickerSurfaceDepths(depth, corners: corners, minimumSamples: 80))
    for (corner, z) in zip(corners, surface.depths) {
      // Float32 depth: about 3e-8 m at 0.4 m.
      #expect(abs(z - depthAt(corner.x, corner.y)) < 2e-7)
    }
    #expect(abs(surface.midpoints.x - depthAt((corners[0].x + corners[2].x) / 2, (corners[0].y + corners[2].y) / 2)) < 2e-7)
    #expect(surface.spread < 1e-6)
  }
}
