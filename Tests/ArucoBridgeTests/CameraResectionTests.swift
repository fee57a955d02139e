import ArucoBridge
import Foundation
import PointCloud
import Testing
import _ArucoShim

/// Camera resection (OpenCV's solvePnP through the shim) against exact projections.
struct CameraResectionTests {
  static let (fx, fy, cx, cy) = (593.0, 593.0, 319.5, 239.5)

  /// Points of four 16 mm squares on a sphere of 70 mm radius, metres, in the object frame.
  static let objectPoints: [SIMD3<Double>] = [(0.0, 0.0), (0.5, 0.3), (-0.4, 0.45), (0.2, -0.5)].flatMap { (a, b) in
    [(-0.008, 0.008), (0.008, 0.008), (0.008, -0.008), (-0.008, -0.008)].map { (u, v) -> SIMD3<Double> in
      let d = SIMD3(sin(a) + u / 0.07, sin(b) + v / 0.07, 1.0)
      return 0.07 * d / (d * d).sum().squareRoot()
    }
  }

  static func project(_ points: [SIMD3<Double>], rotation: SIMD3<Double>, translation: SIMD3<Double>) -> [SIMD2<Double>] {
    points.map { p in
      let q = Rotation3(rotationVector: rotation) * p + translation
      return SIMD2(fx * q.x / q.z + cx, fy * q.y / q.z + cy)
    }
  }

  @Test(arguments: [true, false])
  func recoversAKnownPoseFromExactPixels(withGuess: Bool) throws {
    let rotation = SIMD3(0.3, -0.5, 0.2), translation = SIMD3(0.01, -0.02, 0.25)
    let pixels = Self.project(Self.objectPoints, rotation: rotation, translation: translation)
    // A guess 2° and 5 mm off, as registration's own pose of a frame would be.
    let guess = withGuess ? (rotation + SIMD3(0.03, 0, -0.02), translation + SIMD3(0.005, 0, 0)) : nil
    let pose = try PnPPose(
      objectPoints: Self.objectPoints, imagePoints: pixels, fx: Self.fx, fy: Self.fy, cx: Self.cx, cy: Self.cy, guess: guess)
    #expect(((pose.rotationVector - rotation) * (pose.rotationVector - rotation)).sum().squareRoot() < 1e-7)
    #expect(((pose.translation - translation) * (pose.translation - translation)).sum().squareRoot() < 1e-8)
    #expect(pose.reprojectionRMS < 1e-6)
  }

  @Test func noisyPixelsGiveTheirRMSBack() throws {
    let rotation = SIMD3(0.1, 0.2, 0.0), translation = SIMD3(0.0, 0.0, 0.3)
    // ±0.5 px alternating on both axes: the true pose reprojects at √0.5 px RMS. Started from it,
    // Levenberg–Marquardt minimises the reprojection error, so it can only end at or below that,
    // and no pose fits these pixels exactly.
    let pixels = Self.project(Self.objectPoints, rotation: rotation, translation: translation).enumerated().map {
      $0.element + SIMD2(repeating: $0.offset % 2 == 0 ? 0.5 : -0.5)
    }
    let pose = try PnPPose(
      objectPoints: Self.objectPoints, imagePoints: pixels, fx: Self.fx, fy: Self.fy, cx: Self.cx, cy: Self.cy,
      guess: (rotation, translation))
    #expect(pose.reprojectionRMS > 0.1 && pose.reprojectionRMS <= 0.5.squareRoot() + 1e-9)
    #expect(((pose.translation - translation) * (pose.translation - translation)).sum().squareRoot() < 0.01)
  }

  @Test func badInputIsAStatusNotACrash() {
    var message = [CChar](repeating: 0, count: 128)
    var r = [0.0, 0, 0], t = [0.0, 0, 0.3]
    let three = [Double](repeating: 0, count: 9), pixels = [Double](repeating: 0, count: 6)
    #expect(arb_solve_pnp(three, pixels, 3, 593, 593, 319.5, 239.5, 0, &r, &t, nil, &message, message.count) == ARB_INVALID_ARGUMENT)
    #expect(String(decoding: message.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self).contains("4 or more"))
    #expect(arb_solve_pnp(nil, nil, 8, 593, 593, 319.5, 239.5, 0, &r, &t, nil, &message, message.count) == ARB_INVALID_ARGUMENT)
    #expect(arb_solve_pnp(three, pixels, 3, 0, 593, 319.5, 239.5, 0, &r, &t, nil, &message, message.count) == ARB_INVALID_ARGUMENT)
  }
}
