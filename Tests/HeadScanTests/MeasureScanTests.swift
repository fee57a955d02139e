import Foundation
import HeadScan
import ScanSimulator
import Testing
import _TestSupport

/// The one call of `import HeadScan` on a simulated scan, against the simulator's exact truth.
struct MeasureScanTests {
  /// A 48-frame 640×480 orbit of a plagiocephalic head (CI 84, CVAI 6, right flattening).
  static func simulate(in folder: URL, depthScaleError: Double = 0) throws -> (path: String, result: SimulationResult) {
    var o = SimulationOptions()
    o.depthScaleError = depthScaleError
    o.frames = 48
    o.seed = 8
    o.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
    let path = folder.appendingPathComponent("scan.rgbdscan").path
    return (path, try simulateScan(o, to: path, format: .stream))
  }

  @Test func measureScanMeetsTheAccuracyTargets() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, simulated) = try Self.simulate(in: folder)
      var options = MeasureOptions.default
      options.bootstrap = false
      var events: [String] = []
      // The landmarks beside the scan (the default source), through landmarks → head frame → layers → measures.
      let measured = try measureScan(at: path, options: options) { event in
        switch event {
        case .warning(let line): events.append("warning: " + line)
        case .reconstructing(let stage, _, _): if events.last != stage.rawValue { events.append(stage.rawValue) }
        case .measuring: events.append("measuring")
        case .bootstrapping: events.append("bootstrapping")
        }
      }
      #expect(events == ["detecting", "optimising", "fusing", "measuring"])
      let m = measured.measurement.measures, t = simulated.truth.measures
      let differences = String(
        format: "measures − truth: CVAI %+.2f, A %+.2f mm, B %+.2f mm, length %+.2f mm, width %+.2f mm, circumference %+.2f mm", m.cvai - t.cvai,
        m.diagonalA - t.diagonalA, m.diagonalB - t.diagonalB, m.length - t.length, m.width - t.width, m.circumference - t.circumference)
      #expect(abs(m.cvai - t.cvai) <= 0.3, "\(differences)")
      #expect(abs(m.diagonalA - t.diagonalA) <= 1.0 && abs(m.diagonalB - t.diagonalB) <= 1.0, "\(differences)")
      #expect(abs(m.length - t.length) <= 1.0 && abs(m.width - t.width) <= 1.0, "\(differences)")
      #expect(abs(m.circumference - t.circumference) <= 2.0, "\(differences)")
      #expect(m.severity == t.severity, "\(differences)")
      #expect(m.flattenedSide == t.flattenedSide)
      // The frame carries its conventions: landmarks' frame, layers from the ears' plane.
      #expect(measured.headFrame.source == .landmarks && measured.headFrame.slicing == .default && measured.headFrame.symmetryRMS == nil)
      // The lifted landmarks (world frame) lie within 2 mm of the truth's, moved from the
      // truth's head frame into the world of the sticker the registration chose (its own
      // pose error included).
      let worldMarker = try #require(simulated.truth.markers.first { $0.id == measured.reconstruction.worldMarkerID })
      let truthLandmarks = simulated.truth.landmarks.named, lifted = try #require(measured.headFrame.landmarks).named
      for ((name, truth), (_, found)) in zip(truthLandmarks, lifted) {
        let error = (found - worldMarker.headFromMarker.inverse.apply(truth)).length
        #expect(error < 0.002, "\(name): \(error * 1000) mm off")
      }
      // The report is the measurement, in mm, with this version.
      let r = measured.report
      #expect(r.cvai == m.cvai && r.diagonalA == m.diagonalA && r.circumference == m.circumference && r.severity == m.severity)
      #expect(r.measurementLevel == measured.measurement.level.height && r.layers == measured.measurement.layers.count)
      #expect(r.registration == MeasureReport.RegistrationSummary(measured.reconstruction))
      #expect(r.registration.cornerRMS == measured.reconstruction.cornerRMS * 1000)
      #expect(r.headFrame == "landmarks" && r.headFromWorld == measured.headFrame.headFromWorld && r.scan == path)
      #expect(r.headscanVersion == HeadScanVersion.current && r.intervals95 == nil && measured.timings.bootstrapping == 0)
      #expect(try MeasureReport(json: r.jsonData(), path: "report.json") == r)

      // The automatic head frame on the same reconstruction: it finds the midsagittal plane and
      // the face (length along x, width along y), but its axes are several degrees off the
      // landmarks' (see docs/method.md), so CVAI is not compared.
      var warnings: [String] = []
      let automatic = try measureReconstruction(measured.reconstruction, of: openScan(at: path), landmarks: .automaticFrame, options: options) {
        if case .warning(let line) = $0 { warnings.append(line) }
      }
      let byShape = automatic.measurement.measures
      let symmetryRMS = try #require(automatic.headFrame.symmetryRMS)
      #expect(
        abs(byShape.length - m.length) <= 3 && abs(byShape.width - m.width) <= 3,
        "\(String(format: "automatic frame: CVAI %.2f (landmarks %.2f, truth %.2f), length %.1f, width %.1f mm, symmetry RMS %.2f mm", byShape.cvai, m.cvai, t.cvai, byShape.length, byShape.width, symmetryRMS * 1000))")
      let xAuto = automatic.headFrame.headFromWorld.inverse.rotation * SIMD3<Double>(1, 0, 0)
      let xLandmarks = measured.headFrame.headFromWorld.inverse.rotation * SIMD3<Double>(1, 0, 0)
      #expect(xAuto.dot(xLandmarks) > cos(15 * Double.pi / 180))
      #expect(automatic.headFrame.source == .automatic && automatic.headFrame.slicing == .fromLowestPoint)
      #expect(automatic.report.headFrame == "automatic" && automatic.report.symmetryRMS == symmetryRMS * 1000)
      #expect(warnings.count == 1 && warnings[0].hasPrefix(path + ": the automatic head frame is experimental"))

      // Automatic landmarks on the same reconstruction: 48 frames leave the ears and the nasion
      // too thinly scanned, so they are refused by name rather than giving a wrong frame.
      #expect {
        try measureReconstruction(measured.reconstruction, of: openScan(at: path), landmarks: .automaticLandmarks, options: options)
      } throws: { error in
        let text = String(describing: error)
        return text.hasPrefix(path + ": automatic landmarks refused below confidence 0.50: ") && text.contains("'leftEar'")
      }
    }
  }

  @Test func badLandmarksFailBeforeTheReconstructionNamingTheFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = TestFiles.fixture("scans/tiny.rgbdscan").path
      let missing = folder.appendingPathComponent("none.landmarks.json").path
      #expect {
        try measureScan(at: scan, landmarks: .file(missing))
      } throws: { error in
        String(describing: error).hasPrefix(missing + ": ")
      }
      // A landmark in a frame the scan does not have: refused by the check before registration.
      let late = folder.appendingPathComponent("late.landmarks.json").path
      let file = LandmarkFile(positions: [
        "nasion": .pixel(frame: 9999, u: 10, v: 10), "noseTip": .pixel(frame: 0, u: 10, v: 10),
        "leftEar": .pixel(frame: 0, u: 10, v: 10), "rightEar": .pixel(frame: 0, u: 10, v: 10),
      ])
      try file.jsonData().write(to: URL(fileURLWithPath: late))
      var reconstructed = false
      #expect {
        try measureScan(at: scan, landmarks: .file(late)) { if case .reconstructing = $0 { reconstructed = true } }
      } throws: { error in
        String(describing: error).hasPrefix(late + ": landmark 'nasion' refers to frame 9999")
      }
      #expect(!reconstructed)
    }
  }

  @Test func landmarkSourcesNameTheirFiles() {
    #expect(LandmarkSource.besideScan.path(forScan: "scans/infant.rgbdscan") == "scans/infant.landmarks.json")
    #expect(LandmarkSource.besideScan.path(forScan: "scans/tum-folder") == "scans/tum-folder.landmarks.json")
    #expect(LandmarkSource.file("x.json").path(forScan: "scans/infant.rgbdscan") == "x.json")
    #expect(LandmarkSource.automaticFrame.path(forScan: "scans/infant.rgbdscan") == nil)
  }
}
