import Foundation
import ScanIO
import Testing
import _TestSupport

/// `headscan cap`: the files it writes, the sidecar it pairs them with, and what it refuses.
struct CapCommandTests {
  static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

  @Test func aPDFSheetAndItsSidecar() throws {
    try TestFiles.withTemporaryFolder { folder in
      let sheet = folder.appendingPathComponent("cap.pdf")
      let run = try Headscan.run(["cap", sheet.path])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.hasPrefix("2 pages, 80 stickers (ids 0–39 of DICT_4X4_50, 16 mm, 1 spare each) → "), "\(run.stdout)")
      #expect(run.stdout.split(separator: "\n").count == 1)
      let pdf = try Data(contentsOf: sheet)
      #expect(pdf.starts(with: Data("%PDF-1.4\n".utf8)))
      let cap = try ScanCap(contentsOf: folder.appendingPathComponent("cap.cap.json").path)
      #expect(cap.markers.dictionary == "DICT_4X4_50" && cap.markers.sideLength == 0.016 && cap.markerCount == 40)
      // Nothing else: no temporary files left behind.
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["cap.cap.json", "cap.pdf"])
    }
  }

  @Test func anSVGSheetIsOneFileAPage() throws {
    try TestFiles.withTemporaryFolder { folder in
      let run = try Headscan.run(["cap", folder.appendingPathComponent("s.svg").path, "--markers", "30", "--side", "20", "--paper", "letter", "--spares", "2"])
      #expect(run.status == 0, "\(run.stderr)")
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      let pages = names.filter { $0.hasSuffix(".svg") }
      #expect(pages.count >= 2 && pages.first == "s-2.svg" && names.contains("s.svg") && names.contains("s.cap.json"), "\(names)")
      #expect(run.stdout.hasPrefix("\(pages.count) pages, 90 stickers"), "\(run.stdout)")
      for page in pages {
        let svg = try String(contentsOf: folder.appendingPathComponent(page), encoding: .utf8)
        #expect(svg.contains("width=\"215.9mm\" height=\"279.4mm\" viewBox=\"0 0 215.9 279.4\""))
      }
      let cap = try ScanCap(contentsOf: folder.appendingPathComponent("s.cap.json").path)
      #expect(cap.markers.sideLength == 0.02 && cap.markerCount == 30)
    }
  }

  /// A smaller cap written over a larger one's SVG sheet removes the larger one's later pages,
  /// so they are not printed with it; a file of that name that is no sticker sheet stays.
  @Test func aShorterSheetRemovesTheEarlierSheetsLaterPages() throws {
    try TestFiles.withTemporaryFolder { folder in
      let sheet = folder.appendingPathComponent("s.svg").path
      #expect(try Headscan.run(["cap", sheet, "--markers", "40", "--spares", "2"]).status == 0)
      let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".svg") }.sorted()
      #expect(before.count >= 3, "\(before)")
      let notes = folder.appendingPathComponent("s-\(before.count + 1).svg").path
      try Data("<svg><title>my drawing</title></svg>".utf8).write(to: URL(fileURLWithPath: notes))
      let run = try Headscan.run(["cap", sheet, "--markers", "4"])
      #expect(run.status == 0 && run.stdout.contains("removed the earlier sheet's later pages"), "\(run.stdout) \(run.stderr)")
      let after = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".svg") }.sorted()
      #expect(after == ["s-\(before.count + 1).svg", "s.svg"], "\(after)")
      #expect(try String(contentsOfFile: notes, encoding: .utf8).contains("my drawing"))
    }
  }

  @Test func optionsOutsideTheirBoundsAreUsageErrors() throws {
    try TestFiles.withTemporaryFolder { folder in
      let sheet = folder.appendingPathComponent("cap.pdf").path
      let cases: [([String], String)] = [
        (["--markers", "51"], "--markers 51: must be 1 to 50"),
        (["--markers", "0"], "--markers 0"),
        (["--markers", "251", "--dictionary", "DICT_6X6_250"], "must be 1 to 250"),
        (["--dictionary", "DICT_4X4_51"], "unknown ArUco dictionary 'DICT_4X4_51'"),
        (["--side", "4.9"], "--side 4.9: must be 5 to 100 mm"),
        (["--side", "101"], "--side 101"),
        (["--margin", "0.4", "--side", "5"], "--margin 0.4"),
        (["--margin", "51"], "--margin 51"),
        (["--margin", "2"], "at least 0.5 mm and one marker cell"),
        (["--spares", "11"], "--spares 11: must be 0 to 10"),
        (["--spares=-1"], "--spares -1"),
        (["--side", "100", "--margin", "50"], "does not fit on a4 paper"),
      ]
      for (arguments, message) in cases {
        let run = try Headscan.run(["cap", sheet] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
      }
      let png = try Headscan.run(["cap", folder.appendingPathComponent("cap.png").path])
      #expect(png.status == 64 && png.stderr.contains("must be named .svg or .pdf"), "\(png.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
  }

  @Test func aFolderInTheWayIsNeverReplaced() throws {
    try TestFiles.withTemporaryFolder { folder in
      // The sheet's name taken by a folder.
      let taken = folder.appendingPathComponent("a.pdf")
      try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: false)
      let run = try Headscan.run(["cap", taken.path])
      #expect(run.status == 1 && run.stderr.contains("is a folder"), "\(run.stderr)")
      #expect(!Self.exists(folder.appendingPathComponent("a.cap.json")))
      // The sidecar's name taken by a folder: nothing is written, the sheet neither.
      try FileManager.default.createDirectory(at: folder.appendingPathComponent("b.cap.json"), withIntermediateDirectories: false)
      let sidecar = try Headscan.run(["cap", folder.appendingPathComponent("b.svg").path])
      #expect(sidecar.status == 1 && sidecar.stderr.contains("b.cap.json") && sidecar.stderr.contains("is a folder"), "\(sidecar.stderr)")
      #expect(!Self.exists(folder.appendingPathComponent("b.svg")))
      // A missing folder.
      let missing = try Headscan.run(["cap", folder.appendingPathComponent("no/c.pdf").path])
      #expect(missing.status == 1 && missing.stderr.contains("does not exist"), "\(missing.stderr)")
    }
  }
}
