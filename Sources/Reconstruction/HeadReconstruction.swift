import Fusion
import Registration
import PointCloud
import ScanIO

/// The result of ``reconstructHead(_:options:progress:)``: the registration and the fused cloud,
/// in the world frame (the world marker's own frame, metres).
public struct HeadReconstruction: Sendable {
  /// One entry per frame read.
  public var frames: [FrameDiagnostics]
  /// The marker map, sorted by id.
  public var markers: [RegisteredMarker]
  /// Every optimised marker's fit and the keep rule's verdict on it, by ascending id.
  public var markerFits: [MarkerFit] = []
  /// The scan's noise, estimated from the scan, and the limits derived from it.
  public var noise = ScanNoise()
  /// The marker whose frame is the world (the lowest kept id).
  public var worldMarkerID: Int
  /// RMS over all kept observations of the 3D corner residual, metres.
  public var cornerRMS: Double
  /// Distinct cap ids detected anywhere.
  public var markersDetected: [Int]
  /// Detections dropped because their id is not on the cap (false positives).
  public var offCapDetections: Int
  /// The fused head: positions (world, metres), outward normals, colours.
  public var cloud: PointSet
  /// Where the time went.
  public var timings = ReconstructionTimings()
  /// Each stage's time and diagnostics counts, in order.
  public var stages: [StageReport] = []
  /// The scan's stated focal length against the one its markers show, from the first
  /// observation pass (before any registration); `nil` when too few markers were lifted by depth.
  public var intrinsicsCheck: IntrinsicsCheck? = nil
  /// The focal length the depth was lifted with, colour-image pixels, where it is not the
  /// scan's stated one (``ReconstructionOptions/focalLength``); `nil` for the stated one.
  public var focalLengthUsed: Double? = nil
  /// The map's length scale against the printed stickers, and whether it was applied
  /// (``ReconstructionOptions/scale``); `nil` without a focal-length check.
  public var scale: MetricScale? = nil

  /// The factor every depth of the scan was multiplied by before fusion: one over the
  /// applied ``MetricScale/depthScaleFactor``, 1 where none was applied.
  public var depthFactor: Double { scale.map { $0.applied ? 1 / $0.depthScaleFactor : 1 } ?? 1 }

  /// `scan` as this reconstruction lifted it: with the focal length it used and its depth
  /// times ``depthFactor``, so that its frames' depth and the poses agree (pixel landmarks are
  /// lifted through it).
  /// - Throws: `ReconstructionError` when the focal length used is not positive.
  public func liftingScan(_ scan: any ScanReader) throws -> any ScanReader {
    let refocused = try focalLengthUsed.map { try RefocusedScan(scan, focalLength: $0) } ?? scan
    return depthFactor == 1 ? refocused : DepthScaledScan(refocused, factor: depthFactor)
  }

  /// Registered frames whose depth was fused (`FusionOptions/maximumFrames` caps them); 0
  /// without fusion.
  public var framesFused = 0

  /// Frames given a pose.
  public var framesRegistered: Int { frames.filter { $0.worldFromCamera != nil }.count }
}

/// Wall-clock seconds spent in each stage of ``reconstructHead(_:options:progress:)``.
public struct ReconstructionTimings: Sendable, Hashable {
  /// Pass 1: reading every frame, detecting markers, lifting them to 3D.
  public var detection = 0.0
  /// Chaining frames through markers and the global optimisation.
  public var registration = 0.0
  /// Pass 2: reading the registered frames again, back-projecting and averaging per voxel (with ICP if asked).
  public var fusion = 0.0
  /// Outlier removal and smoothing onto local planes (normals).
  public var cleaning = 0.0
  /// Settling the markers onto the surface and re-expressing the world.
  public var settling = 0.0

  /// All zero.
  public init() {}

  /// All stages.
  public var total: Double { detection + registration + fusion + cleaning + settling }
}
