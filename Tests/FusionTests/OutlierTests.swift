import Foundation
import PointCloud
import Testing
import _HeadScanSupport

@testable import Registration

/// The cleaning stage's outlier test (`NativeGeometry.medianRelativeInliers`): a point is removed
/// when its mean distance to its 20 nearest points is more than twice the median point's.
struct OutlierTests {
  /// The sphere cap of `LocalSurfaceProjectionTests` (radius 60 mm, points about 1 mm apart) with
  /// `strays` points lifted off the surface by 0.5 to 15 mm, and a few exact duplicates (ties in
  /// the neighbour search). Returns the points and each stray's height above the surface, metres.
  static func cloudWithStrays(sigma: Double, strays: Int, seed: UInt64) -> (points: [SIMD3<Float>], heights: [Double]) {
    var points = LocalSurfaceProjectionTests.sphereCap(sigma: sigma, seed: seed)
    var random = SeededGenerator(seed: seed &+ 1)
    var heights: [Double] = []
    for i in 0..<strays {
      let p = SIMD3<Double>(points[(i * 997) % points.count])
      let off = 0.0005 + 0.0145 * Double.random(in: 0..<1, using: &random)
      heights.append(off)
      points.append(SIMD3<Float>(p * (1 + off / 0.06)))
    }
    for i in 0..<20 { points.append(points[i * 311]) }
    return (points, heights)
  }

  /// Strays off the surface are removed, and no point of the surface: every stray more than 2.5
  /// times the surface's median neighbour distance off it (its 20 neighbours then lie farther
  /// than twice that median on average) goes, none of the surface's 20 000 points does, whatever
  /// the surface's own noise.
  @Test(arguments: [(0.0002, UInt64(1)), (0.0005, 2), (0.001, 3)])
  func straysOffTheSurfaceAreRemovedAndTheSurfaceKept(sigma: Double, seed: UInt64) throws {
    let (points, heights) = Self.cloudWithStrays(sigma: sigma, strays: 300, seed: seed)
    let keep = try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2, workers: 2)
    let surface = 20_000
    let spacing = Double(lowerMedian(Array(try NearestPointIndex(points).meanNeighbourDistances(neighbours: 20).distances[0..<surface])))
    let far = heights.indices.filter { heights[$0] > 2.5 * spacing }
    #expect(far.count > 150)
    let farKept = far.filter { keep[surface + $0] }.count
    let surfaceDropped = keep[0..<surface].filter { !$0 }.count
    #expect(farKept == 0, "\(farKept) of \(far.count) strays more than \(2.5 * spacing * 1000) mm off kept")
    #expect(surfaceDropped == 0, "\(surfaceDropped) surface points dropped")
  }

  /// The verdicts do not depend on the worker threads, nor a surface point's on what else the
  /// cloud holds: a second, rougher patch beside the cap (a face, hands, a table), a sixth of the
  /// cloud, moves the median little and leaves every verdict on the cap's surface as it was.
  @Test func verdictsDependOnNeitherThreadsNorTheRestOfTheCloud() throws {
    let (points, _) = Self.cloudWithStrays(sigma: 0.0005, strays: 300, seed: 5)
    let alone = try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2, workers: 1)
    for workers in [2, 7] {
      #expect(try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2, workers: workers) == alone)
    }
    var random = SeededGenerator(seed: 6)
    let other = (0..<4000).map { _ in
      SIMD3<Float>(SIMD3(0.2 + 0.08 * Double.random(in: 0..<1, using: &random), 0.08 * Double.random(in: 0..<1, using: &random), 0.002 * random.gaussian()))
    }
    let together = try NativeGeometry.medianRelativeInliers(points + other, neighbours: 20, factor: 2, workers: 2)
    #expect(Array(together[0..<20_000]) == Array(alone[0..<20_000]))
    #expect(together[points.count...].contains(false), "the rough patch's points are judged too")
  }

  /// No more points than neighbours: everything is kept.
  @Test func fewPointsAreAllKept() throws {
    let points = (0..<10).map { SIMD3<Float>(Float($0), 0, 0) }
    #expect(try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2) == [Bool](repeating: true, count: 10))
  }
}
