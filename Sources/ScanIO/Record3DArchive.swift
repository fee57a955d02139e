import Foundation
internal import _HeadScanSupport
internal import ZIPFoundation

/// A Record3D `.r3d` file's ZIP archive, read one entry at a time.
///
/// Opening reads the central directory once (names, sizes, offsets); ``data(of:maximumSize:)``
/// then seeks to one entry and reads only it. ZIPFoundation's `Archive` keeps one file
/// position, so reads are serialised by a lock; decoding happens outside it.
final class Record3DArchive: @unchecked Sendable {
  let path: String
  private let archive: Archive
  private let entries: [String: Entry]
  private let lock = NSLock()

  /// Every entry's name.
  var names: Dictionary<String, Entry>.Keys { entries.keys }

  /// Opens the archive and indexes its entries.
  /// - Throws: ``ScanIOError/cannotOpen(path:reason:)`` when the file is missing or not a
  ///   complete ZIP archive.
  init(path: String) throws(ScanIOError) {
    guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
    guard ReadOnlyFile.isRegularFile(path) else { throw .cannotOpen(path: path, reason: "not a regular file") }
    guard FileManager.default.isReadableFile(atPath: path) else { throw .cannotOpen(path: path, reason: "not readable") }
    do {
      archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
    } catch {
      throw .cannotOpen(path: path, reason: "not a complete ZIP archive (a Record3D .r3d export is one; truncated file?)")
    }
    var index: [String: Entry] = [:]
    for entry in archive where entry.type == .file { index[entry.path] = entry }
    entries = index
    self.path = path
  }

  /// Whether the archive holds an entry named `name`.
  func contains(_ name: String) -> Bool { entries[name] != nil }

  /// The whole content of entry `name`, its CRC-32 checked.
  /// - Throws: ``ScanIOError/corruptEntry(path:entry:detail:)`` when the entry is missing,
  ///   declares more than `maximumSize` bytes, is cut short or fails its checksum.
  func data(of name: String, maximumSize: Int) throws(ScanIOError) -> Data {
    guard let entry = entries[name] else { throw .corruptEntry(path: path, entry: name, detail: "missing from the archive") }
    let declared = entry.uncompressedSize
    guard declared <= UInt64(maximumSize) else {
      throw .corruptEntry(path: path, entry: name, detail: "declares \(declared) bytes, more than the \(maximumSize) it can hold")
    }
    var data = Data(capacity: Int(declared))
    let checksum: CRC32
    do {
      checksum = try lock.withLock {
        try archive.extract(entry, bufferSize: max(1, min(Int(declared), 1 << 22))) { chunk in
          guard data.count + chunk.count <= Int(declared) else { throw Archive.ArchiveError.invalidEntrySize }
          data.append(chunk)
        }
      }
    } catch {
      throw .corruptEntry(path: path, entry: name, detail: "cannot read: \(error)")
    }
    guard data.count == Int(declared) else {
      throw .corruptEntry(path: path, entry: name, detail: "cut short: \(data.count) of \(declared) bytes (truncated file?)")
    }
    guard checksum == entry.checksum else {
      throw .corruptEntry(path: path, entry: name, detail: "checksum mismatch (the entry's bytes are damaged)")
    }
    return data
  }
}
