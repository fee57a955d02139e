import Foundation

/// Scratch files for one fuzzer process: the readers under test open paths, so each
/// input is written to a file in a private folder (on `/dev/shm` when there is one).
public enum FuzzFiles {
  /// A folder private to this process, created once.
  public static let folder: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let path = base + "/headscan-fuzz-\(getpid())"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  /// Writes `bytes` to `name` in ``folder`` and returns the file's path.
  @discardableResult
  public static func write(_ bytes: UnsafeRawBufferPointer, as name: String) -> String {
    write(Data(bytes), as: name)
  }

  /// Writes `data` to `name` in ``folder`` and returns the file's path.
  @discardableResult
  public static func write(_ data: Data, as name: String) -> String {
    let path = folder + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: data)
    return path
  }

  /// Writes `text` to `name` in ``folder`` and returns the file's path.
  @discardableResult
  public static func write(_ text: String, as name: String) -> String {
    write(Data(text.utf8), as: name)
  }
}
