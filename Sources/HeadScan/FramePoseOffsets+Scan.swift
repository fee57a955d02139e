import Foundation
import CVAI
import Landmarks
import PointCloud
import Reconstruction
import ScanIO

extension FramePoseOffsets {
  /// How much larger the frames' pose errors' effect on the fused contour is than their sticker
  /// jackknives over independent frames show: 4.
  ///
  /// Leaving one sticker out shows the part of a frame's pose error that differs from sticker
  /// to sticker. Depth errors that neighbouring stickers share (a smooth error across the image)
  /// tilt the frame without showing, and frames that see a region share its stickers' mapped
  /// positions, so their errors do not average away as independent frames' would. The interval
  /// coverage study's unlike heads (seeds 301–320) calibrate it: 4 is the
  /// least whole factor with which every measure's interval holds on at least 19 of their 20
  /// scans; the fresh unlike heads (seeds 401–420) and the calibration and fresh sets check it
  /// (docs/intervals.md).
  public static let sharedErrorFactor = 4.0

  /// The offsets the frames' pose errors leave on `contour` (head frame, millimetres, at its
  /// height), from each registered frame's jackknife over its stickers
  /// (`FrameDiagnostics.poseJackknife`).
  ///
  /// In each of `bins` angular bins the contour's point (the mean radius of its vertices there)
  /// is carried to the world; a frame sees it where it lies inside the frame's image
  /// (`intrinsics`) and the contour's outward radius there faces the camera (cosine above 0.2).
  /// A frame's row for left-out sticker j is how far the pose `worldFromCamera · Δⱼ` moves the
  /// point it sees along that radius, in millimetres, less the mean over the frame's rows, times
  /// `√((M − 1)/M)` and `factor` over the number of jackknifed frames that see the bin. Where
  /// the scan had more registered frames than were fused (`HeadReconstruction.framesFused`), as
  /// many, evenly spread, stand for them. A frame whose jackknife moves a point by a non-finite
  /// amount is left out. `nil` when no frame has a jackknife or sees the contour.
  /// - Parameter factor: how much larger the frames' pose errors' effect on the fused contour is
  ///   than the jackknife over independent frames shows (``sharedErrorFactor``).
  public init?(
    reconstruction: HeadReconstruction, headFromWorld: RigidTransform, contour: LayerContour, intrinsics: CameraIntrinsics,
    bins: Int = 72, factor: Double = FramePoseOffsets.sharedErrorFactor
  ) {
    guard bins > 0, !contour.points.isEmpty else { return nil }
    var frames = reconstruction.frames.compactMap { f -> (pose: RigidTransform, jackknife: [RigidTransform])? in
      guard let pose = f.worldFromCamera, f.poseJackknife.count >= 3 else { return nil }
      return (pose, f.poseJackknife)
    }
    let fused = reconstruction.framesFused
    if fused > 0, frames.count > fused { frames = (0..<fused).map { frames[$0 * frames.count / fused] } }
    guard !frames.isEmpty else { return nil }
    let worldFromHead = headFromWorld.inverse
    let points = FramePoseOffsets.binnedRadii(of: contour, bins: bins).map { angle, radius -> (point: SIMD3<Double>, outward: SIMD3<Double>) in
      let head = SIMD3(radius * cos(angle), radius * sin(angle), contour.height) / 1000
      return (worldFromHead.apply(head), worldFromHead.rotation * SIMD3(cos(angle), sin(angle), 0))
    }
    // Which bins each frame sees, and each left-out sticker's move of every bin's point along
    // its outward radius, mm; a frame with a non-finite move (a degenerate fit) is left out.
    let views = frames.compactMap { frame -> (visible: [Bool], moves: [[Double]])? in
      let cameraFromWorld = frame.pose.inverse
      let visible = points.map { p -> Bool in
        let toCamera = frame.pose.translation - p.point
        guard toCamera.dot(p.outward) > 0.2 * toCamera.length, let pixel = intrinsics.project(cameraFromWorld.apply(p.point)) else {
          return false
        }
        return pixel.x >= 0 && pixel.y >= 0 && pixel.x < Double(intrinsics.width) && pixel.y < Double(intrinsics.height)
      }
      guard visible.contains(true) else { return nil }
      let moves = frame.jackknife.map { delta in
        let moved = frame.pose * delta * cameraFromWorld
        return (0..<bins).map { b in visible[b] ? (moved.apply(points[b].point) - points[b].point).dot(points[b].outward) * 1000 : 0 }
      }
      return moves.allSatisfy { $0.allSatisfy(\.isFinite) } ? (visible, moves) : nil
    }
    var seen = [Int](repeating: 0, count: bins)
    for view in views { for b in 0..<bins where view.visible[b] { seen[b] += 1 } }
    guard seen.contains(where: { $0 > 0 }) else { return nil }
    var offsets: [Double] = []
    for (visible, moves) in views {
      let m = moves.count
      let scale = factor * (Double(m - 1) / Double(m)).squareRoot()
      let means = (0..<bins).map { b in moves.reduce(0) { $0 + $1[b] } / Double(m) }
      for row in moves {
        for b in 0..<bins { offsets.append(visible[b] ? scale * (row[b] - means[b]) / Double(seen[b]) : 0) }
      }
    }
    self.init(bins: bins, offsets: offsets)
  }
}
