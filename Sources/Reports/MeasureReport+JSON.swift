import Foundation
import _HeadScanSupport

extension MeasureReport {
  /// The report as `headscan measure --json` writes it: pretty-printed UTF-8 JSON with sorted
  /// keys and unescaped slashes; keys without a value are left out.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self)
  }

  /// Reads a report from JSON; `path` names the source in errors.
  /// - Throws: ``FileProblem``: `missing report key 'x'` (nested keys joined by dots), `report
  ///   key 'x' is not a number`, `report key 'x' is V, outside RANGE: not a measured head`
  ///   (``implausibleValue``), or `not a headscan report (invalid JSON)`.
  public init(json data: Data, path: String) throws(FileProblem) {
    do {
      self = try JSONDecoder().decode(MeasureReport.self, from: data)
    } catch DecodingError.keyNotFound(let key, let context) {
      throw FileProblem(path: path, problem: "missing report key '\(Self.keyPath(context.codingPath + [key]))'")
    } catch DecodingError.typeMismatch(let type, let context) where !context.codingPath.isEmpty {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' \(Self.kind(type))")
    } catch DecodingError.valueNotFound(let type, let context) {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' \(Self.kind(type))")
    } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
      throw FileProblem(path: path, problem: "report key '\(Self.keyPath(context.codingPath))' has an invalid value")
    } catch {
      throw FileProblem(path: path, problem: "not a headscan report (invalid JSON)")
    }
    if let (key, value, expected) = implausibleValue {
      throw FileProblem(path: path, problem: "report key '\(key)' is \(value), outside \(expected): not a measured head")
    }
  }

  /// The first always-present value no measured head can have (a number that is not finite,
  /// a length of zero or over a metre, a count below zero or a registered count above its
  /// total): its key, its value and the range it must lie in; `nil` when every value is possible.
  var implausibleValue: (key: String, value: String, expected: String)? {
    let lengths: [(String, Double)] = [
      ("diagonalA", diagonalA), ("diagonalB", diagonalB), ("length", length), ("width", width), ("circumference", circumference),
    ]
    for (key, value) in lengths where !(value > 0 && value <= 1000) { return (key, "\(value)", "0…1000 mm") }
    for (key, value) in [("cva", cva), ("measurementLevel", measurementLevel)] where !(value.magnitude <= 1000) {
      return (key, "\(value)", "−1000…1000 mm")
    }
    if !(cvai.magnitude <= 100) { return ("cvai", "\(cvai)", "−100…100 %") }
    if !(ci > 0 && ci <= 200) { return ("ci", "\(ci)", "0…200") }
    if !(1...5).contains(severity) { return ("severity", "\(severity)", "1…5") }
    let r = registration
    if r.frames < 0 { return ("registration.frames", "\(r.frames)", "0 or more") }
    if !(0...r.frames).contains(r.framesRegistered) { return ("registration.framesRegistered", "\(r.framesRegistered)", "0…\(r.frames) (the frames)") }
    if r.markers < 0 { return ("registration.markers", "\(r.markers)", "0 or more") }
    if !(0...r.markers).contains(r.markersRegistered) {
      return ("registration.markersRegistered", "\(r.markersRegistered)", "0…\(r.markers) (the markers)")
    }
    if !(r.cornerRMS >= 0 && r.cornerRMS.isFinite) { return ("registration.cornerRMS", "\(r.cornerRMS)", "0 mm or more") }
    return nil
  }

  /// Reads a report file.
  /// - Throws: ``FileProblem`` naming the file: unreadable, not JSON, or an always-present key missing.
  public init(path: String) throws(FileProblem) {
    let data: Data
    do {
      data = try ReadOnlyFile.contents(of: path)
    } catch {
      throw FileProblem(path: path, problem: error.problem)
    }
    try self.init(json: data, path: path)
  }

  /// `registration.frames` from a decoding path.
  private static func keyPath(_ path: [any CodingKey]) -> String {
    path.map(\.stringValue).joined(separator: ".")
  }

  /// What a key's value should have been, for the error line.
  private static func kind(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Int.Type: return "is not a number"
    case is String.Type: return "is not a string"
    default: return "has the wrong type"
    }
  }
}
