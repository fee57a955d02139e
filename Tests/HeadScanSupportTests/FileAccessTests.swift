import Foundation
import Testing
import _HeadScanSupport
import _TestSupport

/// Read-only and atomic file access, with their one-line errors.
struct FileAccessTests {
  @Test func atomicWritesReplaceWholeFilesAndLeaveNoTemporaries() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("out.txt").path
      try AtomicFile.write(Data("first".utf8), to: path)
      try AtomicFile.write(Data("second, longer".utf8), to: path)
      #expect(try ReadOnlyFile.contents(of: path) == Data("second, longer".utf8))
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.txt"])
    }
  }

  @Test func positionedReadsAndShortFiles() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("bytes").path
      try AtomicFile.write(Data((0..<10).map { UInt8($0) }), to: path)
      let file = try ReadOnlyFile(path: path)
      #expect(file.size == 10)
      #expect(try file.bytes(count: 3, at: 4) == [4, 5, 6])
      #expect(throws: FileAccessError(path: path, .truncated(detail: "file ended after 10 bytes while reading"))) {
        try file.bytes(count: 4, at: 8)
      }
    }
  }

  @Test func failuresPrintAsOneLineNamingTheFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let missing = folder.appendingPathComponent("missing.json").path
      #expect(throws: FileAccessError(path: missing, .cannotOpen(reason: "No such file or directory"))) {
        try ReadOnlyFile.contents(of: missing)
      }
      let error = FileAccessError(path: missing, .cannotOpen(reason: "No such file or directory"))
      #expect(error.description == "\(missing): cannot open: No such file or directory")
      #expect(throws: FileAccessError(path: folder.path, .cannotOpen(reason: "is a folder"))) {
        try ReadOnlyFile(path: folder.path)
      }
      let nowhere = folder.appendingPathComponent("no/such/folder/out.txt").path
      #expect(throws: FileAccessError.self) { try AtomicFile.write(Data(), to: nowhere) }
    }
  }
}
