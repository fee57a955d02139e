internal import _ArucoShim

extension PnPPose {
  /// A camera's pose (`cameraFromObject`) from known 3D points and their pixels: camera resection.
  ///
  /// Where many points spread over a wide part of the image are known (markers of an already
  /// registered map), the camera's pose follows from their pixels alone, far better than from
  /// any single 16 mm marker's square.
  /// - Parameters:
  ///   - objectPoints: the known points in the object's frame (any unit; the pose comes out in it), 4 or more.
  ///   - imagePoints: their pixels (OpenCV convention: the top-left pixel's centre is (0, 0)), same order.
  ///   - fx, fy, cx, cy: pinhole intrinsics of the image, no distortion.
  ///   - guess: a starting `cameraFromObject` (Rodrigues vector, translation); with it OpenCV's
  ///     iterative Levenberg–Marquardt refines it (minimising the reprojection error), without it
  ///     SQPnP solves from scratch.
  /// - Throws: ``ArucoError`` when OpenCV finds no pose.
  public init(
    objectPoints: [SIMD3<Double>], imagePoints: [SIMD2<Double>], fx: Double, fy: Double, cx: Double, cy: Double,
    guess: (rotationVector: SIMD3<Double>, translation: SIMD3<Double>)? = nil
  ) throws(ArucoError) {
    precondition(objectPoints.count == imagePoints.count, "one pixel per object point")
    precondition(objectPoints.count >= 4, "a resection needs four or more points")
    let object = objectPoints.flatMap { [$0.x, $0.y, $0.z] }, image = imagePoints.flatMap { [$0.x, $0.y] }
    try self.init(start: guess ?? (.zero, .zero)) { r, t, rms, message in
      arb_solve_pnp(object, image, Int32(objectPoints.count), fx, fy, cx, cy, guess == nil ? 0 : 1, &r, &t, &rms, &message, message.count)
    }
  }
}
