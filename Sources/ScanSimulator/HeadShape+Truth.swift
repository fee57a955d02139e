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
  /// Builds the head whose clinical CI and CVAI hit the parameters' targets.
  ///
  /// Semi-axes start from the nominal length and CI; the flattening depth is
  /// found by bisection on CVAI and the width re-scaled on CI, alternately,
  /// until both agree to 1e-4.
  public init(solving parameters: Parameters) {
    precondition(parameters.cvai >= 0 && parameters.cvai < 25, "CVAI target must be in 0..<25")
    precondition(parameters.cranialIndex > 55 && parameters.cranialIndex < 110, "CI target must be in 55...110")
    let a = parameters.length / 2
    var b = a * parameters.cranialIndex / 100
    var f = 0.0
    for _ in 0..<6 {
      if parameters.cvai > 0 {
        var low = 0.0, high = 0.4
        for _ in 0..<50 {
          f = (low + high) / 2
          let m = HeadShape(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f).quickMeasures()
          if m.cvai < parameters.cvai { low = f } else { high = f }
        }
      }
      let m = HeadShape(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f).quickMeasures()
      b *= parameters.cranialIndex / m.ci
      if abs(m.ci - parameters.cranialIndex) < 1e-4 && abs(m.cvai - parameters.cvai) < 1e-4 { break }
    }
    self.init(parameters: parameters, semiAxisX: a, semiAxisY: b, flattening: f)
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

  /// The clinical head frame from ``landmarks`` (its `headFromWorld` maps model → clinical).
  public var clinicalFrame: HeadFrame {
    let l = landmarks
    // The landmarks of a valid head always make a frame.
    return try! HeadFrame(nasion: l.nasion, noseTip: l.noseTip, leftEar: l.leftEar, rightEar: l.rightEar)
  }

  /// The exact contour at clinical height `height` (metres) in clinical layer coordinates, millimetres.
  public func layerContour(height: Double, frame: HeadFrame, samples: Int = 7200) -> LayerContour {
    let modelFromHead = frame.worldFromHead
    // The clinical z axis is the model's (nasion and tragions share z = 0): slice the model at the same height.
    let planeHeight = modelFromHead.apply(SIMD3(0, 0, height)).z
    let points = (0..<samples).map { k -> SIMD2<Double> in
      let phi = Double(k) / Double(samples) * 2 * .pi
      let p = frame.headFromWorld.apply(surfacePoint(z: planeHeight, phi: phi))
      return SIMD2(p.x, p.y) * 1000
    }
    return LayerContour(points: points, height: height * 1000)
  }

  /// CI and CVAI at the widest layer, coarse sampling (for the solver).
  func quickMeasures() -> HeadShapeMeasures {
    HeadShapeMeasures(contour: layerContour(height: parameters.measurementHeight, frame: clinicalFrame, samples: 1440))!
  }

  /// The clinical measures on the exact surface: 1 mm layers, parabola-fitted ML, chords at h*.
  public func truth(layerSpacing: Double = 0.001) -> HeadTruth {
    let frame = clinicalFrame
    let top = Int(((vertexHeight - 0.0005) / layerSpacing).rounded(.down))
    let heights = (0...top).map { Double($0) * layerSpacing }
    let perimeters = heights.map { layerContour(height: $0, frame: frame, samples: 3600).perimeter }
    let level = MeasurementLevel(heights: heights.map { $0 * 1000 }, perimeters: perimeters)
    let m = HeadShapeMeasures(contour: layerContour(height: level.height / 1000, frame: frame))!
    return HeadTruth(
      cvai: m.cvai, cvaiShorter: m.cvaiShorter, cva: m.cva, diagonalA: m.diagonalA, diagonalB: m.diagonalB,
      ci: m.ci, length: m.length, width: m.width, circumference: m.circumference,
      measurementLevel: level.height, severity: m.severity, flattenedSide: m.flattenedSide,
      cranialIndexClass: m.cranialIndexClass)
  }
}
