import ScanIO

/// The reconstruction's length scale against the printed stickers.
///
/// Lateral positions are pixel offsets times depth over the focal length, so a depth sensor
/// that reads every distance 1 % long, or a focal length stated 1 % short, makes every marker
/// 1 % larger than printed. The focal-length check measures exactly this product: its estimate
/// over the focal length the depth was lifted with is the factor by which the map's lengths
/// exceed the stickers' (``depthScaleFactor``). Applying it divides every depth by that
/// factor, which makes the map metric when the depth scale is what is off.
///
/// In `reconstruct --json` and `measure --json` the key `scale` holds
/// `{"depthScaleFactor": …, "uncertainty": …, "applied": true|false}`.
public struct MetricScale: Sendable, Hashable, Codable {
  /// The map's lengths over the printed stickers' (1.01: the depth as read makes the head
  /// 1 % too large), from the focal-length check: estimate over the focal length used.
  public var depthScaleFactor: Double
  /// One standard uncertainty of ``depthScaleFactor`` (the check's relative uncertainty).
  public var uncertainty: Double
  /// Whether every depth was divided by ``depthScaleFactor`` before fusion and landmark lifting.
  public var applied: Bool

  /// A scale from its values.
  public init(depthScaleFactor: Double, uncertainty: Double, applied: Bool) {
    (self.depthScaleFactor, self.uncertainty, self.applied) = (depthScaleFactor, uncertainty, applied)
  }

  /// The scale a focal-length check shows for depth lifted with `focalLengthUsed` pixels:
  /// applied always with ``ScaleSource/markers``, never with ``ScaleSource/depth``, and with
  /// ``ScaleSource/auto`` where the markers tell it: the check used edge-fitted corners (no
  /// corner bias left that grows as markers shrink) and `|factor − 1| > 2·uncertainty` (the
  /// scale is off by more than the markers' 95 % interval, so the correction removes more
  /// error than it brings). `nil` without a check or a positive focal length.
  public init?(check: IntrinsicsCheck?, focalLengthUsed: Double, source: ScaleSource) {
    guard let check, focalLengthUsed > 0, check.focalLengthEstimate.isFinite, check.focalLengthEstimate > 0 else { return nil }
    let factor = check.focalLengthEstimate / focalLengthUsed
    let uncertainty = check.focalLengthUncertainty / check.focalLengthEstimate
    guard factor.isFinite, uncertainty.isFinite else { return nil }
    let told = check.edgeFittedCorners && abs(factor - 1) > 2 * uncertainty
    self.init(depthScaleFactor: factor, uncertainty: uncertainty, applied: source == .markers || (source == .auto && told))
  }
}

/// Where a reconstruction's metric scale comes from.
public enum ScaleSource: String, Sendable, Hashable, CaseIterable, Codable {
  /// The printed stickers where they tell the scale apart from 1
  /// (``MetricScale/init(check:focalLengthUsed:source:)``); the depth sensor's own elsewhere.
  /// With the stated focal length, one that edge-fitted markers call inconsistent is replaced
  /// by theirs first (`reconstructHead`: a second detection pass).
  case auto
  /// The printed stickers wherever a focal-length check was made.
  case markers
  /// The depth sensor's own, whatever the stickers show (the scale is still reported).
  case depth
}

/// A scan whose every depth is multiplied by one factor: images, intrinsics and timestamps are
/// the scan's own.
public final class DepthScaledScan: ScanReader {
  /// The scan as read.
  public let original: any ScanReader
  /// The factor on every depth.
  public let factor: Float
  public var header: ScanHeader { original.header }

  /// `scan` with its depth times `factor` (positive and finite).
  public init(_ scan: any ScanReader, factor: Double) {
    precondition(factor.isFinite && factor > 0, "depth factor must be positive")
    original = scan
    self.factor = Float(factor)
  }

  public var path: String { original.path }
  public var frameCount: Int { original.frameCount }
  public var warnings: [ScanWarning] { original.warnings }

  public func frame(at index: Int) throws(ScanIOError) -> ScanFrame {
    let frame = try original.frame(at: index)
    let factor = self.factor
    let depth = DepthMap(
      width: frame.depth.width, height: frame.depth.height, metres: frame.depth.metres.map { $0 * factor },
      intrinsics: frame.depth.intrinsics)
    return ScanFrame(index: frame.index, timestamp: frame.timestamp, depth: depth, color: frame.color)
  }

  public func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError) {
    try original.readFrame(at: index, into: &frame)
    guard frame != nil else { return }
    let factor = self.factor
    frame!.depth.metres.withUnsafeMutableBufferPointer { metres in
      for i in metres.indices { metres[i] *= factor }
    }
  }

  public func timestamp(at index: Int) throws(ScanIOError) -> Double { try original.timestamp(at: index) }
}
