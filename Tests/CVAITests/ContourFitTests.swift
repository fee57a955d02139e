import CVAI
import Foundation
import PointCloud
import Testing
import _HeadScanSupport

/// ``ContourMethod/fourierFit`` against exact truth: an elliptic prism whose surface points carry
/// radial noise, as a fused cloud does.
struct ContourFitTests {
  /// Points of an elliptic prism (semi-axes `a`, `b` mm, heights 0…60 mm every 0.5 mm, 720
  /// points a layer) moved along the outline's normal by Gaussian noise σ (mm); metres.
  static func noisyPrism(a: Double, b: Double, sigma: Double, seed: UInt64) -> [SIMD3<Double>] {
    var random = SeededGenerator(seed: seed)
    return stride(from: 0.0, through: 60, by: 0.5).flatMap { z in
      (0..<720).map { k -> SIMD3<Double> in
        let t = (Double(k) + random.uniform()) / 720 * 2 * .pi
        let normal = SIMD2(b * cos(t), a * sin(t))
        let unit = normal / (normal * normal).sum().squareRoot()
        let p = SIMD2(a * cos(t), b * sin(t)) + sigma * random.gaussian() * unit
        return SIMD3(p.x, p.y, z) / 1000
      }
    }
  }

  static func measures(_ points: [SIMD3<Double>], _ method: ContourMethod) throws -> HeadShapeMeasures {
    var options = SlicingOptions.default
    options.contour = method
    return try measureHead(points: points, options: options).measures
  }

  @Test(arguments: [0.5, 1.0])
  func noiseAddsNoLengthToAFittedContour(sigma: Double) throws {
    let a = 72.0, b = 58.0
    let truth = AnalyticShapeTests.ellipsePerimeter(a, b)
    let points = Self.noisyPrism(a: a, b: b, sigma: sigma, seed: 3).map { $0 * 1000 }
    func meanError(_ method: ContourMethod) -> Double {
      var options = SlicingOptions.default
      options.contour = method
      let errors = stride(from: 5.0, through: 55, by: 5).compactMap { estimateLayer(points: points, height: $0, options: options) }
        .map { $0.contour.perimeter - truth }
      return errors.count == 11 ? errors.reduce(0, +) / 11 : .infinity
    }
    // Measured: binned medians +0.47 mm (σ 0.5) and +1.87 mm (σ 1); the fit +0.003 and +0.007.
    #expect(meanError(.binnedMedians) > 0.3 * sigma / 0.5, "binned medians \(meanError(.binnedMedians)) mm")
    #expect(abs(meanError(.fourierFit)) < 0.05, "fitted \(meanError(.fourierFit)) mm")
  }

  @Test func theWholeMeasurementIsCloserWithAFittedContour() throws {
    // On a prism every layer is equally long, so picking the longest noisy layer (docs/head-frame-and-measures.md)
    // keeps a small bias whatever the contour: measured +0.16 mm (σ 0.5) and +0.32 mm (σ 1) with
    // the fit, against +0.68 and +2.65 mm with binned medians.
    let a = 72.0, b = 58.0
    let truth = AnalyticShapeTests.ellipsePerimeter(a, b)
    let diagonal = 2 * a * b / (b * b * 0.75 + a * a * 0.25).squareRoot()
    let points = Self.noisyPrism(a: a, b: b, sigma: 1.0, seed: 3)
    let binned = try Self.measures(points, .binnedMedians)
    let fitted = try Self.measures(points, .fourierFit)
    #expect(fitted.circumference - truth < (binned.circumference - truth) / 4)
    #expect(abs(fitted.circumference - truth) < 0.5)
    #expect(abs(fitted.diagonalA - diagonal) < 0.3 && abs(fitted.diagonalB - diagonal) < 0.3)
    #expect(abs(fitted.cvai) < 0.2)
  }

  @Test func aFittedLayerReportsItsOrderAndNoise() throws {
    let points = Self.noisyPrism(a: 70, b: 56, sigma: 0.8, seed: 5).map { $0 * 1000 }
    var options = SlicingOptions.default
    options.contour = .fourierFit
    let layer = try #require(estimateLayer(points: points, height: 30, options: options))
    // An ellipse needs a few even harmonics; noise needs none.
    #expect(layer.harmonics >= 2 && layer.harmonics <= 12, "order \(layer.harmonics)")
    // The band's points are 0.8 mm off the outline (the prism has no slope).
    #expect(abs(layer.residualRMS - 0.8) < 0.1, "residual \(layer.residualRMS)")
    #expect(layer.measuredFraction == 1)
  }
}
