internal import _ArucoShim

/// `cameraFromObject` from known points and their image pixels (OpenCV's `solvePnP`), pinhole
/// camera without distortion.
///
/// Two kinds: a square marker's pose from its four corners (``init(squareCorners:sideLength:fx:fy:cx:cy:)``,
/// IPPE_SQUARE), and a camera's pose from many known points, e.g. the corners of an already
/// registered marker map (``init(objectPoints:imagePoints:fx:fy:cx:cy:guess:)``, camera resection).
public struct PnPPose: Sendable, Hashable {
  /// Rotation as a Rodrigues vector (axis × angle, radians).
  public var rotationVector: SIMD3<Double>
  /// The object frame's origin in the camera frame, in the unit of the object (the marker's side or points).
  public var translation: SIMD3<Double>
  /// RMS distance between the pixels and the object's reprojection, pixels.
  public var reprojectionRMS: Double

  /// A square marker's pose (`cameraFromMarker`, axes of the marker's own frame) from its four image corners (IPPE_SQUARE).
  /// - Parameters:
  ///   - squareCorners: the 4 corners, pixels, OpenCV order.
  ///   - sideLength: printed side (black border included); the pose comes out in this unit.
  ///   - fx, fy, cx, cy: pinhole intrinsics of the image the corners come from.
  /// - Throws: ``ArucoError`` when OpenCV finds no pose.
  public init(
    squareCorners: [SIMD2<Double>], sideLength: Double, fx: Double, fy: Double, cx: Double, cy: Double
  ) throws(ArucoError) {
    precondition(squareCorners.count == 4, "a square marker has four corners")
    let flat = squareCorners.flatMap { [$0.x, $0.y] }
    try self.init(start: (.zero, .zero)) { r, t, rms, message in
      arb_solve_square_pnp(flat, sideLength, fx, fy, cx, cy, &r, &t, &rms, &message, message.count)
    }
  }

  /// Runs one PnP call of the shim with `r`, `t` holding `start` and receiving the pose.
  init(
    start: (rotationVector: SIMD3<Double>, translation: SIMD3<Double>),
    _ call: (inout [Double], inout [Double], inout Double, inout [CChar]) -> arb_status
  ) throws(ArucoError) {
    var r = [start.rotationVector.x, start.rotationVector.y, start.rotationVector.z]
    var t = [start.translation.x, start.translation.y, start.translation.z]
    var rms = 0.0
    var message = [CChar](repeating: 0, count: 512)
    let status = call(&r, &t, &rms, &message)
    guard status == ARB_OK else { throw ArucoError(status: status, message: message, dictionary: "") }
    rotationVector = SIMD3(r[0], r[1], r[2])
    translation = SIMD3(t[0], t[1], t[2])
    reprojectionRMS = rms
  }
}
