/// The scan formats the library reads, and the one place that picks a format for a path.
public enum ScanFormats {
  /// Every format, in detection order. Add a format here (and nowhere else).
  public static let registered: [ScanFormat] = [
    .rgbdStream,
    .tumFolder,
    .record3D,
  ]

  /// The registered format that recognises `path`: by content first, then by file name
  /// extension (so a damaged `NAME.rgbdscan` is still taken for a scan, and fails loudly when
  /// opened); `nil` when none does. What `batch` uses to list a folder's scans.
  public static func recognising(_ path: String) -> ScanFormat? {
    registered.first { $0.detects(path) } ?? registered.first { $0.matchesName(path) }
  }

  /// The format to open `path` with: the one that recognises it, else the first registered
  /// format of its kind (file or folder), whose reader then says what is wrong with it.
  /// - Throws: ``ScanIOError/cannotOpen(path:reason:)`` when nothing is at `path`, or when no
  ///   registered format is of its kind.
  public static func format(of path: String) throws(ScanIOError) -> ScanFormat {
    let kind = ScanFormat.kind(of: path)
    guard kind != .missing else { throw .cannotOpen(path: path, reason: "no such file or folder") }
    if let format = recognising(path) { return format }
    guard let fallback = registered.first(where: { $0.isFolder == (kind == .folder) }) else {
      throw .cannotOpen(path: path, reason: "not a scan in any known format")
    }
    return fallback
  }

  /// The format whose ``ScanFormat/name`` is `name`.
  public static func named(_ name: String) -> ScanFormat? {
    registered.first { $0.name == name }
  }
}
