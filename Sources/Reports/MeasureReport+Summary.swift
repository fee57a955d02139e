extension MeasureReport {
  /// The measure columns of a summary table (`batch`'s `summary.csv`), in order: the always-present
  /// measures, then the registration's counts.
  public static let summaryColumns = [
    "cvai", "cva", "diagonalA", "diagonalB", "length", "width", "ci", "circumference", "measurementLevel", "severity",
    "framesRegistered", "frames", "cornerRMS",
  ]

  /// The report's values under ``summaryColumns``, as its JSON writes them (`21` for 21.0).
  public var summaryValues: [String] {
    let numbers: [Double] = [
      cvai, cva, diagonalA, diagonalB, length, width, ci, circumference, measurementLevel, Double(severity),
      Double(registration.framesRegistered), Double(registration.frames), registration.cornerRMS,
    ]
    return numbers.map(Self.jsonNumber)
  }

  /// A number as JSON writes it: integral values without a fraction, others in the shortest
  /// form that reads back exactly.
  static func jsonNumber(_ x: Double) -> String {
    if x.rounded() == x, abs(x) < 1e15 { return String(Int64(x)) }
    return x.description
  }
}
