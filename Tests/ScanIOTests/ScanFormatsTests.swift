import Foundation
import ScanIO
import Testing
import _TestSupport

/// The format registry: detection by content, the fallback that keeps each format's own
/// error, and companion file names.
struct ScanFormatsTests {
  @Test func theRegistryListsEachFormatOnceByName() {
    let names = ScanFormats.registered.map(\.name)
    #expect(names == ["rgbdscan", "tum", "r3d"])
    #expect(ScanFormats.named("tum")?.title == "TUM folder")
    #expect(ScanFormats.named("rgbdscan")?.title == ".rgbdscan v1")
    #expect(ScanFormats.named("ply") == nil)
  }

  @Test func streamsAreRecognisedByTheirMagicWhateverTheirName() throws {
    try TestFiles.withTemporaryFolder { folder in
      let renamed = try StreamFixtures.write(StreamFixtures.stream(), in: folder, name: "recording.bin")
      #expect(ScanFormat.rgbdStream.detects(renamed))
      #expect(!ScanFormat.rgbdStream.matchesName(renamed))
      #expect(!ScanFormat.tumFolder.detects(renamed))
      #expect(try ScanFormats.format(of: renamed).name == "rgbdscan")
      let reader = try openScan(at: renamed)
      #expect(reader.frameCount == 3)
      #expect(ScanFormat.rgbdStream.depthStorage(of: reader) == "float32")
    }
  }

  @Test func aDamagedStreamIsStillTakenForAScanAndFailsAsOne() throws {
    try TestFiles.withTemporaryFolder { folder in
      let damaged = try StreamFixtures.write(Array("NOTASCAN".utf8), in: folder, name: "cut.rgbdscan")
      #expect(!ScanFormat.rgbdStream.detects(damaged))
      #expect(ScanFormats.recognising(damaged)?.name == "rgbdscan", "by name, so batch lists and reports it")
      let unknown = try StreamFixtures.write(Array("NOTASCAN".utf8), in: folder, name: "notes.txt")
      #expect(ScanFormats.recognising(unknown) == nil)
      // Opening still falls back to the stream for files, with the stream's own message.
      #expect(throws: ScanIOError.badMagic(path: unknown)) { try openScan(at: unknown) }
      let missing = folder.appendingPathComponent("absent.rgbdscan").path
      #expect(throws: ScanIOError.cannotOpen(path: missing, reason: "no such file or folder")) { try openScan(at: missing) }
    }
  }

  @Test func foldersFallBackToTUMWithItsOwnMessage() throws {
    try TestFiles.withTemporaryFolder { folder in
      #expect(ScanFormats.recognising(folder.path) == nil)
      let fallback = try ScanFormats.format(of: folder.path)
      #expect(fallback.name == "tum")
      #expect(throws: ScanIOError.missingFile(path: folder.path + "/camera.json")) { try openScan(at: folder.path) }
    }
    let fixture = TestFiles.fixture("scans/orbit-small").path
    #expect(ScanFormats.recognising(fixture)?.name == "tum")
    #expect(ScanFormats.recognising(fixture + "/")?.name == "tum")
    let reader = try openScan(at: fixture)
    #expect(ScanFormat.tumFolder.depthStorage(of: reader) == "16-bit PNG")
  }

  @Test func companionFilesDropTheFormatsExtension() {
    #expect(companionBase(of: "scans/a.rgbdscan") == "scans/a")
    #expect(companionBase(of: "scans/b-tum/") == "scans/b-tum")
    #expect(companionBase(of: "scans/b-tum//") == "scans/b-tum")
    #expect(companionBase(of: "scans/c.bin") == "scans/c.bin")
    #expect(ScanFormat.rgbdStream.companionBase(of: "a.rgbdscan") == "a")
    #expect(ScanFormat.tumFolder.companionBase(of: "folder/") == "folder")
  }
}
