import CVAI

extension MeasureReport {
  /// The measure columns of a summary table (`batch`'s `summary.csv`), in order: the always-present
  /// measures, then the registration's counts.
  public static let summaryColumns =
    HeadMeasure.allCases.map(\.rawValue) + ["measurementLevel", "severity", "framesRegistered", "frames", "cornerRMS"]

  /// The report's values under ``summaryColumns``, as its JSON writes them (`21` for 21.0).
  public var summaryValues: [String] {
    let numbers: [Double] =
      HeadMeasure.allCases.map(value(of:)) + [
        measurementLevel, Double(severity), Double(registration.framesRegistered), Double(registration.frames), registration.cornerRMS,
      ]
    return numbers.map(Self.jsonNumber)
  }

  /// The report's value of `measure` (CVAI by the report's own denominator, ``cvaiDenominator``).
  public func value(of measure: HeadMeasure) -> Double { self[measure] }

  /// A number as JSON writes it: integral values without a fraction, others in the shortest
  /// form that reads back exactly.
  static func jsonNumber(_ x: Double) -> String {
    if x.rounded() == x, abs(x) < 1e15 { return String(Int64(x)) }
    return x.description
  }
}
