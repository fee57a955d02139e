import Foundation
import PointCloud
import Testing
import _HeadScanSupport

@testable import Fusion
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

  /// The factor is the limit itself: on a flat 1 mm grid (every inner point's 20 neighbours at
  /// the same distances, which are the median), a point lifted off the grid until its own mean
  /// distance to its 20 nearest points is 1.9 times the median is kept, one lifted to 2.1 times
  /// is removed, and every grid point, the edges' too, is kept. The distances here are found by
  /// brute force, apart from the k-d tree the test runs on.
  @Test func theLimitIsTwiceTheMedianPointsDistance() throws {
    let side = 60
    let grid = (0..<side * side).map { SIMD3<Float>(Float($0 % side) * 0.001, Float($0 / side) * 0.001, 0) }
    func meanDistance(_ p: SIMD3<Float>) -> Double {
      let d = grid.map { q -> Double in
        let e = SIMD3<Double>(q) - SIMD3<Double>(p)
        return (e * e).sum().squareRoot()
      }.filter { $0 > 0 }.sorted()
      return d.prefix(20).reduce(0, +) / 20
    }
    let median = meanDistance(grid[30 * side + 30])
    func lifted(_ index: Int, times: Double) -> SIMD3<Float> {
      var low = 0.0, high = 0.05
      for _ in 0..<50 {
        let h = (low + high) / 2
        if meanDistance(grid[index] + SIMD3(0, 0, Float(h))) < times * median { low = h } else { high = h }
      }
      return grid[index] + SIMD3(0, 0, Float((low + high) / 2))
    }
    let points = grid + [lifted(15 * side + 15, times: 1.9), lifted(45 * side + 45, times: 2.1)]
    let keep = try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2, workers: 2)
    #expect(keep[grid.count], "the point at 1.9 times the median is kept")
    #expect(!keep[grid.count + 1], "the point at 2.1 times the median is removed")
    #expect(keep[0..<grid.count].allSatisfy { $0 })
  }

  /// The cleaning refuses options that would empty or break it, naming the scan.
  @Test(arguments: [(20, 0.5), (20, Double.nan), (0, 2.0)])
  func cleaningRefusesANonsensicalOutlierTest(neighbours: Int, factor: Double) throws {
    let cloud = FusedCloud(
      path: "scan.rgbdscan", points: PointSet(positions: LocalSurfaceProjectionTests.sphereCap(sigma: 0, seed: 1)), headCentre: .zero,
      framesFused: 1, refinedPoses: [:])
    var options = CleaningOptions.default
    options.neighbours = neighbours
    options.outlierFactor = factor
    #expect {
      try cleanCloud(cloud, options: options)
    } throws: { error in
      String(describing: error).hasPrefix("scan.rgbdscan: ")
    }
  }

  /// No more points than neighbours: everything is kept.
  @Test func fewPointsAreAllKept() throws {
    let points = (0..<10).map { SIMD3<Float>(Float($0), 0, 0) }
    #expect(try NativeGeometry.medianRelativeInliers(points, neighbours: 20, factor: 2) == [Bool](repeating: true, count: 10))
  }
}
