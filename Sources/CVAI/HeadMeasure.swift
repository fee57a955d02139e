/// The eight clinical measures at the measurement level, in report order: the one list that
/// reports, summary tables, intervals, report pages and calliper comparisons go through.
public enum HeadMeasure: String, Sendable, Hashable, CaseIterable, Codable {
  /// Cranial vault asymmetry index, percent (by the report's denominator unless said otherwise).
  case cvai
  /// Cranial vault asymmetry A − B, mm.
  case cva
  /// The longer diagonal A, mm.
  case diagonalA
  /// The shorter diagonal B, mm.
  case diagonalB
  /// The chord along x (anterior) through the contour's centre, mm.
  case length
  /// The chord along y (the infant's left) through the contour's centre, mm.
  case width
  /// Cranial index, width / length × 100.
  case ci
  /// The contour's perimeter, mm.
  case circumference

  /// Its unit, for tables and axes: `%`, `mm`, or `CI points`.
  public var unit: String {
    switch self {
    case .cvai: return "%"
    case .ci: return "CI points"
    default: return "mm"
    }
  }

  /// A short label for tables and plots, e.g. `diagonal A`.
  public var title: String {
    switch self {
    case .cvai: return "CVAI"
    case .cva: return "CVA"
    case .diagonalA: return "diagonal A"
    case .diagonalB: return "diagonal B"
    case .length: return "length"
    case .width: return "width"
    case .ci: return "CI"
    case .circumference: return "circumference"
    }
  }

  /// A label that says what the measure is, for a clinical page, e.g. `Diagonal A (longer)`;
  /// `denominator` names CVAI's.
  public func label(denominator: CVAIDenominator = .longer) -> String {
    switch self {
    case .cvai: return "CVAI (CVA / \(denominator == .longer ? "A" : "B"))"
    case .cva: return "CVA (A − B)"
    case .diagonalA: return "Diagonal A (longer)"
    case .diagonalB: return "Diagonal B (shorter)"
    case .length: return "Length"
    case .width: return "Width"
    case .ci: return "Cranial index (CI)"
    case .circumference: return "Circumference"
    }
  }

  /// Its value in `measures`, CVAI by `denominator`.
  public func value(in measures: HeadShapeMeasures, denominator: CVAIDenominator = .longer) -> Double {
    self == .cvai ? measures.cvai(denominator: denominator) : measures[self]
  }
}

/// A value for each of the eight measures under the measure's own name (a report's numbers,
/// their intervals, a simulated head's truth): ``subscript(_:)`` reads one by ``HeadMeasure``.
public protocol HeadMeasureValues {
  /// What each measure holds: a number, an interval, an error.
  associatedtype MeasureValue
  var cvai: MeasureValue { get }
  var cva: MeasureValue { get }
  var diagonalA: MeasureValue { get }
  var diagonalB: MeasureValue { get }
  var length: MeasureValue { get }
  var width: MeasureValue { get }
  var ci: MeasureValue { get }
  var circumference: MeasureValue { get }
}

extension HeadMeasureValues {
  /// The value of `measure`.
  public subscript(_ measure: HeadMeasure) -> MeasureValue {
    switch measure {
    case .cvai: return cvai
    case .cva: return cva
    case .diagonalA: return diagonalA
    case .diagonalB: return diagonalB
    case .length: return length
    case .width: return width
    case .ci: return ci
    case .circumference: return circumference
    }
  }
}

extension HeadShapeMeasures: HeadMeasureValues {}
