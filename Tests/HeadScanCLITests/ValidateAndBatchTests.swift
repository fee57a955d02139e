import Foundation
import Testing
import _TestSupport

struct ValidateCommandTests {
  /// Writes `count` reports with only the keys every report has (plausible heads; docs/command-line.md) into `folder`.
  static func writeReports(_ count: Int, to folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for i in 0..<count {
      let length = 135 + Double(i % 7) * 3.1, width = 110 + Double(i % 5) * 2.7
      let a = 0.52 * (length + width) * 1.05, b = a * (1 - Double(i % 9) * 0.012)
      let cvai = (a - b) / a * 100
      let report: [String: Any] = [
        "cvai": cvai, "cva": a - b, "diagonalA": a, "diagonalB": b, "ci": width / length * 100, "length": length,
        "width": width, "circumference": 1.56 * (length + width), "measurementLevel": 24.0,
        "severity": cvai < 3.5 ? 1 : cvai < 6.25 ? 2 : cvai < 8.75 ? 3 : 4,
        "registration": ["frames": 300, "framesRegistered": 290, "markers": 28, "markersRegistered": 20, "cornerRMS": 0.15],
      ]
      try JSONSerialization.data(withJSONObject: report).write(to: folder.appendingPathComponent(String(format: "infant-%02d.json", i)))
    }
  }

  @Test func simulatedCalliperBiasIsRecoveredWithPlotsAndJSON() throws {
    try TestFiles.withTemporaryFolder { folder in
      let reports = folder.appendingPathComponent("reports")
      try Self.writeReports(16, to: reports)
      let csv = folder.appendingPathComponent("calliper.csv").path
      let simulate = try Headscan.run(["simulate-calliper", "--reports", reports.path, "-o", csv, "--bias", "2", "--noise", "0.8", "--seed", "4"])
      #expect(simulate.status == 0, "\(simulate.stderr)")
      // One calliper row without a report, one report without a row: both listed.
      var table = try String(contentsOfFile: csv, encoding: .utf8)
      table += "no-report,140.0,133.0,,,\n"
      try table.write(toFile: csv, atomically: true, encoding: .utf8)
      try FileManager.default.copyItem(at: reports.appendingPathComponent("infant-00.json"), to: reports.appendingPathComponent("extra.json"))
      let json = folder.appendingPathComponent("agreement.json").path, plots = folder.appendingPathComponent("ba").path
      let run = try Headscan.run(["validate", csv, "--reports", reports.path, "--json", json, "--plots", plots])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout.contains("calliper rows without a report (1): no-report"))
      #expect(run.stdout.contains("reports without a calliper row (1): extra"))
      #expect(run.stdout.contains("Cohen's κ"))
      let result = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
      let measures = result["measures"] as! [[String: Any]]
      #expect(measures.count == 8)
      for m in measures where ["diagonalA", "diagonalB", "length", "width", "circumference"].contains(m["measure"] as! String) {
        let s = m["statistics"] as! [String: Any]
        let bias = s["bias"] as! Double, sd = s["sd"] as! Double
        #expect(abs(bias - 2) < 3 * sd / 4, "\(m["measure"]!): bias \(bias)")
        #expect(s["n"] as! Int == 16)
      }
      for name in ["cvai", "cva", "diagonalA", "diagonalB", "length", "width", "ci", "circumference"] {
        let svg = try String(contentsOfFile: plots + "/bland-altman-\(name).svg", encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n") && svg.contains("upper LoA") && svg.contains("lower LoA"), "\(name)")
        #expect(svg.contains("headscan − calliper") && svg.contains("bias"))
      }
    }
  }

  @Test func badCalliperAndReportInputsFailInOneLine() throws {
    try TestFiles.withTemporaryFolder { folder in
      let reports = folder.appendingPathComponent("reports")
      try Self.writeReports(3, to: reports)
      let csv = folder.appendingPathComponent("c.csv").path
      let cases: [(String, String)] = [
        ("scan,diagonalA\ninfant-00,140\n", "\(csv):1: missing column 'diagonalB'"),
        ("scan,diagonalA,diagonalB\ninfant-00,140,x\n", "\(csv):2: 'diagonalB' is not a positive number: 'x'"),
        ("scan,diagonalA,diagonalB\ninfant-00,140,130\ninfant-00,141,131\n", "\(csv):3: scan 'infant-00' appears twice"),
        ("scan,diagonalA,diagonalB\nsomeone,140,130\n", "only 0 of its 1 scans have a report"),
      ]
      for (text, problem) in cases {
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        let run = try Headscan.run(["validate", csv, "--reports", reports.path])
        #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(problem), "\(run.stderr)")
      }
      try "scan,diagonalA,diagonalB\ninfant-00,140,130\ninfant-01,141,131\n".write(toFile: csv, atomically: true, encoding: .utf8)
      try #"{"cvai": 3.0, "cva": 4}"#.write(to: reports.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
      let run = try Headscan.run(["validate", csv, "--reports", reports.path])
      #expect(run.status == 1 && run.stderr.contains("broken.json: missing report key 'diagonalA'"), "\(run.stderr)")
      let missing = try Headscan.run(["validate", folder.appendingPathComponent("none.csv").path, "--reports", reports.path])
      #expect(missing.status == 1 && missing.stderr.contains("none.csv: cannot open"), "\(missing.stderr)")
    }
  }
}

struct BatchCommandTests {
  @Test func batchMeasuresResumesAndListsFailures() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.appendingPathComponent("scans"), out = folder.appendingPathComponent("reports")
      try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
      let fixtures = TestFiles.fixture("scans")
      try FileManager.default.copyItem(at: fixtures.appendingPathComponent("orbit-small"), to: scans.appendingPathComponent("orbit-small"))
      try FileManager.default.copyItem(at: fixtures.appendingPathComponent("orbit-small.landmarks.json"), to: scans.appendingPathComponent("orbit-small.landmarks.json"))
      try Data("RGBDSCAN\u{1}\u{0}".utf8).write(to: scans.appendingPathComponent("cut-off.rgbdscan"))
      try Data("{}".utf8).write(to: scans.appendingPathComponent("cut-off.landmarks.json"))
      let first = try Headscan.run(["batch", scans.path, "--out", out.path, "--jobs", "2"])
      #expect(first.status == 1)
      #expect(first.stderr.contains("1 of 2 scans failed: cut-off:"), "\(first.stderr)")
      let summary = try String(contentsOfFile: out.path + "/summary.csv", encoding: .utf8).split(separator: "\n")
      #expect(summary.count == 3)
      #expect(summary[1].hasPrefix("cut-off,failed,"))
      #expect(summary[2].hasPrefix("orbit-small,measured,"))
      #expect(summary[0] == "scan,status,cvai,cva,diagonalA,diagonalB,length,width,ci,circumference,measurementLevel,severity,framesRegistered,frames,cornerRMS,error,usable,reasons")
      #expect(summary[1].hasSuffix(",,"), "a failed scan has no verdict: \(summary[1])")
      let report = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("orbit-small.json"))) as! [String: Any]
      #expect(abs((report["cvai"] as! Double) - 6.0) < 1.0)
      // The summary row holds the report's numbers as its JSON writes them.
      let registration = report["registration"] as! [String: Any]
      let expected = ["cvai", "cva", "diagonalA", "diagonalB", "length", "width", "ci", "circumference", "measurementLevel", "severity"]
        .map { "\(report[$0] as! NSNumber)" } + ["framesRegistered", "frames", "cornerRMS"].map { "\(registration[$0] as! NSNumber)" }
      // Then the report's verdict: usable and its reasons.
      let verdict = try #require(report["verdict"] as? [String: Any])
      let usable = try #require(verdict["usable"] as? Bool), reasons = try #require(verdict["reasons"] as? [String])
      #expect(usable == reasons.isEmpty)
      let reasonsField = reasons.joined(separator: "; ").contains(",") ? "\"\(reasons.joined(separator: "; "))\"" : reasons.joined(separator: "; ")
      #expect(summary[2] == "orbit-small,measured," + expected.joined(separator: ",") + ",,\(usable)," + reasonsField)
      #expect(report["headscanVersion"] as? String == "0.6.0")
      // Again: the measured scan is up to date and skipped; the broken one fails again.
      let second = try Headscan.run(["batch", scans.path, "--out", out.path])
      #expect(second.status == 1)
      #expect(second.stderr.contains("orbit-small: report up to date, skipped"), "\(second.stderr)")
      // A report cut short (newer than its scan) is not up to date: it is measured again.
      let reportPath = out.appendingPathComponent("orbit-small.json")
      let whole = try Data(contentsOf: reportPath)
      try whole.prefix(500).write(to: reportPath)
      let third = try Headscan.run(["batch", scans.path, "--out", out.path])
      #expect(!third.stderr.contains("orbit-small: report up to date"), "\(third.stderr)")
      #expect(third.stdout.contains("1 of 2 scans measured (0 already up to date)"), "\(third.stdout)")
      let again = try JSONSerialization.jsonObject(with: Data(contentsOf: reportPath)) as? [String: Any]
      #expect(again?["cvai"] as? Double == report["cvai"] as? Double)
    }
  }
}

struct MeasureOptionTests {
  @Test func automaticFrameWithLandmarksIsRefused() throws {
    let fixture = TestFiles.fixture("scans/orbit-small").path
    let run = try Headscan.run(["measure", fixture, "--frame", "auto", "--landmarks", fixture + ".landmarks.json"])
    #expect(run.status == 64, "\(run.stderr)")
    #expect(run.stderr.contains("--frame auto finds the head frame without landmarks: drop --landmarks"), "\(run.stderr)")
  }
}
