import Foundation
import PointCloud
import Testing
import _HeadScanSupport

@testable import Registration

/// The cleaning stage's outlier removal: the neighbour search runs in shares on worker threads,
/// and its verdicts must be PCL's own filter's (`pcl::StatisticalOutlierRemoval`), point for
/// point, whatever the number of threads.
struct StatisticalOutlierTests {
  /// A noisy sphere cap with `strays` points scattered up to 15 mm off the surface, and a few
  /// exact duplicates (ties in the neighbour search).
  static func cloudWithStrays(sigma: Double, strays: Int, seed: UInt64) -> [SIMD3<Float>] {
    var points = LocalSurfaceProjectionTests.sphereCap(sigma: sigma, seed: seed)
    var random = SeededGenerator(seed: seed &+ 1)
    for i in 0..<strays {
      let p = SIMD3<Double>(points[(i * 997) % points.count])
      let off = 0.002 + 0.013 * Double.random(in: 0..<1, using: &random)
      points.append(SIMD3<Float>(p * (1 + off / 0.06)))
    }
    for i in 0..<20 { points.append(points[i * 311]) }
    return points
  }

  @Test(arguments: [(0.0002, 0, UInt64(1)), (0.0005, 200, 2), (0.001, 1500, 3)])
  func threadedSearchGivesPCLVerdicts(sigma: Double, strays: Int, seed: UInt64) throws {
    let points = Self.cloudWithStrays(sigma: sigma, strays: strays, seed: seed)
    let reference = try NativeGeometry.pclStatisticalInliers(points, neighbours: 20, stddev: 2)
    let outliers = reference.filter { !$0 }.count
    // The filter does something on these clouds: it drops most strays and few surface points.
    #expect(outliers > 0)
    #expect(outliers < points.count / 10)
    for workers in [1, 2, 7] {
      let threaded = try NativeGeometry.statisticalInliers(points, neighbours: 20, stddev: 2, workers: workers)
      #expect(threaded == reference, "\(workers) workers: \(zip(threaded, reference).filter { $0 != $1 }.count) verdicts differ")
    }
  }

  /// Stray points far off the surface are the ones removed.
  @Test func straysAreRemoved() throws {
    let points = Self.cloudWithStrays(sigma: 0.0003, strays: 300, seed: 4)
    let keep = try NativeGeometry.statisticalInliers(points, neighbours: 20, stddev: 1, workers: 2)
    let surface = 20_000
    let straysKept = keep[surface..<(surface + 300)].filter { $0 }.count
    let surfaceDropped = keep[0..<surface].filter { !$0 }.count
    #expect(straysKept < 150, "\(straysKept) of 300 strays kept")
    #expect(surfaceDropped < surface / 20, "\(surfaceDropped) surface points dropped")
  }

  /// No more points than neighbours: everything is kept, as PCL's filter keeps it.
  @Test func fewPointsAreAllKept() throws {
    let points = (0..<10).map { SIMD3<Float>(Float($0), 0, 0) }
    #expect(try NativeGeometry.statisticalInliers(points, neighbours: 20, stddev: 1) == [Bool](repeating: true, count: 10))
  }
}
