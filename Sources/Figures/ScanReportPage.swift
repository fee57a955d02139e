import CVAI
import Foundation
import Reports

/// The clinical report of one scan as one self-contained HTML page (inline CSS and SVG, no
/// scripts, nothing fetched), laid out to print on A4.
///
/// It opens with the verdict (``Verdict``: usable or not, and why), then shows the patient and
/// recording date, every measure with its 95 % interval, CVAI on the CHOA severity scale and CI
/// among its classes, the contour at the measurement level with its chords, the
/// perimeter-by-height curve, top/side/front views of the head, the registration's quality and
/// the headscan versions. Everything but ``report`` is optional, so a page can be
/// made again from a report file alone (without figures):
///
/// ```swift
/// let page = ScanReportPage(report: try MeasureReport(path: "reports/infant-07.json"))
/// try Data(page.html.utf8).write(to: URL(fileURLWithPath: "infant-07.html"))
/// ```
public struct ScanReportPage: Sendable {
  /// The measures, intervals, registration counts, patient and date.
  public var report: MeasureReport
  /// The measurement behind the report: draws the contour and the perimeter curve when given.
  public var measurement: HeadMeasurement?
  /// The head's points (and triangles) in the head frame, mm: draws the three views when given.
  public var surface: HeadSurface?
  /// Further quality lines, e.g. ``QualityNote/notes(fromReportJSON:)``; the report's own
  /// (``QualityNote/notes(from:)``) are always shown.
  public var notes: [QualityNote]

  /// - Parameters:
  ///   - report: the report (at least the keys every report carries).
  ///   - measurement: the measurement it was made from; default none.
  ///   - surface: the head-frame surface in mm; default none.
  ///   - notes: more quality notes; default none.
  public init(report: MeasureReport, measurement: HeadMeasurement? = nil, surface: HeadSurface? = nil, notes: [QualityNote] = []) {
    self.report = report
    self.measurement = measurement
    self.surface = surface
    self.notes = notes
  }

  /// `Head shape report – patient P – DATE` (parts unknown to the report left out).
  public var title: String {
    (["Head shape report"] + [report.patientID.map { "patient \($0)" }, report.recordedAt ?? report.ageAtScanDays.map { "age \($0) days" }].compactMap { $0 }).joined(separator: " – ")
  }

  /// The page.
  public var html: String {
    HTMLPage.document(title: title, body: [verdictSection, header, measuresSection, scalesSection, figuresSection, viewsSection, qualitySection, footer].joined(separator: "\n"))
  }

  /// The verdict as the page's first lines: usable or NOT usable, with the reasons (the
  /// report's own `verdict`, else one made from the report's values).
  private var verdictSection: String {
    let verdict = report.verdict ?? Verdict(report: report)
    let reasons = verdict.reasons.map { "<li>\(HTMLPage.escaped($0))</li>" }.joined(separator: "\n")
    return """
      <section id="verdict" class="verdict \(verdict.usable ? "usable" : "unusable")" data-usable="\(verdict.usable)">
      <p class="verdict-word">\(verdict.usable ? "Usable: every quality check passed" : "NOT usable: these numbers cannot be trusted")</p>
      \(reasons.isEmpty ? "" : "<ul class=\"reasons\">\n\(reasons)\n</ul>")
      </section>
      """
  }

  private var header: String {
    let rows: [(String, String?)] = [
      ("Patient", report.patientID ?? "not recorded"), ("Recorded", report.recordedAt ?? report.ageAtScanDays.map { "age \($0) days" } ?? "not recorded"), ("Scan", report.scan),
      ("Head frame", report.headFrame), ("Measured with", "headscan \(report.headscanVersion ?? "version not recorded")"),
    ]
    let list = rows.compactMap { name, value in value.map { "<dt>\(name)</dt><dd data-key=\"\(name.lowercased())\">\(HTMLPage.escaped($0))</dd>" } }
    return "<header>\n<h1>\(HTMLPage.escaped(title))</h1>\n<dl class=\"meta\">\(list.joined())</dl>\n</header>"
  }

  /// The measures table rows: label, report key, value, interval, unit.
  private var measureRows: [(String, String, Double, Interval95?, String)] {
    let i = report.intervals95
    let denominator = report.cvaiDenominator ?? .longer
    return HeadMeasure.allCases.map { measure in
      (measure.label(denominator: denominator), measure.rawValue, report.value(of: measure), i?[measure], measure == .ci ? "" : measure.unit)
    } + [("Measurement level h*", "measurementLevel", report.measurementLevel, i?.measurementLevel, "mm")]
  }

  private var measuresSection: String {
    var rows = measureRows.map { label, key, value, interval, unit in
      "<tr><td>\(HTMLPage.escaped(label))</td><td class=\"num\" data-key=\"\(key)\">\(HTMLPage.number(value))</td>"
        + "<td class=\"num\" data-key=\"\(key)-interval\">\(interval.map { HTMLPage.interval($0.low, $0.high) } ?? "–")</td><td>\(unit)</td></tr>"
    }
    let ciClass = report.cranialIndexClass ?? CranialIndexClass(ci: report.ci)
    rows.append("<tr><td>CHOA severity level</td><td class=\"num\" data-key=\"severity\">\(report.severity)</td><td></td><td>of 5</td></tr>")
    rows.append("<tr><td>CI class</td><td class=\"num\" data-key=\"ciClass\">\(ciClass.rawValue)</td><td></td><td></td></tr>")
    if let side = report.flattenedSide {
      rows.append("<tr><td>Flattening</td><td class=\"num\" data-key=\"flattenedSide\">\(Self.words(side.rawValue))</td><td></td><td></td></tr>")
    }
    let replicates = report.intervals95.map { "bootstrap over \($0.replicates) replicates (sampling noise and the choice of level)" } ?? "not computed for this report"
    return """
      <section id="measures">
      <h2>Measures at the measurement level</h2>
      <table><thead><tr><th>Measure</th><th>Value</th><th>95 % interval</th><th>Unit</th></tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody></table>
      <p class="info">95 % intervals: \(replicates).</p>
      </section>
      """
  }

  private var scalesSection: String {
    let cvai = report.cvaiByLonger
    var interval = report.intervals95?.cvai
    if report.cvaiDenominator == .shorter, let i = interval { interval = Interval95(low: MeasureReport.cvaiByLonger(fromShorter: i.low), high: MeasureReport.cvaiByLonger(fromShorter: i.high)) }
    let ciClass = report.cranialIndexClass ?? CranialIndexClass(ci: report.ci)
    return """
      <section id="scales">
      <h2>Severity</h2>
      <div class="scale">\(ScaleBar.choa.svg(value: cvai, interval: interval, valueLabel: "CVAI \(HTMLPage.number(cvai)) % – level \(choaSeverity(cvai: cvai))"))</div>
      <div class="scale">\(ScaleBar.cranialIndex.svg(value: report.ci, interval: report.intervals95?.ci, valueLabel: "CI \(HTMLPage.number(report.ci)) – \(ciClass.rawValue)"))</div>
      <p class="info">CHOA (Children's Healthcare of Atlanta) levels from CVAI divided by the longer diagonal: 1 below 3.5, 2 to 6.25, 3 to 8.75, 4 to 11, 5 above. The dark bar is the 95 % interval.</p>
      </section>
      """
  }

  private var figuresSection: String {
    guard let measurement else {
      return "<section id=\"figures\"><h2>Contour and level</h2><p class=\"info\">The contour and the perimeter curve are drawn when the page is made with the measurement (headscan measure --html).</p></section>"
    }
    return """
      <section id="figures">
      <h2>Contour and level</h2>
      <div class="figures two">
      <figure>\(HeadPlots.contourAtLevel(measurement, denominator: report.cvaiDenominator ?? .longer))<figcaption>The contour at h* seen from above with length, width and the ±30° diagonals through its centre.</figcaption></figure>
      <figure>\(HeadPlots.perimeterByHeight(measurement))<figcaption>Perimeter of each layer of the measured head (layers with at least \(Int((HeadPlots.measuredLayerFraction * 100).rounded())) % of the contour measured, up to where the scan stops measuring them); h* is the vertex of a parabola over the longest layer ± 10 mm (shaded).</figcaption></figure>
      </div>
      </section>
      """
  }

  private var viewsSection: String {
    guard let surface else { return "" }
    let figures = HeadSurface.View.allCases.map { view in
      "<figure data-view=\"\(view.rawValue)\">\(surface.svg(view: view, measurementLevel: report.measurementLevel))<figcaption>\(view.caption)</figcaption></figure>"
    }
    let what =
      surface.triangles.isEmpty
      ? "\(surface.points.count) points of the registered cloud; dashed: the measurement level"
      : "a closed mesh of \(surface.triangles.count) triangles made from the registered cloud; red: the surface at the measurement level h*; grey-blue: holes the mesh closed (not measured)"
    return """
      <section id="views">
      <h2>The head</h2>
      <div class="figures">
      \(figures.joined(separator: "\n"))
      </div>
      <p class="info">Orthographic views of \(what), in the head frame.</p>
      </section>
      """
  }

  private var qualitySection: String {
    let r = report.registration
    func percent(_ part: Int, _ whole: Int) -> String { whole > 0 ? " (\(HTMLPage.number(Double(part) / Double(whole) * 100, 0)) %)" : "" }
    var rows = [
      ("Frames registered", "\(r.framesRegistered) of \(r.frames)\(percent(r.framesRegistered, r.frames))", "frames"),
      ("Markers registered", "\(r.markersRegistered) of \(r.markers) detected", "markers"),
      ("Marker-corner RMS residual", "\(HTMLPage.number(r.cornerRMS, 2)) mm", "cornerRMS"),
    ]
    if let c = report.contourMeasuredPercent { rows.append(("Contour at h* measured", "\(HTMLPage.number(c, 0)) %", "contourMeasuredPercent")) }
    if let layers = report.layers { rows.append(("Layers cut", "\(layers)", "layers")) }
    if let s = report.symmetryRMS { rows.append(("Mirror-symmetry RMS (automatic frame)", "\(HTMLPage.number(s, 2)) mm", "symmetryRMS")) }
    let table = rows.map { "<tr><td>\($0.0)</td><td class=\"num\" data-key=\"\($0.2)\">\(HTMLPage.escaped($0.1))</td></tr>" }.joined(separator: "\n")
    let allNotes = QualityNote.notes(from: report) + notes
    let list = allNotes.map { "<li class=\"\($0.level.rawValue)\">\($0.level == .warning ? "Warning: " : "")\(HTMLPage.escaped($0.text))</li>" }.joined(separator: "\n")
    return """
      <section id="quality">
      <h2>Registration quality</h2>
      <table><tbody>
      \(table)
      </tbody></table>
      \(list.isEmpty ? "" : "<ul class=\"notes\">\n\(list)\n</ul>")
      </section>
      """
  }

  private var footer: String {
    "<footer>Report page written by headscan \(HeadScanVersion.current); measures by headscan \(HTMLPage.escaped(report.headscanVersion ?? "(version not recorded)")). Lengths in millimetres; definitions in docs/head-frame-and-measures.md.</footer>"
  }

  /// `rightPosterior` → `right posterior`.
  static func words(_ camel: String) -> String {
    camel.reduce(into: "") { out, c in out += c.isUppercase ? " " + c.lowercased() : String(c) }
  }
}
