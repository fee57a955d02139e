import ArucoBridge
import Foundation
import ScanIO

/// Printable sheets of the cap's marker stickers, laid out in millimetres at their exact size.
///
/// Every measurement scales with the printed marker side, so a sheet states it and carries a
/// 100 mm check bar: printed at 100 % the bar measures 100 mm; a printer dialog's "fit to page"
/// shrinks it (and every marker) by a few percent. Each sticker is one marker of the dictionary,
/// drawn cell by cell from ``ArucoBridge/MarkerBitmap`` (one filled path a marker, one rectangle
/// a black run of a row, so no seam shows between cells), a white quiet zone around it, its id
/// printed small in a strip below the quiet zone, and cut marks at the sticker's corners.
/// Stickers come in order: ids 0…N−1 (the cap's), then each set of spares; a page holds as many
/// as fit, so the cap's own set starts on page 1.
///
/// Lengths are millimetres, the origin at the page's top-left corner, y pointing down. The same
/// ``Page/shapes`` are written as SVG (``svg(page:)``) and PDF (``pdf()``).
public struct CapSheet: Sendable {
  /// The paper a sheet is laid out on (portrait).
  public enum Paper: String, Sendable, Hashable, CaseIterable {
    case a4, letter

    /// Width and height, millimetres.
    public var size: SIMD2<Double> {
      switch self {
      case .a4: SIMD2(210, 297)
      case .letter: SIMD2(215.9, 279.4)
      }
    }
  }

  /// What to print.
  public struct Options: Sendable, Hashable {
    /// An OpenCV predefined dictionary name.
    public var dictionary: String
    /// Markers on the cap: ids `0..<markerCount`.
    public var markerCount: Int
    /// Printed side of a marker, black border included, millimetres.
    public var side: Double
    /// White quiet zone around each marker, millimetres (at least one marker cell).
    public var margin: Double
    /// Extra copies of each sticker.
    public var spares: Int
    public var paper: Paper

    public init(
      dictionary: String = "DICT_4X4_50", markerCount: Int = 40, side: Double = 16, margin: Double = 4, spares: Int = 1,
      paper: Paper = .a4
    ) {
      self.dictionary = dictionary
      self.markerCount = markerCount
      self.side = side
      self.margin = margin
      self.spares = spares
      self.paper = paper
    }
  }

  /// Marker sides accepted, millimetres.
  public static let sideRange: ClosedRange<Double> = 5...100
  /// Quiet zones accepted, millimetres (and never less than one marker cell).
  public static let marginRange: ClosedRange<Double> = 0.5...50
  /// Spare copies accepted.
  public static let sparesRange: ClosedRange<Int> = 0...10
  /// The line every page carries above its check bar.
  public static let instruction = "Print at 100 % (no 'fit to page'); the bar must measure 100 mm"
  /// Length of the check bar, millimetres.
  public static let checkBarLength = 100.0

  /// A rectangle, millimetres from the page's top-left corner (y down).
  public struct Rect: Sendable, Hashable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
      (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// Whether the two share interior area (touching edges do not count).
    public func intersects(_ other: Rect) -> Bool {
      x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// Whether `other` lies inside (edges may touch).
    public func contains(_ other: Rect) -> Bool {
      other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// Grown by `d` on every side (shrunk for negative `d`).
    public func outset(by d: Double) -> Rect { Rect(x: x - d, y: y - d, width: width + 2 * d, height: height + 2 * d) }

    /// The smallest rectangle holding all of `rects` (a zero rectangle for none).
    static func union(_ rects: [Rect]) -> Rect {
      guard let first = rects.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
      var (x0, y0, x1, y1) = (first.x, first.y, first.maxX, first.maxY)
      for r in rects.dropFirst() { (x0, y0, x1, y1) = (min(x0, r.x), min(y0, r.y), max(x1, r.maxX), max(y1, r.maxY)) }
      return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
  }

  /// A line of Helvetica text, black.
  public struct Text: Sendable, Hashable {
    public var string: String
    /// The baseline's start, or its middle when ``centred``.
    public var origin: SIMD2<Double>
    /// Font size (the em), millimetres.
    public var size: Double
    public var centred: Bool
    public var bold: Bool

    /// Advance width in Helvetica, millimetres (exact for digits and the regular face's ASCII;
    /// the bold face is estimated a little wider).
    public var width: Double { Self.width(of: string, size: size, bold: bold) }

    /// Where the ink can be: cap height above the baseline to the descenders below it.
    public var bounds: Rect {
      let w = width, x = centred ? origin.x - w / 2 : origin.x
      return Rect(x: x, y: origin.y - 0.75 * size, width: w, height: 0.97 * size)
    }

    /// Helvetica's advance widths (per 1000 em) of printable ASCII, from its font metrics.
    static let helveticaWidths: [Int] = [
      278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  // space … /
      556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  // 0 … ?
      1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  // @ … O
      667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  // P … _
      333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  // ` … o
      556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,  // p … ~
    ]

    static func width(of string: String, size: Double, bold: Bool) -> Double {
      let units = string.unicodeScalars.reduce(0) { sum, c in
        sum + ((32...126).contains(c.value) ? helveticaWidths[Int(c.value) - 32] : 556)
      }
      return Double(units) / 1000 * size * (bold ? 1.07 : 1)
    }
  }

  /// What a page is drawn with; all black on white.
  public enum Shape: Sendable, Hashable {
    /// The union of the rectangles filled, as one path with one rectangle subpath each.
    case fill([Rect])
    /// A straight stroke with butt ends; `width` in millimetres.
    case line(from: SIMD2<Double>, to: SIMD2<Double>, width: Double)
    case text(Text)

    /// Where the shape can put ink.
    public var bounds: Rect {
      switch self {
      case .fill(let rects): return Rect.union(rects)
      case .line(let a, let b, let width):
        return Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y)).outset(by: width / 2)
      case .text(let text): return text.bounds
      }
    }
  }

  /// One sticker: a marker, its quiet zone and its id strip, cut out along ``outline``.
  public struct Sticker: Sendable, Hashable {
    public var id: Int
    /// 0: the cap's own sticker; 1, 2, …: its spares.
    public var copy: Int
    /// The marker's square, black border included.
    public var marker: Rect
    /// The marker and the white margin around it: nothing else is drawn here.
    public var quietZone: Rect
    /// What is cut out: the quiet zone and the strip with the id below it.
    public var outline: Rect
    /// The marker's black cells, one rectangle a run of black cells in a row.
    public var cells: [Rect]
    /// The printed id.
    public var label: Text
  }

  /// One printed page.
  public struct Page: Sendable {
    /// 1, 2, …
    public var number: Int
    /// Width and height, millimetres.
    public var size: SIMD2<Double>
    public var stickers: [Sticker]
    /// The check bar (``CapSheet/checkBarLength`` long); its millimetre ticks hang below it.
    public var checkBar: Rect
    /// Everything drawn on the page, in drawing order.
    public var shapes: [Shape]
  }

  public let options: Options
  /// Cells across a marker, black border included (6 for `DICT_4X4_50`).
  public let cellsAcross: Int
  /// How many markers the dictionary holds.
  public let dictionarySize: Int
  /// Sticker columns and rows on a page.
  public let columns: Int, rows: Int
  public let pages: [Page]

  // Layout, millimetres.
  static let pageMargin = 10.0
  static let labelStrip = 3.2, labelSize = 2.2
  static let cutGap = 0.5, cutLength = 2.0, cutWidth = 0.2
  /// Between the cut marks of neighbouring stickers.
  static let markSpacing = 1.0
  static let barThickness = 0.4, tickWidth = 0.15

  /// Lays out the sheet.
  /// - Throws: ``CapSheetError`` for an unknown dictionary, an option outside its range, or a
  ///   sticker larger than the paper.
  public init(options: Options) throws(CapSheetError) {
    guard Self.sideRange.contains(options.side) else { throw .side(options.side) }
    guard Self.sparesRange.contains(options.spares) else { throw .spares(options.spares) }
    let detector: MarkerDetector
    do {
      detector = try MarkerDetector(dictionary: options.dictionary)
    } catch {
      if case .unknownDictionary = error { throw .unknownDictionary(options.dictionary) }
      throw .marker(String(describing: error))
    }
    dictionarySize = detector.dictionarySize
    cellsAcross = detector.cellsAcross
    guard (1...dictionarySize).contains(options.markerCount) else {
      throw .markerCount(options.markerCount, dictionary: options.dictionary, size: dictionarySize)
    }
    let cell = options.side / Double(cellsAcross)
    let minimumMargin = max(Self.marginRange.lowerBound, cell)
    guard options.margin.isFinite, options.margin >= minimumMargin - 1e-9, options.margin <= Self.marginRange.upperBound else {
      throw .margin(options.margin, minimum: minimumMargin, maximum: Self.marginRange.upperBound)
    }
    self.options = options

    // Each id's black runs, in cells: (row, first column, length).
    var runs: [[(row: Int, column: Int, length: Int)]] = []
    for id in 0..<options.markerCount {
      let bitmap: MarkerBitmap
      do {
        bitmap = try MarkerBitmap(dictionary: options.dictionary, id: id, sidePixels: cellsAcross)
      } catch {
        throw .marker(String(describing: error))
      }
      var idRuns: [(row: Int, column: Int, length: Int)] = []
      for row in 0..<cellsAcross {
        var column = 0
        while column < cellsAcross {
          guard bitmap[column, row] < 128 else { column += 1; continue }
          var end = column
          while end < cellsAcross, bitmap[end, row] < 128 { end += 1 }
          idRuns.append((row, column, end - column))
          column = end
        }
      }
      runs.append(idRuns)
    }

    // The grid: each sticker's footprint is its outline with the cut marks around it.
    let paper = options.paper.size
    let header = Self.headerBottom
    let stickerWidth = options.side + 2 * options.margin, stickerHeight = stickerWidth + Self.labelStrip
    let markReach = Self.cutGap + Self.cutLength
    let footprint = SIMD2(stickerWidth + 2 * markReach, stickerHeight + 2 * markReach)
    let usableWidth = paper.x - 2 * Self.pageMargin, usableHeight = paper.y - Self.pageMargin - header
    columns = Int(((usableWidth + Self.markSpacing) / (footprint.x + Self.markSpacing) + 1e-9).rounded(.down))
    rows = Int(((usableHeight + Self.markSpacing) / (footprint.y + Self.markSpacing) + 1e-9).rounded(.down))
    guard columns >= 1, rows >= 1 else {
      throw .doesNotFit(sticker: SIMD2(stickerWidth, stickerHeight), paper: options.paper)
    }
    let gridWidth = Double(columns) * footprint.x + Double(columns - 1) * Self.markSpacing
    let gridLeft = Self.pageMargin + (usableWidth - gridWidth) / 2

    let order = (0...options.spares).flatMap { copy in (0..<options.markerCount).map { (id: $0, copy: copy) } }
    let perPage = columns * rows
    let pageCount = (order.count + perPage - 1) / perPage
    var pages: [Page] = []
    for p in 0..<pageCount {
      var stickers: [Sticker] = []
      for (k, entry) in order[(p * perPage)..<min(order.count, (p + 1) * perPage)].enumerated() {
        let column = k % columns, row = k / columns
        let outline = Rect(
          x: gridLeft + Double(column) * (footprint.x + Self.markSpacing) + markReach,
          y: header + Double(row) * (footprint.y + Self.markSpacing) + markReach,
          width: stickerWidth, height: stickerHeight)
        let quietZone = Rect(x: outline.x, y: outline.y, width: stickerWidth, height: stickerWidth)
        let marker = Rect(x: outline.x + options.margin, y: outline.y + options.margin, width: options.side, height: options.side)
        let cells = runs[entry.id].map { run in
          Rect(x: marker.x + Double(run.column) * cell, y: marker.y + Double(run.row) * cell, width: Double(run.length) * cell, height: cell)
        }
        stickers.append(
          Sticker(
            id: entry.id, copy: entry.copy, marker: marker, quietZone: quietZone, outline: outline, cells: cells,
            label: Self.label(id: entry.id, under: quietZone)))
      }
      pages.append(Self.page(number: p + 1, of: pageCount, stickers: stickers, options: options))
    }
    self.pages = pages
  }

  /// The cap these stickers make, as the cap sidecar `NAME.cap.json` holds it.
  public var cap: ScanCap {
    ScanCap(markers: .init(dictionary: options.dictionary, sideLength: options.side / 1000), markerCount: options.markerCount)
  }

  /// All stickers of all pages.
  public var stickers: [Sticker] { pages.flatMap(\.stickers) }

  // MARK: - Pages

  /// Header lines' baselines, the check bar's top and the first sticker row's top, millimetres.
  static let titleBaseline = 14.0, detailBaseline = 19.0, pageBaseline = 23.5
  static let barTop = 27.0
  static let tickLabelBaseline = barTop + barThickness + 3.0 + 2.2
  static let headerBottom = tickLabelBaseline + 3.5

  /// The id in the strip below the quiet zone, centred, as large as fits (at most 2.2 mm).
  static func label(id: Int, under quietZone: Rect) -> Text {
    let room = quietZone.width - 0.4
    let string = Text.width(of: "id \(id)", size: labelSize, bold: false) <= room ? "id \(id)" : "\(id)"
    let size = min(labelSize, room / Text.width(of: string, size: 1, bold: false))
    return Text(
      string: string, origin: SIMD2(quietZone.x + quietZone.width / 2, quietZone.maxY + 0.6 + 0.75 * labelSize), size: size,
      centred: true, bold: false)
  }

  static func page(number: Int, of count: Int, stickers: [Sticker], options: Options) -> Page {
    let left = pageMargin
    var shapes: [Shape] = []
    shapes.append(.text(Text(string: instruction, origin: SIMD2(left, titleBaseline), size: 4, centred: false, bold: true)))
    let detail =
      "Cap markers \(options.dictionary), ids \(range(0, options.markerCount - 1)), side \(millimetres(options.side)) mm"
      + " (black border included), quiet zone \(millimetres(options.margin)) mm. Page \(number) of \(count)."
    shapes.append(.text(Text(string: detail, origin: SIMD2(left, detailBaseline), size: 3, centred: false, bold: false)))
    shapes.append(
      .text(
        Text(
          string: "On this page: \(idSummary(stickers)). Cut at the corner marks; keep the white border around each marker.",
          origin: SIMD2(left, pageBaseline), size: 3, centred: false, bold: false)))

    // The check bar with millimetre ticks below it, longer every 5 and 10 mm, labelled every 10.
    let bar = Rect(x: left, y: barTop, width: checkBarLength, height: barThickness)
    shapes.append(.fill([bar]))
    for k in 0...Int(checkBarLength) {
      let x = left + Double(k), length = k % 10 == 0 ? 3.0 : (k % 5 == 0 ? 2.0 : 1.2)
      shapes.append(.line(from: SIMD2(x, bar.maxY), to: SIMD2(x, bar.maxY + length), width: tickWidth))
      if k % 10 == 0 {
        shapes.append(.text(Text(string: "\(k)", origin: SIMD2(x, tickLabelBaseline), size: 2.2, centred: true, bold: false)))
      }
    }
    shapes.append(
      .text(Text(string: "check bar: 100 mm", origin: SIMD2(bar.maxX + 5, bar.maxY + 2.2), size: 3, centred: false, bold: false)))

    for sticker in stickers {
      shapes.append(.fill(sticker.cells))
      shapes.append(.text(sticker.label))
      shapes.append(contentsOf: cutMarks(around: sticker.outline))
    }
    return Page(number: number, size: options.paper.size, stickers: stickers, checkBar: bar, shapes: shapes)
  }

  /// Two short strokes at each corner of `outline`, on the extensions of its edges, outside it.
  static func cutMarks(around outline: Rect) -> [Shape] {
    var marks: [Shape] = []
    for (x, dx) in [(outline.x, -1.0), (outline.maxX, 1.0)] {
      for (y, dy) in [(outline.y, -1.0), (outline.maxY, 1.0)] {
        marks.append(.line(from: SIMD2(x + dx * cutGap, y), to: SIMD2(x + dx * (cutGap + cutLength), y), width: cutWidth))
        marks.append(.line(from: SIMD2(x, y + dy * cutGap), to: SIMD2(x, y + dy * (cutGap + cutLength)), width: cutWidth))
      }
    }
    return marks
  }

  /// "cap ids 0–39; spares 0–1": each copy's ids on the page as a range, equal ranges merged.
  static func idSummary(_ stickers: [Sticker]) -> String {
    var parts: [String] = []
    if let own = ids(of: stickers.filter { $0.copy == 0 }) { parts.append("cap ids " + own) }
    var spares: [(range: String, times: Int)] = []
    for copy in Set(stickers.map(\.copy)).filter({ $0 > 0 }).sorted() {
      guard let r = ids(of: stickers.filter { $0.copy == copy }) else { continue }
      if spares.last?.range == r { spares[spares.count - 1].times += 1 } else { spares.append((r, 1)) }
    }
    if !spares.isEmpty {
      parts.append("spares " + spares.map { $0.times > 1 ? "\($0.range) (\($0.times) each)" : $0.range }.joined(separator: ", "))
    }
    return parts.joined(separator: "; ")
  }

  static func ids(of stickers: [Sticker]) -> String? {
    guard let low = stickers.map(\.id).min(), let high = stickers.map(\.id).max() else { return nil }
    return range(low, high)
  }

  static func range(_ low: Int, _ high: Int) -> String { low == high ? "\(low)" : "\(low)–\(high)" }

  /// A length for people: "16", "12.5", "2.667".
  static func millimetres(_ value: Double) -> String { number(value, digits: 3) }

  /// `value` with at most `digits` decimals, trailing zeros dropped ("-0" is "0").
  static func number(_ value: Double, digits: Int) -> String {
    var s = String(format: "%.\(digits)f", value)
    if s.contains(".") {
      while s.hasSuffix("0") { s.removeLast() }
      if s.hasSuffix(".") { s.removeLast() }
    }
    return s == "-0" ? "0" : s
  }

  // MARK: - Files

  /// The sheet's file format, from its name's extension.
  public enum Format: String, Sendable, Hashable, CaseIterable {
    case svg, pdf

    /// `.svg` or `.pdf` (any case); `nil` for anything else.
    public init?(path: String) {
      guard let format = Format(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased()) else { return nil }
      self = format
    }
  }

  /// The files of an SVG sheet of `pageCount` pages: `SHEET.svg` for page 1, then `SHEET-2.svg`,
  /// `SHEET-3.svg`, … beside it (SVG has no pages; each file prints as one).
  public static func svgPagePaths(for path: String, pageCount: Int) -> [String] {
    let stem = String(path.dropLast(4)), ext = String(path.suffix(4))
    return (1...max(1, pageCount)).map { $0 == 1 ? path : "\(stem)-\($0)\(ext)" }
  }

  /// The cap sidecar beside a sheet: `SHEET.cap.json` for `SHEET.svg` or `SHEET.pdf`.
  public static func sidecarPath(forSheet path: String) -> String {
    (Format(path: path) != nil ? String(path.dropLast(4)) : path) + ".cap.json"
  }
}

/// Why a cap sheet cannot be laid out.
public enum CapSheetError: Error, Sendable, Hashable, CustomStringConvertible {
  case unknownDictionary(String)
  case markerCount(Int, dictionary: String, size: Int)
  case side(Double)
  case margin(Double, minimum: Double, maximum: Double)
  case spares(Int)
  /// One sticker (quiet zone and id strip, millimetres) is larger than the paper's printable area.
  case doesNotFit(sticker: SIMD2<Double>, paper: CapSheet.Paper)
  /// OpenCV could not draw a marker.
  case marker(String)

  public var description: String {
    let mm = CapSheet.millimetres
    switch self {
    case .unknownDictionary(let name): return "unknown ArUco dictionary '\(name)' (e.g. DICT_4X4_50, DICT_5X5_100, DICT_6X6_250)"
    case .markerCount(let n, let dictionary, let size): return "\(n) markers: \(dictionary) holds 1 to \(size) (ids 0–\(size - 1))"
    case .side(let side): return "marker side \(mm(side)) mm is outside \(mm(CapSheet.sideRange.lowerBound))–\(mm(CapSheet.sideRange.upperBound)) mm"
    case .margin(let margin, let minimum, let maximum):
      return "quiet zone \(mm(margin)) mm is outside \(mm(minimum))–\(mm(maximum)) mm (at least 0.5 mm and one marker cell)"
    case .spares(let n): return "\(n) spares is outside \(CapSheet.sparesRange.lowerBound)–\(CapSheet.sparesRange.upperBound)"
    case .doesNotFit(let sticker, let paper):
      return "a sticker of \(mm(sticker.x)) × \(mm(sticker.y)) mm with its cut marks does not fit on \(paper.rawValue) paper inside the 10 mm page margin and the header"
    case .marker(let message): return message
    }
  }
}
