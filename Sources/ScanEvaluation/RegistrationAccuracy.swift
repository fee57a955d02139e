import Foundation
import PointCloud
import Reconstruction
import Registration
import ScanIO
import ScanSimulator
import _HeadScanSupport

/// How far a reconstruction is from a simulated scan's exact truth.
///
/// Compared two ways (millimetres and degrees; maxima unless said otherwise):
/// - ``world``: in the reconstruction's world (the lowest kept
///   marker's own frame), the truth moved there through that marker's true pose.
///   This includes the world sticker's own orientation error (its four corners, 16 mm
///   apart, settled on the fused surface: a few tenths of a degree), which grows with
///   distance from it.
/// - ``aligned``: after the one rigid motion that best maps all kept markers'
///   corners onto the truth — the accuracy of the map itself, free of how the
///   world happens to be defined. Head measures (CVAI, CI, …) depend only on this.
public struct RegistrationAccuracy: Sendable, Hashable, Codable, CustomStringConvertible {
  /// Errors in one frame of comparison.
  public struct Errors: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Largest marker position error, mm.
    public var markerTranslation = 0.0
    /// Largest marker orientation error, degrees.
    public var markerRotation = 0.0
    /// Largest camera position error over registered frames, mm.
    public var cameraTranslation = 0.0
    /// Median camera position error, mm.
    public var medianCameraTranslation = 0.0
    /// RMS distance to the exact head surface of the fused points on the cranial vault
    /// (8 mm and more above the ears' plane, where the cap is and the head is measured), mm.
    /// Below, around nose, ears and chin, the surface distance estimate F/|∇F| of the
    /// radially parametrised model is not reliable, so those points are not scored.
    public var cloudRMS = 0.0
    /// Fused points scored (on the vault).
    public var cloudPointsScored = 0

    public var description: String {
      let cloud = cloudPointsScored == 0 ? "no cloud" : String(format: "vault cloud RMS %.2f mm", cloudRMS)
      return String(
        format: "markers ≤ %.2f mm / %.2f°, cameras ≤ %.2f mm (median %.2f), %@",
        markerTranslation, markerRotation, cameraTranslation, medianCameraTranslation, cloud)
    }
  }

  /// One kept marker against its truth, after the best rigid alignment (``aligned``).
  public struct MarkerError: Sendable, Hashable, Codable {
    public var id: Int
    /// Position error, mm.
    public var millimetres: Double
    /// Orientation error, degrees.
    public var degrees: Double
    /// The part of it about the marker's own normal (a turn in its plane), degrees.
    public var inPlaneDegrees: Double
    /// The part of it that tilts the marker's normal, degrees.
    public var tiltDegrees: Double
    /// Observations the registration kept for it.
    public var observations: Int
    /// Its corner RMS over those observations, mm.
    public var rms: Double
    /// Each corner's error (estimate − truth, OpenCV order) in the true marker's own axes
    /// (x, y in its plane, z its normal), mm: a common part moves the sticker, a part that
    /// grows outward scales it, and opposite corners off in opposite z tilt it.
    public var cornerErrors: [SIMD3<Double>]
  }

  /// One registered frame's camera against its truth, after the best rigid alignment (``aligned``).
  public struct CameraError: Sendable, Hashable, Codable {
    public var frame: Int
    /// Camera centre error, mm.
    public var millimetres: Double
    /// Markers lifted by depth in that frame.
    public var markers: Int
    /// Its corner RMS after optimisation, mm.
    public var rms: Double
    /// How far its pose puts the centre of the marker map (the mean of the kept markers'
    /// corners) from where the true pose puts it, mm.
    public var centreMillimetres: Double = 0
    /// The pose's stated uncertainty there (``FrameDiagnostics/poseUncertainty``), standard
    /// deviation per axis, mm; `nil` where none was stated.
    public var poseUncertainty: Double?
  }

  /// In the reconstruction's world (the lowest kept marker's own frame).
  public var world = Errors()
  /// After the best rigid alignment of the marker map to the truth.
  public var aligned = Errors()
  /// Fraction of frames registered.
  public var keptFraction = 0.0
  /// Every kept marker's errors after the best alignment, by id.
  public var markers: [MarkerError] = []
  /// Every registered frame's camera error after the best alignment, by frame.
  public var cameras: [CameraError] = []

  public var description: String {
    String(format: "world: %@; aligned: %@; %.0f %% of frames kept", world.description, aligned.description, 100 * keptFraction)
  }

  /// Compares `result` with `truth`.
  public init(result: HeadReconstruction, truth: SimulationTruth) {
    let truthMarkers = Dictionary(uniqueKeysWithValues: truth.markers.map { ($0.id, $0) })
    guard let worldMarker = truthMarkers[result.worldMarkerID] else { return }
    let headFromWorld = worldMarker.headFromMarker
    world = Self.errors(result, truth, headFromEstimate: headFromWorld)
    let pairs = result.markers.compactMap { m in truthMarkers[m.id].map { (m.corners, $0.corners) } }
    if let fit = RigidTransform.bestFit(from: pairs.flatMap(\.0), to: pairs.flatMap(\.1)) {
      aligned = Self.errors(result, truth, headFromEstimate: fit.transform)
      markers = result.markers.compactMap { m in
        truthMarkers[m.id].map { t in
          let estimate = fit.transform * m.worldFromMarker
          let (angle, distance) = estimate.difference(to: t.headFromMarker)
          // The error as a rotation vector in the true marker's frame: z is its normal.
          let error = (t.headFromMarker.rotation.transposed * estimate.rotation).rotationVector * 180 / .pi
          return MarkerError(
            id: m.id, millimetres: distance * 1000, degrees: angle * 180 / .pi, inPlaneDegrees: abs(error.z),
            tiltDegrees: (error.x * error.x + error.y * error.y).squareRoot(), observations: m.observations, rms: m.rms * 1000,
            cornerErrors: zip(m.corners, t.corners).map { e, c in t.headFromMarker.rotation.transposed * (fit.transform.apply(e) - c) * 1000 })
        }
      }
      let kept = result.markers.flatMap(\.corners)
      let centre = kept.reduce(SIMD3<Double>.zero, +) / Double(max(1, kept.count))
      cameras = result.frames.compactMap { f in
        guard let pose = f.worldFromCamera, f.index < truth.cameras.count else { return nil }
        let trueHeadFromCamera = truth.cameras[f.index].headFromCamera
        let centreError = (trueHeadFromCamera.apply(pose.inverse.apply(centre)) - fit.transform.apply(centre)).length
        return CameraError(
          frame: f.index, millimetres: (fit.transform * pose).difference(to: trueHeadFromCamera).distance * 1000,
          markers: f.liftedByDepth, rms: (f.rms ?? 0) * 1000, centreMillimetres: centreError * 1000,
          poseUncertainty: f.poseUncertainty.map { $0 * 1000 })
      }
    }
    keptFraction = Double(result.framesRegistered) / Double(max(1, result.frames.count))
  }

  /// Errors with the estimate mapped into the truth's head frame by `headFromEstimate`.
  static func errors(_ result: HeadReconstruction, _ truth: SimulationTruth, headFromEstimate: RigidTransform) -> Errors {
    var e = Errors()
    let truthMarkers = Dictionary(uniqueKeysWithValues: truth.markers.map { ($0.id, $0) })
    for m in result.markers {
      guard let t = truthMarkers[m.id] else { continue }
      let (angle, distance) = (headFromEstimate * m.worldFromMarker).difference(to: t.headFromMarker)
      e.markerTranslation = max(e.markerTranslation, distance * 1000)
      e.markerRotation = max(e.markerRotation, angle * 180 / .pi)
    }
    var cameras: [Double] = []
    for f in result.frames {
      guard let pose = f.worldFromCamera, f.index < truth.cameras.count else { continue }
      cameras.append((headFromEstimate * pose).difference(to: truth.cameras[f.index].headFromCamera).distance * 1000)
    }
    e.cameraTranslation = cameras.max() ?? 0
    e.medianCameraTranslation = cameras.isEmpty ? 0 : cameras.sorted()[cameras.count / 2]
    // Distance to the exact surface: F / |∇F| of the model's implicit function (first order).
    let head = HeadShape(solving: truth.parameters)
    let modelFromEstimate = head.clinicalFrame.worldFromHead * headFromEstimate
    var sum = 0.0
    var scored = 0
    for p in result.cloud.positions {
      let q = modelFromEstimate.apply(SIMD3<Double>(p))
      guard (headFromEstimate.apply(SIMD3<Double>(p))).z >= HeadShape.bumpCeiling else { continue }
      scored += 1
      let d = head.surfaceDistance(q)
      sum += d * d
    }
    e.cloudRMS = (sum / Double(max(1, scored))).squareRoot() * 1000
    e.cloudPointsScored = scored
    return e
  }

  /// Reads `<scan>.truth.json` written by the simulator beside a scan.
  public static func truth(beside scanPath: String) throws -> SimulationTruth {
    let path = companionBase(of: scanPath) + ".truth.json"
    guard FileManager.default.fileExists(atPath: path) else {
      throw ScanIOError.missingFile(path: path)
    }
    let data: Data
    do {
      data = try ReadOnlyFile.contents(of: path)
    } catch {
      throw ScanIOError.cannotOpen(path: path, reason: error.problem)
    }
    let truth: SimulationTruth
    do {
      truth = try JSONDecoder().decode(SimulationTruth.self, from: data)
    } catch {
      throw ScanIOError.invalidJSON(path: path, detail: String(describing: error))
    }
    // Markers are looked up by id: one id twice would make the comparison ambiguous.
    var seen = Set<Int>()
    for marker in truth.markers where !seen.insert(marker.id).inserted {
      throw ScanIOError.invalidValue(path: path, key: "markers", detail: "marker id \(marker.id) appears more than once")
    }
    return truth
  }
}
