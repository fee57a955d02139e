import Foundation
internal import _HeadScanSupport
internal import ZIPFoundation

/// Writes a Record3D `.r3d` export (see ``Record3DReader``) frame by frame, atomically.
///
/// Colour goes in as JPEG, depth as float32 metres and confidence as uint8, both in LZFSE
/// streams made of uncompressed `bvx-` blocks (valid LZFSE that any decoder reads; no
/// encoder is needed). Entries are stored in the ZIP archive without further compression.
/// The archive is built in a hidden temporary file beside the destination; ``finish()``
/// writes `metadata` and renames it into place. A writer dropped without `finish()` removes
/// its temporary file.
public final class Record3DWriter {
  /// Where the finished export goes.
  public let path: String
  /// Sizes, fps and camera written to `metadata` (its timestamps are the appended ones).
  public let metadata: Record3DMetadata
  /// JPEG quality of the colour images, 1…100.
  public let jpegQuality: Int
  /// Frames appended so far.
  public private(set) var frameCount = 0
  private let temporaryPath: String
  private let archive: Archive
  private var timestamps: [Double] = []
  private var finished = false

  /// Creates the temporary archive.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)``.
  public init(path: String, metadata: Record3DMetadata, jpegQuality: Int = 92) throws(ScanIOError) {
    try scanIO { () throws(FileAccessError) in try AtomicFile.checkFileOutput(path) }
    self.path = path
    self.metadata = metadata
    self.jpegQuality = min(100, max(1, jpegQuality))
    self.temporaryPath = AtomicFile.temporaryPath(beside: (try? AtomicFile.fileDestination(path)) ?? path)
    do {
      archive = try Archive(url: URL(fileURLWithPath: temporaryPath), accessMode: .create)
    } catch {
      throw .cannotWrite(path: path, reason: "cannot create a ZIP archive: \(error)")
    }
  }

  deinit {
    if !finished { try? FileManager.default.removeItem(atPath: temporaryPath) }
  }

  /// Appends one frame as `rgbd/<n>.jpg`, `rgbd/<n>.depth` and, when given, `rgbd/<n>.conf`.
  /// - Parameters:
  ///   - timestamp: seconds.
  ///   - depthMetres: `depthWidth × depthHeight` values, row-major, metres, NaN for none.
  ///   - colorBGRA: `colorWidth × colorHeight × 4` bytes.
  ///   - confidence: `depthWidth × depthHeight` values 0, 1 or 2, or `nil` for none.
  public func append(timestamp: Double, depthMetres: [Float], colorBGRA: [UInt8], confidence: [UInt8]? = nil) throws(ScanIOError) {
    precondition(!finished, "append after finish()")
    precondition(depthMetres.count == metadata.depthWidth * metadata.depthHeight, "depth sample count does not match the metadata")
    precondition(colorBGRA.count == metadata.colorWidth * metadata.colorHeight * 4, "colour byte count does not match the metadata")
    let n = frameCount
    let jpegPath = temporaryPath + ".jpg"
    defer { try? FileManager.default.removeItem(atPath: jpegPath) }
    try ImageFiles.writeColorJPEG(colorBGRA, width: metadata.colorWidth, height: metadata.colorHeight, quality: jpegQuality, to: jpegPath)
    let jpeg = try scanIO { () throws(FileAccessError) in try ReadOnlyFile.contents(of: jpegPath) }
    try add("rgbd/\(n).jpg", jpeg)
    try add("rgbd/\(n).depth", Self.rawLZFSE(depthMetres.withUnsafeBytes { Data($0) }))
    if let confidence {
      precondition(confidence.count == depthMetres.count, "confidence count does not match the depth")
      try add("rgbd/\(n).conf", Self.rawLZFSE(Data(confidence)))
    }
    timestamps.append(timestamp)
    frameCount += 1
  }

  /// Writes `metadata` and renames the archive into place.
  public func finish() throws(ScanIOError) {
    precondition(!finished, "finish() called twice")
    var written = metadata
    written.frameTimestamps = timestamps
    try add(Record3DReader.metadataEntry, try written.jsonData(path: path))
    finished = true
    try scanIO { () throws(FileAccessError) in try AtomicFile.commit(temporaryPath, to: path) }
  }

  /// `bytes` as an LZFSE stream of uncompressed blocks: `bvx-`, the byte count (u32,
  /// little-endian), the bytes; then the `bvx$` end-of-stream marker.
  public static func rawLZFSE(_ bytes: Data) -> Data {
    var stream = Data(capacity: bytes.count + 16)
    let blockLimit = 1 << 20
    var start = bytes.startIndex
    while start < bytes.endIndex {
      let end = min(start + blockLimit, bytes.endIndex)
      stream.append(contentsOf: Array("bvx-".utf8))
      withUnsafeBytes(of: UInt32(end - start).littleEndian) { stream.append(contentsOf: $0) }
      stream.append(bytes[start..<end])
      start = end
    }
    stream.append(contentsOf: Array("bvx$".utf8))
    return stream
  }

  /// Every entry's modification time (fixed, so the same frames give the same bytes):
  /// 2026-11-21 10:15 UTC.
  static let entryDate = Date(timeIntervalSince1970: 1_795_256_100)

  private func add(_ name: String, _ data: Data) throws(ScanIOError) {
    do {
      try archive.addEntry(
        with: name, type: .file, uncompressedSize: Int64(data.count), modificationDate: Self.entryDate, compressionMethod: .none
      ) { position, size in
        data.subdata(in: (data.startIndex + Int(position))..<(data.startIndex + Int(position) + size))
      }
    } catch {
      throw .cannotWrite(path: path, reason: "cannot add \(name) to the archive: \(error)")
    }
  }
}
