/// Pinhole intrinsics of the colour camera, in pixels, without distortion.
///
/// Pixel centres sit at integer coordinates (OpenCV convention: the centre of
/// the top-left pixel is (0, 0)). The depth map is registered to the colour
/// image, so the same intrinsics (scaled) describe both.
public struct CameraIntrinsics: Sendable, Hashable, Codable {
  /// Focal length along x, pixels.
  public var fx: Double
  /// Focal length along y, pixels.
  public var fy: Double
  /// Principal point x, pixels.
  public var cx: Double
  /// Principal point y, pixels.
  public var cy: Double
  /// Image width these values refer to, pixels.
  public var width: Int
  /// Image height these values refer to, pixels.
  public var height: Int

  public init(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int) {
    self.fx = fx
    self.fy = fy
    self.cx = cx
    self.cy = cy
    self.width = width
    self.height = height
  }

  /// The same camera seen at another resolution.
  ///
  /// Scales about pixel edges, not pixel centres: a pixel centre `c` maps to
  /// `(c + 0.5) × s − 0.5`, which keeps the principal point on the same ray.
  /// - Returns: `self` when the size is unchanged.
  public func scaled(toWidth newWidth: Int, height newHeight: Int) -> CameraIntrinsics {
    if newWidth == width && newHeight == height { return self }
    let sx = Double(newWidth) / Double(width)
    let sy = Double(newHeight) / Double(height)
    return CameraIntrinsics(
      fx: fx * sx, fy: fy * sy,
      cx: (cx + 0.5) * sx - 0.5, cy: (cy + 0.5) * sy - 0.5,
      width: newWidth, height: newHeight)
  }

  /// The camera-frame point (metres) seen at pixel (`u`, `v`) with depth `z` along the optical axis.
  @inlinable
  public func unproject(u: Double, v: Double, depth z: Double) -> SIMD3<Double> {
    SIMD3((u - cx) / fx * z, (v - cy) / fy * z, z)
  }

  /// The pixel where a camera-frame point projects, or `nil` behind the camera.
  @inlinable
  public func project(_ point: SIMD3<Double>) -> SIMD2<Double>? {
    guard point.z > 0 else { return nil }
    return SIMD2(fx * point.x / point.z + cx, fy * point.y / point.z + cy)
  }
}
