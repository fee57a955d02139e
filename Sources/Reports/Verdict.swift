/// Whether a report's measures can be trusted, and if not why (report key `verdict`).
///
/// The verdict compares a few values of the measured scan (``Checks``) with limits
/// (``Limits``) chosen from simulated scans whose errors against the exact head are known
/// (docs/method.md, "Verdict"): how much of the contour at the measurement level is measured
/// and its longest gap, how many closed layers the level was fitted to, how much of the
/// recording was registered and how well, how well the landmarks are placed, whether the
/// bootstrap 95 % intervals could be computed and their widths, and the focal-length check. A scan
/// is usable when every check it has a value for is within its limit; each check outside it
/// gives one reason. A check without a value (e.g. `landmarkSD` without a landmarks file) is
/// not counted.
///
/// ```swift
/// let verdict = Verdict(report: report)
/// print(verdict.usable ? "usable" : "NOT usable: " + verdict.reasons.joined(separator: "; "))
/// ```
public struct Verdict: Codable, Sendable, Hashable {
  /// The values the verdict was made from (report key `verdict.checks`). Lengths in
  /// millimetres, shares in percent; `nil` where the report has no such value.
  public struct Checks: Codable, Sendable, Hashable {
    /// Share of the contour at the measurement level backed by points, percent.
    public var contourMeasuredPercent: Double?
    /// The longest run of that contour without points, degrees.
    public var contourLargestGap: Double?
    /// Closed layers the measurement level was fitted to (within ±10 mm of the longest).
    public var levelLayersFitted: Int?
    /// Frames given a pose.
    public var framesRegistered: Int?
    /// Frames given a pose of the frames read, percent.
    public var framesRegisteredPercent: Double?
    /// Marker ids given a pose of the distinct ids detected, percent.
    public var markersRegisteredPercent: Double?
    /// RMS of the 3D marker-corner residuals after optimisation, mm.
    public var cornerRMS: Double?
    /// The least well placed landmark's standard deviation (its frame's pose and its depth
    /// together), mm; landmarks placed on a frame's pixels only.
    public var landmarkSD: Double?
    /// Whether the bootstrap 95 % intervals could be computed: `false` when they were asked for
    /// and fewer than half the replicates closed the contour; `nil` when not asked for.
    public var intervalsComputed: Bool?
    /// Half the width of CVAI's 95 % interval, percentage points.
    public var cvaiHalfWidth: Double?
    /// Half the width of the circumference's 95 % interval, mm.
    public var circumferenceHalfWidth: Double?
    /// How far the focal length the markers show is from the one the depth was lifted with (the
    /// stated one unless `--focal-length` gave another), |estimate / used − 1|, percent.
    public var focalLengthDeviationPercent: Double?
    /// Whether the head frame came from the automatic frame (symmetry, experimental) rather
    /// than landmarks.
    public var automaticHeadFrame: Bool?

    public init(
      contourMeasuredPercent: Double? = nil, contourLargestGap: Double? = nil, levelLayersFitted: Int? = nil, framesRegistered: Int? = nil,
      framesRegisteredPercent: Double? = nil, markersRegisteredPercent: Double? = nil, cornerRMS: Double? = nil, landmarkSD: Double? = nil,
      intervalsComputed: Bool? = nil, cvaiHalfWidth: Double? = nil, circumferenceHalfWidth: Double? = nil,
      focalLengthDeviationPercent: Double? = nil, automaticHeadFrame: Bool? = nil
    ) {
      (self.contourMeasuredPercent, self.contourLargestGap, self.levelLayersFitted) = (contourMeasuredPercent, contourLargestGap, levelLayersFitted)
      (self.framesRegistered, self.framesRegisteredPercent) = (framesRegistered, framesRegisteredPercent)
      (self.markersRegisteredPercent, self.cornerRMS, self.landmarkSD) = (markersRegisteredPercent, cornerRMS, landmarkSD)
      (self.intervalsComputed, self.cvaiHalfWidth, self.circumferenceHalfWidth) = (intervalsComputed, cvaiHalfWidth, circumferenceHalfWidth)
      (self.focalLengthDeviationPercent, self.automaticHeadFrame) = (focalLengthDeviationPercent, automaticHeadFrame)
    }
  }

  /// The limits a usable scan's checks keep to. The defaults are those of docs/method.md,
  /// "Verdict", chosen on 40 simulated scans against the tolerances |ΔCVAI| ≤ 0.5 points,
  /// |Δcircumference| ≤ 2 mm and the right CHOA level: where the scans outside them lie beyond
  /// every scan within them, the limit lies midway between the two; otherwise it is the worst
  /// value a scan within them showed (beyond it the study has no evidence).
  public struct Limits: Sendable, Hashable {
    /// Least share of the contour at the measurement level measured, percent.
    public var contourMeasuredPercent: Double
    /// Longest run of the contour at the measurement level without points, degrees.
    public var contourLargestGap: Double
    /// Fewest closed layers the measurement level is fitted to.
    public var levelLayersFitted: Int
    /// Fewest frames given a pose.
    public var framesRegistered: Int
    /// Least share of the frames given a pose, percent.
    public var framesRegisteredPercent: Double
    /// Least share of the detected marker ids given a pose, percent.
    public var markersRegisteredPercent: Double
    /// Largest marker-corner RMS residual, mm.
    public var cornerRMS: Double
    /// Largest landmark standard deviation, mm.
    public var landmarkSD: Double
    /// Largest half width of CVAI's 95 % interval, percentage points.
    public var cvaiHalfWidth: Double
    /// Largest half width of the circumference's 95 % interval, mm.
    public var circumferenceHalfWidth: Double
    /// Largest focal-length deviation from the stated one, percent.
    public var focalLengthDeviationPercent: Double

    public init(
      contourMeasuredPercent: Double, contourLargestGap: Double, levelLayersFitted: Int, framesRegistered: Int, framesRegisteredPercent: Double,
      markersRegisteredPercent: Double, cornerRMS: Double, landmarkSD: Double, cvaiHalfWidth: Double, circumferenceHalfWidth: Double,
      focalLengthDeviationPercent: Double
    ) {
      (self.contourMeasuredPercent, self.contourLargestGap, self.levelLayersFitted) = (contourMeasuredPercent, contourLargestGap, levelLayersFitted)
      (self.framesRegistered, self.framesRegisteredPercent) = (framesRegistered, framesRegisteredPercent)
      (self.markersRegisteredPercent, self.cornerRMS, self.landmarkSD) = (markersRegisteredPercent, cornerRMS, landmarkSD)
      (self.cvaiHalfWidth, self.circumferenceHalfWidth, self.focalLengthDeviationPercent) =
        (cvaiHalfWidth, circumferenceHalfWidth, focalLengthDeviationPercent)
    }

    /// The limits of docs/method.md, "Verdict".
    public static let `default` = Limits(
      contourMeasuredPercent: 87.8, contourLargestGap: 35, levelLayersFitted: 15, framesRegistered: 11, framesRegisteredPercent: 45.5,
      markersRegisteredPercent: 32.1, cornerRMS: 0.68, landmarkSD: 2.55, cvaiHalfWidth: 0.92, circumferenceHalfWidth: 2.35,
      focalLengthDeviationPercent: 0.48)
  }

  /// Whether the measures can be trusted: every check within its limit.
  public var usable: Bool
  /// One line per check outside its limit, e.g. `contour at the measurement level 71 % measured (under 90 %)`.
  public var reasons: [String]
  /// The values checked.
  public var checks: Checks

  /// The verdict on `checks` against `limits`.
  public init(checks: Checks, limits: Limits = .default) {
    func number(_ x: Double, _ digits: Int) -> String {
      let scale = [1.0, 10, 100, 1000][min(3, max(0, digits))]
      return MeasureReport.jsonNumber((x * scale).rounded() / scale)
    }
    var reasons: [String] = []
    func under(_ value: Double?, _ limit: Double, _ digits: Int, _ line: (String, String) -> String) {
      if let value, value < limit { reasons.append(line(number(value, digits), number(limit, digits))) }
    }
    func over(_ value: Double?, _ limit: Double, _ digits: Int, _ line: (String, String) -> String) {
      if let value, value > limit { reasons.append(line(number(value, digits), number(limit, digits))) }
    }
    under(checks.contourMeasuredPercent, limits.contourMeasuredPercent, 1) {
      "contour at the measurement level \($0) % measured (under \($1) %)"
    }
    over(checks.contourLargestGap, limits.contourLargestGap, 1) { "a gap of \($0)° in the contour at the measurement level (over \($1)°)" }
    under(checks.levelLayersFitted.map(Double.init), Double(limits.levelLayersFitted), 0) {
      "measurement level fitted to \($0) layer\($0 == "1" ? "" : "s") (under \($1)): the widest part of the head is not closed all round"
    }
    under(checks.framesRegistered.map(Double.init), Double(limits.framesRegistered), 0) { "\($0) frames registered (under \($1))" }
    under(checks.framesRegisteredPercent, limits.framesRegisteredPercent, 1) { "\($0) % of the frames registered (under \($1) %)" }
    under(checks.markersRegisteredPercent, limits.markersRegisteredPercent, 1) {
      "\($0) % of the detected markers registered (under \($1) %)"
    }
    over(checks.cornerRMS, limits.cornerRMS, 2) { "marker-corner RMS \($0) mm (over \($1) mm)" }
    over(checks.landmarkSD, limits.landmarkSD, 2) { "landmark uncertainty \($0) mm (over \($1) mm)" }
    if checks.intervalsComputed == false { reasons.append("no 95 % intervals: under half the bootstrap replicates closed the contour") }
    over(checks.cvaiHalfWidth, limits.cvaiHalfWidth, 2) { "CVAI 95 % interval ±\($0) points (over ±\($1))" }
    over(checks.circumferenceHalfWidth, limits.circumferenceHalfWidth, 2) {
      "circumference 95 % interval ±\($0) mm (over ±\($1) mm)"
    }
    over(checks.focalLengthDeviationPercent, limits.focalLengthDeviationPercent, 2) {
      "focal length \($0) % off the stated one (over \($1) %)"
    }
    if checks.automaticHeadFrame == true { reasons.append("automatic head frame (experimental): place landmarks") }
    (usable, self.reasons, self.checks) = (reasons.isEmpty, reasons, checks)
  }

  /// The verdict on a report's own values.
  /// - Parameters:
  ///   - report: the report; its registration counts, contour share, intervals, focal-length
  ///     check and head frame are checked.
  ///   - landmarkSD: the least well placed landmark's standard deviation, mm, when known (the
  ///     report does not carry it).
  ///   - bootstrapped: whether intervals were asked for, so that a report without them failed
  ///     to compute them; default `false` (a report alone cannot tell).
  ///   - limits: default ``Limits/default``.
  public init(report: MeasureReport, landmarkSD: Double? = nil, bootstrapped: Bool = false, limits: Limits = .default) {
    let r = report.registration
    func percent(_ part: Int, _ whole: Int) -> Double? { whole > 0 ? Double(part) / Double(whole) * 100 : nil }
    // Against the focal length the depth was lifted with (`--focal-length`), else the stated one.
    let focal = report.intrinsicsCheck.map { abs($0.focalLengthEstimate / ($0.focalLengthUsed ?? $0.statedFocalLength) - 1) * 100 }
    let checks = Checks(
      contourMeasuredPercent: report.contourMeasuredPercent, contourLargestGap: report.contourLargestGap,
      levelLayersFitted: report.levelLayersFitted, framesRegistered: r.framesRegistered, framesRegisteredPercent: percent(r.framesRegistered, r.frames),
      markersRegisteredPercent: percent(r.markersRegistered, r.markers), cornerRMS: r.cornerRMS, landmarkSD: landmarkSD,
      intervalsComputed: bootstrapped ? report.intervals95 != nil : nil, cvaiHalfWidth: report.intervals95?.cvai.halfWidth,
      circumferenceHalfWidth: report.intervals95?.circumference.halfWidth, focalLengthDeviationPercent: focal.flatMap { $0.isFinite ? $0 : nil },
      automaticHeadFrame: report.headFrame.map { $0 == "automatic" })
    self.init(checks: checks, limits: limits)
  }

  /// The summary line: `usable`, or `NOT usable: ` and the reasons joined by `; `.
  public var summary: String { usable ? "usable" : "NOT usable: " + reasons.joined(separator: "; ") }
}
