import Foundation

/// Files and folders for tests.
public enum TestFiles {
  /// The repository root, found from this source file's location.
  public static let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
  }()

  /// `../shared/data/<relative>` beside the repository, or `nil` when the
  /// folder is absent (a user's clone without it); callers then skip visibly.
  public static func sharedData(_ relative: String) -> URL? {
    let url = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data/" + relative)
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// A file of `fixtures/` in the repository.
  public static func fixture(_ relative: String) -> URL {
    repositoryRoot.appendingPathComponent("fixtures/" + relative)
  }

  /// A new empty temporary folder, removed when `body` returns.
  public static func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("headscan-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
  }
}
