import Foundation
import HeadScan
import ScanSimulator
import Testing
import ScanEvaluation
import _TestSupport

/// `MeasurementAccuracy`: its differences are `measure`'s measures minus the truth's, its
/// targets are those of docs/accuracy.md, and its table row says so.
struct MeasurementAccuracyTests {
  static func accuracy(
    cvai: Double = 6.2, severity: Int = 2, diagonalA: Double = 0.1, diagonalB: Double = -0.2, length: Double = 0.3, width: Double = -0.4,
    circumference: Double = 1.5, automaticCVAI: Double? = 6.5
  ) -> MeasurementAccuracy {
    // Through its JSON (as `evaluate --json` writes it): the type has no initialiser from values.
    var fields: [String: Any] = [
      "truthCVAI": 6, "truthSeverity": 2, "cvai": cvai, "severity": severity, "diagonalA": diagonalA, "diagonalB": diagonalB,
      "length": length, "width": width, "circumference": circumference,
    ]
    if let automaticCVAI { fields["automaticCVAI"] = automaticCVAI }
    return try! JSONDecoder().decode(MeasurementAccuracy.self, from: JSONSerialization.data(withJSONObject: fields))
  }

  @Test func theTargetsHoldUpToTheirBoundsAndNoFurther() {
    #expect(Self.accuracy().meetsTargets)
    #expect(Self.accuracy(cvai: 6.3, diagonalA: 1, diagonalB: -1, length: 1, width: -1, circumference: -2).meetsTargets)
    #expect(Self.accuracy(cvai: 5.7).meetsTargets)
    #expect(!Self.accuracy(cvai: 6.31).meetsTargets)
    #expect(!Self.accuracy(cvai: 5.69).meetsTargets)
    #expect(!Self.accuracy(diagonalA: 1.01).meetsTargets)
    #expect(!Self.accuracy(diagonalB: -1.01).meetsTargets)
    #expect(!Self.accuracy(length: -1.01).meetsTargets)
    #expect(!Self.accuracy(width: 1.01).meetsTargets)
    #expect(!Self.accuracy(circumference: 2.01).meetsTargets)
    #expect(!Self.accuracy(severity: 3).meetsTargets)
    // The automatic frame: within 0.5 points of the landmarks' frame's CVAI (not the truth's).
    #expect(Self.accuracy(cvai: 6.2, automaticCVAI: 6.7).automaticMeetsTarget)
    #expect(Self.accuracy(cvai: 6.2, automaticCVAI: 5.7).automaticMeetsTarget)
    #expect(!Self.accuracy(cvai: 6.2, automaticCVAI: 6.71).automaticMeetsTarget)
    #expect(!Self.accuracy(automaticCVAI: nil).automaticMeetsTarget)
  }

  @Test func aRowOfTheTableShowsEachDifference() {
    #expect(Self.accuracy().row == "      6.00   6.20 (+0.20)   6.50 (+0.30)  +0.10  -0.20  +0.30  -0.40  +1.50  2 / 2     met, auto met")
    #expect(
      Self.accuracy(cvai: 6.5, severity: 3, circumference: -2.25, automaticCVAI: nil).row
        == "      6.00   6.50 (+0.50)     not found    +0.10  -0.20  +0.30  -0.40  -2.25  3 / 2     MISSED, auto missed")
    #expect(MeasurementAccuracy.header.hasPrefix("truth CVAI  CVAI (Δ)"))
  }

  /// On a small simulated scan: the differences are the landmarks' measurement minus the
  /// truth, the automatic CVAI the automatic frame's, and the contour method is passed on.
  @Test func theDifferencesAreTheMeasuresOfMeasureMinusTheTruth() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 36
      o.width = 480
      o.height = 360
      o.seed = 8
      o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      let scan = try openScan(at: path)
      let reconstruction = try reconstructHead(scan)
      let truth = try RegistrationAccuracy.truth(beside: path)
      var options = MeasureOptions.default
      options.bootstrap = false
      for contour in ContourMethod.allCases {
        options.contour = contour
        let a = try MeasurementAccuracy(
          scan: scan, landmarksPath: simulated.landmarksPath, reconstruction: reconstruction, truth: truth, contour: contour)
        let m = try measureReconstruction(reconstruction, of: scan, landmarks: .file(simulated.landmarksPath), options: options).measurement.measures
        let t = simulated.truth.measures
        #expect(a.truthCVAI == t.cvai && a.truthSeverity == t.severity)
        #expect(a.cvai == m.cvai && a.severity == m.severity, "\(contour)")
        #expect(a.diagonalA == m.diagonalA - t.diagonalA && a.diagonalB == m.diagonalB - t.diagonalB, "\(contour)")
        #expect(a.length == m.length - t.length && a.width == m.width - t.width && a.circumference == m.circumference - t.circumference)
        let automatic = try? measureReconstruction(reconstruction, of: scan, landmarks: .automaticFrame, options: options).measurement.measures.cvai
        #expect(a.automaticCVAI == automatic, "\(contour)")
        // This scan meets the landmarks' targets (docs/accuracy.md).
        #expect(a.meetsTargets, "\(contour): \(a.row)")
      }
      // A landmarks file that is not there is named.
      let missing = folder.appendingPathComponent("none.landmarks.json").path
      #expect {
        try MeasurementAccuracy(scan: scan, landmarksPath: missing, reconstruction: reconstruction, truth: truth)
      } throws: { error in
        String(describing: error).contains(missing)
      }
    }
  }
}
