import Foundation
import HeadScan
import ScanSimulator

/// How far the measures of a reconstructed simulated scan are from the exact truth
/// (millimetres and CVAI points, measured minus truth).
public struct MeasurementAccuracy: Sendable, Hashable, Codable {
  /// The truth's CVAI and severity, for the table.
  public var truthCVAI: Double
  public var truthSeverity: Int
  /// Measured with the landmarks' head frame.
  public var cvai: Double
  public var severity: Int
  public var diagonalA: Double
  public var diagonalB: Double
  public var length: Double
  public var width: Double
  public var circumference: Double
  /// CVAI with the automatic head frame (`HeadFrameEstimate.automatic`), when it was found.
  public var automaticCVAI: Double?

  /// Measures the reconstruction with the landmarks' frame and with the automatic one (as
  /// `headscan measure` does, without the intervals) and compares both with `truth`.
  /// - Throws: landmark, head-frame and measurement errors, each naming its file.
  /// - Parameter contour: how layers become contours (default as `headscan measure`).
  public init(
    scan: any ScanReader, landmarksPath: String, reconstruction result: HeadReconstruction, truth: SimulationTruth,
    contour: ContourMethod = .fourierFit
  ) throws {
    var options = MeasureOptions.default
    options.bootstrap = false
    options.contour = contour
    let m = try measureReconstruction(result, of: scan, landmarks: .file(landmarksPath), options: options).measurement.measures
    let t = truth.measures
    truthCVAI = t.cvai
    truthSeverity = t.severity
    cvai = m.cvai
    severity = m.severity
    diagonalA = m.diagonalA - t.diagonalA
    diagonalB = m.diagonalB - t.diagonalB
    length = m.length - t.length
    width = m.width - t.width
    circumference = m.circumference - t.circumference
    automaticCVAI = try? measureReconstruction(result, of: scan, landmarks: .automaticFrame, options: options).measurement.measures.cvai
  }

  /// The targets with the landmarks' frame: CVAI within 0.3 points, diagonals, length and
  /// width within 1 mm, circumference within 2 mm, severity equal.
  public var meetsTargets: Bool {
    abs(cvai - truthCVAI) <= 0.3 && [diagonalA, diagonalB, length, width].allSatisfy { abs($0) <= 1 }
      && abs(circumference) <= 2 && severity == truthSeverity
  }

  /// The automatic frame's target: its CVAI within 0.5 points of the landmarks' frame's.
  public var automaticMeetsTarget: Bool { automaticCVAI.map { abs($0 - cvai) <= 0.5 } ?? false }

  /// Column titles of ``row``.
  public static let header = "truth CVAI  CVAI (Δ)        auto CVAI (Δ)   ΔA     ΔB     ΔL     ΔW     ΔHC    severity  targets"

  /// One line of the accuracy table.
  public var row: String {
    let auto = automaticCVAI.map { String(format: "%5.2f (%+.2f)", $0, $0 - cvai) } ?? "   not found  "
    return String(
      format: "%10.2f  %5.2f (%+.2f)  %@  %+5.2f  %+5.2f  %+5.2f  %+5.2f  %+5.2f  %d / %d     %@",
      truthCVAI, cvai, cvai - truthCVAI, auto, diagonalA, diagonalB, length, width, circumference, severity, truthSeverity,
      (meetsTargets ? "met" : "MISSED") + (automaticMeetsTarget ? ", auto met" : ", auto missed"))
  }
}
