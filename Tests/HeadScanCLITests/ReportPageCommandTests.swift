import Foundation
import Testing
import _TestSupport

/// `measure --html` and `history`: the files they write and how they fail.
struct ReportPageCommandTests {
  /// A report with the keys every report has (docs/command-line.md), a CVAI interval of ± `halfWidth`, and optionally patient and date.
  static func report(cvai: Double, halfWidth: Double = 0.3, patient: String?, recordedAt: String?) -> [String: Any] {
    let a = 135.0, b = a * (1 - cvai / 100)
    func interval(_ v: Double, _ h: Double) -> [String: Double] { ["low": v - h, "high": v + h] }
    var report: [String: Any] = [
      "cvai": cvai, "cva": a - b, "diagonalA": a, "diagonalB": b, "ci": 82.0, "length": 140.0, "width": 114.8,
      "circumference": 410.0, "measurementLevel": 24.0, "severity": cvai < 3.5 ? 1 : cvai < 6.25 ? 2 : cvai < 8.75 ? 3 : 4,
      "registration": ["frames": 300, "framesRegistered": 290, "markers": 28, "markersRegistered": 20, "cornerRMS": 0.15],
      "intervals95": [
        "cvai": interval(cvai, halfWidth), "cva": interval(a - b, 0.4), "diagonalA": interval(a, 0.3), "diagonalB": interval(b, 0.3),
        "length": interval(140, 0.3), "width": interval(114.8, 0.3), "ci": interval(82, 0.3), "circumference": interval(410, 0.8),
        "measurementLevel": interval(24, 1), "replicates": 200,
      ],
    ]
    report["patientID"] = patient
    report["recordedAt"] = recordedAt
    return report
  }

  static func write(_ object: [String: Any], to url: URL) throws {
    try JSONSerialization.data(withJSONObject: object).write(to: url)
  }

  @Test func historyFollowsAPatientAndFlagsTheChangeBeyondTheUncertainty() throws {
    try TestFiles.withTemporaryFolder { folder in
      let reports = folder.appendingPathComponent("reports")
      try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
      // Visits given out of date order; 9.0 → 8.8 (0.2 < √(0.3² + 0.3²) = 0.42) → 5.0 (3.8 > 0.42).
      try Self.write(Self.report(cvai: 5.0, patient: "17", recordedAt: "2026-07-01T10:00:00Z"), to: reports.appendingPathComponent("a.json"))
      try Self.write(Self.report(cvai: 9.0, patient: "17", recordedAt: "2026-03-02T09:30:00Z"), to: reports.appendingPathComponent("b.json"))
      try Self.write(Self.report(cvai: 8.8, patient: "17", recordedAt: "2026-04-15"), to: reports.appendingPathComponent("c.json"))
      // An older report: the required keys only, no patient.
      var old = Self.report(cvai: 4.0, patient: nil, recordedAt: nil)
      old["intervals95"] = nil
      try Self.write(old, to: reports.appendingPathComponent("old.json"))
      let html = folder.appendingPathComponent("history.html").path, csv = folder.appendingPathComponent("history.csv").path
      let run = try Headscan.run(["history", reports.path, "--html", html, "--csv", csv])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.contains("patient 17: 3 visits, CVAI 9.0 → 8.8 → 5.0* %"), "\(run.stdout)")
      #expect(run.stdout.contains("old.json: 1 visit, CVAI 4.0 %"))
      let page = try String(contentsOfFile: html, encoding: .utf8)
      #expect(page.contains("<title>Head shape history – 2 patients</title>"))
      let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
      let header = try #require(rows.first)
      let flag = try #require(header.firstIndex(of: "cvaiChangeExceeds")), change = try #require(header.firstIndex(of: "cvaiChange"))
      let uncertainty = try #require(header.firstIndex(of: "cvaiChangeUncertainty95"))
      #expect(rows.dropFirst().map { $0[flag] } == ["", "false", "true", ""])
      #expect(rows[2][change] == "-0.200" && rows[3][change] == "-3.800" && rows[2][uncertainty] == "0.424")
    }
  }

  @Test func historyRefusesBadInputInOneLine() throws {
    try TestFiles.withTemporaryFolder { folder in
      let bad = folder.appendingPathComponent("bad.json")
      try Self.write(Self.report(cvai: 5, patient: "1", recordedAt: "yesterday"), to: bad)
      var run = try Headscan.run(["history", bad.path])
      #expect(run.status == 1 && run.stderr.contains("bad.json: report key 'recordedAt' is not an ISO 8601 date: 'yesterday'"), "\(run.stderr)")
      run = try Headscan.run(["history", folder.appendingPathComponent("missing.json").path])
      #expect(run.status == 1 && run.stderr.contains("missing.json: no such file or folder"), "\(run.stderr)")
      let empty = folder.appendingPathComponent("empty")
      try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
      run = try Headscan.run(["history", empty.path])
      #expect(run.status == 1 && run.stderr.contains("empty: no *.json reports in the folder"), "\(run.stderr)")
      try Data("{\"cvai\": 1}".utf8).write(to: bad)
      run = try Headscan.run(["history", bad.path, "--html", folder.appendingPathComponent("h.html").path])
      #expect(run.status == 1 && run.stderr.contains("bad.json: missing report key"), "\(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("h.html").path))
      run = try Headscan.run(["history"])
      #expect(run.status == 64 && run.stderr.contains("give at least one report"), "\(run.stderr)")
    }
  }

  @Test func measureWritesTheReportPageOfTheScan() throws {
    try TestFiles.withTemporaryFolder { folder in
      let json = folder.appendingPathComponent("orbit.json").path, html = folder.appendingPathComponent("orbit.html").path
      let scan = TestFiles.fixture("scans/orbit-small").path
      let run = try Headscan.run(["measure", scan, "--json", json, "--html", html, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
      // The scan header's patient and date reach the report and the page.
      #expect(report["patientID"] as? String == "simulated-11" && report["recordedAt"] as? String == "2026-11-21T10:15:00Z")
      let page = try String(contentsOfFile: html, encoding: .utf8)
      #expect(page.contains("<title>Head shape report – patient simulated-11 – 2026-11-21T10:15:00Z</title>"))
      let cvai = try #require(report["cvai"] as? Double)
      #expect(page.contains("data-key=\"cvai\">\(String(format: "%.1f", cvai))<"))
      for section in ["id=\"measures\"", "id=\"scales\"", "id=\"figures\"", "id=\"views\"", "id=\"quality\""] { #expect(page.contains(section)) }
      // The head is drawn from a closed mesh of the fused cloud: three embedded pictures.
      #expect(page.contains("a closed mesh of") && page.components(separatedBy: "href=\"data:image/png;base64,").count == 4)
      // The perimeter curve says where the measured head ends.
      #expect(page.contains("Measured head: h "))
      guard HeadlessBrowser.isAvailable else { return }
      let png = folder.appendingPathComponent("orbit.png")
      let rendering = try HeadlessBrowser.render(page: URL(fileURLWithPath: html), png: png, width: 900, height: 1900)
      #expect(rendering.inkedFraction > 0.08, "inked \(rendering.inkedFraction)")
      // HEADSCAN_DOC_IMAGES=docs/images keeps the screenshot for the manual (scripts/doc-images.sh).
      if let images = ProcessInfo.processInfo.environment["HEADSCAN_DOC_IMAGES"], !images.isEmpty {
        let target = URL(fileURLWithPath: images).appendingPathComponent("report-page.png")
        _ = try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: png, to: target)
      }
    }
  }
}
