import ArgumentParser
import Figures
import Foundation
import _HeadScanSupport

/// `headscan cap SHEET.svg|SHEET.pdf`: printable sticker sheets for the cap and its cap sidecar.
struct CapCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cap",
    abstract: "Make the cap's stickers: printable marker sheets at their exact size (SVG or PDF) and the matching NAME.cap.json.",
    discussion: """
      Lays out ids 0 to N-1 of the dictionary, each marker with a white quiet zone, its id below it and cut marks at the sticker's corners, followed by the spare copies; as many pages as needed. SHEET.pdf is one document; SHEET.svg is one file a page (SHEET.svg, SHEET-2.svg, …), sized in millimetres. Beside the sheet goes SHEET.cap.json, the cap sidecar that scans without a recorded cap (Record3D .r3d exports) are measured with (docs/formats.md).

      Print at 100 % ("actual size", never "fit to page"): every page carries a 100 mm check bar; measure it with a ruler before cutting. Markers printed smaller or larger than --side make every measurement smaller or larger by the same factor.

      Examples:
        headscan cap cap.pdf
        headscan cap cap.svg --markers 30 --side 20 --paper letter
        headscan cap small.pdf --markers 12 --side 12 --margin 3 --spares 2
        headscan cap large.svg --dictionary DICT_6X6_250 --side 30
      """)

  @Argument(help: "The sheet to write: SHEET.pdf, or SHEET.svg (one file a page). SHEET.cap.json is written beside it.")
  var sheet: String

  @Option(help: ArgumentHelp("Markers on the cap: ids 0 to N-1 (1 to the dictionary's size).", valueName: "n"))
  var markers = 40

  @Option(help: ArgumentHelp("Printed side of each marker, black border included, mm (5–100).", valueName: "mm"))
  var side = 16.0

  @Option(help: "ArUco dictionary of the markers (an OpenCV name).")
  var dictionary = "DICT_4X4_50"

  @Option(help: ArgumentHelp("White quiet zone around each marker, mm (0.5–50, and at least one marker cell: side / 6 for 4×4 dictionaries).", valueName: "mm"))
  var margin = 4.0

  @Option(help: ArgumentHelp("Extra copies of each sticker, for stickers that fall off or smear (0–10).", valueName: "k"))
  var spares = 1

  @Option(help: "Paper: a4 or letter.")
  var paper: CapSheet.Paper = .a4

  @OptionGroup var global: GlobalOptions

  var options: CapSheet.Options {
    CapSheet.Options(dictionary: dictionary, markerCount: markers, side: side, margin: margin, spares: spares, paper: paper)
  }

  func validate() throws {
    guard CapSheet.Format(path: sheet) != nil else {
      throw ValidationError("the sheet must be named .svg or .pdf, not '\(sheet)'")
    }
    do {
      _ = try CapSheet(options: options)
    } catch {
      throw ValidationError(Self.usageMessage(error))
    }
  }

  /// A layout error in the command line's words.
  static func usageMessage(_ error: CapSheetError) -> String {
    let mm = { (v: Double) in String(format: "%g", v) }
    switch error {
    case .unknownDictionary(let name): return "--dictionary: unknown ArUco dictionary '\(name)' (e.g. DICT_4X4_50, DICT_5X5_100, DICT_6X6_250)"
    case .markerCount(let n, let dictionary, let size): return "--markers \(n): must be 1 to \(size), the markers \(dictionary) holds"
    case .side(let value):
      return "--side \(mm(value)): must be \(mm(CapSheet.sideRange.lowerBound)) to \(mm(CapSheet.sideRange.upperBound)) mm"
    case .margin(let value, let minimum, let maximum):
      // The least margin rounded up, so that the number printed is itself accepted.
      return "--margin \(mm(value)): must be \(mm((minimum * 1000).rounded(.up) / 1000)) to \(mm(maximum)) mm (at least 0.5 mm and one marker cell)"
    case .spares(let n): return "--spares \(n): must be \(CapSheet.sparesRange.lowerBound) to \(CapSheet.sparesRange.upperBound)"
    case .doesNotFit, .marker: return error.description
    }
  }

  func run() throws {
    try reportingErrors {
      let layout = try CapSheet(options: options)
      let format = CapSheet.Format(path: sheet) ?? .pdf
      let files: [(path: String, data: Data)]
      switch format {
      case .pdf: files = [(sheet, layout.pdf())]
      case .svg:
        files = zip(CapSheet.svgPagePaths(for: sheet, pageCount: layout.pages.count), layout.pages.indices).map { path, page in
          (path, Data(layout.svg(page: page).utf8))
        }
      }
      let sidecar = CapSheet.sidecarPath(forSheet: sheet)
      let cap = try layout.cap.jsonData(path: sidecar)
      for path in files.map(\.path) + [sidecar] { try checkOutput(path, isNot: []) }
      for file in files { try AtomicFile.write(file.data, to: file.path) }
      try AtomicFile.write(cap, to: sidecar)
      let stale = format == .svg ? try Self.removeStalePages(of: sheet, after: files.count) : []
      let stickers = layout.stickers.count
      let spareNote = spares == 0 ? "no spares" : "\(spares) spare\(spares == 1 ? "" : "s") each"
      print(
        "\(layout.pages.count) page\(layout.pages.count == 1 ? "" : "s"), \(stickers) stickers (ids 0–\(markers - 1) of \(dictionary), "
          + "\(String(format: "%g", side)) mm, \(spareNote)) → \((files.map(\.path) + [sidecar]).joined(separator: ", "))"
          + (stale.isEmpty ? "" : "; removed the earlier sheet's later pages \(stale.joined(separator: ", "))"))
    }
  }

  /// Removes the pages after the first `pages` that an earlier `cap` wrote for the same SVG
  /// sheet (`SHEET-3.svg` after a sheet of two pages), so that no page of another cap is printed
  /// with this one. A page is removed only when it is a headscan sticker sheet (its title says
  /// so); the search stops at the first page number with no such file.
  /// - Returns: the pages removed.
  static func removeStalePages(of sheet: String, after pages: Int) throws -> [String] {
    var removed: [String] = []
    var number = pages + 1
    while true {
      let path = CapSheet.svgPagePaths(for: sheet, pageCount: number).last ?? sheet
      guard AtomicFile.existing(path) == .regularFile, let handle = FileHandle(forReadingAtPath: path) else { break }
      let head = String(decoding: (try? handle.read(upToCount: 1024)) ?? Data(), as: UTF8.self)
      try? handle.close()
      guard head.contains("<title>headscan cap stickers,") else { break }
      do {
        try FileManager.default.removeItem(atPath: path)
      } catch {
        throw CommandError("\(path): cannot remove the earlier sheet's page: \((error as NSError).localizedDescription)")
      }
      removed.append(path)
      number += 1
    }
    return removed
  }
}

extension CapSheet.Paper: ExpressibleByArgument {}
