import Foundation
internal import _HeadScanSupport

/// The JSON shape shared by the stream header and `camera.json`.
struct ScanHeaderJSON: Codable {
  struct Image: Codable {
    var width: Int
    var height: Int
    var encoding: String?
  }
  struct Markers: Codable {
    var dictionary: String
    var sideLength: Double
  }
  struct Cap: Codable {
    var markerCount: Int
  }
  /// A patient ID: text, or a whole number as a recorder may write it (read as its digits);
  /// written as text.
  struct Identifier: Codable {
    var text: String
    init(_ text: String) { self.text = text }
    init(from decoder: any Decoder) throws {
      let value = try decoder.singleValueContainer()
      if let text = try? value.decode(String.self) {
        self.text = text
      } else if let number = try? value.decode(Int64.self) {
        self.text = String(number)
      } else {
        throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath, debugDescription: "text or a whole number"))
      }
    }
    func encode(to encoder: any Encoder) throws {
      var value = encoder.singleValueContainer()
      try value.encode(text)
    }
  }

  var depth: Image
  var color: Image
  var intrinsics: CameraIntrinsics
  var fps: Double?
  var markers: Markers
  var cap: Cap?
  var recordedAt: String?
  var patientID: Identifier?
  /// De-identified copies with a birth date: the age at the recording, days.
  var ageAtScanDays: Int?
  /// TUM folders only: depth PNG units per metre.
  var depthScale: Double?

  /// The keys that hold whole numbers, by their dotted paths.
  static let wholeNumberKeys = [
    "depth.width", "depth.height", "color.width", "color.height", "intrinsics.width", "intrinsics.height", "cap.markerCount",
    "ageAtScanDays",
  ]
}

/// Names the key where a number that must be whole is not (a fraction, or beyond a 64-bit
/// integer): the system's JSON decoder reports that only as "not valid JSON", naming nothing.
/// Keys that are absent, or not numbers, are left to the decoder.
func checkWholeNumbers(in data: Data, at keys: [String], path: String) throws(ScanIOError) {
  guard let object = try? JSONSerialization.jsonObject(with: data) else { return }
  for key in keys {
    var value: Any? = object
    for part in key.split(separator: ".") { value = (value as? [String: Any])?[String(part)] }
    guard let number = value as? NSNumber else { continue }
    let double = number.doubleValue
    guard double.isFinite, double.rounded() == double, double.magnitude < 9.2e18 else {
      throw .invalidValue(path: path, key: key, detail: "expected a whole number, got \(number)")
    }
  }
}

extension ScanHeader {
  /// Which file the JSON came from: the stream needs its encodings (``RGBDStreamLayout``), a folder does not.
  enum JSONSource {
    case stream
    case tumCamera
  }

  /// Parses and checks a header; every error names `path` and, where there is one, the key. An
  /// optional key whose value cannot be used (a `recordedAt` that is not ISO 8601) is left out
  /// with a warning: the scan's geometry does not depend on it.
  static func parse(json data: Data, path: String, source: JSONSource) throws(ScanIOError) -> (
    ScanHeader, stream: RGBDStreamLayout?, depthScale: Double, warnings: [ScanWarning]
  ) {
    try checkWholeNumbers(in: data, at: ScanHeaderJSON.wholeNumberKeys, path: path)
    var raw = try decodeJSON(ScanHeaderJSON.self, from: data, path: path)
    var warnings: [ScanWarning] = []
    if let recordedAt = raw.recordedAt, parseISO8601(recordedAt) == nil {
      warnings.append(
        .ignoredValue(
          path: path, key: "recordedAt",
          detail: "'\(recordedAt)' is not an ISO 8601 date or time (2026-11-21T10:15:00Z or 2026-11-21); reports and copies go without it"))
      raw.recordedAt = nil
    }
    var stream: RGBDStreamLayout?
    switch source {
    case .stream:
      guard let name = raw.depth.encoding else { throw .missingKey(path: path, key: "depth.encoding") }
      guard let encoding = RGBDStreamLayout.DepthEncoding(rawValue: name) else {
        throw .invalidValue(
          path: path, key: "depth.encoding",
          detail: "'\(name)' is not one of \(RGBDStreamLayout.DepthEncoding.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      stream = RGBDStreamLayout(depthEncoding: encoding)
      if let colour = raw.color.encoding, colour != RGBDStreamLayout.colorEncoding {
        throw .invalidValue(path: path, key: "color.encoding", detail: "'\(colour)' is not supported (only bgra8)")
      }
    case .tumCamera:
      stream = nil
    }
    let header = ScanHeader(
      depthWidth: raw.depth.width, depthHeight: raw.depth.height,
      colorWidth: raw.color.width, colorHeight: raw.color.height, intrinsics: raw.intrinsics,
      fps: raw.fps ?? 30,
      markers: MarkerSpec(dictionary: raw.markers.dictionary, sideLength: raw.markers.sideLength),
      capMarkerCount: raw.cap?.markerCount, recordedAt: raw.recordedAt, patientID: raw.patientID?.text,
      ageAtScanDays: raw.ageAtScanDays)
    try header.validate(path: path)
    let depthScale = raw.depthScale ?? 5000
    guard depthScale.isFinite, depthScale > 0 else {
      throw .invalidValue(path: path, key: "depthScale", detail: "must be a positive number")
    }
    return (header, stream, depthScale, warnings)
  }

  /// Checks sizes, camera and marker values for sense.
  func validate(path: String) throws(ScanIOError) {
    func positive(_ value: Int, _ key: String) throws(ScanIOError) {
      guard value > 0, value <= ScanHeader.maximumSide else {
        throw .invalidValue(path: path, key: key, detail: "\(value) is not a size between 1 and \(ScanHeader.maximumSide)")
      }
    }
    try positive(depthWidth, "depth.width")
    try positive(depthHeight, "depth.height")
    try positive(colorWidth, "color.width")
    try positive(colorHeight, "color.height")
    try positive(intrinsics.width, "intrinsics.width")
    try positive(intrinsics.height, "intrinsics.height")
    if let (key, detail) = intrinsics.implausibility { throw .invalidValue(path: path, key: "intrinsics." + key, detail: detail) }
    guard fps.isFinite, fps > 0, fps <= 1000 else {
      throw .invalidValue(path: path, key: "fps", detail: "must be a number of frames a second between 0 and 1000")
    }
    guard markers.sideLength.isFinite, markers.sideLength > 0, markers.sideLength < 1 else {
      throw .invalidValue(path: path, key: "markers.sideLength", detail: "must be a length in metres between 0 and 1")
    }
    if let recordedAt, parseISO8601(recordedAt) == nil {
      throw .invalidValue(path: path, key: "recordedAt", detail: "'\(recordedAt)' is not an ISO 8601 date or time (2026-11-21T10:15:00Z or 2026-11-21)")
    }
    if let count = capMarkerCount, count <= 0 {
      throw .invalidValue(path: path, key: "cap.markerCount", detail: "must be positive")
    }
    // Depth and colour must be scaled copies of the intrinsics' image: same aspect ratio.
    for (name, w, h) in [("depth", depthWidth, depthHeight), ("color", colorWidth, colorHeight)] {
      guard w * intrinsics.height == h * intrinsics.width else {
        throw .sizeMismatch(
          path: path,
          detail: "\(name) size \(w)×\(h) is not a scaled copy of the intrinsics' \(intrinsics.width)×\(intrinsics.height)")
      }
    }
  }

  /// The header as JSON (sorted keys): a stream header with `stream`'s encodings, or a TUM
  /// folder's `camera.json` with `depthScale`.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)`` naming `path` (the file being
  ///   written) when a value cannot be written as JSON (a non-finite number).
  func jsonData(stream: RGBDStreamLayout?, depthScale: Double?, path: String) throws(ScanIOError) -> Data {
    let raw = ScanHeaderJSON(
      depth: .init(width: depthWidth, height: depthHeight, encoding: stream?.depthEncoding.rawValue),
      color: .init(width: colorWidth, height: colorHeight, encoding: stream.map { _ in RGBDStreamLayout.colorEncoding }),
      intrinsics: intrinsics, fps: fps,
      markers: .init(dictionary: markers.dictionary, sideLength: markers.sideLength),
      cap: capMarkerCount.map { .init(markerCount: $0) }, recordedAt: recordedAt, patientID: patientID.map(ScanHeaderJSON.Identifier.init),
      ageAtScanDays: ageAtScanDays, depthScale: depthScale)
    return try encodeJSON(raw, path: path)
  }
}

/// Encodes a value as JSON with sorted keys; a value JSON cannot hold (NaN, ±∞) becomes
/// ``ScanIOError/cannotWrite(path:reason:)`` naming `path`, never a trap.
func encodeJSON<T: Encodable>(_ value: T, path: String) throws(ScanIOError) -> Data {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  do {
    return try encoder.encode(value)
  } catch {
    throw .cannotWrite(path: path, reason: "cannot encode JSON: \(error)")
  }
}

/// Decodes JSON, turning every failure into a ``ScanIOError`` that names `path` and the key.
func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data, path: String) throws(ScanIOError) -> T {
  do {
    return try JSONDecoder().decode(type, from: data)
  } catch let error as DecodingError {
    // The system's decoder says "not valid JSON", naming no key, also where the JSON is well
    // formed but a value does not fit its key.
    if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, (try? JSONSerialization.jsonObject(with: data)) != nil {
      throw .unsupportedContent(
        path: path, detail: "the JSON is well formed, but a value does not fit its key (a fraction where a whole number belongs, or a number beyond its range)")
    }
    throw ScanIOError(decoding: error, path: path)
  } catch {
    throw .invalidJSON(path: path, detail: String(describing: error))
  }
}

extension ScanIOError {
  /// Turns a decoder error into a message that names the key by its dotted path.
  init(decoding error: DecodingError, path: String) {
    func dotted(_ keys: [any CodingKey]) -> String {
      keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context):
      self = .missingKey(path: path, key: dotted(context.codingPath + [key]))
    case .typeMismatch(let type, let context):
      self = .invalidValue(path: path, key: dotted(context.codingPath), detail: "expected \(Self.kind(of: type))")
    case .valueNotFound(let type, let context):
      self = .invalidValue(path: path, key: dotted(context.codingPath), detail: "expected \(Self.kind(of: type)), found null")
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty {
        let underlying = (context.underlyingError as NSError?)?.localizedDescription ?? context.debugDescription
        self = .invalidJSON(path: path, detail: underlying)
      } else {
        self = .invalidValue(path: path, key: dotted(context.codingPath), detail: context.debugDescription)
      }
    @unknown default:
      self = .invalidJSON(path: path, detail: String(describing: error))
    }
  }

  private static func kind(of type: Any.Type) -> String {
    switch type {
    case is Int.Type, is Double.Type: return "a number"
    case is String.Type: return "a string"
    default: return "an object"
    }
  }
}

extension CameraIntrinsics {
  /// Why these intrinsics cannot be a camera's, as (key, problem), or `nil`: a focal length
  /// outside 0.05…20 image widths (a phone's is about one), or a principal point more than an
  /// image's size away from the image. Far outside, projections overflow downstream.
  var implausibility: (key: String, detail: String)? {
    let side = Double(max(width, height))
    for (value, key) in [(fx, "fx"), (fy, "fy")] where !(value.isFinite && value >= 0.05 * side && value <= 20 * side) {
      return (key, "focal length must be a number between 0.05 and 20 image widths (\(0.05 * side)…\(20 * side) px)")
    }
    for (value, key, size) in [(cx, "cx", width), (cy, "cy", height)] where !(value.isFinite && value >= -Double(size) && value <= 2 * Double(size)) {
      return (key, "must be a number within an image's size of the image (\(-size)…\(2 * size) px)")
    }
    return nil
  }
}
