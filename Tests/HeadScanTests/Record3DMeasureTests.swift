import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// The must-show of the Record3D reader: one simulated scan written as a `.rgbdscan` stream
/// (landscape, lossless colour) and as a `.r3d` export (portrait, JPEG colour, LZFSE depth)
/// measures alike.
struct Record3DMeasureTests {
  @Test func aStreamAndItsRecord3DExportGiveTheSameCVAIAndRegistration() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 48
      o.seed = 11
      o.head = .init(cranialIndex: 82, cvai: 7, flattenedSide: .left)
      let stream = folder.appendingPathComponent("landscape.rgbdscan").path
      let export = folder.appendingPathComponent("portrait.r3d").path
      _ = try simulateScan(o, to: stream, format: .stream)
      _ = try simulateScan(o, to: export, format: .record3D)
      var options = MeasureOptions.default
      options.bootstrap = false
      let a = try measureScan(at: stream, options: options), b = try measureScan(at: export, options: options)
      print(String(
        format: "stream CVAI %.3f, r3d CVAI %.3f; frames %d / %d, markers %d / %d, corner RMS %.3f / %.3f mm",
        a.report.cvai, b.report.cvai, a.reconstruction.framesRegistered, b.reconstruction.framesRegistered,
        a.reconstruction.markers.count, b.reconstruction.markers.count, a.reconstruction.cornerRMS * 1000, b.reconstruction.cornerRMS * 1000))
      #expect(abs(a.report.cvai - b.report.cvai) <= 0.1)
      #expect(abs(a.report.circumference - b.report.circumference) <= 1.0)
      // The same registration: frames and markers, the world marker, the map within 0.5 mm.
      let ra = a.reconstruction, rb = b.reconstruction
      #expect(rb.frames.count == ra.frames.count)
      #expect(rb.framesRegistered == ra.framesRegistered)
      #expect(rb.worldMarkerID == ra.worldMarkerID)
      #expect(rb.markers.map(\.id) == ra.markers.map(\.id))
      for (ma, mb) in zip(ra.markers, rb.markers) where ma.id == mb.id {
        let gap = zip(ma.corners, mb.corners).map { ($0 - $1).length }.max() ?? 0
        #expect(gap < 0.0005, "marker \(ma.id): corners \(gap * 1000) mm apart")
      }
    }
  }
}
