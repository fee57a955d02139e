import CVAI
import Reconstruction
import Registration
import ScanIO

/// How ``measureScan(at:landmarks:options:progress:)`` measures.
public struct MeasureOptions: Sendable, Hashable {
  /// Which diagonal divides CVA to give the report's `cvai` (default the longer).
  public var denominator = CVAIDenominator.longer
  /// Whether to compute the bootstrap 95 % intervals of the measures (`intervals95`; a few
  /// seconds on a full scan).
  public var bootstrap = true
  /// How each layer's points become its contour (`ContourMethod`; the head frame's own
  /// slicing convention is kept otherwise).
  public var contour = ContourMethod.fourierFit
  /// Distance between the layers, millimetres (`nil`, the default: the head frame's own, 1 mm).
  /// The measurement level's parabola is fitted to the layers within ±10 mm of the longest
  /// whatever their spacing; the intervals' calibration was measured with 1 mm layers.
  public var layerSpacing: Double?
  /// Registration and fusion.
  public var reconstruction = ReconstructionOptions.default
  /// How the scan is opened: the cap for formats that do not record it (default: the
  /// sidecar `NAME.cap.json`), Record3D's confidence filter.
  public var scan = ScanOpenOptions.default

  /// Worker threads of every parallel stage (``ReconstructionOptions/workers``); `nil`: one a
  /// core this process may use.
  public var workers: Int? {
    get { reconstruction.workers }
    set { reconstruction.workers = newValue }
  }

  /// The defaults: longer diagonal, intervals, default reconstruction.
  public static let `default` = MeasureOptions()

  public init() {}
}
