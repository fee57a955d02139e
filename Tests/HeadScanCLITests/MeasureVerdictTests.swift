import Foundation
import Testing
import _TestSupport

/// `measure`'s verdict on simulated scans: in the JSON report, the printed summary and the HTML page.
struct MeasureVerdictTests {
  /// Simulates `options` as `NAME.rgbdscan` in `folder`, measures it with `--json` and `--html`
  /// and returns the printed summary, the report's `verdict` and the page.
  static func measure(_ name: String, _ options: [String], in folder: URL) throws -> (stdout: String, verdict: [String: Any], html: String) {
    let scan = folder.appendingPathComponent(name + ".rgbdscan").path
    let simulate = try Headscan.run(["simulate", scan] + options + ["--quiet"])
    #expect(simulate.status == 0, "\(simulate.stderr)")
    let json = folder.appendingPathComponent(name + ".json").path, html = folder.appendingPathComponent(name + ".html").path
    let run = try Headscan.run(["measure", scan, "--json", json, "--html", html, "--quiet"])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    return (run.stdout, try #require(report["verdict"] as? [String: Any]), try String(contentsOfFile: html, encoding: .utf8))
  }

  /// A percentage as a reason shows it: one decimal, none when it is zero (`65`, `71.4`).
  static func shown(_ x: Double) -> String {
    let tenths = (x * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
  }

  /// The page's body, from its first element.
  static func body(_ html: String) throws -> Substring {
    let start = try #require(html.range(of: "<body>\n"))
    return html[start.upperBound...]
  }

  @Test func aCleanScanIsUsable() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (stdout, verdict, html) = try Self.measure("clean", ["--frames", "120", "--cvai", "7.5", "--ci", "84", "--seed", "5"], in: folder)
      #expect(verdict["usable"] as? Bool == true)
      #expect(verdict["reasons"] as? [String] == [])
      let checks = try #require(verdict["checks"] as? [String: Any])
      #expect((checks["contourMeasuredPercent"] as? Double ?? 0) >= 87.8)
      #expect(checks["framesRegistered"] as? Int == 120)
      for key in ["cornerRMS", "landmarkSD", "cvaiHalfWidth", "circumferenceHalfWidth", "focalLengthDeviationPercent", "markersRegisteredPercent"] {
        #expect(checks[key] is Double, "checks lack \(key)")
      }
      #expect(stdout.split(separator: "\n").last == "verdict     usable", "\(stdout)")
      #expect(try Self.body(html).hasPrefix("<section id=\"verdict\" class=\"verdict usable\" data-usable=\"true\">\n<p class=\"verdict-word\">Usable"))
    }
  }

  @Test func aScanMissingTheBackIsNotUsableForItsContour() throws {
    try TestFiles.withTemporaryFolder { folder in
      // Half a turn from the face round the left: the back and the right side are never seen.
      let (stdout, verdict, html) = try Self.measure("half", ["--frames", "90", "--coverage", "0.5", "--cvai", "5", "--seed", "6"], in: folder)
      #expect(verdict["usable"] as? Bool == false)
      let reasons = try #require(verdict["reasons"] as? [String])
      // Part of the contour at the level is never seen, and the layers around it do not close.
      let checks = try #require(verdict["checks"] as? [String: Any])
      let measured = try #require(checks["contourMeasuredPercent"] as? Double), layers = try #require(checks["levelLayersFitted"] as? Int)
      #expect(measured < 87.8 && layers < 15)
      let contour = "contour at the measurement level \(MeasureVerdictTests.shown(measured)) % measured (under 87.8 %)"
      #expect(reasons.first == contour, "\(reasons)")
      #expect(reasons.contains { $0.hasPrefix("measurement level fitted to \(layers) layer\(layers == 1 ? "" : "s") (under 15)") }, "\(reasons)")
      let last = try #require(stdout.split(separator: "\n").last)
      #expect(last == "verdict     NOT usable: " + reasons.joined(separator: "; "), "\(stdout)")
      let body = try Self.body(html)
      #expect(body.hasPrefix("<section id=\"verdict\" class=\"verdict unusable\" data-usable=\"false\">\n<p class=\"verdict-word\">NOT usable"))
      #expect(body.prefix(2000).contains("<li>\(contour)</li>"))
    }
  }
}
