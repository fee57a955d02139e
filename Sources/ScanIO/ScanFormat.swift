import Foundation
internal import _HeadScanSupport

/// One kind of scan on disk: how to recognise it, open it, name it and describe it.
///
/// Every command and `batch` go through ``ScanFormats/registered``; adding a format is one
/// new file (its reader and a `static let` of this type) and one line in that list.
/// Formats may be a single file (detected by its first bytes, e.g. a magic number or a
/// ZIP archive's local-file header) or a folder (detected by the files it holds).
public struct ScanFormat: Sendable, CustomStringConvertible {
  /// Short identifier, e.g. `rgbdscan`, `tum`.
  public let name: String
  /// How people call it in summaries, e.g. `.rgbdscan v1`, `TUM folder`.
  public let title: String
  /// One sentence on what it is, for help texts and documentation.
  public let summary: String
  /// File name extension without the dot (`rgbdscan`), `nil` for folder formats. Companion
  /// files (`NAME.landmarks.json`, `NAME.truth.json`, `NAME.cap.json`) are named after the
  /// scan without it.
  public let fileExtension: String?
  /// Whether scans of this format are folders.
  public let isFolder: Bool
  /// Whether scans of this format record their cap (dictionary, printed side, marker count) in
  /// their own header, so ``ScanOpenOptions/cap`` and a sidecar are not used for them.
  public let recordsCap: Bool
  private let detectContent: @Sendable (String) -> Bool
  private let openReader: @Sendable (String, ScanOpenOptions) throws(ScanIOError) -> any ScanReader
  private let describeDepth: @Sendable (any ScanReader) -> String

  /// A format.
  /// - Parameters:
  ///   - detect: whether the file or folder at a path holds this format, judged by its
  ///     content (first bytes, files inside), never by its name; called only for a path of
  ///     the right kind (file or folder) and must not throw or read much.
  ///   - open: opens a scan of this format.
  ///   - depthStorage: how an opened scan stores depth, for people (e.g. `float16`, `16-bit PNG`).
  public init(
    name: String, title: String, summary: String, fileExtension: String?, isFolder: Bool,
    detect: @escaping @Sendable (String) -> Bool,
    open: @escaping @Sendable (String) throws(ScanIOError) -> any ScanReader,
    depthStorage: @escaping @Sendable (any ScanReader) -> String
  ) {
    self.init(
      name: name, title: title, summary: summary, fileExtension: fileExtension, isFolder: isFolder, detect: detect,
      openWithOptions: { (path: String, _: ScanOpenOptions) throws(ScanIOError) -> any ScanReader in try open(path) },
      depthStorage: depthStorage, recordsCap: true)
  }

  /// A format whose reader takes ``ScanOpenOptions`` (a cap it does not record, a filter).
  /// - Parameters:
  ///   - openWithOptions: opens a scan of this format with the caller's options.
  ///   - recordsCap: whether its scans record their own cap (``recordsCap``; default no: the
  ///     options' cap or the sidecar gives it).
  ///   - others: as ``init(name:title:summary:fileExtension:isFolder:detect:open:depthStorage:)``.
  public init(
    name: String, title: String, summary: String, fileExtension: String?, isFolder: Bool,
    detect: @escaping @Sendable (String) -> Bool,
    openWithOptions: @escaping @Sendable (String, ScanOpenOptions) throws(ScanIOError) -> any ScanReader,
    depthStorage: @escaping @Sendable (any ScanReader) -> String, recordsCap: Bool = false
  ) {
    self.recordsCap = recordsCap
    self.name = name
    self.title = title
    self.summary = summary
    self.fileExtension = fileExtension
    self.isFolder = isFolder
    self.detectContent = detect
    self.openReader = openWithOptions
    self.describeDepth = depthStorage
  }

  /// Whether the file or folder at `path` holds this format, by its content.
  public func detects(_ path: String) -> Bool {
    guard Self.kind(of: path) == (isFolder ? .folder : .file) else { return false }
    return detectContent(path)
  }

  /// Whether `path` carries this format's file name extension (and is of the right kind).
  public func matchesName(_ path: String) -> Bool {
    guard let fileExtension, Self.kind(of: path) == (isFolder ? .folder : .file) else { return false }
    return Self.trimmed(path).hasSuffix("." + fileExtension)
  }

  /// Opens a scan of this format.
  /// - Parameter options: the cap for formats that do not record it, filters (default: cap
  ///   from the sidecar `NAME.cap.json`).
  /// - Throws: ``ScanIOError`` naming the file and the problem.
  public func open(_ path: String, options: ScanOpenOptions = .default) throws(ScanIOError) -> any ScanReader {
    try openReader(path, options)
  }

  /// How `reader` (a scan of this format) stores depth, for people.
  public func depthStorage(of reader: any ScanReader) -> String { describeDepth(reader) }

  /// The path companion files are named after: `path` without trailing slashes and without
  /// this format's extension.
  public func companionBase(of path: String) -> String {
    let trimmed = Self.trimmed(path)
    guard let fileExtension, trimmed.hasSuffix("." + fileExtension) else { return trimmed }
    return String(trimmed.dropLast(fileExtension.count + 1))
  }

  public var description: String { title }

  /// Whether the file at `path` begins with `prefix` (false for folders and unreadable files).
  /// For formats that detect themselves by a magic number.
  public static func file(_ path: String, startsWith prefix: [UInt8]) -> Bool {
    guard let file = try? ReadOnlyFile(path: path), file.size >= prefix.count,
      let head = try? file.bytes(count: prefix.count, at: 0)
    else { return false }
    return head == prefix
  }

  enum Kind {
    case file, folder, missing
  }

  static func kind(of path: String) -> Kind {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return .missing }
    return isFolder.boolValue ? .folder : .file
  }

  static func trimmed(_ path: String) -> String {
    var path = path
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
  }
}
