import Foundation

/// The `metadata` entry of a Record3D `.r3d` export: JSON describing the images and camera.
///
/// Keys as the Record3D app writes them: `w`, `h` (colour size), `dw`, `dh` (depth size),
/// `fps`, `K` (the colour image's 3×3 intrinsics, **column-major**: `[fx, 0, 0, 0, fy, 0,
/// cx, cy, 1]`), `cameraType` (0 the front TrueDepth camera, 1 the rear LiDAR), and
/// optionally `perFrameIntrinsicCoeffs` (`[fx, fy, cx, cy]` a frame, colour pixels),
/// `frameTimestamps` (seconds). `poses` and `initPose` (ARKit camera-to-world, meaningless
/// for the front camera) are neither required nor used.
public struct Record3DMetadata: Sendable, Hashable {
  /// Which camera recorded.
  public enum Camera: Int, Sendable, Hashable {
    /// The front TrueDepth ("FaceID") camera.
    case trueDepth = 0
    /// The rear LiDAR camera.
    case lidar = 1
  }

  /// Colour image width and height, pixels.
  public var colorWidth: Int
  public var colorHeight: Int
  /// Depth map width and height, pixels.
  public var depthWidth: Int
  public var depthHeight: Int
  /// Frames per second.
  public var fps: Double
  /// The colour image's intrinsics, from `K`.
  public var intrinsics: CameraIntrinsics
  /// The camera; `nil` when the file does not say or says something unknown.
  public var camera: Camera?
  /// Each frame's colour intrinsics, when the file has `perFrameIntrinsicCoeffs`.
  public var perFrameIntrinsics: [CameraIntrinsics]?
  /// Each frame's time, seconds, when the file has `frameTimestamps`.
  public var frameTimestamps: [Double]?

  /// The JSON as written by the app (only the keys read).
  struct Raw: Codable {
    var w: Int
    var h: Int
    var dw: Int
    var dh: Int
    var fps: Double
    var K: [Double]
    var cameraType: Int?
    var perFrameIntrinsicCoeffs: [[Double]]?
    var frameTimestamps: [Double]?
  }

  public init(
    colorWidth: Int, colorHeight: Int, depthWidth: Int, depthHeight: Int, fps: Double, intrinsics: CameraIntrinsics,
    camera: Camera? = .trueDepth, perFrameIntrinsics: [CameraIntrinsics]? = nil, frameTimestamps: [Double]? = nil
  ) {
    self.colorWidth = colorWidth
    self.colorHeight = colorHeight
    self.depthWidth = depthWidth
    self.depthHeight = depthHeight
    self.fps = fps
    self.intrinsics = intrinsics
    self.camera = camera
    self.perFrameIntrinsics = perFrameIntrinsics
    self.frameTimestamps = frameTimestamps
  }

  /// Parses the `metadata` entry; errors name `path` and the key (`metadata.K`, …).
  public init(json data: Data, path: String) throws(ScanIOError) {
    let raw = try decodeJSON(Raw.self, from: data, path: path)
    func key(_ name: String) -> String { "metadata." + name }
    guard raw.K.count == 9, raw.K.allSatisfy(\.isFinite) else {
      throw .invalidValue(path: path, key: key("K"), detail: "expected 9 finite numbers (a column-major 3×3 matrix)")
    }
    guard raw.K[2] == 0, raw.K[5] == 0, raw.K[8] == 1 else {
      throw .invalidValue(path: path, key: key("K"), detail: "not a column-major intrinsics matrix (last row must be 0, 0, 1)")
    }
    // Column-major: columns (fx, 0, 0), (skew, fy, 0), (cx, cy, 1).
    let intrinsics = CameraIntrinsics(fx: raw.K[0], fy: raw.K[4], cx: raw.K[6], cy: raw.K[7], width: raw.w, height: raw.h)
    var perFrame: [CameraIntrinsics]?
    if let coefficients = raw.perFrameIntrinsicCoeffs {
      perFrame = []
      for (i, c) in coefficients.enumerated() {
        guard c.count >= 4, c[0].isFinite, c[0] > 0, c[1].isFinite, c[1] > 0, c[2].isFinite, c[3].isFinite else {
          throw .invalidValue(
            path: path, key: key("perFrameIntrinsicCoeffs[\(i)]"), detail: "expected [fx, fy, cx, cy] with positive focal lengths")
        }
        let frameIntrinsics = CameraIntrinsics(fx: c[0], fy: c[1], cx: c[2], cy: c[3], width: raw.w, height: raw.h)
        if raw.w > 0, raw.h > 0, let (name, detail) = frameIntrinsics.implausibility {
          throw .invalidValue(path: path, key: key("perFrameIntrinsicCoeffs[\(i)]") + " (\(name))", detail: detail)
        }
        perFrame?.append(frameIntrinsics)
      }
    }
    if let times = raw.frameTimestamps, let bad = times.firstIndex(where: { !$0.isFinite }) {
      throw .invalidValue(path: path, key: key("frameTimestamps[\(bad)]"), detail: "must be a finite number")
    }
    self.init(
      colorWidth: raw.w, colorHeight: raw.h, depthWidth: raw.dw, depthHeight: raw.dh, fps: raw.fps, intrinsics: intrinsics,
      camera: raw.cameraType.flatMap(Camera.init(rawValue:)), perFrameIntrinsics: perFrame, frameTimestamps: raw.frameTimestamps)
  }

  /// The metadata as JSON (sorted keys), for writing to `path`; `poses` is written empty
  /// and `initPose` as the identity, since the app writes both.
  /// - Throws: ``ScanIOError/cannotWrite(path:reason:)`` for a non-finite number.
  public func jsonData(path: String) throws(ScanIOError) -> Data {
    struct Written: Encodable {
      var raw: Raw
      func encode(to encoder: any Encoder) throws {
        try raw.encode(to: encoder)
        var extra = encoder.container(keyedBy: ExtraKeys.self)
        try extra.encode([[Double]](), forKey: .poses)
        try extra.encode([0.0, 0, 0, 1, 0, 0, 0], forKey: .initPose)
      }
      enum ExtraKeys: String, CodingKey { case poses, initPose }
    }
    let k = intrinsics.scaled(toWidth: colorWidth, height: colorHeight)
    let raw = Raw(
      w: colorWidth, h: colorHeight, dw: depthWidth, dh: depthHeight, fps: fps,
      K: [k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1], cameraType: camera?.rawValue,
      perFrameIntrinsicCoeffs: perFrameIntrinsics?.map { [$0.fx, $0.fy, $0.cx, $0.cy] }, frameTimestamps: frameTimestamps)
    return try encodeJSON(Written(raw: raw), path: path)
  }
}
