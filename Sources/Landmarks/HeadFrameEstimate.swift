import CVAI
import PointCloud
import Reconstruction
import Registration
import ScanIO

/// A head frame for a reconstruction together with the conventions it is measured by.
///
/// The frame (docs/head-frame-and-measures.md) and the slicing that goes with it travel as one value, so no
/// caller pairs a frame with slicing options by hand: layers start at the ears' plane for
/// the landmarks' frame, and at the lowest scanned layer for the automatic frame (whose
/// origin is the bottom of the scanned head).
public struct HeadFrameEstimate: Sendable, Hashable {
  /// Where a head frame came from.
  public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
    /// The four landmarks (nasion, nose tip, both tragions).
    case landmarks
    /// The head's mirror symmetry and the cap's axis (experimental; see ``AutomaticHeadFrame``).
    case automatic
    /// The four landmarks found on the reconstruction (``detectLandmarks(cloud:markers:)``).
    case automaticLandmarks = "automatic landmarks"
  }

  /// Maps world points (metres) into the head frame (metres).
  public var headFromWorld: RigidTransform
  /// How the head is cut into layers in this frame.
  public var slicing: SlicingOptions
  /// Where the frame came from.
  public var source: Source
  /// The lifted landmarks in the world frame (metres), for a landmarks' frame.
  public var landmarks: HeadLandmarks?
  /// For the automatic frame: RMS distance of the mirrored cloud to the cloud (clipped at
  /// 1 cm), metres; the head's own asymmetry plus noise.
  public var symmetryRMS: Double?
  /// For automatic landmarks: the proposals with their confidences (world, metres).
  public var automaticLandmarks: AutomaticLandmarks?

  /// The frame of landmarks placed in the world (metres), sliced from the ears' plane up.
  /// - Throws: `HeadFrameError` when the landmarks do not define a frame.
  public init(landmarks: HeadLandmarks) throws(HeadFrameError) {
    headFromWorld = try landmarks.headFrame().headFromWorld
    slicing = .default
    source = .landmarks
    self.landmarks = landmarks
  }

  /// The frame of automatic landmarks, every one at least `minimumConfidence`, sliced from
  /// the ears' plane up like any landmarks' frame.
  /// - Throws: ``AutomaticLandmarkError`` naming the landmarks below the confidence, or
  ///   `HeadFrameError` when the points make no frame.
  public init(automaticLandmarks found: AutomaticLandmarks, minimumConfidence: Double = AutomaticLandmarks.minimumConfidence) throws {
    try self.init(landmarks: try found.accepted(minimumConfidence: minimumConfidence))
    source = .automaticLandmarks
    automaticLandmarks = found
  }

  /// The automatic frame, sliced from the lowest scanned layer up.
  public init(automatic frame: AutomaticHeadFrame) {
    headFromWorld = frame.headFromWorld
    slicing = .fromLowestPoint
    source = .automatic
    symmetryRMS = frame.symmetryRMS
  }

  /// The frame of a landmarks file (docs/formats.md) lifted into `reconstruction`'s world.
  /// - Throws: ``LandmarkError`` naming `path` (a landmark that cannot be placed, or points
  ///   that make no frame) or `ScanIOError`.
  public static func fromLandmarks(
    _ file: LandmarkFile, path: String, scan: any ScanReader, reconstruction: HeadReconstruction
  ) throws -> HeadFrameEstimate {
    let landmarks = try liftLandmarks(file, path: path, scan: scan, reconstruction: reconstruction)
    do {
      return try HeadFrameEstimate(landmarks: landmarks)
    } catch {
      throw LandmarkError.noHeadFrame(path: path, error)
    }
  }

  /// The automatic frame of a reconstruction's fused cloud and registered stickers.
  /// - Throws: ``AutomaticHeadFrameError``.
  public static func automatic(_ reconstruction: HeadReconstruction) throws(AutomaticHeadFrameError) -> HeadFrameEstimate {
    HeadFrameEstimate(automatic: try estimateHeadFrame(cloud: reconstruction.cloud, markers: reconstruction.markers))
  }

  /// The frame of landmarks found on a reconstruction, each located in the frame that sees it best.
  /// - Parameter intrinsics: the scan's colour intrinsics (`ScanHeader.intrinsics`), for the pixels.
  /// - Throws: ``AutomaticLandmarkError`` (no cap, or a landmark below the confidence, named),
  ///   or `HeadFrameError`.
  public static func fromAutomaticLandmarks(_ reconstruction: HeadReconstruction, intrinsics: CameraIntrinsics) throws -> HeadFrameEstimate {
    let found = try detectLandmarks(cloud: reconstruction.cloud, markers: reconstruction.markers)
    return try HeadFrameEstimate(automaticLandmarks: found.locatingViews(reconstruction: reconstruction, intrinsics: intrinsics))
  }

  /// Points of a world cloud (metres) in the head frame (metres).
  public func headPoints(of cloud: PointSet) -> [SIMD3<Double>] {
    cloud.positions.map { headFromWorld.apply(SIMD3<Double>($0)) }
  }

  /// Measures a world cloud in this frame with this frame's slicing (docs/head-frame-and-measures.md).
  /// - Throws: `MeasurementError`.
  public func measure(_ cloud: PointSet) throws(MeasurementError) -> HeadMeasurement {
    try measureHead(points: headPoints(of: cloud), options: slicing)
  }
}
