import _HeadScanSupport

/// The noise of one scan, estimated from the scan itself, and the limits derived from it that
/// judge its detections and markers.
///
/// Nothing here is a constant tuned on one sensor: the depth noise comes from the spread of each
/// sticker's depth pixels about the smooth surface fitted through them, the outlier limit from
/// the spread of all detections' misfits, the marker limits from the spread of the markers'
/// residuals (``MarkerFit``, ``PeerTest``).
public struct ScanNoise: Sendable, Hashable {
  /// Depth noise at 20 cm, metres, for the model σ(z) = σ₂₀ · (z / 0.2 m)² (structured-light
  /// depth noise grows with the square of the distance): the median over depth-lifted sticker
  /// observations of their spread scaled to 20 cm. `nil` without such observations.
  public var depthNoiseAt20cm: Double?
  /// Sticker observations the depth noise comes from.
  public var depthSamples: Int = 0
  /// The far end of the depths the head was seen at, metres: the 90th percentile of the
  /// depth-lifted sticker observations' mean corner depth (`nil` without such observations).
  /// The signed-distance fusion's band is set for the noise there
  /// (`FusionOptions/truncation(for:)`).
  public var farDepth: Double?
  /// The median over placed detections of their corners' RMS distance from where their
  /// frame's other markers put them, metres (after chaining, before the global optimisation).
  public var typicalMisfit: Double?
  /// Detections farther than this from where their frame's other markers put them are
  /// outliers, metres (``ChainOptions/outlierDeviations`` above the median misfit).
  public var outlierDistance: Double = .infinity

  /// Depth noise at distance `z` (metres) under the model, metres.
  public func depthNoise(atDistance z: Double) -> Double? { depthNoiseAt20cm.map { $0 * (z / 0.2) * (z / 0.2) } }

  /// Depth noise at ``farDepth``, metres; `nil` without an estimate.
  public var farDepthNoise: Double? { farDepth.flatMap { depthNoise(atDistance: $0) } }

  /// No estimate yet.
  public init() {}

  /// The depth noise of depth-lifted sticker observations (every frame's markers).
  init(depthOf markers: [[LiftedMarker]]) {
    var scaled: [Double] = [], depths: [Double] = []
    for frame in markers {
      for m in frame where m.method == .depth {
        guard let spread = m.depthSpread, spread > 0 else { continue }
        let z = m.cameraCorners.reduce(0) { $0 + $1.z } / Double(max(1, m.cameraCorners.count))
        guard z > 0 else { continue }
        scaled.append(spread / ((z / 0.2) * (z / 0.2)))
        depths.append(z)
      }
    }
    depthSamples = scaled.count
    depthNoiseAt20cm = scaled.isEmpty ? nil : upperMedian(scaled)
    farDepth = depths.isEmpty ? nil : orderStatistic(depths, Int((0.9 * Double(depths.count - 1)).rounded(.up)))
  }
}
