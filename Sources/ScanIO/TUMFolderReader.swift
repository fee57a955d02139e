import Foundation
internal import _HeadScanSupport

/// Reads a TUM-style scan folder (docs/formats.md, "TUM-style folder"): `rgb/`, `depth/`, `rgb.txt`,
/// `depth.txt` and `camera.json`.
///
/// Colour and depth entries are paired by nearest timestamp within 20 ms
/// (closest pairs first, each entry used once); unpaired entries are skipped and
/// reported in ``warnings``. Frames are decoded from their PNG/JPEG files on demand.
public final class TUMFolderReader: ScanReader {
  /// Largest timestamp difference for a colour/depth pair, seconds.
  public static let pairingTolerance = 0.020

  public let path: String
  public let header: ScanHeader
  public let warnings: [ScanWarning]
  /// Depth PNG units per metre (TUM's own is 5000).
  public let depthScale: Double
  /// The paired entries, in colour-timestamp order.
  let pairs: [(timestamp: Double, colour: String, depth: String)]

  public var frameCount: Int { pairs.count }

  /// Opens a folder and pairs its entries.
  /// - Throws: ``ScanIOError`` for a missing `camera.json`/index file, invalid JSON or an unparsable index line.
  public init(path: String) throws(ScanIOError) {
    let root = path.hasSuffix("/") ? String(path.dropLast()) : path
    let cameraPath = root + "/camera.json"
    guard FileManager.default.fileExists(atPath: cameraPath) else { throw .missingFile(path: cameraPath) }
    let (header, _, scale, headerWarnings) = try ScanHeader.parse(json: try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: cameraPath) }, path: cameraPath, source: .tumCamera)
    let colour = try Self.readIndex(root + "/rgb.txt")
    let depth = try Self.readIndex(root + "/depth.txt")
    let (pairs, unpairedColour, unpairedDepth) = Self.pair(colour: colour, depth: depth)
    self.path = path
    self.header = header
    self.depthScale = scale
    self.pairs = pairs.map { (colour[$0.0].time, root + "/" + colour[$0.0].file, root + "/" + depth[$0.1].file) }
    self.warnings =
      headerWarnings
      + (unpairedColour + unpairedDepth == 0 ? [] : [.unpairedEntries(path: path, colour: unpairedColour, depth: unpairedDepth)])
  }

  public func timestamp(at index: Int) throws(ScanIOError) -> Double {
    try checkIndex(index)
    return pairs[index].timestamp
  }

  public func frame(at index: Int) throws(ScanIOError) -> ScanFrame {
    try checkIndex(index)
    let entry = pairs[index]
    let colour = try ImageFiles.readColor(
      at: entry.colour, expecting: .init(width: header.colorWidth, height: header.colorHeight, what: "colour image", source: "camera.json"))
    let depth = try ImageFiles.readGray16(
      at: entry.depth, expecting: .init(width: header.depthWidth, height: header.depthHeight, what: "depth image", source: "camera.json"))
    let scale = Float(depthScale)
    let metres = depth.values.map { DepthMap.validMetres($0 == 0 ? Float.nan : Float($0) / scale) }
    return ScanFrame(
      index: index, timestamp: entry.timestamp,
      depth: DepthMap(width: depth.width, height: depth.height, metres: metres, intrinsics: header.depthIntrinsics),
      color: ColorImage(width: colour.width, height: colour.height, bgra: colour.bytes, intrinsics: header.colorIntrinsics))
  }

  /// One `timestamp filename` line.
  struct IndexEntry: Equatable {
    var time: Double
    var file: String
  }

  /// Parses a TUM index file: `timestamp filename` lines, `#` comments, blank lines ignored.
  static func readIndex(_ path: String) throws(ScanIOError) -> [IndexEntry] {
    guard FileManager.default.fileExists(atPath: path) else { throw .missingFile(path: path) }
    guard let text = String(data: try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: path) }, encoding: .utf8) else {
      throw .invalidIndexLine(path: path, line: 1, detail: "not UTF-8 text")
    }
    var entries: [IndexEntry] = []
    // Lines end in LF, CRLF (an index written on Windows) or CR: Swift reads CRLF as one
    // character, which a split at "\n" alone would not split at.
    for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let fields = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard fields.count >= 2 else {
        throw .invalidIndexLine(path: path, line: number + 1, detail: "expected 'timestamp filename'")
      }
      guard let time = Double(fields[0]), time.isFinite else {
        throw .invalidIndexLine(path: path, line: number + 1, detail: "'\(fields[0])' is not a timestamp")
      }
      let file = String(fields[1])
      guard !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
        throw .invalidIndexLine(path: path, line: number + 1, detail: "'\(file)' must be a path inside the folder")
      }
      entries.append(IndexEntry(time: time, file: file))
    }
    return entries
  }

  /// Greedy nearest-timestamp pairing within ``pairingTolerance``: closest pairs first.
  /// - Returns: index pairs sorted by colour time, and how many entries of each side stayed unpaired.
  static func pair(colour: [IndexEntry], depth: [IndexEntry]) -> ([(Int, Int)], Int, Int) {
    let depthOrder = depth.indices.sorted { depth[$0].time < depth[$1].time }
    var candidates: [(gap: Double, c: Int, d: Int)] = []
    for (c, entry) in colour.enumerated() {
      // Binary search for the first depth entry not earlier than entry.time − tolerance.
      var low = 0, high = depthOrder.count
      while low < high {
        let mid = (low + high) / 2
        if depth[depthOrder[mid]].time < entry.time - pairingTolerance { low = mid + 1 } else { high = mid }
      }
      var k = low
      while k < depthOrder.count, depth[depthOrder[k]].time <= entry.time + pairingTolerance {
        candidates.append((abs(depth[depthOrder[k]].time - entry.time), c, depthOrder[k]))
        k += 1
      }
    }
    candidates.sort { ($0.gap, $0.c, $0.d) < ($1.gap, $1.c, $1.d) }
    var colourUsed = [Bool](repeating: false, count: colour.count)
    var depthUsed = [Bool](repeating: false, count: depth.count)
    var pairs: [(Int, Int)] = []
    for candidate in candidates where !colourUsed[candidate.c] && !depthUsed[candidate.d] {
      colourUsed[candidate.c] = true
      depthUsed[candidate.d] = true
      pairs.append((candidate.c, candidate.d))
    }
    pairs.sort { (colour[$0.0].time, $0.0) < (colour[$1.0].time, $1.0) }
    return (pairs, colour.count - pairs.count, depth.count - pairs.count)
  }
}
