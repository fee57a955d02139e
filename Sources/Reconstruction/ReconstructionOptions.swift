import Fusion
import Registration

/// Settings of ``reconstructHead(_:options:progress:)``: one option set per stage.
///
/// Each stage's options are also what its stage function takes, so a caller that runs the
/// stages one at a time (see ``reconstructHead(_:options:progress:)``) passes the same values.
public struct ReconstructionOptions: Sendable, Hashable {
  /// Detecting and lifting each frame's markers.
  public var observation = ObservationOptions.default
  /// Chaining frames through shared markers.
  public var chain = ChainOptions.default
  /// The global optimisation with residual rejection.
  public var optimisation = OptimisationOptions.default
  /// Placing low-depth frames and the marker corners from their pixels.
  public var resection = ResectionOptions.default
  /// Which markers are kept in the map (and may define the world).
  public var markerKeep = MarkerKeepRule.default
  /// Whether to fuse the depth into a cloud (pass 2); without it the result has no cloud and
  /// the markers are not settled.
  public var fuse = true
  /// Fusing the registered frames' depth.
  public var fusion = FusionOptions.default
  /// Removing outliers and smoothing the fused cloud.
  public var cleaning = CleaningOptions.default
  /// Whether, after fusion, the markers' corners are moved along the surface normal onto the
  /// fused surface and the world defined from the world marker's settled corners.
  /// One frame's depth at a sticker's corners is noisy and, seen at a grazing angle, biased;
  /// the fused surface averages hundreds of frames, so the settled corners give the stickers'
  /// (and so the world's) orientation several times more accurately.
  public var settleMarkersOnSurface = true
  /// Settling the markers on the fused surface.
  public var settling = SettlingOptions.default
  /// The focal length the depth is lifted with: the scan's own (default), the one its
  /// markers show, or a given one (`FocalLengthChoice`).
  public var focalLength = FocalLengthChoice.stated
  /// Checking the stated focal length against the markers (`checkIntrinsics(_:statedFocalLength:options:)`).
  public var intrinsicsCheck = IntrinsicsCheckOptions.default
  /// Where the metric scale comes from: the printed stickers where they tell it (`auto`, the
  /// default), the stickers always, or the depth sensor alone (`ScaleSource`,
  /// ``HeadReconstruction/scale``).
  public var scale = ScaleSource.auto

  /// Worker threads of every parallel stage (observation, focal-length check, optimisation,
  /// marker triangulation, fusion, cleaning); `nil` (the default): one a core this process may use. At most one a core runs
  /// at once, so a larger count adds neither speed nor memory; the result does not depend on it.
  public var workers: Int? {
    get { observation.workers }
    set {
      observation.workers = newValue
      intrinsicsCheck.workers = newValue
      optimisation.workers = newValue
      resection.workers = newValue
      fusion.workers = newValue
      cleaning.workers = newValue
    }
  }

  /// The defaults.
  public static let `default` = ReconstructionOptions()

  public init() {}
}
