import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// `measureScan` on a scan whose header states a focal length 6 % too long: the report's
/// intrinsics check warns, and measuring with the estimate, asked for or by default, gives the
/// true CVAI back.
struct FocalLengthEstimateTests {
  @Test func measuringWithTheEstimateRecoversCVAI() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 48
      o.seed = 8
      o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
      o.focalError = 0.06
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      let truth = try #require(simulated.truth.conditions)
      var options = MeasureOptions.default
      options.bootstrap = false
      options.reconstruction.focalLength = .estimate
      let measured = try measureScan(at: path, options: options)
      let check = try #require(measured.report.intrinsicsCheck)
      let used = try #require(check.focalLengthUsed)
      #expect(!check.consistent && abs(check.statedFocalLength - truth.statedIntrinsics.fx) < 1e-9, "\(check)")
      #expect(abs(used / truth.renderedIntrinsics.fx - 1) <= 0.01 && used == check.focalLengthEstimate, "\(check)")
      #expect(
        abs(measured.report.cvai - simulated.truth.measures.cvai) <= 0.2,
        "CVAI with the estimate \(measured.report.cvai), truth \(simulated.truth.measures.cvai); \(check)")
      // The report round-trips with the new key; a report without it still decodes.
      let decoded = try MeasureReport(json: try measured.report.jsonData(), path: "report.json")
      #expect(decoded.intrinsicsCheck == measured.report.intrinsicsCheck)
      var old = measured.report
      old.intrinsicsCheck = nil
      #expect(try MeasureReport(json: try old.jsonData(), path: "old.json").intrinsicsCheck == nil)

      // The defaults (stated focal length, `--scale auto`) replace a focal length the edge-fitted
      // markers call inconsistent by theirs, as `.estimate` does; `--scale depth` keeps it.
      var defaults = MeasureOptions.default
      defaults.bootstrap = false
      let automatic = try measureScan(at: path, options: defaults).report
      #expect(automatic.intrinsicsCheck?.focalLengthUsed == used && automatic.cvai == measured.report.cvai)
      defaults.reconstruction.scale = .depth
      let kept = try measureScan(at: path, options: defaults).report
      #expect(kept.intrinsicsCheck?.focalLengthUsed == nil && kept.intrinsicsCheck?.consistent == false)
      // A focal length 6 % long shrinks each view's lateral lengths by 1/1.06 and leaves its
      // depths: the registration reconciles views that contradict each other, so the head comes
      // out shorter by between half and twice the focal error (8.8 % on this scan), not by a
      // fixed ratio.
      let ratio = kept.circumference / automatic.circumference
      #expect(
        ratio >= 1 - 2 * 0.06 / 1.06 && ratio <= 1 - 0.5 * 0.06 / 1.06,
        "circumference \(kept.circumference) with the stated focal length, \(automatic.circumference) with the markers'")
    }
  }
}
