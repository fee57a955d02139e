import ArucoBridge
import CVAI
import Landmarks
import Reconstruction
import Registration
import Reports
import ScanIO
import _HeadScanSupport

/// Reconstructs and measures one scan: the whole pipeline in one call.
///
/// Reads the landmarks (checked against the scan before the long work starts), registers and
/// fuses the frames, finds the head frame, slices the head and measures it at the
/// measurement level (docs/head-frame-and-measures.md), and, unless ``MeasureOptions/bootstrap`` is off, the
/// bootstrap 95 % intervals. The result's ``ScanMeasurement/report`` is exactly what
/// `headscan measure --json` writes.
///
/// ```swift
/// let measured = try measureScan(at: "scans/infant.rgbdscan", landmarks: .file("scans/infant.landmarks.json"))
/// print(measured.report.cvai, measured.report.severity)
/// ```
/// - Parameters:
///   - path: a scan: a `.rgbdscan` file, a TUM-style folder or a Record3D `.r3d` export.
///   - landmarks: where the head frame comes from (default: the landmarks file beside the scan).
///   - options: CVAI denominator, bootstrap, reconstruction.
///   - progress: warnings and progress, called on the calling thread.
/// - Throws: one-line errors naming the file: `ScanIOError`, `LandmarkError`,
///   `ReconstructionError`, `FileProblem`.
public func measureScan(
  at path: String, landmarks: LandmarkSource = .besideScan, options: MeasureOptions = .default,
  progress: ((MeasureProgress) -> Void)? = nil
) throws -> ScanMeasurement {
  let landmarksFile = try landmarks.path(forScan: path).map { ($0, try LandmarkFile(path: $0)) }
  let scan = try openScan(at: path, options: options.scan)
  for warning in scan.warnings { progress?(.warning(warning.description)) }
  if let (landmarksPath, file) = landmarksFile { try checkLandmarks(file, path: landmarksPath, scan: scan) }
  let reconstruction: HeadReconstruction
  var reconstructionOptions = options.reconstruction
  if landmarks == .automaticLandmarks {
    // The nose tip stands further from the cap's sphere than the default fusion shell reaches.
    reconstructionOptions.fusion.headMargin = max(reconstructionOptions.fusion.headMargin, automaticLandmarksHeadMargin)
  }
  do {
    reconstruction = try reconstructHead(scan, options: reconstructionOptions) { stage, done, total in
      progress?(.reconstructing(stage, done: done, total: total))
    }
  } catch let error as ArucoError {
    throw FileProblem(path: path, problem: error.description)
  }
  return try measure(
    reconstruction, scanPath: path, scan: scan, landmarksFile: landmarksFile, automatic: landmarks == .automaticLandmarks, options: options,
    progress: progress)
}

/// How far outside the sphere through the cap's stickers the fusion keeps surface for automatic
/// landmarks, metres: the nose tip lies 3–5 cm outside it (the default 2.5 cm cuts it off).
public let automaticLandmarksHeadMargin = 0.06

/// Measures a scan already reconstructed: the head frame, the measures and the report of
/// ``measureScan(at:landmarks:options:progress:)`` without registering again (e.g. to
/// compare the landmarks' frame with the automatic one on the same reconstruction).
/// `options.reconstruction` is not used.
/// - Parameters:
///   - reconstruction: `scan` registered and fused.
///   - scan: the scan it came from (pixel landmarks are lifted through its frames).
///   - landmarks: where the head frame comes from; `.besideScan` looks beside `scan.path`.
/// - Throws: like ``measureScan(at:landmarks:options:progress:)``.
public func measureReconstruction(
  _ reconstruction: HeadReconstruction, of scan: any ScanReader, landmarks: LandmarkSource = .besideScan,
  options: MeasureOptions = .default, progress: ((MeasureProgress) -> Void)? = nil
) throws -> ScanMeasurement {
  let landmarksFile = try landmarks.path(forScan: scan.path).map { ($0, try LandmarkFile(path: $0)) }
  return try measure(
    reconstruction, scanPath: scan.path, scan: scan, landmarksFile: landmarksFile, automatic: landmarks == .automaticLandmarks,
    options: options, progress: progress)
}

/// The measurement after registration, written once for both entry points.
private func measure(
  _ reconstruction: HeadReconstruction, scanPath: String, scan: any ScanReader, landmarksFile: (String, LandmarkFile)?,
  automatic automaticLandmarks: Bool, options: MeasureOptions, progress: ((MeasureProgress) -> Void)?
) throws -> ScanMeasurement {
  let started = ContinuousClock.now
  progress?(.measuring)
  // Pixel landmarks are lifted with the focal length and depth scale the reconstruction used.
  let scan = try reconstruction.liftingScan(scan)
  var frame: HeadFrameEstimate
  if let (landmarksPath, file) = landmarksFile {
    frame = try HeadFrameEstimate.fromLandmarks(file, path: landmarksPath, scan: scan, reconstruction: reconstruction)
  } else if automaticLandmarks {
    do {
      frame = try HeadFrameEstimate.fromAutomaticLandmarks(reconstruction, intrinsics: scan.header.intrinsics)
    } catch {
      throw FileProblem(path: scanPath, problem: String(describing: error))
    }
  } else {
    progress?(
      .warning(
        "\(scanPath): the automatic head frame is experimental: on simulated plagiocephalic heads its CVAI differed from the landmarks' frame's by several points (docs/landmarks.md); use landmarks for clinical numbers"
      ))
    do {
      frame = try HeadFrameEstimate.automatic(reconstruction)
    } catch {
      throw FileProblem(path: scanPath, problem: error.description)
    }
  }
  frame.slicing.contour = options.contour
  if let spacing = options.layerSpacing { frame.slicing.spacing = spacing }
  let headPoints = frame.headPoints(of: reconstruction.cloud)
  let measurement: HeadMeasurement
  do {
    measurement = try measureHead(points: headPoints, options: frame.slicing, workers: options.workers)
  } catch {
    throw FileProblem(path: scanPath, problem: error.description)
  }
  let measuring = seconds(since: started)
  var intervals: MeasureIntervals?
  var bootstrapping = 0.0
  var landmarkSD: Double?
  if options.bootstrap {
    progress?(.bootstrapping)
    let start = ContinuousClock.now
    let uncertainty = MeasurementUncertainty(
      frame: frame, reconstruction: reconstruction, scan: scan, landmarks: landmarksFile?.1,
      capMarkers: scan.header.capMarkerCount ?? reconstruction.markersDetected.count, contour: measurement.contourAtLevel.contour)
    landmarkSD = uncertainty.largestLandmarkSD.map { $0 * 1000 }
    intervals = bootstrapIntervals(
      points: headPoints, measurement: measurement, denominator: options.denominator, options: frame.slicing, uncertainty: uncertainty,
      workers: options.workers)
    bootstrapping = seconds(since: start)
  }
  var report = MeasureReport(
    measurement: measurement, denominator: options.denominator, registration: MeasureReport.RegistrationSummary(reconstruction),
    headFrame: frame.source.rawValue, headFromWorld: frame.headFromWorld, symmetryRMS: frame.symmetryRMS.map { $0 * 1000 },
    intervals: intervals, scan: scanPath)
  report.intrinsicsCheck = reconstruction.intrinsicsCheck.map {
    MeasureReport.IntrinsicsCheckSummary($0, focalLengthUsed: reconstruction.focalLengthUsed)
  }
  report.scale = reconstruction.scale.map(MeasureReport.ScaleSummary.init)
  (report.patientID, report.recordedAt) = (scan.header.patientID, scan.header.recordedAt)
  report.automaticLandmarks = frame.automaticLandmarks?.all.map {
    MeasureReport.AutomaticLandmark(
      name: $0.name, position: $0.position * 1000, confidence: $0.confidence, frame: $0.view?.frame, u: $0.view?.u, v: $0.view?.v)
  }
  report.verdict = Verdict(report: report, landmarkSD: landmarkSD, bootstrapped: options.bootstrap)
  return ScanMeasurement(
    report: report, reconstruction: reconstruction, headFrame: frame, measurement: measurement, intervals: intervals,
    timings: .init(reconstruction: reconstruction.timings, measuring: measuring, bootstrapping: bootstrapping))
}
