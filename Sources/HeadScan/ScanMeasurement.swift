import CVAI
import Landmarks
import Reconstruction
import Registration
import Reports

/// Everything one measured scan produced: the report, and the values it was made from.
public struct ScanMeasurement: Sendable {
  /// How long each part took, seconds.
  public struct Timings: Sendable, Hashable {
    /// Registration and fusion, by stage.
    public var reconstruction: ReconstructionTimings
    /// Head frame, slicing and measures.
    public var measuring: Double
    /// Bootstrap intervals (0 when not computed).
    public var bootstrapping: Double

    /// All of it.
    public var total: Double { reconstruction.total + measuring + bootstrapping }
  }

  /// The report, as `headscan measure --json` writes it.
  public var report: MeasureReport
  /// The registered, fused head in the world frame (the lowest kept marker's own frame), metres.
  public var reconstruction: HeadReconstruction
  /// The head frame and the slicing it was measured with.
  public var headFrame: HeadFrameEstimate
  /// Layers, measurement level and measures, in the head frame (millimetres).
  public var measurement: HeadMeasurement
  /// Bootstrap 95 % intervals, when asked for and computable.
  public var intervals: MeasureIntervals?
  /// Time taken.
  public var timings: Timings
}
