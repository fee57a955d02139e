internal import _ArucoShim

/// `cameraFromMarker` of a square marker from its four image corners (OpenCV's IPPE_SQUARE).
public struct SquareMarkerPose: Sendable, Hashable {
  /// Rotation as a Rodrigues vector (axis × angle, radians).
  public var rotationVector: SIMD3<Double>
  /// Marker origin in the camera frame, in the unit of `sideLength`.
  public var translation: SIMD3<Double>
  /// RMS distance between the corners and their reprojection, pixels.
  public var reprojectionRMS: Double

  /// - Parameters:
  ///   - corners: the 4 corners, pixels, OpenCV order.
  ///   - sideLength: printed side (black border included); the pose comes out in this unit.
  ///   - fx, fy, cx, cy: pinhole intrinsics of the image the corners come from.
  /// - Throws: ``ArucoError`` when OpenCV finds no pose.
  public init(
    corners: [SIMD2<Double>], sideLength: Double, fx: Double, fy: Double, cx: Double, cy: Double
  ) throws(ArucoError) {
    precondition(corners.count == 4, "a square marker has four corners")
    let flat = corners.flatMap { [$0.x, $0.y] }
    var r = [Double](repeating: 0, count: 3), t = [Double](repeating: 0, count: 3)
    var rms = 0.0
    var message = [CChar](repeating: 0, count: 512)
    let status = arb_solve_square_pnp(flat, sideLength, fx, fy, cx, cy, &r, &t, &rms, &message, message.count)
    guard status == ARB_OK else { throw ArucoError(status: status, message: message, dictionary: "") }
    rotationVector = SIMD3(r[0], r[1], r[2])
    translation = SIMD3(t[0], t[1], t[2])
    reprojectionRMS = rms
  }
}
