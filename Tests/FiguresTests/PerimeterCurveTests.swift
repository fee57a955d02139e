import CVAI
import Foundation
import Testing

@testable import Figures

/// The perimeter-by-height curve shows the measured head only and says where it ends.
struct PerimeterCurveTests {
  /// An ellipsoid head (semi-axes 75, 62 and 95 mm about z = 0) sampled every 1° and 0.5 mm of
  /// height up to 70 mm; above it every fourth 10° sector is missing, so those layers are about 75 %
  /// measured: closed for the slicing (≥ 60 %), but not the measured head (≥ 90 %).
  static func head() throws -> HeadMeasurement {
    var points: [SIMD3<Double>] = []
    var z = -5.0
    while z < 92 {
      let s = (1 - z * z / (95 * 95)).squareRoot()
      for degree in 0..<360 where z <= 70 || (degree / 10) % 4 != 0 {
        for offset in [0.25, 0.75] {
          let angle = (Double(degree) + offset) * .pi / 180
          points.append(SIMD3(75 * s * cos(angle), 62 * s * sin(angle), z) / 1000)
        }
      }
      z += 0.5
    }
    return try measureHead(points: points)
  }

  @Test func onlyTheMeasuredRunIsDrawn() throws {
    let m = try Self.head()
    let sparse = m.layers.filter { $0.contour.height > 71.5 }
    #expect(!sparse.isEmpty && sparse.allSatisfy { $0.measuredFraction < 0.8 }, "the sparse layers are closed but less measured: \(sparse.map { String(format: "%.0f:%.2f", $0.contour.height, $0.measuredFraction) })")
    let run = try #require(m.measuredLayerRange(minimumMeasuredFraction: 0.9))
    let heights = m.layers[run].map(\.contour.height)
    #expect(try #require(heights.first) <= 1 && (69...71.5).contains(try #require(heights.last)), "run \(heights.first ?? -1)…\(heights.last ?? -1)")
    let svg = HeadPlots.perimeterByHeight(m)
    #expect(svg.components(separatedBy: "<circle").count - 1 == run.count, "one dot a measured layer")
    #expect(svg.contains(String(format: "Measured head: h %.0f to %.0f mm", heights.first ?? 0, heights.last ?? 0)))
    #expect(svg.contains("\(m.layers.count - run.count) less measured layers beyond it not shown"))
  }

  /// Above the fitted band the run ends before a layer longer than the one below it: the same
  /// ellipsoid measured all round up to 92 mm, with a ring of stray points 45 mm out at 85–86 mm
  /// (where the vault's contour is 27 mm out), ends at the layer below the ring.
  @Test func theRunEndsWhereTheVaultStopsNarrowing() throws {
    var points: [SIMD3<Double>] = []
    var z = -5.0
    while z < 92 {
      let s = (1 - z * z / (95 * 95)).squareRoot()
      for degree in 0..<360 {
        for offset in [0.25, 0.75] {
          let angle = (Double(degree) + offset) * .pi / 180
          points.append(SIMD3(75 * s * cos(angle), 62 * s * sin(angle), z) / 1000)
        }
      }
      z += 0.5
    }
    for degree in 0..<360 {
      for height in [85.0, 85.5, 86.0] {
        let angle = Double(degree) * .pi / 180
        points.append(SIMD3(45 * cos(angle), 45 * sin(angle), height) / 1000)
      }
    }
    // Binned medians follow the ring where it outnumbers the surface's points in a bin; the
    // fitted contour (the default) down-weights it as stray points and runs to the top.
    var binned = SlicingOptions.default
    binned.contour = .binnedMedians
    let m = try measureHead(points: points, options: binned)
    let run = try #require(m.measuredLayerRange(minimumMeasuredFraction: 0.9))
    let last = m.layers[run.upperBound]
    #expect(last.contour.height < 85 && last.contour.height >= 83, "run ends at \(last.contour.height) mm")
    let next = try #require(m.layers.indices.contains(run.upperBound + 1) ? m.layers[run.upperBound + 1] : nil, "a layer beyond the run")
    #expect(next.contour.perimeter > last.contour.perimeter, "the layer beyond is the longer one")
    let fitted = try measureHead(points: points)
    let ring = fitted.layers.filter { (85...86).contains($0.contour.height) }
    let below = try #require(fitted.layers.first { $0.contour.height == 84 })
    #expect(!ring.isEmpty && ring.allSatisfy { $0.contour.perimeter < below.contour.perimeter }, "fitted: the ring's layers are shorter than the one below")
  }

  @Test func aLevelLessMeasuredThanAskedHasNoRun() throws {
    let m = try Self.head()
    #expect(m.measuredLayerRange(minimumMeasuredFraction: 1.01) == nil)
    #expect(HeadPlots.perimeterByHeight(m, minimumMeasuredFraction: 1.01).isEmpty)
  }
}
