import ArucoBridge
import Figures
import Foundation
import ScanIO
import Testing
import _TestSupport

/// The cap's sticker sheets: their layout, their files, and what a real renderer makes of them.
struct CapSheetTests {
  typealias Rect = CapSheet.Rect

  /// The default sheet: 40 markers of DICT_4X4_50, 16 mm, 4 mm quiet zone, one spare each, A4.
  static let defaultSheet = Result { try CapSheet(options: .init()) }

  /// Other layouts the geometric rules must hold for.
  static let variants: [CapSheet.Options] = [
    .init(),
    .init(dictionary: "DICT_5X5_100", markerCount: 100, side: 5, margin: 1, spares: 0, paper: .letter),
    .init(dictionary: "DICT_ARUCO_ORIGINAL", markerCount: 1024, side: 5, margin: 0.72, spares: 0),
    .init(dictionary: "DICT_6X6_250", markerCount: 7, side: 40, margin: 10, spares: 3, paper: .letter),
    .init(markerCount: 50, side: 100, margin: 16.7, spares: 0),
  ]

  // MARK: - Layout

  @Test func theDefaultSheetHoldsEveryIdTwiceOnTwoPages() throws {
    let sheet = try Self.defaultSheet.get()
    #expect(sheet.cellsAcross == 6 && sheet.dictionarySize == 50)
    #expect(sheet.columns == 6 && sheet.rows == 7)
    #expect(sheet.pages.map(\.stickers.count) == [42, 38])
    #expect(sheet.pages.map(\.number) == [1, 2])
    // The cap's own set first (ids 0…39 on page 1), then the spares.
    #expect(sheet.pages[0].stickers.prefix(40).map(\.id) == Array(0..<40) && sheet.pages[0].stickers.prefix(40).allSatisfy { $0.copy == 0 })
    let copies = Dictionary(grouping: sheet.stickers, by: \.id).mapValues { $0.map(\.copy).sorted() }
    #expect(copies.keys.sorted() == Array(0..<40) && copies.values.allSatisfy { $0 == [0, 1] })
    for sticker in sheet.stickers {
      #expect(sticker.marker.width == 16 && sticker.marker.height == 16)
      #expect(sticker.quietZone.width == 24 && sticker.quietZone.height == 24)
    }
  }

  @Test func stickersNeitherOverlapNorLeaveThePrintableArea() throws {
    for options in Self.variants {
      let sheet = try CapSheet(options: options)
      #expect(sheet.stickers.count == options.markerCount * (options.spares + 1))
      #expect(sheet.pages.dropLast().allSatisfy { $0.stickers.count == sheet.columns * sheet.rows })
      for page in sheet.pages {
        #expect(page.size == options.paper.size)
        // Printers leave up to ~5 mm at the edges unprinted: nothing is drawn there.
        let printable = Rect(x: 0, y: 0, width: page.size.x, height: page.size.y).outset(by: -5)
        for shape in page.shapes {
          #expect(printable.contains(shape.bounds), "\(options): \(shape) outside the printable area")
        }
        // Each sticker with its cut marks (2.5 mm around) keeps clear of every other one.
        let footprints = page.stickers.map { $0.outline.outset(by: 2.5) }
        for i in footprints.indices {
          for j in footprints.indices where j > i {
            #expect(!footprints[i].intersects(footprints[j]), "\(options): stickers \(i) and \(j) of page \(page.number) overlap")
          }
          #expect(footprints[i].y > page.checkBar.maxY + 3, "\(options): a sticker reaches into the header")
        }
      }
    }
  }

  @Test func quietZonesHoldNothingButTheirMarker() throws {
    for options in Self.variants {
      let sheet = try CapSheet(options: options)
      let cell = options.side / Double(sheet.cellsAcross)
      for page in sheet.pages {
        for sticker in page.stickers {
          let zone = sticker.quietZone
          // The marker sits in the middle of its zone, the margin (at least one cell) all round.
          #expect(abs(sticker.marker.x - zone.x - options.margin) < 1e-9 && abs(zone.maxX - sticker.marker.maxX - options.margin) < 1e-9)
          #expect(abs(sticker.marker.y - zone.y - options.margin) < 1e-9 && abs(zone.maxY - sticker.marker.maxY - options.margin) < 1e-9)
          #expect(options.margin >= cell - 1e-9)
          #expect(sticker.cells.allSatisfy { sticker.marker.outset(by: 1e-9).contains($0) })
          // The id strip is inside the sticker, below the quiet zone.
          #expect(sticker.outline.outset(by: 1e-9).contains(sticker.label.bounds), "\(options): label \(sticker.label.string) leaves its sticker")
          #expect(sticker.label.bounds.y >= zone.maxY)
        }
        // No shape but a marker's own cells comes into any quiet zone.
        let own = Set(page.stickers.map { CapSheet.Shape.fill($0.cells) })
        for shape in page.shapes where !own.contains(shape) {
          for sticker in page.stickers {
            #expect(!shape.bounds.intersects(sticker.quietZone), "\(options): \(shape) inside the quiet zone of id \(sticker.id)")
          }
        }
      }
    }
  }

  @Test func cellsAreTheDictionarysMarkersAndEachRowIsOneRectanglePerBlackRun() throws {
    for options in [Self.variants[0], Self.variants[2]] {
      let sheet = try CapSheet(options: options)
      let n = sheet.cellsAcross, cell = options.side / Double(n), pixelsPerCell = 8
      for sticker in sheet.pages[0].stickers.prefix(60) {
        let bitmap = try MarkerBitmap(dictionary: options.dictionary, id: sticker.id, sidePixels: n * pixelsPerCell)
        var drawn = [[Bool]](repeating: [Bool](repeating: false, count: n), count: n)
        for r in sticker.cells {
          let row = Int(((r.y - sticker.marker.y) / cell).rounded()), first = Int(((r.x - sticker.marker.x) / cell).rounded())
          let length = Int((r.width / cell).rounded())
          #expect(abs(r.height - cell) < 1e-9 && length >= 1)
          for column in first..<(first + length) {
            #expect(!drawn[row][column], "cell drawn twice")
            drawn[row][column] = true
          }
          // A run ends where the marker turns white: runs are maximal.
          #expect(first + length == n || bitmap[(first + length) * pixelsPerCell + pixelsPerCell / 2, row * pixelsPerCell + pixelsPerCell / 2] > 128)
        }
        for row in 0..<n {
          for column in 0..<n {
            let black = bitmap[column * pixelsPerCell + pixelsPerCell / 2, row * pixelsPerCell + pixelsPerCell / 2] < 128
            #expect(drawn[row][column] == black, "id \(sticker.id): cell (\(column), \(row))")
          }
        }
        // The border ring is black all round.
        #expect((0..<n).allSatisfy { drawn[0][$0] && drawn[n - 1][$0] && drawn[$0][0] && drawn[$0][n - 1] })
      }
    }
  }

  @Test func optionsOutsideTheirRangesAreRefused() throws {
    #expect(throws: CapSheetError.markerCount(51, dictionary: "DICT_4X4_50", size: 50)) { try CapSheet(options: .init(markerCount: 51)) }
    #expect(throws: CapSheetError.markerCount(0, dictionary: "DICT_4X4_50", size: 50)) { try CapSheet(options: .init(markerCount: 0)) }
    #expect(throws: CapSheetError.unknownDictionary("DICT_4X4_51")) { try CapSheet(options: .init(dictionary: "DICT_4X4_51")) }
    #expect(throws: CapSheetError.side(4.9)) { try CapSheet(options: .init(side: 4.9)) }
    #expect(throws: CapSheetError.side(.infinity)) { try CapSheet(options: .init(side: .infinity)) }
    #expect(throws: CapSheetError.spares(11)) { try CapSheet(options: .init(spares: 11)) }
    // One cell of a 16 mm 4×4 marker is 16/6 mm: a 2 mm quiet zone is too narrow.
    #expect(throws: CapSheetError.margin(2, minimum: 16.0 / 6, maximum: 50)) { try CapSheet(options: .init(margin: 2)) }
    #expect(throws: CapSheetError.margin(0.4, minimum: 5.0 / 6, maximum: 50)) { try CapSheet(options: .init(side: 5, margin: 0.4)) }
    #expect(throws: CapSheetError.margin(51, minimum: 16.0 / 6, maximum: 50)) { try CapSheet(options: .init(margin: 51)) }
    #expect(throws: CapSheetError.doesNotFit(sticker: SIMD2(200, 203.2), paper: .a4)) { try CapSheet(options: .init(side: 100, margin: 50)) }
  }

  // MARK: - Files

  @Test func theCheckBarIsOneHundredMillimetresInBothFormats() throws {
    let sheet = try Self.defaultSheet.get()
    for page in sheet.pages { #expect(page.checkBar.width == CapSheet.checkBarLength && CapSheet.checkBarLength == 100) }
    #expect(sheet.pages.allSatisfy { $0.shapes.contains(.fill([$0.checkBar])) })
    let bar = sheet.pages[0].checkBar

    // SVG: the root maps one user unit to one millimetre, and the bar's path is 100 units long.
    let svg = sheet.svg(page: 0)
    #expect(svg.contains("width=\"210mm\" height=\"297mm\" viewBox=\"0 0 210 297\""))
    let rectangles = svg.matches(of: /<path fill="#000" d="M([0-9.]+) ([0-9.]+)H([0-9.]+)V([0-9.]+)H([0-9.]+)Z"\/>/).map { m in
      (x0: Double(m.1)!, y0: Double(m.2)!, x1: Double(m.3)!, y1: Double(m.4)!)
    }
    let svgBar = try #require(rectangles.first { abs($0.y0 - bar.y) < 1e-9 && abs($0.y1 - bar.maxY) < 1e-9 })
    #expect(svgBar.x1 - svgBar.x0 == 100, "\(svgBar)")
    #expect(svg.contains(CapSheet.instruction.replacingOccurrences(of: "'", with: "&#39;")))

    // PDF: the page is A4 in points, and the bar's rectangle is 100 × 72 / 25.4 points wide.
    let pdf = String(decoding: sheet.pdf(), as: UTF8.self)
    #expect(pdf.contains("/MediaBox [0 0 595.2756 841.8898]"))
    let barHeight = String(format: "%.4f", bar.height * 72 / 25.4)
    let pdfBars = pdf.matches(of: /([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9.]+) re\nf/).filter { String($0.4) == barHeight }.map { Double($0.3)! }
    #expect(pdfBars.count == sheet.pages.count && pdfBars.allSatisfy { abs($0 - 283.4646) < 1e-9 }, "\(pdfBars)")
    #expect(pdf.contains("(Print at 100 % \\(no 'fit to page'\\); the bar must measure 100 mm) Tj"))
  }

  @Test func everyPageNamesTheDictionaryTheSideAndItsIds() throws {
    let sheet = try Self.defaultSheet.get()
    let texts = sheet.pages.map { page in page.shapes.compactMap { shape -> String? in
        if case .text(let t) = shape { return t.string }
        return nil
      } }
    for (k, page) in texts.enumerated() {
      #expect(page.contains(CapSheet.instruction))
      #expect(page.contains { $0.contains("DICT_4X4_50, ids 0–39, side 16 mm") && $0.contains("Page \(k + 1) of 2") })
    }
    #expect(texts[0].contains { $0.hasPrefix("On this page: cap ids 0–39; spares 0–1.") })
    #expect(texts[1].contains { $0.hasPrefix("On this page: spares 2–39.") })
    #expect(sheet.pages[0].stickers.map(\.label.string).prefix(3) == ["id 0", "id 1", "id 2"])
  }

  @Test func thePDFParsesWithCorrectCrossReferences() throws {
    for options in [Self.variants[0], Self.variants[1]] {
      let sheet = try CapSheet(options: options)
      let data = sheet.pdf()
      let bytes = [UInt8](data)
      let text = String(decoding: data, as: UTF8.self)
      #expect(bytes.allSatisfy { $0 < 128 }, "the file is ASCII")
      #expect(text.hasPrefix("%PDF-1.4\n") && text.hasSuffix("%%EOF\n"))
      func at(_ offset: Int, _ prefix: String) -> Bool { offset >= 0 && offset + prefix.utf8.count <= bytes.count && Array(bytes[offset..<(offset + prefix.utf8.count)]) == Array(prefix.utf8) }

      let startxref = try #require(text.matches(of: /startxref\n([0-9]+)\n%%EOF\n$/).first.flatMap { Int($0.1) })
      #expect(at(startxref, "xref\n"))
      let table = String(decoding: bytes[startxref...], as: UTF8.self)
      let header = try #require(table.firstMatch(of: /^xref\n0 ([0-9]+)\n/))
      let size = try #require(Int(header.1))
      let entries = Array(bytes[(startxref + header.0.utf8.count)...].prefix(20 * size))
      #expect(entries.count == 20 * size)
      #expect(String(decoding: entries[0..<20], as: UTF8.self) == "0000000000 65535 f \n")
      for k in 1..<size {
        let entry = String(decoding: entries[(20 * k)..<(20 * k + 20)], as: UTF8.self)
        let m = try #require(entry.wholeMatch(of: /([0-9]{10}) 00000 n \n/), "entry \(k): \(entry)")
        #expect(at(Int(m.1)!, "\(k) 0 obj\n"), "object \(k) is not at offset \(m.1)")
      }
      #expect(text.contains("trailer\n<< /Size \(size) /Root 1 0 R /Info 5 0 R >>"))
      #expect(text.matches(of: /\d+ 0 obj\n/).count == size - 1)

      // The page tree: as many page objects as pages, each with its own content stream.
      #expect((text.components(separatedBy: "/Type /Page ").count - 1) == sheet.pages.count)
      #expect(text.contains("/Count \(sheet.pages.count) >>"))
      let box = "/MediaBox [0 0 \(String(format: "%.4f", options.paper.size.x * 72 / 25.4)) \(String(format: "%.4f", options.paper.size.y * 72 / 25.4))]"
        .replacingOccurrences(of: ".0000", with: "")
      #expect(text.matches(of: #//MediaBox \[[^\]]*\]/#).allSatisfy { String($0.0) == box }, "\(box)")
      // Every stream's /Length is its byte count up to the end-of-line before endstream.
      var streams = 0
      for m in text.matches(of: /<< \/Length ([0-9]+) >>\nstream\n/) {
        let start = text.utf8.distance(from: text.startIndex, to: m.range.upperBound)
        #expect(at(start + Int(m.1)!, "\nendstream\nendobj\n"))
        streams += 1
      }
      #expect(streams == sheet.pages.count)
    }
  }

  @Test func theSVGPagesAndTheSidecarHaveTheirNames() {
    #expect(CapSheet.svgPagePaths(for: "out/cap.svg", pageCount: 1) == ["out/cap.svg"])
    #expect(CapSheet.svgPagePaths(for: "out/cap.svg", pageCount: 3) == ["out/cap.svg", "out/cap-2.svg", "out/cap-3.svg"])
    #expect(CapSheet.sidecarPath(forSheet: "out/cap.svg") == "out/cap.cap.json")
    #expect(CapSheet.sidecarPath(forSheet: "out/Stickers.PDF") == "out/Stickers.cap.json")
    #expect(CapSheet.Format(path: "a.Svg") == .svg && CapSheet.Format(path: "a.pdf") == .pdf && CapSheet.Format(path: "a.png") == nil)
  }

  @Test func theSidecarReadsBackThroughScanCap() throws {
    let sheet = try CapSheet(options: .init(dictionary: "DICT_5X5_100", markerCount: 30, side: 12.5, margin: 3))
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("cap.cap.json").path
      try sheet.cap.jsonData(path: path).write(to: URL(fileURLWithPath: path))
      let cap = try ScanCap(contentsOf: path)
      #expect(cap.markers.dictionary == "DICT_5X5_100" && cap.markers.sideLength == 0.0125 && cap.markerCount == 30)
      let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
      #expect(Set(json.keys) == ["markers", "cap"])
    }
  }

  // MARK: - Rendered by real renderers, markers found and measured

  /// Renders at this resolution: a millimetre is 300 / 25.4 ≈ 11.8 pixels.
  static let dpi = 300.0

  @Test func chromiumRendersTheSVGWithEveryMarkerAtItsPrintedSize() throws {
    guard HeadlessBrowser.isAvailable else {
      print("SKIPPED: chromiumRendersTheSVGWithEveryMarkerAtItsPrintedSize needs \(HeadlessBrowser.path) (scripts/setup.sh installs it)")
      return
    }
    let sheet = try Self.defaultSheet.get()
    try TestFiles.withTemporaryFolder { folder in
      var images: [ImageFiles.BGRA] = []
      for (k, page) in sheet.pages.enumerated() {
        let svg = folder.appendingPathComponent("sheet-\(k + 1).svg")
        try Data(sheet.svg(page: k).utf8).write(to: svg)
        // The SVG as an image at its own intrinsic size (its width and height in millimetres,
        // nothing imposed by the page); CSS has 96 px an inch, so a device scale factor of
        // dpi / 96 makes an inch dpi device pixels.
        let html = folder.appendingPathComponent("sheet-\(k + 1).html")
        let style = "html,body{margin:0;padding:0;background:#fff}img{display:block}"
        try Data("<!doctype html><html><head><style>\(style)</style></head><body><img src=\"\(svg.lastPathComponent)\"></body></html>".utf8).write(to: html)
        let css = SIMD2(Int((page.size.x / 25.4 * 96).rounded(.up)), Int((page.size.y / 25.4 * 96).rounded(.up)))
        images.append(
          try HeadlessBrowser.screenshot(
            page: html, png: folder.appendingPathComponent("sheet-\(k + 1).png"), width: css.x, height: css.y, deviceScaleFactor: Self.dpi / 96))
      }
      try Self.checkRendering(images, of: sheet, renderer: "Chromium (SVG)")
    }
  }

  /// poppler's pdftoppm (Debian's poppler-utils, installed by scripts/setup.sh).
  static let pdftoppm = "/usr/bin/pdftoppm"

  @Test func pdftoppmRendersThePDFWithEveryMarkerAtItsPrintedSize() throws {
    guard FileManager.default.isExecutableFile(atPath: Self.pdftoppm) else {
      print("SKIPPED: pdftoppmRendersThePDFWithEveryMarkerAtItsPrintedSize needs \(Self.pdftoppm) (poppler-utils; scripts/setup.sh installs it)")
      return
    }
    let sheet = try Self.defaultSheet.get()
    try TestFiles.withTemporaryFolder { folder in
      let pdf = folder.appendingPathComponent("sheet.pdf")
      try sheet.pdf().write(to: pdf)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Self.pdftoppm)
      process.arguments = ["-r", String(Int(Self.dpi)), "-png", pdf.path, folder.appendingPathComponent("page").path]
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      let pngs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("page-") && $0.hasSuffix(".png") }.sorted()
      #expect(pngs.count == sheet.pages.count, "\(pngs)")
      let images = try pngs.map { try ImageFiles.readColor(at: folder.appendingPathComponent($0).path) }
      try Self.checkRendering(images, of: sheet, renderer: "pdftoppm (PDF)")
    }
  }

  /// Detects the markers of each rendered page (sub-pixel corners) and checks that every sticker
  /// of the page is found where it was laid out, with its printed side (the mean of the four
  /// edges) within 0.5 % of side / 25.4 × dpi, and that the check bar is 100 mm long.
  static func checkRendering(_ images: [ImageFiles.BGRA], of sheet: CapSheet, renderer: String) throws {
    let pixelsPerMillimetre = dpi / 25.4
    let expectedSide = sheet.options.side * pixelsPerMillimetre
    let detector = try MarkerDetector(dictionary: sheet.options.dictionary, parameters: .subpixel)
    var found: [Int: Int] = [:]
    var sideErrors: [Double] = [], offsets: [Double] = [], barErrors: [Double] = []
    #expect(images.count == sheet.pages.count)
    for (image, page) in zip(images, sheet.pages) {
      #expect(abs(Double(image.width) - page.size.x * pixelsPerMillimetre) < 2, "\(renderer): page \(page.number) is \(image.width) px wide")
      let markers = try detector.detect(bgra: image.bytes, width: image.width, height: image.height)
      #expect(markers.map(\.id).sorted() == page.stickers.map(\.id).sorted(), "\(renderer): page \(page.number)")
      for marker in markers {
        found[marker.id, default: 0] += 1
        let c = marker.corners
        let edges = (0..<4).map { (k: Int) -> Double in
          let d = c[(k + 1) % 4] - c[k]
          return (d * d).sum().squareRoot()
        }
        let side = edges.reduce(0, +) / 4
        sideErrors.append((side - expectedSide) / expectedSide)
        // OpenCV's corners put a pixel's centre at integer coordinates: the page's (x, y) mm is
        // at x · px/mm − 0.5.
        let centre = marker.centre + SIMD2(0.5, 0.5)
        let nearest = page.stickers.filter { $0.id == marker.id }.map { s -> Double in
          let laidOut = SIMD2(s.marker.x + s.marker.width / 2, s.marker.y + s.marker.height / 2) * pixelsPerMillimetre
          let d = centre - laidOut
          return (d * d).sum().squareRoot()
        }.min() ?? .infinity
        offsets.append(nearest)
      }
      // The check bar: the ink along the pixel row through its middle, from 2 mm before it to
      // 2 mm after it, is its length (anti-aliased ends count by their coverage).
      let bar = page.checkBar
      let row = Int(((bar.y + bar.height / 2) * pixelsPerMillimetre).rounded(.down))
      let x0 = Int((bar.x - 2) * pixelsPerMillimetre), x1 = Int((bar.maxX + 2) * pixelsPerMillimetre)
      let ink = (x0...x1).reduce(0.0) { sum, x in
        let i = 4 * (row * image.width + x)
        let luminance = 0.114 * Double(image.bytes[i]) + 0.587 * Double(image.bytes[i + 1]) + 0.299 * Double(image.bytes[i + 2])
        return sum + (255 - luminance) / 255
      }
      barErrors.append(ink / (CapSheet.checkBarLength * pixelsPerMillimetre) - 1)
    }
    let spares = sheet.options.spares
    #expect(found.keys.sorted() == Array(0..<sheet.options.markerCount), "\(renderer): ids found \(found.keys.sorted())")
    #expect(found.values.allSatisfy { $0 == spares + 1 }, "\(renderer): copies found \(found)")
    let worst = sideErrors.map(abs).max() ?? .infinity
    #expect(worst < 0.005, "\(renderer): a marker's side is off by \(worst * 100) %")
    #expect((offsets.max() ?? .infinity) < 2, "\(renderer): a marker is \(offsets.max() ?? .infinity) px from where it was laid out")
    #expect(barErrors.allSatisfy { abs($0) < 0.005 }, "\(renderer): check bar off by \(barErrors.map { $0 * 100 }) %")
    let mean = sideErrors.reduce(0, +) / Double(max(1, sideErrors.count))
    print(
      String(
        format: "%@ at %.0f dpi: %d markers found (ids 0–%d, %d each), side expected %.3f px, error mean %+.3f %%, worst %.3f %%; centres within %.2f px of the layout; check bar %@ %%",
        renderer, dpi, sideErrors.count, sheet.options.markerCount - 1, spares + 1, expectedSide, mean * 100, worst * 100,
        offsets.max() ?? .infinity, barErrors.map { String(format: "%+.3f", $0 * 100) }.joined(separator: ", ")))
  }
}
