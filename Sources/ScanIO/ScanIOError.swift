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

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): return "\(path): cannot open: \(reason)"
    case .badMagic(let path): return "\(path): not an .rgbdscan file (wrong magic, expected RGBDSCAN)"
    case .unsupportedVersion(let path, let version):
      return "\(path): unsupported .rgbdscan format version \(version) (this library reads version 1)"
    case .headerPastEnd(let path, let headerLength, let fileSize):
      return "\(path): header length \(headerLength) bytes runs past the end of the file (\(fileSize) bytes)"
    case .invalidJSON(let path, let detail): return "\(path): header is not valid JSON: \(detail)"
    case .missingKey(let path, let key): return "\(path): missing required header key '\(key)'"
    case .invalidValue(let path, let key, let detail): return "\(path): invalid value for '\(key)': \(detail)"
    case .sizeMismatch(let path, let detail): return "\(path): \(detail)"
    case .noFrames(let path): return "\(path): the scan holds no complete frame"
    case .frameOutOfRange(let path, let index, let frameCount):
      return "\(path): frame \(index) is out of range (the scan has \(frameCount) frames)"
    case .unreadableImage(let path, let detail): return "\(path): unreadable image: \(detail)"
    case .missingFile(let path): return "\(path): required file is missing"
    case .invalidIndexLine(let path, let line, let detail): return "\(path):\(line): \(detail)"
    case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
    case .invalidLandmarks(let path, let detail): return "\(path): \(detail)"
    }
  }
}

/// Something a reader noticed and worked around; the data before it is intact.
public enum ScanWarning: Sendable, Equatable, CustomStringConvertible {
  /// The recording was cut off mid-frame; the partial frame is skipped.
  case trailingPartialFrame(path: String, bytes: Int, frameSize: Int)
  /// Index entries (TUM) without a partner within the pairing tolerance, skipped.
  case unpairedEntries(path: String, colour: Int, depth: Int)

  public var description: String {
    switch self {
    case .trailingPartialFrame(let path, let bytes, let frameSize):
      return "\(path): trailing partial frame skipped (\(bytes) of \(frameSize) bytes; recording cut off?)"
    case .unpairedEntries(let path, let colour, let depth):
      return "\(path): \(colour) colour and \(depth) depth entries have no partner within 20 ms and were skipped"
    }
  }
}
