import Foundation
internal import _HeadScanSupport

/// The four landmarks a user marks on a scan (contract §3): `*.landmarks.json`.
///
/// Each is either a pixel of one frame's colour image (lifted to 3D later,
/// through that frame's depth and pose) or a point in the scan's world frame.
public struct LandmarkFile: Sendable, Hashable {
  /// The names every file must give, once each.
  public static let names = ["nasion", "noseTip", "leftEar", "rightEar"]

  /// Where a landmark was marked.
  public enum Position: Sendable, Hashable {
    /// Pixel (`u`, `v`) of frame `frame`'s colour image (OpenCV pixel convention).
    case pixel(frame: Int, u: Double, v: Double)
    /// A point in the scan's world frame (contract §5), metres.
    case world(SIMD3<Double>)
  }

  /// Landmark name → where it was marked.
  public var positions: [String: Position]

  public init(positions: [String: Position]) {
    precondition(Set(positions.keys) == Set(Self.names), "a landmark file has exactly the four landmarks")
    self.positions = positions
  }

  private struct Entry: Codable {
    var name: String?
    var frame: Int?
    var u: Double?
    var v: Double?
    var x: Double?
    var y: Double?
    var z: Double?
  }

  private struct Document: Codable {
    var landmarks: [Entry]
  }

  /// Reads and checks a landmarks file.
  /// - Throws: ``ScanIOError`` naming the file: invalid JSON, a missing, duplicate
  ///   or unknown name, an entry with neither a complete pixel nor a complete point.
  public init(path: String) throws(ScanIOError) {
    let document = try decodeJSON(Document.self, from: scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }, path: path)
    var positions: [String: Position] = [:]
    for (index, entry) in document.landmarks.enumerated() {
      guard let name = entry.name else { throw .missingKey(path: path, key: "landmarks.[\(index)].name") }
      guard Self.names.contains(name) else {
        throw .invalidLandmarks(path: path, detail: "unknown landmark '\(name)' (expected \(Self.names.joined(separator: ", ")))")
      }
      guard positions[name] == nil else { throw .invalidLandmarks(path: path, detail: "landmark '\(name)' is given twice") }
      if let frame = entry.frame, let u = entry.u, let v = entry.v {
        guard frame >= 0, u.isFinite, v.isFinite else {
          throw .invalidLandmarks(path: path, detail: "landmark '\(name)' has a negative frame or a non-finite pixel")
        }
        positions[name] = .pixel(frame: frame, u: u, v: v)
      } else if let x = entry.x, let y = entry.y, let z = entry.z, entry.frame == nil {
        guard x.isFinite, y.isFinite, z.isFinite else {
          throw .invalidLandmarks(path: path, detail: "landmark '\(name)' has a non-finite coordinate")
        }
        positions[name] = .world(SIMD3(x, y, z))
      } else {
        throw .invalidLandmarks(path: path, detail: "landmark '\(name)' needs either frame, u and v, or x, y and z")
      }
    }
    if let missing = Self.names.first(where: { positions[$0] == nil }) {
      throw .invalidLandmarks(path: path, detail: "landmark '\(missing)' is missing")
    }
    self.positions = positions
  }

  /// The file's JSON, landmarks in contract order.
  public func jsonData() -> Data {
    let entries = Self.names.map { name -> Entry in
      switch positions[name]! {
      case .pixel(let frame, let u, let v): return Entry(name: name, frame: frame, u: u, v: v)
      case .world(let p): return Entry(name: name, x: p.x, y: p.y, z: p.z)
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try! encoder.encode(Document(landmarks: entries))
  }
}

/// The stem that a scan's companion files extend: `scan.rgbdscan` → `scan`, `folder/` → `folder`
/// (the scan without its format's extension, ``ScanFormat/companionBase(of:)``).
///
/// Landmarks live in `<stem>.landmarks.json`, simulator truth in `<stem>.truth.json`.
public func companionBase(of scanPath: String) -> String {
  let trimmed = ScanFormat.trimmed(scanPath)
  for format in ScanFormats.registered where format.companionBase(of: trimmed) != trimmed {
    return format.companionBase(of: trimmed)
  }
  return trimmed
}
