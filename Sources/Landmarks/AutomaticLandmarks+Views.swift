import PointCloud
import Reconstruction
import Registration
import ScanIO

extension AutomaticLandmarks {
  /// The proposals with, for each found one (confidence above 0), the registered frame that
  /// sees it most nearly head-on (the camera's ray against the nearest fused point's normal)
  /// with the point inside the colour image, and its colour pixel.
  /// - Parameters:
  ///   - reconstruction: the reconstruction the landmarks were found on (poses and cloud).
  ///   - intrinsics: the scan's colour-camera intrinsics (`ScanHeader.intrinsics`).
  public func locatingViews(reconstruction: HeadReconstruction, intrinsics: CameraIntrinsics) -> AutomaticLandmarks {
    let cloud = reconstruction.cloud
    func located(_ proposal: LandmarkProposal) -> LandmarkProposal {
      guard proposal.confidence > 0, cloud.normals.count == cloud.count else { return proposal }
      let p = proposal.position
      var nearest: (distance: Double, normal: SIMD3<Double>)?
      for (q, n) in zip(cloud.positions, cloud.normals) {
        let offset = SIMD3<Double>(q) - p, d = offset.dot(offset)
        if d < nearest?.distance ?? .infinity { nearest = (d, SIMD3<Double>(n)) }
      }
      guard let normal = nearest?.normal else { return proposal }
      var best: (facing: Double, view: LandmarkProposal.PixelView)?
      for diagnostics in reconstruction.frames {
        guard let worldFromCamera = diagnostics.worldFromCamera else { continue }
        let inCamera = worldFromCamera.inverse.apply(p)
        guard let pixel = intrinsics.project(inCamera), pixel.x >= -0.5, pixel.y >= -0.5,
          pixel.x < Double(intrinsics.width) - 0.5, pixel.y < Double(intrinsics.height) - 0.5
        else { continue }
        let facing = (worldFromCamera.translation - p).normalized.dot(normal)
        if facing > best?.facing ?? 0 { best = (facing, .init(frame: diagnostics.index, u: pixel.x, v: pixel.y)) }
      }
      var result = proposal
      result.view = best?.view
      return result
    }
    return AutomaticLandmarks(nasion: located(nasion), noseTip: located(noseTip), leftEar: located(leftEar), rightEar: located(rightEar))
  }
}
