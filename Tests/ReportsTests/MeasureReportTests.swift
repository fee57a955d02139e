import CVAI
import Foundation
import PointCloud
import Reports
import Testing
import _TestSupport

struct MeasureReportTests {
  /// `headscan measure --json` on the fixture, as version 0.5 wrote it (no `headscanVersion`).
  static let measureOutput = #"""
{
  "ci" : 82.2484763046413,
  "circumference" : 403.9749595616105,
  "contourMeasuredPercent" : 100,
  "cranialIndexClass" : "normocephalic",
  "cva" : 8.25619187834539,
  "cvai" : 6.050177517403277,
  "cvaiDenominator" : "longer",
  "cvaiLonger" : 6.050177517403277,
  "cvaiShorter" : 6.439796646261906,
  "diagonalA" : 136.46197743118336,
  "diagonalB" : 128.20578555283797,
  "flattenedSide" : "rightPosterior",
  "headFrame" : "landmarks",
  "headFromWorld" : {
    "rotation" : {
      "r0" : [
        0.34921842478346937,
        -0.7519706790948932,
        0.5590944370795669
      ],
      "r1" : [
        0.333522468897011,
        -0.45783698918543475,
        -0.8241043951311379
      ],
      "r2" : [
        0.8756764553946821,
        0.47426299572619135,
        0.09091400525894694
      ]
    },
    "translation" : [
      0.054080681438685524,
      -0.04461764302788744,
      0.03152350863880607
    ]
  },
  "intervals95" : {
    "ci" : {
      "high" : 82.28735771074557,
      "low" : 82.19945612783637
    },
    "circumference" : {
      "high" : 404.11176503620675,
      "low" : 403.8738672902642
    },
    "cva" : {
      "high" : 8.391642869428635,
      "low" : 8.09151581654643
    },
    "cvai" : {
      "high" : 6.1470909506375,
      "low" : 5.927881597370261
    },
    "diagonalA" : {
      "high" : 136.55873418388006,
      "low" : 136.3640279671836
    },
    "diagonalB" : {
      "high" : 128.35561232129578,
      "low" : 128.10856404601614
    },
    "length" : {
      "high" : 141.29139400162012,
      "low" : 141.1881952866196
    },
    "measurementLevel" : {
      "high" : 24.69665996342061,
      "low" : 24.126605469315237
    },
    "replicates" : 200,
    "width" : {
      "high" : 116.20352528007183,
      "low" : 116.10178134561873
    }
  },
  "layers" : 94,
  "length" : 141.2325312107432,
  "measurementLevel" : 24.398054693591256,
  "registration" : {
    "cornerRMS" : 0.35987038956925355,
    "frames" : 36,
    "framesRegistered" : 33,
    "markers" : 28,
    "markersRegistered" : 3
  },
  "scan" : "fixtures/scans/orbit-small",
  "severity" : 2,
  "width" : 116.16160496731325
}
"""#

  static func decode(_ text: String, path: String = "r.json") throws(FileProblem) -> MeasureReport {
    try MeasureReport(json: Data(text.utf8), path: path)
  }

  @Test func reEncodesMeasureOutputByteForByte() throws {
    var report = try Self.decode(Self.measureOutput)
    #expect(report.headscanVersion == nil && report.cvaiDenominator == .longer && report.flattenedSide == .rightPosterior)
    #expect(report.registration == .init(frames: 36, framesRegistered: 33, markers: 28, markersRegistered: 3, cornerRMS: 0.35987038956925355))
    #expect(report.intervals95?.replicates == 200 && report.layers == 94 && report.scan == "fixtures/scans/orbit-small")
    #expect(String(decoding: try report.jsonData(), as: UTF8.self) == Self.measureOutput)
    // This version adds one line, in sorted place, and nothing else.
    report.headscanVersion = HeadScanVersion.current
    let withVersion = Self.measureOutput.replacingOccurrences(
      of: "\n  \"intervals95\" : {", with: "\n  \"headscanVersion\" : \"\(HeadScanVersion.current)\",\n  \"intervals95\" : {")
    #expect(String(decoding: try report.jsonData(), as: UTF8.self) == withVersion)
    #expect(try Self.decode(withVersion) == report)
  }

  /// A report with only the keys every report has (docs/command-line.md), as an outside tool
  /// might write it, with one piece of its text replaced.
  static func minimal(replacing old: String = "", with new: String = "") -> String {
    let text = """
      {"cvai": 6.1, "cva": 8.4, "diagonalA": 138.2, "diagonalB": 129.8,
       "ci": 84.0, "length": 142.0, "width": 119.3, "circumference": 426.5,
       "measurementLevel": 21.0, "severity": 2,
       "registration": {"frames": 900, "framesRegistered": 861,
                        "markers": 40, "markersRegistered": 38,
                        "cornerRMS": 0.6}}
      """
    return old.isEmpty ? text : text.replacingOccurrences(of: old, with: new)
  }

  @Test func readsReportsWithOnlyTheRequiredKeys() throws {
    let report = try Self.decode(Self.minimal())
    #expect(report.cvai == 6.1 && report.diagonalB == 129.8 && report.severity == 2 && report.registration.markersRegistered == 38)
    #expect(report.cvaiDenominator == nil && report.headFromWorld == nil && report.intervals95 == nil && report.headscanVersion == nil)
    #expect(report.cvaiByLonger == 6.1)
    #expect(report.summaryValues == ["6.1", "8.4", "138.2", "129.8", "142", "119.3", "84", "426.5", "21", "2", "861", "900", "0.6"])
    #expect(MeasureReport.summaryColumns.count == report.summaryValues.count)
  }

  @Test func cvaiByTheLongerDiagonalWhateverTheReportAskedFor() throws {
    var report = MeasureReport(
      cvai: 8 / 92.0 * 100, cva: 8, diagonalA: 100, diagonalB: 92, ci: 80, length: 140, width: 112, circumference: 400,
      measurementLevel: 20, severity: 3, registration: .init(frames: 1, framesRegistered: 1, markers: 3, markersRegistered: 3, cornerRMS: 0.2))
    report.cvaiDenominator = .shorter
    #expect(abs(report.cvaiByLonger - 8) < 1e-12)
    report.cvaiDenominator = .longer
    report.cvai = 8
    #expect(report.cvaiByLonger == 8)
  }

  @Test(arguments: [
    (#"{"cvai": 3.0, "cva": 4}"#, "r.json: missing report key 'diagonalA'"),
    (#"{"cvai": 1, "cva": 1, "diagonalA": 1, "diagonalB": 1, "ci": 1, "length": 1, "width": 1, "circumference": 1, "measurementLevel": 1, "severity": 1}"#,
     "r.json: missing report key 'registration'"),
    (#"{"cvai": 1, "cva": 1, "diagonalA": 1, "diagonalB": 1, "ci": 1, "length": 1, "width": 1, "circumference": 1, "measurementLevel": 1, "severity": 1, "registration": {"frames": 3}}"#,
     "r.json: missing report key 'registration.framesRegistered'"),
    (#"{"cvai": "6", "cva": 4}"#, "r.json: report key 'cvai' is not a number"),
    (#"{"cvai": 1, "cva": 1, "diagonalA": 1, "diagonalB": 1, "ci": 1, "length": 1, "width": 1, "circumference": 1, "measurementLevel": 1, "severity": "2", "registration": {}}"#,
     "r.json: report key 'severity' is not a number"),
    (#"{"cvai": 1, "cva": 1, "diagonalA": 1, "diagonalB": 1, "ci": 1, "length": 1, "width": 1, "circumference": 1, "measurementLevel": 1, "severity": 1, "registration": {"frames": 1, "framesRegistered": 1, "markers": 1, "markersRegistered": 1, "cornerRMS": 1}, "cvaiDenominator": "middle"}"#,
     "r.json: report key 'cvaiDenominator' has an invalid value"),
    (MeasureReportTests.minimal(replacing: "\"cvai\": 6.1", with: "\"cvai\": 1e308"), "r.json: report key 'cvai' is 1e+308, outside −100…100 %: not a measured head"),
    (MeasureReportTests.minimal(replacing: "\"circumference\": 426.5", with: "\"circumference\": -426.5"),
     "r.json: report key 'circumference' is -426.5, outside 0…1000 mm: not a measured head"),
    (MeasureReportTests.minimal(replacing: "\"severity\": 2", with: "\"severity\": 9"), "r.json: report key 'severity' is 9, outside 1…5: not a measured head"),
    (MeasureReportTests.minimal(replacing: "\"framesRegistered\": 861", with: "\"framesRegistered\": 9000"),
     "r.json: report key 'registration.framesRegistered' is 9000, outside 0…900 (the frames): not a measured head"),
    ("[1, 2]", "r.json: not a headscan report (invalid JSON)"),
    ("{\"cvai\": ", "r.json: not a headscan report (invalid JSON)"),
  ])
  func badReportsFailInOneLineNamingTheKey(text: String, message: String) {
    #expect(throws: FileProblem.self) { try Self.decode(text) }
    do {
      _ = try Self.decode(text)
    } catch {
      #expect(error.description == message)
    }
  }

  @Test func aMissingFileNamesItself() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("none.json").path
      #expect {
        try MeasureReport(path: path)
      } throws: { error in
        (error as? FileProblem)?.description.hasPrefix(path + ": cannot open") == true
      }
    }
  }
}
