import CVAI
import Foundation
import Reports
import Testing

/// The verdict: each check against its limit, the reasons it gives, and its place in the report.
struct VerdictTests {
  /// Round limits for the tests, not the study's.
  static let limits = Verdict.Limits(
    contourMeasuredPercent: 90, contourLargestGap: 20, levelLayersFitted: 15, framesRegistered: 40, framesRegisteredPercent: 60, markersRegisteredPercent: 70, cornerRMS: 1,
    landmarkSD: 2, cvaiHalfWidth: 0.5, circumferenceHalfWidth: 2, focalLengthDeviationPercent: 1.5)

  /// Checks all within ``limits``.
  static let good = Verdict.Checks(
    contourMeasuredPercent: 100, contourLargestGap: 3, levelLayersFitted: 21, framesRegistered: 170, framesRegisteredPercent: 94, markersRegisteredPercent: 100, cornerRMS: 0.3,
    landmarkSD: 0.8, intervalsComputed: true, cvaiHalfWidth: 0.2, circumferenceHalfWidth: 0.9, focalLengthDeviationPercent: 0.4, automaticHeadFrame: false)

  @Test func checksWithinTheirLimitsAreUsable() {
    let verdict = Verdict(checks: Self.good, limits: Self.limits)
    #expect(verdict.usable && verdict.reasons.isEmpty && verdict.summary == "usable")
    // A check exactly at its limit passes.
    var edge = Self.good
    (edge.contourMeasuredPercent, edge.cornerRMS, edge.framesRegistered) = (90, 1, 40)
    #expect(Verdict(checks: edge, limits: Self.limits).usable)
    // A check without a value is not counted.
    #expect(Verdict(checks: Verdict.Checks(contourMeasuredPercent: 95), limits: Self.limits).usable)
  }

  /// ``good`` with one check changed, by its JSON key.
  static func good(with key: String, _ value: Double) -> Verdict.Checks {
    var c = good
    switch key {
    case "contourMeasuredPercent": c.contourMeasuredPercent = value
    case "contourLargestGap": c.contourLargestGap = value
    case "framesRegisteredPercent": c.framesRegisteredPercent = value
    case "markersRegisteredPercent": c.markersRegisteredPercent = value
    case "cornerRMS": c.cornerRMS = value
    case "landmarkSD": c.landmarkSD = value
    case "cvaiHalfWidth": c.cvaiHalfWidth = value
    case "circumferenceHalfWidth": c.circumferenceHalfWidth = value
    case "focalLengthDeviationPercent": c.focalLengthDeviationPercent = value
    default: Issue.record("no check \(key)")
    }
    return c
  }

  @Test(arguments: [
    ("contourMeasuredPercent", 71.4, "contour at the measurement level 71.4 % measured (under 90 %)"),
    ("contourLargestGap", 48.6, "a gap of 48.6° in the contour at the measurement level (over 20°)"),
    ("framesRegisteredPercent", 35, "35 % of the frames registered (under 60 %)"),
    ("markersRegisteredPercent", 52.5, "52.5 % of the detected markers registered (under 70 %)"),
    ("cornerRMS", 1.234, "marker-corner RMS 1.23 mm (over 1 mm)"),
    ("landmarkSD", 3.5, "landmark uncertainty 3.5 mm (over 2 mm)"),
    ("cvaiHalfWidth", 0.61, "CVAI 95 % interval ±0.61 points (over ±0.5)"),
    ("circumferenceHalfWidth", 4.25, "circumference 95 % interval ±4.25 mm (over ±2 mm)"),
    ("focalLengthDeviationPercent", 3.97, "focal length 3.97 % off the stated one (over 1.5 %)"),
  ])
  func aCheckOutsideItsLimitGivesItsReason(check: String, value: Double, reason: String) {
    let verdict = Verdict(checks: Self.good(with: check, value), limits: Self.limits)
    #expect(!verdict.usable)
    #expect(verdict.reasons == [reason])
    #expect(verdict.summary == "NOT usable: " + reason)
  }

  @Test func everyFailedCheckIsAReason() {
    var checks = Self.good
    (checks.framesRegistered, checks.contourMeasuredPercent, checks.automaticHeadFrame) = (12, 60, true)
    (checks.levelLayersFitted, checks.intervalsComputed) = (9, false)
    let verdict = Verdict(checks: checks, limits: Self.limits)
    #expect(
      verdict.reasons == [
        "contour at the measurement level 60 % measured (under 90 %)",
        "measurement level fitted to 9 layers (under 15): the widest part of the head is not closed all round",
        "12 frames registered (under 40)", "no 95 % intervals: under half the bootstrap replicates closed the contour",
        "automatic head frame (experimental): place landmarks",
      ])
    #expect(verdict.summary == "NOT usable: " + verdict.reasons.joined(separator: "; "))
  }

  @Test func aReportsOwnValuesAreChecked() {
    var report = MeasureReport(
      cvai: 6.1, cva: 8.4, diagonalA: 138.2, diagonalB: 129.8, ci: 84.0, length: 142.0, width: 119.3, circumference: 426.5,
      measurementLevel: 21.0, severity: 2, registration: .init(frames: 200, framesRegistered: 50, markers: 40, markersRegistered: 38, cornerRMS: 0.6))
    (report.contourMeasuredPercent, report.contourLargestGap, report.levelLayersFitted) = (82, 12, 21)
    report.headFrame = "landmarks"
    report.intrinsicsCheck = .init(statedFocalLength: 600, focalLengthEstimate: 618, consistent: false)
    let level = Interval95(low: 20, high: 22)
    report.intervals95 = MeasureIntervals(
      { $0 == .cvai ? Interval95(low: 5.8, high: 6.5) : $0 == .circumference ? Interval95(low: 425, high: 428.5) : level },
      measurementLevel: level, replicates: 200, includes: nil)
    let verdict = Verdict(report: report, landmarkSD: 0.7, limits: Self.limits)
    let c = verdict.checks
    #expect(c.contourLargestGap == 12 && c.levelLayersFitted == 21 && c.intervalsComputed == nil)
    #expect(c.contourMeasuredPercent == 82 && c.framesRegistered == 50 && c.framesRegisteredPercent == 25 && c.markersRegisteredPercent == 95)
    #expect(c.cornerRMS == 0.6 && c.landmarkSD == 0.7 && c.automaticHeadFrame == false)
    #expect(abs(c.cvaiHalfWidth! - 0.35) < 1e-12 && abs(c.circumferenceHalfWidth! - 1.75) < 1e-12)
    #expect(abs(c.focalLengthDeviationPercent! - 3) < 1e-9)
    #expect(
      verdict.reasons == [
        "contour at the measurement level 82 % measured (under 90 %)", "25 % of the frames registered (under 60 %)",
        "focal length 3 % off the stated one (over 1.5 %)",
      ])
    // Depth lifted with a corrected focal length: checked against that one.
    report.intrinsicsCheck?.focalLengthUsed = 615
    #expect(abs(Verdict(report: report, limits: Self.limits).checks.focalLengthDeviationPercent! - 300.0 / 615) < 1e-9)
    // Intervals asked for and missing: a reason; asked for and there: none.
    #expect(Verdict(report: report, bootstrapped: true, limits: Self.limits).checks.intervalsComputed == true)
    var withoutIntervals = report
    withoutIntervals.intervals95 = nil
    #expect(Verdict(report: withoutIntervals, bootstrapped: true, limits: Self.limits).reasons.contains("no 95 % intervals: under half the bootstrap replicates closed the contour"))
    #expect(Verdict(report: withoutIntervals, limits: Self.limits).checks.intervalsComputed == nil)
    // The automatic frame is named as a reason.
    report.headFrame = "automatic"
    #expect(Verdict(report: report, limits: Self.limits).reasons.last == "automatic head frame (experimental): place landmarks")
  }

  @Test func theVerdictKeyRoundTripsThroughTheReportsJSON() throws {
    var report = MeasureReport(
      cvai: 6.1, cva: 8.4, diagonalA: 138.2, diagonalB: 129.8, ci: 84.0, length: 142.0, width: 119.3, circumference: 426.5,
      measurementLevel: 21.0, severity: 2, registration: .init(frames: 200, framesRegistered: 180, markers: 30, markersRegistered: 30, cornerRMS: 0.4))
    report.contourMeasuredPercent = 64.5
    report.verdict = Verdict(report: report, limits: Self.limits)
    let data = try report.jsonData()
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let verdict = try #require(object["verdict"] as? [String: Any])
    #expect(verdict["usable"] as? Bool == false)
    #expect(verdict["reasons"] as? [String] == ["contour at the measurement level 64.5 % measured (under 90 %)"])
    let checks = try #require(verdict["checks"] as? [String: Any])
    #expect(checks["contourMeasuredPercent"] as? Double == 64.5 && checks["framesRegistered"] as? Int == 180)
    #expect(checks["framesRegisteredPercent"] as? Double == 90 && checks["landmarkSD"] == nil)
    let back = try MeasureReport(json: data, path: "r.json")
    #expect(back.verdict == report.verdict && back == report)
    // Reports written before the verdict still read, without one.
    var old = report
    old.verdict = nil
    #expect(try MeasureReport(json: try old.jsonData(), path: "r.json").verdict == nil)
  }
}
