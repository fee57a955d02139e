import Foundation
import Reports

/// One line of a report's registration-quality section: a plain fact or a warning.
public struct QualityNote: Sendable, Hashable {
  /// How the line is shown.
  public enum Level: String, Sendable, Hashable {
    /// A fact about the scan (e.g. the share of the contour measured).
    case info
    /// Something a reader should check before trusting the numbers.
    case warning
  }

  public var level: Level
  public var text: String

  public init(_ level: Level, _ text: String) {
    self.level = level
    self.text = text
  }

  /// The quality notes a report's JSON carries beyond `MeasureReport`'s own keys, so that keys
  /// added by newer headscan versions show up without this module knowing their type:
  /// - `intrinsicsCheck` (the focal-length check): a warning when `consistent` is false, else a fact;
  /// - `warnings` and `registration.warnings`: arrays of strings (or of objects with a
  ///   `message`), each a warning;
  /// - `coverage` and `registration.coverage`: a number, shown as a fact.
  ///
  /// Anything else, and JSON that is not an object, gives no notes.
  public static func notes(fromReportJSON data: Data) -> [QualityNote] {
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return [] }
    let registration = object["registration"] as? [String: Any] ?? [:]
    var notes: [QualityNote] = []
    if let check = object["intrinsicsCheck"] as? [String: Any] ?? registration["intrinsicsCheck"] as? [String: Any] {
      let stated = (check["statedFocalLength"] as? NSNumber)?.doubleValue
      let estimate = (check["focalLengthEstimate"] as? NSNumber)?.doubleValue
      let focal = [stated.map { "stated focal length \(HTMLPage.number($0)) px" }, estimate.map { "estimated from the markers \(HTMLPage.number($0)) px" }]
        .compactMap { $0 }.joined(separator: ", ")
      if let consistent = check["consistent"] as? Bool {
        notes.append(consistent ? QualityNote(.info, "intrinsics consistent with the markers" + (focal.isEmpty ? "" : " (\(focal))")) : QualityNote(.warning, "inconsistent intrinsics" + (focal.isEmpty ? "" : ": \(focal)")))
      }
    }
    for source in [object["warnings"], registration["warnings"]] {
      for item in source as? [Any] ?? [] {
        if let text = item as? String { notes.append(QualityNote(.warning, text)) }
        if let entry = item as? [String: Any], let text = entry["message"] as? String ?? entry["text"] as? String {
          notes.append(QualityNote(.warning, text))
        }
      }
    }
    for (name, value) in [("coverage", object["coverage"]), ("registration coverage", registration["coverage"])] {
      if let number = value as? NSNumber, !(value is Bool) { notes.append(QualityNote(.info, "\(name): \(HTMLPage.number(number.doubleValue))")) }
    }
    return notes
  }

  /// The notes that follow from `MeasureReport`'s own keys: how much of the contour at the
  /// measurement level was measured rather than bridged, and where the head frame came from.
  public static func notes(from report: MeasureReport) -> [QualityNote] {
    var notes: [QualityNote] = []
    if let measured = report.contourMeasuredPercent {
      let bridged = "\(HTMLPage.number(100 - measured)) % of the contour at the measurement level was bridged between measured points"
      // A warning only below the verdict's limit (the report's contourIncomplete); a smaller
      // bridged share is stated, as information.
      notes.append(
        measured >= 100
          ? QualityNote(.info, "the contour at the measurement level is measured all round")
          : report.contourIncomplete ?? (measured < MeasureReport.completeContourPercent)
            ? QualityNote(.warning, "incomplete contour: " + bridged)
            : QualityNote(.info, bridged + " (the verdict allows up to \(HTMLPage.number(100 - MeasureReport.completeContourPercent)) %)"))
    }
    if report.headFrame?.hasPrefix("automatic") == true {
      notes.append(QualityNote(.warning, "automatic head frame (experimental): landmarks give the clinical numbers"))
    }
    return notes
  }
}
