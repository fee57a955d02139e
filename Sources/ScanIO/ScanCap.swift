import Foundation
internal import _HeadScanSupport

/// The cap's markers, for scans whose format does not record them (docs/formats.md, "Cap sidecar").
///
/// Read from a sidecar `NAME.cap.json` beside the scan or from a file given with
/// `--cap FILE`; the JSON holds the stream header's `markers` and (optional) `cap` keys:
///
/// ```json
/// {"markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}, "cap": {"markerCount": 40}}
/// ```
public struct ScanCap: Sendable, Hashable {
  /// The printed markers (dictionary, side in metres).
  public var markers: ScanHeader.MarkerSpec
  /// How many markers the cap carries; `nil` when the file does not say.
  public var markerCount: Int?

  public init(markers: ScanHeader.MarkerSpec, markerCount: Int? = nil) {
    self.markers = markers
    self.markerCount = markerCount
  }

  /// The sidecar file name for a scan: `NAME.cap.json` beside it (``companionBase(of:)``).
  public static func sidecarPath(forScan scanPath: String) -> String {
    companionBase(of: scanPath) + ".cap.json"
  }

  /// Reads and checks a cap file.
  /// - Throws: ``ScanIOError`` naming `path` and the key that is missing or wrong.
  public init(contentsOf path: String) throws(ScanIOError) {
    let data = try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }
    try self.init(json: data, path: path)
  }

  /// Parses and checks cap JSON; errors name `path`.
  public init(json data: Data, path: String) throws(ScanIOError) {
    let raw = try decodeJSON(CapJSON.self, from: data, path: path)
    let markers = ScanHeader.MarkerSpec(dictionary: raw.markers.dictionary, sideLength: raw.markers.sideLength)
    guard markers.sideLength.isFinite, markers.sideLength > 0, markers.sideLength < 1 else {
      throw .invalidValue(path: path, key: "markers.sideLength", detail: "must be a length in metres between 0 and 1")
    }
    guard !markers.dictionary.isEmpty else {
      throw .invalidValue(path: path, key: "markers.dictionary", detail: "must name an OpenCV ArUco dictionary")
    }
    if let count = raw.cap?.markerCount, count <= 0 {
      throw .invalidValue(path: path, key: "cap.markerCount", detail: "must be positive")
    }
    self.init(markers: markers, markerCount: raw.cap?.markerCount)
  }

  /// The cap as sidecar JSON (sorted keys), for writing to `path`.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)`` for a non-finite side length.
  public func jsonData(path: String) throws(ScanIOError) -> Data {
    let raw = CapJSON(
      markers: .init(dictionary: markers.dictionary, sideLength: markers.sideLength),
      cap: markerCount.map { .init(markerCount: $0) })
    return try encodeJSON(raw, path: path)
  }

  /// The sidecar's JSON shape: the stream header's `markers` and `cap` keys.
  struct CapJSON: Codable {
    var markers: ScanHeaderJSON.Markers
    var cap: ScanHeaderJSON.Cap?
  }
}
