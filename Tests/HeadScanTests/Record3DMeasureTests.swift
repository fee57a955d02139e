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
      let both = String(
        format: "stream CVAI %.3f, r3d CVAI %.3f; circumference %.2f / %.2f mm; frames %d / %d, markers %d / %d, corner RMS %.3f / %.3f mm",
        a.report.cvai, b.report.cvai, a.report.circumference, b.report.circumference, a.reconstruction.framesRegistered,
        b.reconstruction.framesRegistered, a.reconstruction.markers.count, b.reconstruction.markers.count, a.reconstruction.cornerRMS * 1000,
        b.reconstruction.cornerRMS * 1000)
      #expect(abs(a.report.cvai - b.report.cvai) <= 0.1, "\(both)")
      #expect(abs(a.report.circumference - b.report.circumference) <= 1.0, "\(both)")
      // The same registration: every frame registered in both, and the same geometry. The
      // two may keep different marker sets (a marker near the keep limits flips with JPEG's
      // noise on short scans), hence different world markers, so the worlds are aligned on
      // the markers both kept before comparing marker corners and camera centres.
      let ra = a.reconstruction, rb = b.reconstruction
      #expect(rb.frames.count == ra.frames.count)
      #expect(rb.framesRegistered == ra.framesRegistered, "\(both)")
      let cornersB = Dictionary(uniqueKeysWithValues: rb.markers.map { ($0.id, $0.corners) })
      let common = ra.markers.filter { cornersB[$0.id] != nil }
      #expect(common.count >= 8, "markers kept by both: \(common.count)")
      let source = common.flatMap { cornersB[$0.id] ?? [] }, target = common.flatMap(\.corners)
      let fit = try #require(RigidTransform.bestFit(from: source, to: target))
      #expect(
        fit.rms < 0.001,
        "the common markers' corners agree within 1 mm RMS: \(String(format: "%d markers kept by both, %.3f mm after alignment", common.count, fit.rms * 1000))")
      var gaps: [Double] = []
      for (fa, fb) in zip(ra.frames, rb.frames) {
        guard let pa = fa.worldFromCamera, let pb = fb.worldFromCamera else { continue }
        gaps.append((fit.transform.apply(pb.translation) - pa.translation).length)
      }
      let medianGap = gaps.sorted()[gaps.count / 2]
      #expect(medianGap < 0.002, "camera centres within 2 mm (median): \(String(format: "%.2f mm apart", medianGap * 1000))")
    }
  }
}
