import Foundation

/// How one optimised marker fits, and the keep rule's verdict on it (``MarkerKeepRule``).
public struct MarkerFit: Sendable, Hashable {
  /// Marker id.
  public var id: Int
  /// Observations in the last optimisation round.
  public var observations: Int
  /// RMS of its observations' 3D corner residuals, metres.
  public var rms: Double
  /// Largest deviation of its mapped corners from the printed square (edges against the side,
  /// diagonals against side·√2), metres.
  public var shapeError: Double
  /// The largest RMS the keep rule accepted for it, metres.
  public var rmsLimit: Double
  /// The largest shape error the keep rule accepted for it, metres.
  public var shapeLimit: Double
  /// The fewest observations the keep rule accepted.
  public var observationLimit: Int

  /// Whether the marker is kept.
  public var kept: Bool { observations >= observationLimit && rms <= rmsLimit && shapeError <= shapeLimit }

  /// Why it is not kept, in words; `nil` when it is.
  public var rejection: String? {
    var reasons: [String] = []
    if observations < observationLimit { reasons.append("\(observations) observations of \(observationLimit) needed") }
    if !(rms <= rmsLimit) { reasons.append(millimetres("corner RMS", rms, rmsLimit)) }
    if !(shapeError <= shapeLimit) { reasons.append(millimetres("shape error", shapeError, shapeLimit)) }
    return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
  }

  private func millimetres(_ what: String, _ value: Double, _ limit: Double) -> String {
    String(format: "%@ %.2f mm above the scan's limit %.2f mm", what, value * 1000, limit * 1000)
  }
}
