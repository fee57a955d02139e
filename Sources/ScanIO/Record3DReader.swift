import Foundation
internal import LZFSE

/// Reads a Record3D `.r3d` export frame by frame, straight from its ZIP archive.
///
/// The archive holds `metadata` (JSON, ``Record3DMetadata``), and per frame `i`
/// `rgbd/<i>.jpg` (colour), `rgbd/<i>.depth` (LZFSE-compressed float32 metres, row-major
/// `dh × dw`, NaN = none) and optionally `rgbd/<i>.conf` (LZFSE-compressed uint8 confidence:
/// 0 low, 1 medium, 2 high). Opening reads only the central directory and `metadata`; each
/// ``frame(at:)`` reads and decodes that frame's two or three entries, so memory stays flat
/// whatever the recording's length, and nothing is unpacked to disk.
///
/// Frames come back as stored: a front-camera recording is portrait (480 wide, 640 high), and
/// its intrinsics (`K`, column-major) describe that portrait image. Depth and colour may have
/// different sizes; the intrinsics scale to each about pixel edges (docs/formats.md). Record3D does not know
/// the cap, so it comes from ``ScanOpenOptions/cap`` or the sidecar `NAME.cap.json`.
public final class Record3DReader: ScanReader {
  /// The first bytes of a ZIP archive (a local file header).
  public static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
  /// The name of the metadata entry.
  public static let metadataEntry = "metadata"

  public let path: String
  public let header: ScanHeader
  /// The `metadata` entry as read.
  public let metadata: Record3DMetadata
  public let frameCount: Int
  public let warnings: [ScanWarning] = []
  /// Depth whose confidence is below this is dropped (frames without `.conf` keep all).
  public let minimumConfidence: UInt8
  /// Where the cap came from: the sidecar's path, or `nil` when the caller gave it.
  public let capSidecar: String?
  /// How many frames carry a confidence map.
  public let confidenceFrames: Int
  /// The archive's frame numbers `i` (of `rgbd/<i>.depth`), ascending; frame `k` is `frameNumbers[k]`.
  let frameNumbers: [Int]
  private let archive: Record3DArchive

  /// Opens an export and checks its metadata and entries.
  /// - Parameter options: the cap (default: read `NAME.cap.json` beside the file) and the
  ///   confidence filter.
  /// - Throws: ``ScanIOError``: `cannotOpen` (not a ZIP archive), `corruptEntry` (no
  ///   `metadata`, a depth frame without colour), `unsupportedContent` (colour as one
  ///   `rgbd.mp4`), `missingCap`, `noFrames`, metadata key errors.
  public init(path: String, options: ScanOpenOptions = .default) throws(ScanIOError) {
    let archive = try Record3DArchive(path: path)
    guard archive.contains(Self.metadataEntry) else {
      throw .corruptEntry(path: path, entry: Self.metadataEntry, detail: "missing: not a Record3D export")
    }
    let metadata = try Record3DMetadata(json: archive.data(of: Self.metadataEntry, maximumSize: 256 << 20), path: path)

    var depthNumbers: [Int] = [], colourNumbers = Set<Int>(), confidenceNumbers = Set<Int>()
    for name in archive.names {
      guard name.hasPrefix("rgbd/"), let dot = name.lastIndex(of: ".") else { continue }
      guard let number = Int(name[name.index(name.startIndex, offsetBy: 5)..<dot]), number >= 0 else { continue }
      switch name[name.index(after: dot)...] {
      case "depth": depthNumbers.append(number)
      case "jpg": colourNumbers.insert(number)
      case "conf": confidenceNumbers.insert(number)
      default: break
      }
    }
    if colourNumbers.isEmpty && archive.contains("rgbd.mp4") {
      throw .unsupportedContent(
        path: path,
        detail: "colour is stored as one rgbd.mp4 video (a Record3D version that does not export per-frame JPEGs); "
          + "headscan reads exports with rgbd/<i>.jpg images: export again from a Record3D version that writes them")
    }
    depthNumbers.sort()
    guard !depthNumbers.isEmpty else { throw .noFrames(path: path) }
    if let lone = depthNumbers.first(where: { !colourNumbers.contains($0) }) {
      throw .corruptEntry(path: path, entry: "rgbd/\(lone).jpg", detail: "missing (rgbd/\(lone).depth has no colour image)")
    }
    let last = depthNumbers[depthNumbers.count - 1]
    if let times = metadata.frameTimestamps, times.count <= last {
      throw .invalidValue(path: path, key: "metadata.frameTimestamps", detail: "has \(times.count) entries, frame \(last) needs one")
    }
    if let perFrame = metadata.perFrameIntrinsics, perFrame.count <= last {
      throw .invalidValue(path: path, key: "metadata.perFrameIntrinsicCoeffs", detail: "has \(perFrame.count) entries, frame \(last) needs one")
    }

    let cap: ScanCap
    if let given = options.cap {
      cap = given
      capSidecar = nil
    } else {
      let sidecar = ScanCap.sidecarPath(forScan: path)
      guard FileManager.default.fileExists(atPath: sidecar) else { throw .missingCap(path: path, sidecar: sidecar) }
      cap = try ScanCap(contentsOf: sidecar)
      capSidecar = sidecar
    }
    let header = ScanHeader(
      depthWidth: metadata.depthWidth, depthHeight: metadata.depthHeight,
      colorWidth: metadata.colorWidth, colorHeight: metadata.colorHeight, intrinsics: metadata.intrinsics, fps: metadata.fps,
      markers: cap.markers, capMarkerCount: cap.markerCount)
    try header.validate(path: path)

    self.path = path
    self.archive = archive
    self.metadata = metadata
    self.header = header
    self.frameNumbers = depthNumbers
    self.frameCount = depthNumbers.count
    self.minimumConfidence = options.minimumConfidence
    self.confidenceFrames = depthNumbers.filter { confidenceNumbers.contains($0) }.count
  }

  public func timestamp(at index: Int) throws(ScanIOError) -> Double {
    try checkIndex(index)
    let number = frameNumbers[index]
    return metadata.frameTimestamps?[number] ?? Double(number) / metadata.fps
  }

  public func frame(at index: Int) throws(ScanIOError) -> ScanFrame {
    try checkIndex(index)
    let number = frameNumbers[index]
    let (w, h, dw, dh) = (header.colorWidth, header.colorHeight, header.depthWidth, header.depthHeight)
    let intrinsics = metadata.perFrameIntrinsics?[number] ?? header.intrinsics

    let depthName = "rgbd/\(number).depth"
    let compressed = try archive.data(of: depthName, maximumSize: Self.streamLimit(decoded: dw * dh * 4))
    var metres = [Float](repeating: .nan, count: dw * dh)
    try decodeLZFSE(compressed, into: &metres, entry: depthName)
    let confidenceName = "rgbd/\(number).conf"
    if archive.contains(confidenceName) {
      let stream = try archive.data(of: confidenceName, maximumSize: Self.streamLimit(decoded: dw * dh))
      var confidence = [UInt8](repeating: 0, count: dw * dh)
      try decodeLZFSE(stream, into: &confidence, entry: confidenceName)
      for i in confidence.indices where confidence[i] < minimumConfidence { metres[i] = .nan }
    }
    metres.withUnsafeMutableBufferPointer { DepthDecoding.toMetres($0, disparity: false) }

    let colourName = "rgbd/\(number).jpg"
    let jpeg = try archive.data(of: colourName, maximumSize: 256 << 20)
    let colour: ImageFiles.BGRA
    do {
      colour = try ImageFiles.decodeColor(jpeg, path: path, expecting: .init(width: w, height: h, what: "image", source: "metadata"))
    } catch {
      throw .corruptEntry(path: path, entry: colourName, detail: error.problem)
    }
    return ScanFrame(
      index: index, timestamp: try timestamp(at: index),
      depth: DepthMap(width: dw, height: dh, metres: metres, intrinsics: intrinsics.scaled(toWidth: dw, height: dh)),
      color: ColorImage(width: w, height: h, bgra: colour.bytes, intrinsics: intrinsics.scaled(toWidth: w, height: h)))
  }

  /// Decodes an LZFSE entry that must fill `destination` exactly.
  private func decodeLZFSE<T>(_ stream: Data, into destination: inout [T], entry: String) throws(ScanIOError) {
    let result: Result<Int, LZFSEError> = stream.withUnsafeBytes { source in
      destination.withUnsafeMutableBytes { target in
        Result { () throws(LZFSEError) in try LZFSEDecoder.decode(source, into: target) }
      }
    }
    do {
      _ = try result.get()
    } catch {
      throw .corruptEntry(path: path, entry: entry, detail: "LZFSE: \(error)")
    }
  }

  /// The largest compressed entry accepted for `decoded` bytes: raw blocks add a few bytes
  /// each, so twice the size plus a page is far more than any valid stream needs.
  static func streamLimit(decoded: Int) -> Int { 2 * decoded + 4096 }
}
