import Foundation
import HeadScan
import ScanIO
import Testing
import _TestSupport

/// The surface term's offsets built from a measured scan's frames (`FramePoseOffsets(reconstruction:…)`).
struct FramePoseOffsetsScanTests {
  /// A frame whose jackknife holds a non-finite pose is left out, the rest kept: the offsets are
  /// those of the scan with that frame's jackknife removed, not `nil` (which would drop the term
  /// to its fallback).
  @Test func aFrameWithANonFiniteJackknifeIsLeftOut() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try MeasureScanTests.simulate(in: folder)
      var options = MeasureOptions.default
      options.bootstrap = false
      let measured = try measureScan(at: path, options: options)
      let intrinsics = try openScan(at: path).header.intrinsics
      let contour = measured.measurement.contourAtLevel.contour
      func offsets(_ reconstruction: HeadReconstruction) -> FramePoseOffsets? {
        FramePoseOffsets(
          reconstruction: reconstruction, headFromWorld: measured.headFrame.headFromWorld, contour: contour, intrinsics: intrinsics)
      }
      let reconstruction = measured.reconstruction
      let all = try #require(offsets(reconstruction))
      // A frame with a jackknife that sees the contour: leaving it out takes its rows away.
      func leavingOut(_ f: Int) -> HeadReconstruction {
        var without = reconstruction
        without.frames[f].poseJackknife = []
        return without
      }
      #expect(reconstruction.framesFused >= reconstruction.framesRegistered)
      let f = try #require(
        reconstruction.frames.indices.first { f in
          reconstruction.frames[f].poseJackknife.count >= 3 && (offsets(leavingOut(f))?.rows ?? all.rows) < all.rows
        })
      var broken = reconstruction
      broken.frames[f].poseJackknife[1].translation.x = .nan
      let kept = try #require(offsets(broken))
      #expect(kept == offsets(leavingOut(f)))
      #expect(kept.rows == all.rows - reconstruction.frames[f].poseJackknife.count)
      #expect(kept.offsets.allSatisfy { $0.isFinite })
    }
  }
}
