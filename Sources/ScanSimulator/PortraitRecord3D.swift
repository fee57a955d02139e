import Foundation
import PointCloud
import ScanIO

/// Writes a simulated landscape scan as a portrait Record3D `.r3d` export, as the front
/// TrueDepth camera of a phone held upright records it.
///
/// The simulator renders landscape frames (W × H, camera x right, y down). Each is turned
/// **90° clockwise** into a portrait frame of H × W: the landscape pixel (u, v) lands on
/// (H − 1 − v, u). The camera turns with it about its optical axis: a portrait camera point
/// (x′, y′, z) is the landscape point (y′, −x′, z), and the intrinsics become fx′ = fy,
/// fy′ = fx, cx′ = H − 1 − cy, cy′ = cx. Depth values (z) are unchanged. Every ray keeps its
/// depth, so the portrait frames lift to the same points in the world (marker) frame and
/// reconstruct the same head; the landmarks file and the truth's camera poses are turned
/// the same way.
public final class PortraitRecord3D {
  /// The landscape header the frames were rendered for.
  public let landscape: ScanHeader
  /// Whether `rgbd/<i>.conf` maps are written (2 where there is depth, 0 where not).
  public let writesConfidence: Bool
  private let writer: Record3DWriter

  /// Starts the export.
  /// - Throws: `ScanIOError/cannotWrite(path:reason:)`.
  public init(path: String, landscape: ScanHeader, writesConfidence: Bool, jpegQuality: Int = 92) throws(ScanIOError) {
    self.landscape = landscape
    self.writesConfidence = writesConfidence
    let k = Self.portrait(landscape.colorIntrinsics)
    let metadata = Record3DMetadata(
      colorWidth: landscape.colorHeight, colorHeight: landscape.colorWidth,
      depthWidth: landscape.depthHeight, depthHeight: landscape.depthWidth, fps: landscape.fps, intrinsics: k, camera: .trueDepth)
    writer = try Record3DWriter(path: path, metadata: metadata, jpegQuality: jpegQuality)
  }

  /// Turns a landscape frame and appends it.
  public func append(timestamp: Double, depthMetres: [Float], colorBGRA: [UInt8]) throws(ScanIOError) {
    let depth = Self.turnClockwise(depthMetres, width: landscape.depthWidth, height: landscape.depthHeight, channels: 1)
    let colour = Self.turnClockwise(colorBGRA, width: landscape.colorWidth, height: landscape.colorHeight, channels: 4)
    let confidence = writesConfidence ? depth.map { $0.isFinite && $0 > 0 ? UInt8(2) : 0 } : nil
    try writer.append(timestamp: timestamp, depthMetres: depth, colorBGRA: colour, confidence: confidence)
  }

  /// Writes the metadata and moves the export into place.
  public func finish() throws(ScanIOError) { try writer.finish() }

  /// Pixels of a `width × height` landscape image turned 90° clockwise (`height × width`).
  public static func turnClockwise<T>(_ pixels: [T], width: Int, height: Int, channels: Int) -> [T] {
    var out = pixels
    for y in 0..<height {
      for x in 0..<width {
        // Landscape (x, y) → portrait (height − 1 − y, x) in an image `height` wide.
        let target = (x * height + (height - 1 - y)) * channels
        let source = (y * width + x) * channels
        for c in 0..<channels { out[target + c] = pixels[source + c] }
      }
    }
    return out
  }

  /// The portrait camera's intrinsics from the landscape ones.
  public static func portrait(_ k: CameraIntrinsics) -> CameraIntrinsics {
    CameraIntrinsics(fx: k.fy, fy: k.fx, cx: Double(k.height - 1) - k.cy, cy: k.cx, width: k.height, height: k.width)
  }

  /// A landscape pixel's place in the portrait image (`height`: the landscape image's height).
  public static func portraitPixel(u: Double, v: Double, landscapeHeight height: Int) -> (u: Double, v: Double) {
    (Double(height - 1) - v, u)
  }

  /// Maps portrait camera coordinates to landscape ones: (x′, y′, z) → (y′, −x′, z).
  public static let landscapeFromPortrait = RigidTransform(
    rotation: Rotation3(columns: [0, -1, 0], [1, 0, 0], [0, 0, 1]), translation: .zero)

  /// The truth of a landscape simulation, with camera poses, blur directions and
  /// intrinsics of the portrait frames.
  static func portraitTruth(_ truth: SimulationTruth) -> SimulationTruth {
    var turned = truth
    turned.cameras = truth.cameras.map { camera in
      var c = camera
      c.headFromCamera = camera.headFromCamera * landscapeFromPortrait
      if let blur = camera.motionBlur { c.motionBlur = .init(length: blur.length, angle: (blur.angle + 90).truncatingRemainder(dividingBy: 180)) }
      return c
    }
    if var conditions = truth.conditions {
      conditions.renderedIntrinsics = portrait(conditions.renderedIntrinsics)
      conditions.statedIntrinsics = portrait(conditions.statedIntrinsics)
      turned.conditions = conditions
    }
    return turned
  }

  /// Landmark positions with pixels moved to the portrait frames.
  static func portraitLandmarks(_ positions: [String: LandmarkFile.Position], landscapeHeight: Int) -> [String: LandmarkFile.Position] {
    positions.mapValues { position in
      guard case .pixel(let frame, let u, let v) = position else { return position }
      let turned = portraitPixel(u: u, v: v, landscapeHeight: landscapeHeight)
      return .pixel(frame: frame, u: turned.u, v: turned.v)
    }
  }
}
