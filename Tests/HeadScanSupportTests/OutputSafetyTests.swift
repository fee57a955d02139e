import Foundation
import Testing
import _HeadScanSupport
import _TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Outputs never destroy anything but an earlier output: a file output replaces only a regular
/// file (following a link), never a folder, a FIFO or a device; a folder output replaces only a
/// folder headscan marked as its own. Inputs are only regular files: a FIFO is refused, not
/// waited on.
struct OutputSafetyTests {
  /// A folder with a file in it, as a user's folder would be.
  static func usersFolder(in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("victim").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    try Data("precious".utf8).write(to: URL(fileURLWithPath: path + "/data.txt"))
    return path
  }

  @Test func aFileOutputNeverReplacesAFolder() throws {
    try TestFiles.withTemporaryFolder { folder in
      let victim = try Self.usersFolder(in: folder)
      #expect(throws: FileAccessError(path: victim, .cannotWrite(reason: "is a folder"))) {
        try AtomicFile.write(Data("{}".utf8), to: victim)
      }
      #expect(throws: FileAccessError(path: victim, .cannotWrite(reason: "is a folder"))) { try AtomicFile.checkFileOutput(victim) }
      // A committed temporary file is removed, the folder kept whole.
      let temporary = AtomicFile.temporaryPath(beside: victim)
      try Data("x".utf8).write(to: URL(fileURLWithPath: temporary))
      #expect(throws: FileAccessError.self) { try AtomicFile.commit(temporary, to: victim) }
      #expect(!FileManager.default.fileExists(atPath: temporary))
      #expect(try String(contentsOfFile: victim + "/data.txt", encoding: .utf8) == "precious")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["victim"])
    }
  }

  /// A replaced file of the user's own keeps its read and write permissions, never set-id or
  /// sticky bits.
  @Test func aReplacedFileKeepsItsPermissionsButNoSpecialBits() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("report.json").path
      func mode() throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
      try Data("old".utf8).write(to: URL(fileURLWithPath: path))
      #expect(chmod(path, 0o600) == 0)
      try AtomicFile.write(Data("new".utf8), to: path)
      #expect(try mode() == 0o600 && String(contentsOfFile: path, encoding: .utf8) == "new")
      #expect(chmod(path, 0o6755) == 0)
      try AtomicFile.write(Data("newer".utf8), to: path)
      #expect(try mode() == 0o755)
    }
  }

  @Test func aFileOutputNeverReplacesASpecialFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let fifo = folder.appendingPathComponent("pipe").path
      #expect(mkfifo(fifo, 0o600) == 0)
      #expect(throws: FileAccessError(path: fifo, .cannotWrite(reason: "not a regular file"))) {
        try AtomicFile.write(Data("{}".utf8), to: fifo)
      }
      #expect(AtomicFile.existing(fifo) == .other)
      // A device node (the system's, left untouched: the check comes before any write).
      #expect(throws: FileAccessError(path: "/dev/null", .cannotWrite(reason: "not a regular file"))) {
        try AtomicFile.checkFileOutput("/dev/null")
      }
    }
  }

  @Test func aLinkIsFollowedToTheFileItNames() throws {
    try TestFiles.withTemporaryFolder { folder in
      let target = folder.appendingPathComponent("real.json").path, link = folder.appendingPathComponent("link.json").path
      try Data("old".utf8).write(to: URL(fileURLWithPath: target))
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
      try AtomicFile.write(Data("new".utf8), to: link)
      #expect(AtomicFile.existing(link) == .symbolicLink)
      #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
      // A link to a folder is a folder.
      let linkToFolder = folder.appendingPathComponent("folder-link").path
      try FileManager.default.createSymbolicLink(atPath: linkToFolder, withDestinationPath: try Self.usersFolder(in: folder))
      #expect(throws: FileAccessError(path: linkToFolder, .cannotWrite(reason: "is a folder"))) {
        try AtomicFile.write(Data(), to: linkToFolder)
      }
    }
  }

  @Test func aFolderOutputReplacesOnlyAFolderHeadscanWrote() throws {
    try TestFiles.withTemporaryFolder { folder in
      func finished(_ content: String) throws -> String {
        let temporary = AtomicFile.temporaryPath(beside: folder.appendingPathComponent("out").path)
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        try Data(content.utf8).write(to: URL(fileURLWithPath: temporary + "/rgb.txt"))
        return temporary
      }
      let out = folder.appendingPathComponent("out").path
      try AtomicFile.commitFolder(try finished("first"), to: out)
      #expect(AtomicFile.existing(out + "/" + AtomicFile.folderMarker) == .regularFile)
      try AtomicFile.commitFolder(try finished("second"), to: out)  // headscan's own: replaced
      #expect(try String(contentsOfFile: out + "/rgb.txt", encoding: .utf8) == "second")
      // A file the user put into headscan's folder keeps the folder from being replaced.
      try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
      let blocked = try finished("fourth")
      #expect(
        throws: FileAccessError(
          path: out, .cannotWrite(reason: "holds notes.txt, not among the entries headscan wrote there: not replaced (move it out, or remove the folder)"))
      ) { try AtomicFile.commitFolder(blocked, to: out) }
      #expect(!FileManager.default.fileExists(atPath: blocked))
      #expect(try String(contentsOfFile: out + "/notes.txt", encoding: .utf8) == "mine")
      #expect(try String(contentsOfFile: out + "/rgb.txt", encoding: .utf8) == "second")
      try FileManager.default.removeItem(atPath: out + "/notes.txt")
      try AtomicFile.commitFolder(try finished("fifth"), to: out)  // nothing added: replaced
      #expect(try String(contentsOfFile: out + "/rgb.txt", encoding: .utf8) == "fifth")
      let victim = try Self.usersFolder(in: folder)
      let refused = try finished("third")
      #expect(throws: FileAccessError.self) { try AtomicFile.commitFolder(refused, to: victim) }
      #expect(!FileManager.default.fileExists(atPath: refused))
      #expect(try String(contentsOfFile: victim + "/data.txt", encoding: .utf8) == "precious")
      let file = folder.appendingPathComponent("a-file").path
      try Data().write(to: URL(fileURLWithPath: file))
      #expect(throws: FileAccessError(path: file, .cannotWrite(reason: "is a file, not a folder"))) { try AtomicFile.checkFolderOutput(file) }
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a-file", "out", "victim"])
    }
  }

  @Test func outputFoldersAreMadeOnceAndUsedAsTheyAre() throws {
    try TestFiles.withTemporaryFolder { folder in
      let figures = folder.appendingPathComponent("figures").path
      try AtomicFile.makeOutputFolder(figures)
      #expect(AtomicFile.existing(figures + "/" + AtomicFile.folderMarker) == .regularFile)
      let victim = try Self.usersFolder(in: folder)
      try AtomicFile.makeOutputFolder(victim)  // an existing folder is used, not replaced or marked
      #expect(AtomicFile.existing(victim + "/" + AtomicFile.folderMarker) == .nothing)
      #expect(try String(contentsOfFile: victim + "/data.txt", encoding: .utf8) == "precious")
    }
  }

  @Test func aFIFOIsRefusedAsAnInputInsteadOfWaitedOn() throws {
    try TestFiles.withTemporaryFolder { folder in
      let fifo = folder.appendingPathComponent("scan.rgbdscan").path
      #expect(mkfifo(fifo, 0o600) == 0)
      // Opening blocks forever if the reader waits for a writer; it must return at once.
      #expect(throws: FileAccessError(path: fifo, .cannotOpen(reason: "not a regular file"))) { try ReadOnlyFile(path: fifo) }
      #expect(!ReadOnlyFile.isRegularFile(fifo))
      #expect(!ReadOnlyFile.isRegularFile("/dev/zero"))
    }
  }

  @Test func csvFieldsCannotBeReadAsFormulas() {
    #expect(csvField("=HYPERLINK(\"x?\"&A2,\"Click\")") == "\"'=HYPERLINK(\"\"x?\"\"&A2,\"\"Click\"\")\"")
    for prefix in ["=", "+", "-", "@", "\t", "\r"] {
      let field = csvField(prefix + "1+1")
      #expect(field.hasPrefix("'") || field.hasPrefix("\"'"), "\(field)")
    }
    #expect(csvField("scan-7") == "scan-7")
    #expect(csvField("a,b") == "\"a,b\"")
  }
}
