import Foundation
@testable import Fusion
import PointCloud
import Testing
import _HeadScanSupport

@testable import Registration

/// The cleaning stage's smoothing (`NativeGeometry.projectToLocalPlanes`): a point projected onto
/// its 20 nearest points' plane lies about E[s²]/(2R) inside a convex surface; the curvature
/// offset from a wider patch's quadratic removes that with little of the quadratic's noise.
struct LocalSurfaceProjectionTests {
  /// A cap of a sphere of radius 60 mm (about a head's), points about 1 mm apart (a golden-angle
  /// spiral over the polar angles 0…80°), each moved along its radius by Gaussian noise of
  /// `sigma` metres.
  static func sphereCap(sigma: Double, seed: UInt64) -> [SIMD3<Float>] {
    let radius = 0.06, count = 20_000, lowest = cos(80.0 * .pi / 180)
    var random = SeededGenerator(seed: seed)
    return (0..<count).map { i in
      let z = 1 - (1 - lowest) * (Double(i) + 0.5) / Double(count)
      let ring = (1 - z * z).squareRoot(), turn = Double(i) * Double.pi * (3 - 5.0.squareRoot())
      let r = radius + sigma * random.gaussian()
      return SIMD3<Float>(SIMD3(r * ring * cos(turn), r * ring * sin(turn), r * z))
    }
  }

  /// Mean and RMS of the radial offsets (metres) of the points within 60° of the pole (away
  /// from the cap's rim, where every neighbourhood is one-sided).
  static func radialOffsets(_ points: [SIMD3<Float>]) -> (mean: Double, rms: Double) {
    let offsets = points.compactMap { p -> Double? in
      let q = SIMD3<Double>(p), r = (q * q).sum().squareRoot()
      return q.z / r > cos(60.0 * .pi / 180) ? r - 0.06 : nil
    }
    let mean = offsets.reduce(0, +) / Double(offsets.count)
    return (mean, (offsets.map { $0 * $0 }.reduce(0, +) / Double(offsets.count)).squareRoot())
  }

  /// No queries give no projections, not the shim's "invalid arguments" (an empty array has
  /// no buffer address): settling a registration without corners, say.
  @Test func noQueriesGiveNoProjections() throws {
    let cloud = (0..<50).map { i in SIMD3<Float>(Float(i % 7) * 0.001, Float(i / 7) * 0.001, 0.3) }
    let (points, normals) = try NativeGeometry.projectToLocalPlanes(cloud, queries: [], neighbours: 8)
    #expect(points.isEmpty && normals.isEmpty)
  }

  @Test func theCurvatureOffsetPutsTheSmoothedPointsOnTheSphere() throws {
    let cloud = Self.sphereCap(sigma: 0, seed: 1)
    let plane = Self.radialOffsets(try NativeGeometry.projectToLocalPlanes(cloud, neighbours: 20).0)
    let corrected = Self.radialOffsets(try NativeGeometry.projectToLocalPlanes(cloud, neighbours: 20, curvatureNeighbours: 100).0)
    // 20 points 1 mm apart spread s² ≈ 20/(2π) mm² about their centre: E[s²]/(2R) ≈ 0.027 mm.
    #expect(plane.mean < -0.015e-3 && plane.mean > -0.05e-3, "\(plane)")
    #expect(abs(corrected.mean) < 0.05 * abs(plane.mean), "\(corrected) against \(plane)")
    #expect(corrected.rms < 0.1 * plane.rms, "\(corrected) against \(plane)")
  }

  @Test(arguments: [0.1e-3, 0.3e-3])
  func theCurvatureOffsetAddsLittleNoiseTheQuadraticDoublesIt(sigma: Double) throws {
    let cloud = Self.sphereCap(sigma: sigma, seed: 2)
    let plane = Self.radialOffsets(try NativeGeometry.projectToLocalPlanes(cloud, neighbours: 20).0)
    let corrected = Self.radialOffsets(try NativeGeometry.projectToLocalPlanes(cloud, neighbours: 20, curvatureNeighbours: 100).0)
    let quadratic = Self.radialOffsets(try NativeGeometry.projectToLocalPlanes(cloud, neighbours: 20, quadratic: true).0)
    // The plane's bias stays; the corrected points are centred on the sphere (the mean of
    // ~12 000 points whose smoothed noise is about σ/√20: its standard error is well under 1 µm).
    #expect(plane.mean < -0.015e-3, "\(plane)")
    #expect(abs(corrected.mean) < 0.25 * abs(plane.mean), "\(corrected) against \(plane)")
    // Spread about the mean: the correction's own noise (the wide patch's curvature) adds about
    // a tenth to the plane's smoothed noise (measured: 1.10× at σ 0.1 mm, 1.09× at 0.3 mm); a
    // quadratic over the 20 points doubles it (2.0×, 1.9×).
    func spread(_ o: (mean: Double, rms: Double)) -> Double { (o.rms * o.rms - o.mean * o.mean).squareRoot() }
    let spreads = "σ \(sigma * 1e3) mm: mean plane \(plane.mean * 1e3), corrected \(corrected.mean * 1e3), quadratic \(quadratic.mean * 1e3) mm; spread plane \(spread(plane) * 1e3), corrected \(spread(corrected) * 1e3), quadratic \(spread(quadratic) * 1e3) mm"
    #expect(spread(corrected) < 1.15 * spread(plane), "\(spreads)")
    #expect(spread(quadratic) > 1.5 * spread(plane), "\(spreads)")
  }
}
