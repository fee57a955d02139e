import CVAI
import Foundation
import PointCloud

/// The exact clinical measures of a simulated head (docs/head-frame-and-measures.md), millimetres and percent.
public struct HeadTruth: Sendable, Hashable, Codable {
  public var cvai: Double
  public var cvaiShorter: Double
  public var cva: Double
  public var diagonalA: Double
  public var diagonalB: Double
  public var ci: Double
  public var length: Double
  public var width: Double
  public var circumference: Double
  /// h*, mm above the ears' plane.
  public var measurementLevel: Double
  public var severity: Int
  public var flattenedSide: FlattenedSide
  public var cranialIndexClass: CranialIndexClass
}

extension HeadShape {
  /// Builds the head whose clinical CI and CVAI hit the parameters' targets, for parameters known
  /// to be within ``Parameters/Bounds`` (literals in code and tests).
  ///
  /// Parameters from a user or a file go through ``init(validating:)``, which throws; this
  /// initialiser stops the program with the same one-line message.
  public init(solving parameters: Parameters) {
    do {
      self = try HeadShape(validating: parameters)
    } catch {
      preconditionFailure(error.description)
    }
  }

  /// Builds the head whose clinical CI and CVAI hit the parameters' targets.
  ///
  /// Semi-axes start from the nominal length and CI; the flattening depth is
  /// found by bisection on CVAI and the width re-scaled on CI, alternately,
  /// until both agree to 1e-4.
  /// - Throws: ``SimulationError`` for a parameter outside ``Parameters/Bounds`` (NaN and ±∞
  ///   included), or a target the shape cannot reach.
  public init(validating parameters: Parameters) throws(SimulationError) {
    try parameters.validate()
    let a = parameters.length / 2
    var b = a * parameters.cranialIndex / 100
    var f = 0.0
    var reached: HeadShapeMeasures?
    for _ in 0..<6 {
      if parameters.cvai > 0 {
        var low = 0.0, high = 0.4
        for _ in 0..<50 {
          f = (low + high) / 2
          let m = try HeadShape(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f).quickMeasures()
          if m.cvai < parameters.cvai { low = f } else { high = f }
        }
      }
      let m = try HeadShape(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f).quickMeasures()
      b *= parameters.cranialIndex / m.ci
      if abs(m.ci - parameters.cranialIndex) < 1e-4 && abs(m.cvai - parameters.cvai) < 1e-4 {
        reached = m
        break
      }
    }
    let head = try HeadShape(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f)
    if reached == nil {
      // Not converged in six rounds: the targets must still be met to the truth's 0.01.
      let m = try head.quickMeasures()
      guard abs(m.cvai - parameters.cvai) < 0.01 else {
        throw SimulationError(
          parameter: "head.cvai",
          problem: String(format: "%g is out of reach at CI %g: the deepest flattening gives %.2f", parameters.cvai, parameters.cranialIndex, m.cvai))
      }
      guard abs(m.ci - parameters.cranialIndex) < 0.01 else {
        throw SimulationError(
          parameter: "head.cranialIndex", problem: String(format: "%g is out of reach: the solved head has %.2f", parameters.cranialIndex, m.ci))
      }
    }
    self = head
  }

  /// The landmarks: nasion straight ahead in the ears' plane, which is the midline
  /// profile's deepest point between the nose tip and the forehead (the nose's root is
  /// placed there, ``noseRoot``); nose tip at the nose's most anterior point; tragion where
  /// the ears' plane meets x = 0 on each side.
  public var landmarks: HeadLandmarks {
    let nasion = surfacePoint(z: 0, phi: 0)
    // Nose tip: most anterior point of the midline profile below the nasion (golden-section search).
    var low = -0.040, high = -0.002
    let ratio = (5.0.squareRoot() - 1) / 2
    for _ in 0..<80 {
      let m1 = high - ratio * (high - low), m2 = low + ratio * (high - low)
      if surfacePoint(z: m1, phi: 0).x > surfacePoint(z: m2, phi: 0).x { high = m2 } else { low = m1 }
    }
    let noseTip = surfacePoint(z: (low + high) / 2, phi: 0)
    func ear(_ range: (Double, Double)) -> SIMD3<Double> {
      // x(φ) is monotonic over the side's quarter; bisection for x = 0.
      var (p, q) = range
      let xp = surfacePoint(z: 0, phi: p).x
      for _ in 0..<80 {
        let m = (p + q) / 2
        if (surfacePoint(z: 0, phi: m).x > 0) == (xp > 0) { p = m } else { q = m }
      }
      return surfacePoint(z: 0, phi: (p + q) / 2)
    }
    return HeadLandmarks(
      nasion: nasion, noseTip: noseTip, leftEar: ear((Double.pi / 3, Double.pi)), rightEar: ear((-Double.pi / 3, -Double.pi)))
  }

  /// The exact contour at clinical height `height` (metres) in clinical layer coordinates, millimetres.
  /// `samples` points, at least 3 (fewer are taken as 3).
  public func layerContour(height: Double, frame: HeadFrame, samples: Int = 7200) -> LayerContour {
    let modelFromHead = frame.worldFromHead
    // The clinical z axis is the model's (nasion and tragions share z = 0): slice the model at the same height.
    let planeHeight = modelFromHead.apply(SIMD3(0, 0, height)).z
    let count = max(3, samples)
    let points = (0..<count).map { k -> SIMD2<Double> in
      let phi = Double(k) / Double(count) * 2 * .pi
      let p = frame.headFromWorld.apply(surfacePoint(z: planeHeight, phi: phi))
      return SIMD2(p.x, p.y) * 1000
    }
    return LayerContour(points: points, height: height * 1000)
  }

  /// CI and CVAI at the widest layer, coarse sampling (for the solver).
  /// - Throws: ``SimulationError`` when the layer is no star-shaped outline (a degenerate head).
  func quickMeasures() throws(SimulationError) -> HeadShapeMeasures {
    guard let m = HeadShapeMeasures(contour: layerContour(height: parameters.measurementHeight, frame: clinicalFrame, samples: 1440)) else {
      throw SimulationError(parameter: "head", problem: "has no measurable outline at its widest layer")
    }
    return m
  }

  /// The layer spacings ``truth(layerSpacing:)`` takes, metres.
  public static let truthLayerSpacing = 0.0001...0.005

  /// The clinical measures on the exact surface: 1 mm layers, parabola-fitted ML, chords at h*.
  public func truth() -> HeadTruth { exactTruth(layerSpacing: 0.001) }

  /// The clinical measures on the exact surface with layers `layerSpacing` metres apart.
  /// - Throws: ``SimulationError`` for a spacing outside ``truthLayerSpacing``.
  public func truth(layerSpacing: Double) throws(SimulationError) -> HeadTruth {
    try check(layerSpacing, within: Self.truthLayerSpacing, "layerSpacing")
    return exactTruth(layerSpacing: layerSpacing)
  }

  private func exactTruth(layerSpacing: Double) -> HeadTruth {
    let frame = clinicalFrame
    let top = Int(((vertexHeight - 0.0005) / layerSpacing).rounded(.down))
    let heights = (0...top).map { Double($0) * layerSpacing }
    let perimeters = heights.map { layerContour(height: $0, frame: frame, samples: 3600).perimeter }
    let level = MeasurementLevel(heights: heights.map { $0 * 1000 }, perimeters: perimeters)
    // Every head the initialisers build measures at its widest layer (``quickMeasures()``); the
    // level h* lies within its band of scaled copies of that outline.
    guard let m = HeadShapeMeasures(contour: layerContour(height: level.height / 1000, frame: frame)) else {
      preconditionFailure("the exact contour at h* of a solved head has no chords")
    }
    return HeadTruth(
      cvai: m.cvai, cvaiShorter: m.cvaiShorter, cva: m.cva, diagonalA: m.diagonalA, diagonalB: m.diagonalB,
      ci: m.ci, length: m.length, width: m.width, circumference: m.circumference,
      measurementLevel: level.height, severity: m.severity, flattenedSide: m.flattenedSide,
      cranialIndexClass: m.cranialIndexClass)
  }
}
