import Foundation
internal import _HeadScanSupport

/// Writes a TUM-style scan folder (docs/formats.md, "TUM-style folder") atomically.
///
/// Files go into a hidden temporary folder beside the destination, which
/// ``finish()`` renames into place (replacing an older folder of that name).
/// Depth is stored as 16-bit PNG in units of `1 / depthScale` metres (0 = no depth);
/// colour as RGB PNG, or JPEG where small files matter more than exact pixels.
public final class TUMFolderWriter {
  /// How colour images are stored.
  public enum ColorFormat: Sendable, Hashable {
    /// Lossless RGB PNG.
    case png
    /// Baseline JPEG at the given quality (1…100).
    case jpeg(quality: Int)
  }

  /// Where the finished folder goes.
  public let path: String
  /// The camera description written to `camera.json`.
  public let header: ScanHeader
  /// Depth PNG units per metre.
  public let depthScale: Double
  /// How colour images are stored.
  public let colorFormat: ColorFormat
  public private(set) var frameCount = 0
  private let temporaryPath: String
  private var colourIndex = "# colour images\n# timestamp filename\n"
  private var depthIndex = "# depth images, 16-bit PNG\n# timestamp filename\n"
  private var finished = false

  public init(path: String, header: ScanHeader, depthScale: Double = 5000, colorFormat: ColorFormat = .png) throws(ScanIOError) {
    try header.validate(path: path)
    try scanIO { () throws(FileAccessError) in try AtomicFile.checkFolderOutput(path) }
    precondition(depthScale > 0, "depthScale must be positive")
    self.colorFormat = colorFormat
    self.path = path.hasSuffix("/") ? String(path.dropLast()) : path
    self.header = header
    self.depthScale = depthScale
    self.temporaryPath = AtomicFile.temporaryPath(beside: self.path)
    do {
      for sub in ["", "/rgb", "/depth"] {
        try FileManager.default.createDirectory(atPath: temporaryPath + sub, withIntermediateDirectories: false)
      }
    } catch {
      throw .cannotWrite(path: path, reason: (error as NSError).localizedDescription)
    }
  }

  deinit {
    if !finished { try? FileManager.default.removeItem(atPath: temporaryPath) }
  }

  /// The largest timestamp magnitude a frame may have, seconds: 10¹² (TUM timestamps are Unix
  /// times, about 1.8 × 10⁹ today; a recorder's start at zero).
  public static let largestTimestamp = 1e12

  /// Why frame `index` with `timestamp` (seconds) cannot follow a frame written with
  /// `previous` (`nil` for the first frame) in a TUM folder, or `nil` when it can. Files are
  /// named, and colour paired with depth, by the timestamp written to the microsecond: it must
  /// be a finite number within ±``largestTimestamp`` and, so written, after the previous one's
  /// (two frames of one name would overwrite each other, and the reader orders frames by time:
  /// out of order, the frames' indices, and the landmarks copied beside the folder with them,
  /// would no longer match).
  public static func timestampProblem(_ timestamp: Double, index: Int, after previous: Double?) -> String? {
    guard timestamp.isFinite, timestamp.magnitude <= largestTimestamp else {
      return "frame \(index)'s timestamp \(timestamp) s cannot name a file in a TUM folder (it must be a number of seconds within ±1e12)"
    }
    if let previous, !(stamp(timestamp) > stamp(previous)) {
      return "frame \(index)'s timestamp \(stamp(timestamp)) s is not after frame \(index - 1)'s (\(stamp(previous)) s): "
        + "a TUM folder names and pairs its images by timestamp, so they must increase"
    }
    return nil
  }

  /// A timestamp as the index files and file names write it (to the microsecond), read back.
  static func stamp(_ timestamp: Double) -> Double { Double(String(format: "%.6f", timestamp)) ?? timestamp }

  private var lastTimestamp: Double?

  /// Appends one frame; depth values are rounded to the PNG's units and clamped to 16 bits.
  /// - Throws: `.invalidValue` for key `timestamp` (naming the folder) where
  ///   ``timestampProblem(_:index:after:)`` finds one.
  public func append(timestamp: Double, depthMetres: [Float], colorBGRA: [UInt8]) throws(ScanIOError) {
    precondition(!finished, "append after finish()")
    if let problem = Self.timestampProblem(timestamp, index: frameCount, after: lastTimestamp) {
      throw .invalidValue(path: path, key: "timestamp", detail: problem)
    }
    lastTimestamp = timestamp
    let name = String(format: "%.6f.png", timestamp)
    let colourName: String
    switch colorFormat {
    case .png:
      colourName = name
      try ImageFiles.writeColorPNG(colorBGRA, width: header.colorWidth, height: header.colorHeight, to: temporaryPath + "/rgb/" + name)
    case .jpeg(let quality):
      colourName = String(format: "%.6f.jpg", timestamp)
      try ImageFiles.writeColorJPEG(colorBGRA, width: header.colorWidth, height: header.colorHeight, quality: quality, to: temporaryPath + "/rgb/" + colourName)
    }
    let units = depthMetres.map { z -> UInt16 in
      guard z > 0, z.isFinite else { return 0 }
      return UInt16(min(65535, (Double(z) * depthScale).rounded()))
    }
    try ImageFiles.writeGray16PNG(units, width: header.depthWidth, height: header.depthHeight, to: temporaryPath + "/depth/" + name)
    let stamp = String(format: "%.6f", timestamp)
    colourIndex += "\(stamp) rgb/\(colourName)\n"
    depthIndex += "\(stamp) depth/\(name)\n"
    frameCount += 1
  }

  /// Writes the index files and `camera.json`, then renames the folder into place.
  public func finish() throws(ScanIOError) {
    precondition(!finished, "finish() called twice")
    let camera = try header.jsonData(stream: nil, depthScale: depthScale, path: path + "/camera.json")
    do {
      try colourIndex.write(toFile: temporaryPath + "/rgb.txt", atomically: false, encoding: .utf8)
      try depthIndex.write(toFile: temporaryPath + "/depth.txt", atomically: false, encoding: .utf8)
      try camera.write(to: URL(fileURLWithPath: temporaryPath + "/camera.json"))
    } catch {
      throw .cannotWrite(path: path, reason: (error as NSError).localizedDescription)
    }
    finished = true
    try scanIO { () throws(FileAccessError) in try AtomicFile.commitFolder(temporaryPath, to: path) }
  }
}
