/// Everything that can be wrong with a scan on disk.
///
/// Each case names the file; `description` is one line, `path: problem`, fit
/// for a command-line error message.
public enum ScanIOError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file or folder cannot be opened or read (`reason` from the system).
  case cannotOpen(path: String, reason: String)
  /// The first 8 bytes are not `RGBDSCAN`.
  case badMagic(path: String)
  /// The format version is not one this library reads.
  case unsupportedVersion(path: String, version: UInt32)
  /// The file is shorter than its fixed preamble or its declared header.
  case headerPastEnd(path: String, headerLength: Int, fileSize: Int)
  /// The header (or `camera.json`) is not valid JSON.
  case invalidJSON(path: String, detail: String)
  /// A required key is absent; `key` is its dotted path, e.g. `depth.width`.
  case missingKey(path: String, key: String)
  /// A key is present but has the wrong type or an unusable value.
  case invalidValue(path: String, key: String, detail: String)
  /// Image sizes that cannot belong together (not a scaled copy of the intrinsics, etc.).
  case sizeMismatch(path: String, detail: String)
  /// The scan holds no complete frame.
  case noFrames(path: String)
  /// A frame index outside `0..<frameCount`.
  case frameOutOfRange(path: String, index: Int, frameCount: Int)
  /// A PNG or JPEG that cannot be decoded.
  case unreadableImage(path: String, detail: String)
  /// `rgb.txt`, `depth.txt` or `camera.json` is missing from a TUM-style folder.
  case missingFile(path: String)
  /// A line of a TUM index file that is not `timestamp filename`.
  case invalidIndexLine(path: String, line: Int, detail: String)
  /// Writing failed.
  case cannotWrite(path: String, reason: String)
  /// A landmarks file whose entries are missing, repeated, unknown or incomplete.
  case invalidLandmarks(path: String, detail: String)
  /// An entry of an archive (e.g. `rgbd/12.depth` of a Record3D `.r3d`) that is missing,
  /// truncated or does not decode; `entry` is its name inside the archive.
  case corruptEntry(path: String, entry: String, detail: String)
  /// A scan whose format does not record the cap's markers, with no sidecar beside it and
  /// no cap given; `sidecar` is where the sidecar was looked for.
  case missingCap(path: String, sidecar: String)
  /// A scan laid out in a way this library does not read (e.g. a Record3D export whose
  /// colour is one `rgbd.mp4` video).
  case unsupportedContent(path: String, detail: String)

  /// The file or folder concerned.
  public var path: String {
    switch self {
    case .cannotOpen(let path, _), .badMagic(let path), .unsupportedVersion(let path, _), .headerPastEnd(let path, _, _),
      .invalidJSON(let path, _), .missingKey(let path, _), .invalidValue(let path, _, _), .sizeMismatch(let path, _),
      .noFrames(let path), .frameOutOfRange(let path, _, _), .unreadableImage(let path, _), .missingFile(let path),
      .invalidIndexLine(let path, _, _), .cannotWrite(let path, _), .invalidLandmarks(let path, _),
      .corruptEntry(let path, _, _), .missingCap(let path, _), .unsupportedContent(let path, _):
      return path
    }
  }

  /// What is wrong, without the path (for messages that name the file themselves).
  public var problem: String {
    switch self {
    case .cannotOpen(_, let reason): return "cannot open: \(reason)"
    case .badMagic: return "not an .rgbdscan file (wrong magic, expected RGBDSCAN)"
    case .unsupportedVersion(_, let version): return "unsupported .rgbdscan format version \(version) (this library reads version 1)"
    case .headerPastEnd(_, let headerLength, let fileSize):
      return "header length \(headerLength) bytes runs past the end of the file (\(fileSize) bytes)"
    case .invalidJSON(_, let detail): return "not valid JSON: \(detail)"
    case .missingKey(_, let key): return "missing required key '\(key)'"
    case .invalidValue(_, let key, let detail): return "invalid value for '\(key)': \(detail)"
    case .sizeMismatch(_, let detail): return detail
    case .noFrames: return "the scan holds no complete frame"
    case .frameOutOfRange(_, let index, let frameCount): return "frame \(index) is out of range (the scan has \(frameCount) frames)"
    case .unreadableImage(_, let detail): return "unreadable image: \(detail)"
    case .missingFile: return "required file is missing"
    case .invalidIndexLine(_, let line, let detail): return "line \(line): \(detail)"
    case .cannotWrite(_, let reason): return "cannot write: \(reason)"
    case .invalidLandmarks(_, let detail): return detail
    case .corruptEntry(_, let entry, let detail): return "entry '\(entry)': \(detail)"
    case .missingCap(_, let sidecar):
      return "this format does not record the cap's markers: write \(sidecar) beside the scan "
        + "({\"markers\": {\"dictionary\": \"DICT_4X4_50\", \"sideLength\": 0.016}, \"cap\": {\"markerCount\": 40}}) or pass --cap FILE"
    case .unsupportedContent(_, let detail): return detail
    }
  }

  /// One line: `path: problem` (`path:line: detail` for an index line, like a compiler).
  public var description: String {
    if case .invalidIndexLine(let path, let line, let detail) = self { return "\(path):\(line): \(detail)" }
    return "\(path): \(problem)"
  }
}

/// Something a reader noticed and worked around; the data before it is intact.
public enum ScanWarning: Sendable, Equatable, CustomStringConvertible {
  /// The recording was cut off mid-frame; the partial frame is skipped.
  case trailingPartialFrame(path: String, bytes: Int, frameSize: Int)
  /// Index entries (TUM) without a partner within the pairing tolerance, skipped.
  case unpairedEntries(path: String, colour: Int, depth: Int)
  /// An optional header key whose value cannot be used, left out (`detail` says why).
  case ignoredValue(path: String, key: String, detail: String)

  public var description: String {
    switch self {
    case .trailingPartialFrame(let path, let bytes, let frameSize):
      return "\(path): trailing partial frame skipped (\(bytes) of \(frameSize) bytes; recording cut off?)"
    case .unpairedEntries(let path, let colour, let depth):
      return "\(path): \(colour) colour and \(depth) depth entries have no partner within 20 ms and were skipped"
    case .ignoredValue(let path, let key, let detail):
      return "\(path): '\(key)' ignored: \(detail)"
    }
  }
}
