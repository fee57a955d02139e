import CVAI
import PointCloud

/// The report of one measured scan (docs/command-line.md, "Reports"): what `headscan measure --json` writes,
/// `headscan validate` and `batch` read, and a research tool gets from the library.
///
/// Lengths in millimetres, indices in percent. The always-present keys are required when a
/// report is read; every other key is optional, so reports of older versions and of
/// outside tools decode as long as they carry those keys.
public struct MeasureReport: Codable, Sendable, Hashable, HeadMeasureValues {
  /// The registration's counts (key `registration`).
  public struct RegistrationSummary: Codable, Sendable, Hashable {
    /// Frames read.
    public var frames: Int
    /// Frames given a pose.
    public var framesRegistered: Int
    /// Distinct marker ids detected.
    public var markers: Int
    /// Marker ids given a pose.
    public var markersRegistered: Int
    /// RMS of the 3D marker-corner residuals after optimisation, mm.
    public var cornerRMS: Double

    public init(frames: Int, framesRegistered: Int, markers: Int, markersRegistered: Int, cornerRMS: Double) {
      (self.frames, self.framesRegistered, self.markers, self.markersRegistered) = (frames, framesRegistered, markers, markersRegistered)
      self.cornerRMS = cornerRMS
    }
  }

  // The always-present keys (required when read).
  /// CVAI by ``cvaiDenominator`` (the longer diagonal unless asked otherwise), percent.
  public var cvai: Double
  /// CVA = A − B, mm.
  public var cva: Double
  /// The longer diagonal A, mm.
  public var diagonalA: Double
  /// The shorter diagonal B, mm.
  public var diagonalB: Double
  /// Cranial index, width / length × 100.
  public var ci: Double
  /// Length (chord along x through the contour's centre), mm.
  public var length: Double
  /// Width (chord along y through the contour's centre), mm.
  public var width: Double
  /// Perimeter of the contour at the measurement level, mm.
  public var circumference: Double
  /// h*, mm above the head frame's origin (the ears' plane for landmarks).
  public var measurementLevel: Double
  /// CHOA severity level 1–5.
  public var severity: Int
  /// The registration's counts.
  public var registration: RegistrationSummary

  // Added since (optional when read).
  /// Which diagonal divided CVA in ``cvai``.
  public var cvaiDenominator: CVAIDenominator?
  /// CVAI by the longer diagonal, percent.
  public var cvaiLonger: Double?
  /// CVAI by the shorter diagonal, percent.
  public var cvaiShorter: Double?
  /// Head shape class from ``ci``.
  public var cranialIndexClass: CranialIndexClass?
  /// The flattened side, from the shorter diagonal.
  public var flattenedSide: FlattenedSide?
  /// Where the head frame came from: `landmarks` or `automatic`.
  public var headFrame: String?
  /// The head frame used: world (the lowest kept marker's own frame, metres) → head frame (metres).
  public var headFromWorld: RigidTransform?
  /// For the automatic frame: the mirrored cloud's RMS distance to the cloud, mm.
  public var symmetryRMS: Double?
  /// For automatic landmarks (`headFrame` `automatic landmarks`): the four points found.
  public var automaticLandmarks: [AutomaticLandmark]?
  /// Share of the measurement-level contour backed by points (the rest bridged), percent.
  public var contourMeasuredPercent: Double?
  /// Whether less than ``completeContourPercent`` of the measurement-level contour is backed by
  /// points: the scan missed part of the head there, and the measures lean on the bridged part.
  public var contourIncomplete: Bool?
  /// The longest run of the measurement-level contour without points (1° bins), degrees.
  public var contourLargestGap: Double?
  /// Closed layers within ±10 mm of the longest one, to which the measurement level's parabola
  /// was fitted (21 at 1 mm spacing when the scan closes every layer there; fewer when the
  /// longest closed layer lies at the end of the closed ones, e.g. part of the head unseen).
  public var levelLayersFitted: Int?
  /// Bootstrap 95 % intervals of the measures.
  public var intervals95: MeasureIntervals?
  /// Layers cut.
  public var layers: Int?
  /// Distance between the layers, mm (1 unless the measure was asked for another).
  public var layerSpacing: Double?
  /// The scan measured, as given.
  public var scan: String?
  /// The headscan version that wrote the report (``HeadScanVersion/current``).
  public var headscanVersion: String?
  /// The stated focal length checked against the markers (docs/registration.md, "Focal-length check").
  public var intrinsicsCheck: IntrinsicsCheckSummary?
  /// The reconstruction's length scale against the printed stickers, and whether it was applied.
  public var scale: ScaleSummary?
  /// The patient, as the scan's header names them (header key `patientID`).
  public var patientID: String?
  /// When the scan was recorded, ISO 8601, as the scan's header gives it (header key `recordedAt`).
  public var recordedAt: String?
  /// Whether the measures can be trusted, with the reasons and the values checked.
  public var verdict: Verdict?
  /// The child's age at the scan, days: in de-identified reports made with a birth date, instead
  /// of ``recordedAt`` (docs/formats.md, "De-identified copies").
  public var ageAtScanDays: Int?

  /// A report holding the always-present keys only (e.g. from another tool).
  public init(
    cvai: Double, cva: Double, diagonalA: Double, diagonalB: Double, ci: Double, length: Double, width: Double,
    circumference: Double, measurementLevel: Double, severity: Int, registration: RegistrationSummary
  ) {
    (self.cvai, self.cva, self.diagonalA, self.diagonalB, self.ci) = (cvai, cva, diagonalA, diagonalB, ci)
    (self.length, self.width, self.circumference) = (length, width, circumference)
    (self.measurementLevel, self.severity, self.registration) = (measurementLevel, severity, registration)
  }

  /// The report of a measurement, every key filled in; written by this headscan version.
  /// - Parameters:
  ///   - measurement: the measures at the measurement level, in the head frame.
  ///   - denominator: which diagonal divides CVA in ``cvai``.
  ///   - registration: the registration's counts.
  ///   - headFrame: where the head frame came from (`landmarks` or `automatic`).
  ///   - headFromWorld: the head frame used.
  ///   - symmetryRMS: the automatic frame's symmetry RMS, mm.
  ///   - intervals: bootstrap intervals, when computed.
  ///   - scan: the scan's path as given.
  public init(
    measurement: HeadMeasurement, denominator: CVAIDenominator, registration: RegistrationSummary, headFrame: String,
    headFromWorld: RigidTransform, symmetryRMS: Double?, intervals: MeasureIntervals?, scan: String
  ) {
    let m = measurement.measures
    self.init(
      cvai: m.cvai(denominator: denominator), cva: m.cva, diagonalA: m.diagonalA, diagonalB: m.diagonalB, ci: m.ci,
      length: m.length, width: m.width, circumference: m.circumference, measurementLevel: measurement.level.height,
      severity: m.severity, registration: registration)
    (cvaiDenominator, cvaiLonger, cvaiShorter) = (denominator, m.cvai, m.cvaiShorter)
    (cranialIndexClass, flattenedSide) = (m.cranialIndexClass, m.flattenedSide)
    (self.headFrame, self.headFromWorld, self.symmetryRMS) = (headFrame, headFromWorld, symmetryRMS)
    contourMeasuredPercent = measurement.contourAtLevel.measuredFraction * 100
    contourIncomplete = measurement.contourAtLevel.measuredFraction * 100 < Self.completeContourPercent
    contourLargestGap = measurement.contourAtLevel.largestGap
    levelLayersFitted = measurement.level.layersFitted
    intervals95 = intervals
    layers = measurement.layers.count
    layerSpacing = measurement.layerSpacing
    self.scan = scan
    headscanVersion = HeadScanVersion.current
  }

  /// The share of the measurement-level contour that must be backed by points for the scan to
  /// count as complete there, percent: the verdict's limit (``Verdict/Limits/contourMeasuredPercent``).
  public static let completeContourPercent = Verdict.Limits.default.contourMeasuredPercent

  /// CVAI by the longer diagonal (the default), whatever the report was asked for.
  public var cvaiByLonger: Double {
    if let cvaiLonger { return cvaiLonger }
    return cvaiDenominator == .shorter ? abs(diagonalA - diagonalB) / max(diagonalA, diagonalB) * 100 : cvai
  }

  /// CVAI by the longer diagonal from CVAI by the shorter one (both percent): A − B over A
  /// from A − B over B; monotone, so it carries interval ends over exactly.
  public static func cvaiByLonger(fromShorter shorter: Double) -> Double { shorter / (1 + shorter / 100) }
}
