import CVAI
import Foundation
import Reports
import ScanIO
import Testing
import _TestSupport

@testable import Figures

/// The scan report page: its contents, its views, and what a browser makes of it.
struct ScanReportPageTests {
  /// A page that fetches nothing: no scripts, links, images by address, imports or fonts from elsewhere.
  static func expectSelfContained(_ html: String) {
    // Pictures embedded as data (the mesh views' PNGs) are part of the page.
    let html = html.replacingOccurrences(of: "href=\"data:image/png;base64,", with: "")
    for forbidden in ["<script", "<link", "src=", "href=", "@import", "url(", "https://"] {
      #expect(!html.contains(forbidden), "the page contains \(forbidden)")
    }
    #expect(html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://") == false)
  }

  @Test func thePageHoldsEveryMeasureWithItsInterval() throws {
    let visit = try SimulatedVisits.patient17.get()[0]
    let surface = HeadSurface(headPointsInMetres: visit.points)
    let page = ScanReportPage(report: visit.report, measurement: visit.measurement, surface: surface, notes: [QualityNote(.warning, "inconsistent intrinsics: test")])
    let html = page.html
    Self.expectSelfContained(html)
    #expect(page.title == "Head shape report – patient 17 – 2026-03-02T09:30:00Z")
    let intervals = try #require(visit.report.intervals95)
    for (key, value, interval) in [("cvai", visit.report.cvai, intervals.cvai), ("ci", visit.report.ci, intervals.ci), ("circumference", visit.report.circumference, intervals.circumference), ("diagonalA", visit.report.diagonalA, intervals.diagonalA)] {
      #expect(html.contains("data-key=\"\(key)\">\(String(format: "%.1f", value))<"), "\(key)")
      #expect(html.contains("data-key=\"\(key)-interval\">[\(String(format: "%.1f", interval.low)), \(String(format: "%.1f", interval.high))]<"), "\(key) interval")
    }
    #expect(html.contains("data-key=\"severity\">3<"))  // true CVAI 6.7 %: CHOA level 3
    #expect(html.contains("Warning: inconsistent intrinsics: test"))
    for view in HeadSurface.View.allCases { #expect(html.contains("data-view=\"\(view.rawValue)\"")) }
    #expect(html.contains("@page { size: A4"))
  }

  @Test func aReportAloneMakesAPageWithoutFigures() throws {
    let report = MeasureReport(
      cvai: 6.1, cva: 8.4, diagonalA: 138.2, diagonalB: 129.8, ci: 84.0, length: 142.0, width: 119.3, circumference: 426.5,
      measurementLevel: 21.0, severity: 2, registration: .init(frames: 900, framesRegistered: 861, markers: 40, markersRegistered: 38, cornerRMS: 0.6))
    let html = ScanReportPage(report: report).html
    Self.expectSelfContained(html)
    #expect(html.contains("<title>Head shape report</title>"))
    #expect(html.contains("data-key=\"cvai-interval\">–<") && html.contains("data-key=\"ciClass\">normocephalic<"))
    #expect(html.contains("861 of 900 (96 %)"))
  }

  @Test func qualityNotesComeFromKeysNewerThanThisModule() {
    let json = Data(#"{"intrinsicsCheck": {"statedFocalLength": 593, "focalLengthEstimate": 641.5, "consistent": false}, "warnings": ["cap edge not seen", {"message": "few frames"}], "coverage": 87.5, "registration": {"warnings": ["marker 12 moved"]}}"#.utf8)
    let notes = QualityNote.notes(fromReportJSON: json)
    #expect(notes.contains(QualityNote(.warning, "inconsistent intrinsics: stated focal length 593.0 px, estimated from the markers 641.5 px")))
    #expect(notes.filter { $0.level == .warning }.map(\.text).sorted() == ["cap edge not seen", "few frames", "inconsistent intrinsics: stated focal length 593.0 px, estimated from the markers 641.5 px", "marker 12 moved"])
    #expect(notes.contains(QualityNote(.info, "coverage: 87.5")))
    #expect(QualityNote.notes(fromReportJSON: Data("[1, 2]".utf8)).isEmpty)
  }

  /// A UV sphere of radius `r` mm, about 1 mm between points (as the fused cloud's 1 mm voxels),
  /// and its triangles (counter-clockwise seen from outside).
  static func sphere(radius r: Double) -> (points: [SIMD3<Double>], triangles: [SIMD3<Int32>]) {
    let rings = Int((Double.pi * r).rounded()), segments = 2 * rings
    var points: [SIMD3<Double>] = [[0, 0, r], [0, 0, -r]]
    for i in 1..<rings {
      let polar = Double(i) / Double(rings) * .pi
      for j in 0..<segments {
        let azimuth = Double(j) / Double(segments) * 2 * .pi
        points.append(r * SIMD3(sin(polar) * cos(azimuth), sin(polar) * sin(azimuth), cos(polar)))
      }
    }
    func index(_ i: Int, _ j: Int) -> Int32 { Int32(2 + (i - 1) * segments + (j % segments)) }
    var triangles: [SIMD3<Int32>] = []
    for j in 0..<segments {
      triangles.append([0, index(1, j), index(1, j + 1)])
      triangles.append([1, index(rings - 1, j + 1), index(rings - 1, j)])
      for i in 1..<(rings - 1) {
        triangles.append([index(i, j), index(i + 1, j), index(i + 1, j + 1)])
        triangles.append([index(i, j), index(i + 1, j + 1), index(i, j + 1)])
      }
    }
    return (points, triangles)
  }

  /// The PNG a mesh view embeds, decoded (BGRA).
  static func embeddedPicture(_ svg: String) throws -> ImageFiles.BGRA {
    let start = try #require(svg.range(of: "href=\"data:image/png;base64,"))
    let base64 = svg[start.upperBound...].prefix { $0 != "\"" }
    let data = try #require(Data(base64Encoded: String(base64)))
    return try ImageFiles.decodeColor(data, path: "view.png")
  }

  /// A sphere of radius 50 mm drawn from its points and from a mesh of it: the filled silhouette
  /// covers π r² within the outline's cells.
  @Test func viewsFillTheSilhouetteFromPointsOrTriangles() throws {
    let r = 50.0, (points, triangles) = Self.sphere(radius: r)
    let cell = 1.5
    let disc = Double.pi * r * r / (cell * cell), outline = 2 * Double.pi * r / cell
    for view in HeadSurface.View.allCases {
      let svg = HeadSurface(points: points).svg(view: view, cellSize: cell)
      // Cells drawn: each run "M c r h n v1 h-n z" covers n cells.
      let runs = svg.split(separator: "h").compactMap { part -> Int? in part.hasPrefix("-") ? nil : Int(part.prefix { $0.isNumber }) }
      let cells = Double(runs.reduce(0, +))
      #expect(abs(cells - disc) < outline, "\(view) points: \(cells) cells, disc \(disc)")
      // The mesh (one triangle naming a missing point is skipped) as a picture: pixels not white.
      let picture = try Self.embeddedPicture(HeadSurface(points: points, triangles: triangles + [[0, 1, 99_999]]).svg(view: view, cellSize: cell))
      var inked = 0.0
      for i in 0..<(picture.width * picture.height) {
        let b = picture.bytes[4 * i], g = picture.bytes[4 * i + 1], red = picture.bytes[4 * i + 2]
        inked += (255 - Double(min(b, g, red))) > 8 ? 1 : 0
      }
      #expect(abs(inked - disc) < outline, "\(view) mesh: \(inked) pixels, disc \(disc)")
    }
  }

  /// Luminance along the sphere's middle row seen from the front: a mesh view is smooth (one
  /// highlight, no rings: the first difference changes sign at most twice) and not banded (many
  /// distinct shades), and the measurement level is a red band at its height across the sphere.
  @Test func meshViewsAreSmoothAndPaintTheLevel() throws {
    let r = 50.0, (points, triangles) = Self.sphere(radius: r)
    let cell = 0.5, level = 20.0
    let picture = try Self.embeddedPicture(HeadSurface(points: points, triangles: triangles).svg(view: .front, cellSize: cell, measurementLevel: level))
    func pixel(_ column: Int, _ row: Int) -> (red: Int, green: Int, blue: Int) {
      let o = 4 * (row * picture.width + column)
      return (Int(picture.bytes[o + 2]), Int(picture.bytes[o + 1]), Int(picture.bytes[o]))
    }
    // Rows run down from z = r; the middle row is z ≈ 0.
    let middle = picture.height / 2
    let inside = Int(0.1 * r / cell)..<Int(1.9 * r / cell)
    let luminance = inside.map { c -> Int in let p = pixel(c, middle); return (299 * p.red + 587 * p.green + 114 * p.blue) / 1000 }
    let steps = zip(luminance.dropFirst(), luminance).map { $0 - $1 }.filter { $0 != 0 }
    let turns = zip(steps.dropFirst(), steps).filter { ($0 > 0) != ($1 > 0) }.count
    #expect(turns <= 2, "luminance turns \(turns) times along the middle row")
    #expect(Set(luminance).count >= 40, "\(Set(luminance).count) shades along the middle row")
    // Red where |z − 20| ≤ 0.6 mm (rows around (r − 20) / cell), nowhere else.
    var redRows = Set<Int>()
    for row in 0..<picture.height {
      for column in 0..<picture.width {
        let p = pixel(column, row)
        if p.red > 120, p.red > 2 * p.green, p.red > 2 * p.blue { redRows.insert(row) }
      }
    }
    let expected = (r - level) / cell
    #expect(!redRows.isEmpty && redRows.allSatisfy { abs(Double($0) + 0.5 - expected) <= 0.6 / cell + 1.5 }, "red rows \(redRows.sorted())")
    let bandRow = Int(expected)
    let chord = 2 * (r * r - level * level).squareRoot() / cell
    let redAcross = (0..<picture.width).filter { c in
      (Int(expected) - 1...Int(expected) + 1).contains { row in let p = pixel(c, row); return p.red > 120 && p.red > 2 * p.green }
    }.count
    #expect(Double(redAcross) > 0.9 * chord, "red across \(redAcross) of \(chord) pixels at row \(bandRow)")
  }

  /// Filled (not measured) surface is drawn grey-blue, measured surface skin-toned.
  @Test func filledSurfaceIsDrawnApart() throws {
    let r = 50.0, (points, triangles) = Self.sphere(radius: r)
    let filled = points.map { $0.z > 30 }
    let picture = try Self.embeddedPicture(HeadSurface(points: points, triangles: triangles, filled: filled).svg(view: .top, cellSize: 1))
    let centre = 4 * ((picture.height / 2) * picture.width + picture.width / 2)
    #expect(picture.bytes[centre] > picture.bytes[centre + 2], "the vertex (filled) is bluish")
    let rim = 4 * ((picture.height / 2) * picture.width + Int(0.08 * r))
    #expect(picture.bytes[rim + 2] > picture.bytes[rim], "the equator (measured) is skin-toned")
  }

  @Test func viewsOfNothingOrOfUnboundedPointsSaySo() {
    for surface in [HeadSurface(points: []), HeadSurface(points: [[-1e308, 0, 0], [1e308, 0, 0], [.nan, 0, 0]])] {
      #expect(surface.svg(view: .top).contains("no points to draw"))
    }
  }

  @Test(.enabled(if: HeadlessBrowser.isAvailable, "needs /usr/bin/chromium (scripts/setup.sh installs it)"))
  func chromiumRendersTheReport() throws {
    let visit = try SimulatedVisits.patient17.get()[0]
    let page = ScanReportPage(report: visit.report, measurement: visit.measurement, surface: HeadSurface(headPointsInMetres: visit.points))
    try TestFiles.withTemporaryFolder { folder in
      let file = folder.appendingPathComponent("report.html")
      try Data(page.html.utf8).write(to: file)
      let rendering = try HeadlessBrowser.render(page: file, png: folder.appendingPathComponent("report.png"))
      #expect(rendering.dom.contains("<title>\(page.title)</title>"))
      #expect(rendering.dom.contains(String(format: "%.1f", visit.report.cvai)) && rendering.dom.contains("Registration quality"))
      // Not blank: text, figures and shaded views put ink on a good part of the page.
      #expect(rendering.width == 900 && rendering.height == 1800)
      #expect(rendering.luminanceVariance > 500, "variance \(rendering.luminanceVariance)")
      #expect(rendering.inkedFraction > 0.05, "inked \(rendering.inkedFraction)")
      // Printed: A4 (595 × 842 pt), two pages.
      let printed = try HeadlessBrowser.printToPDF(page: file, pdf: folder.appendingPathComponent("report.pdf"))
      let size = try #require(printed.size)
      #expect(abs(size.x - 595.3) < 1 && abs(size.y - 841.9) < 1 && printed.pages == 2, "\(printed)")
    }
  }
}
