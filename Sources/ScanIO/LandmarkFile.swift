import Foundation
internal import _HeadScanSupport

/// The four landmarks a user marks on a scan (docs/formats.md, "Landmarks"): `*.landmarks.json`.
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
    /// A point in the scan's world frame (the lowest kept marker's own frame), metres.
    case world(SIMD3<Double>)
  }

  /// Landmark name → where it was marked.
  public var positions: [String: Position]

  public init(positions: [String: Position]) {
    precondition(Set(positions.keys) == Set(Self.names), "a landmark file has exactly the four landmarks")
    self.positions = positions
  }

  /// One element of the file's `landmarks` array (docs/formats.md, "Landmarks"): a name with either a pixel
  /// (`frame`, `u`, `v`) or a world point (`x`, `y`, `z`, metres). Every field is optional so
  /// that an incomplete entry decodes and can be reported by name.
  public struct Entry: Codable, Sendable, Hashable {
    public var name: String?
    public var frame: Int?
    public var u: Double?
    public var v: Double?
    public var x: Double?
    public var y: Double?
    public var z: Double?

    /// The entry that writes `position` under `name`.
    public init(name: String, position: Position) {
      self.name = name
      switch position {
      case .pixel(let frame, let u, let v): (self.frame, self.u, self.v) = (frame, u, v)
      case .world(let p): (x, y, z) = (p.x, p.y, p.z)
      }
    }
  }

  /// Why a list of entries is not a valid set of landmarks: one line naming the landmark.
  public struct EntryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The index of an entry without a `name` (the file reports it as a missing key), or `nil`.
    public let unnamedIndex: Int?
    public let description: String
  }

  /// Name → position from `entries`: each name one of ``names`` and given once, each entry a
  /// complete, finite pixel (non-negative frame) or point; with `complete`, all four present.
  /// - Throws: ``EntryProblem`` naming the first landmark at fault.
  /// The pixel coordinates a landmark may have, whatever the image: within a pixel of the
  /// largest image a scan may declare (`ScanHeader.maximumSide`); the scan then checks its own
  /// image's edges.
  public static let pixelRange: ClosedRange<Double> = -1...Double(ScanHeader.maximumSide + 1)
  /// The world coordinates a landmark may have, metres.
  public static let worldRange: ClosedRange<Double> = -10...10

  public static func positions(of entries: [Entry], complete: Bool) throws(EntryProblem) -> [String: Position] {
    var positions: [String: Position] = [:]
    for (index, entry) in entries.enumerated() {
      guard let name = entry.name else { throw EntryProblem(unnamedIndex: index, description: "landmark \(index) has no name") }
      guard names.contains(name) else {
        throw EntryProblem(unnamedIndex: nil, description: "unknown landmark '\(name)' (expected \(names.joined(separator: ", ")))")
      }
      guard positions[name] == nil else { throw EntryProblem(unnamedIndex: nil, description: "landmark '\(name)' is given twice") }
      if let frame = entry.frame, let u = entry.u, let v = entry.v {
        guard frame >= 0, Self.pixelRange.contains(u), Self.pixelRange.contains(v) else {
          throw EntryProblem(
            unnamedIndex: nil,
            description: "landmark '\(name)' has a negative frame or a pixel outside \(Int(Self.pixelRange.lowerBound))…\(Int(Self.pixelRange.upperBound))")
        }
        positions[name] = .pixel(frame: frame, u: u, v: v)
      } else if let x = entry.x, let y = entry.y, let z = entry.z, entry.frame == nil {
        guard [x, y, z].allSatisfy(Self.worldRange.contains) else {
          throw EntryProblem(unnamedIndex: nil, description: "landmark '\(name)' has a coordinate that is not a number within ±10 m")
        }
        positions[name] = .world(SIMD3(x, y, z))
      } else {
        throw EntryProblem(unnamedIndex: nil, description: "landmark '\(name)' needs either frame, u and v, or x, y and z")
      }
    }
    if complete, let missing = names.first(where: { positions[$0] == nil }) {
      throw EntryProblem(unnamedIndex: nil, description: "landmark '\(missing)' is missing")
    }
    return positions
  }

  private struct Document: Codable {
    var landmarks: [Entry]
  }

  /// Reads and checks a landmarks file.
  /// - Throws: ``ScanIOError`` naming the file: invalid JSON, a missing, duplicate
  ///   or unknown name, an entry with neither a complete pixel nor a complete point.
  public init(path: String) throws(ScanIOError) {
    let document = try decodeJSON(Document.self, from: scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }, path: path)
    do {
      positions = try Self.positions(of: document.landmarks, complete: true)
    } catch {
      if let index = error.unnamedIndex { throw .missingKey(path: path, key: "landmarks.[\(index)].name") }
      throw .invalidLandmarks(path: path, detail: error.description)
    }
  }

  /// The file's JSON, landmarks in the order of ``names``. A non-finite coordinate (which no
  /// file read by ``init(path:)`` has) is written as the string `"nan"`/`"inf"`, which reading
  /// the file back refuses by name.
  public func jsonData() -> Data {
    let entries = Self.names.compactMap { name in positions[name].map { Entry(name: name, position: $0) } }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    // Every remaining value (names, integers, finite numbers) encodes.
    return (try? encoder.encode(Document(landmarks: entries))) ?? Data("{\"landmarks\": []}\n".utf8)
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
