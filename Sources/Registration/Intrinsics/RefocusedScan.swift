import ScanIO

/// A scan read with another focal length than its header states: every frame's colour and
/// depth intrinsics, and the header's, have `fx` and `fy` multiplied by one factor
/// (the intrinsics scale to each image's size, so the factor is the same for
/// colour and depth); principal points, images and depth are the scan's own.
public final class RefocusedScan: ScanReader {
  /// The scan as recorded.
  public let original: any ScanReader
  /// The factor on `fx` and `fy`.
  public let factor: Double
  public let header: ScanHeader

  /// The scan with `fx` of its colour image set to `focalLength` pixels (`fy` scaled alike).
  /// - Throws: ``ReconstructionError/invalidOption(path:detail:)`` when `focalLength` is not a positive
  ///   finite number or the scan states no positive `fx`.
  public init(_ scan: any ScanReader, focalLength: Double) throws(ReconstructionError) {
    let stated = scan.header.colorIntrinsics.fx
    guard focalLength.isFinite, focalLength > 0, stated.isFinite, stated > 0 else {
      throw .invalidOption(path: scan.path, detail: "focal length must be a positive number of pixels, not \(focalLength)")
    }
    original = scan
    factor = focalLength / stated
    var header = scan.header
    header.intrinsics = header.intrinsics.refocused(by: factor)
    self.header = header
  }

  public var path: String { original.path }
  public var frameCount: Int { original.frameCount }
  public var warnings: [ScanWarning] { original.warnings }
  /// The focal length the scan states, colour-image pixels.
  public var statedFocalLength: Double { original.header.colorIntrinsics.fx }

  public func frame(at index: Int) throws(ScanIOError) -> ScanFrame { refocused(try original.frame(at: index)) }

  public func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError) {
    try original.readFrame(at: index, into: &frame)
    if let read = frame { frame = refocused(read) }
  }

  /// `frame` with both images' intrinsics refocused (the same buffers).
  private func refocused(_ frame: ScanFrame) -> ScanFrame {
    let depth = DepthMap(
      width: frame.depth.width, height: frame.depth.height, metres: frame.depth.metres,
      intrinsics: frame.depth.intrinsics.refocused(by: factor))
    let colour = ColorImage(
      width: frame.color.width, height: frame.color.height, bgra: frame.color.bgra, intrinsics: frame.color.intrinsics.refocused(by: factor))
    return ScanFrame(index: frame.index, timestamp: frame.timestamp, depth: depth, color: colour)
  }

  public func timestamp(at index: Int) throws(ScanIOError) -> Double { try original.timestamp(at: index) }
}

extension CameraIntrinsics {
  /// The same camera with `fx` and `fy` multiplied by `factor`.
  func refocused(by factor: Double) -> CameraIntrinsics {
    CameraIntrinsics(fx: fx * factor, fy: fy * factor, cx: cx, cy: cy, width: width, height: height)
  }
}

/// Which focal length a reconstruction lifts the depth with.
public enum FocalLengthChoice: Sendable, Hashable {
  /// The scan's own intrinsics.
  case stated
  /// The focal length the scan's markers show (``checkIntrinsics(_:statedFocalLength:options:)``);
  /// the stated one where the scan shows too few markers for an estimate.
  case estimate
  /// This focal length, pixels of the colour image (`fx`; `fy` scaled by the same factor).
  case pixels(Double)
}
