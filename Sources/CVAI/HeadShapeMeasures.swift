import Foundation

/// Which diagonal divides CVA to give CVAI.
public enum CVAIDenominator: String, Sendable, Hashable, CaseIterable, Codable {
  /// `(A − B) / A × 100`, the longer diagonal (Loveday & de Chalain; the default).
  case longer
  /// `(A − B) / B × 100`, the shorter diagonal.
  case shorter
}

/// The side where the back of the head is flattened, from the shorter diagonal.
public enum FlattenedSide: String, Sendable, Hashable, Codable {
  /// The +30° diagonal (front-left to back-right) is the shorter: right posterior flattening.
  case rightPosterior
  /// The −30° diagonal (front-right to back-left) is the shorter: left posterior flattening.
  case leftPosterior
  /// Both diagonals equal to 0.05 mm.
  case none
}

/// Head shape class from the cranial index.
public enum CranialIndexClass: String, Sendable, Hashable, Codable {
  /// CI below 75.
  case dolichocephalic
  /// CI from 75 to 85.
  case normocephalic
  /// CI above 85.
  case brachycephalic

  public init(ci: Double) {
    self = ci < 75 ? .dolichocephalic : (ci > 85 ? .brachycephalic : .normocephalic)
  }
}

/// Children's Healthcare of Atlanta plagiocephaly severity level (1–5) from CVAI (divided by A).
///
/// Level 1 below 3.5; 2 from 3.5 to below 6.25; 3 from 6.25 to below 8.75;
/// 4 from 8.75 to 11 inclusive; 5 above 11 (Holowka et al. 2017; docs/head-frame-and-measures.md).
public func choaSeverity(cvai: Double) -> Int {
  switch cvai {
  case ..<3.5: return 1
  case ..<6.25: return 2
  case ..<8.75: return 3
  case ...11: return 4
  default: return 5
  }
}

/// The clinical measures of one contour (docs/head-frame-and-measures.md), millimetres and percent.
public struct HeadShapeMeasures: Sendable, Hashable, Codable {
  /// Perimeter of the contour, mm.
  public var circumference: Double
  /// Centroid of the enclosed area in the layer, mm (x anterior, y left).
  public var centroid: SIMD2<Double>
  /// Chord through the centroid along x, mm.
  public var length: Double
  /// Chord through the centroid along y, mm.
  public var width: Double
  /// Chord at +30° (x turned toward +y, the infant's left), mm.
  public var diagonalPlus30: Double
  /// Chord at −30°, mm.
  public var diagonalMinus30: Double
  /// The longer diagonal, mm.
  public var diagonalA: Double { max(diagonalPlus30, diagonalMinus30) }
  /// The shorter diagonal, mm.
  public var diagonalB: Double { min(diagonalPlus30, diagonalMinus30) }
  /// Cranial vault asymmetry `A − B`, mm.
  public var cva: Double { diagonalA - diagonalB }
  /// Cranial vault asymmetry index `(A − B) / A × 100` (the default, Loveday & de Chalain 2001).
  public var cvai: Double { cva / diagonalA * 100 }
  /// CVAI with the shorter diagonal as denominator, `(A − B) / B × 100`.
  public var cvaiShorter: Double { cva / diagonalB * 100 }
  /// Cranial index `width / length × 100`.
  public var ci: Double { width / length * 100 }
  /// CHOA level 1–5 from ``cvai``.
  public var severity: Int { choaSeverity(cvai: cvai) }
  /// Cranial index class.
  public var cranialIndexClass: CranialIndexClass { CranialIndexClass(ci: ci) }
  /// Side of the posterior flattening.
  public var flattenedSide: FlattenedSide {
    if abs(diagonalPlus30 - diagonalMinus30) < 0.05 { return .none }
    return diagonalPlus30 < diagonalMinus30 ? .rightPosterior : .leftPosterior
  }

  /// CVAI with the chosen denominator.
  public func cvai(denominator: CVAIDenominator) -> Double {
    denominator == .longer ? cvai : cvaiShorter
  }

  /// Measures a contour as docs/head-frame-and-measures.md ("Measures at h*") defines it.
  /// - Returns: `nil` when the centroid lies outside the contour (a broken outline).
  public init?(contour: LayerContour) {
    let c = contour.centroid
    let angle = Double.pi / 6
    guard let length = contour.chord(through: c, direction: [1, 0]),
      let width = contour.chord(through: c, direction: [0, 1]),
      let plus = contour.chord(through: c, direction: [cos(angle), sin(angle)]),
      let minus = contour.chord(through: c, direction: [cos(angle), -sin(angle)])
    else { return nil }
    self.circumference = contour.perimeter
    self.centroid = c
    self.length = length
    self.width = width
    self.diagonalPlus30 = plus
    self.diagonalMinus30 = minus
  }
}
