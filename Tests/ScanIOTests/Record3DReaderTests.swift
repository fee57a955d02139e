import Foundation
import PointCloud
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// The Record3D `.r3d` reader on small exports built entry by entry (``Record3DFixtures``),
/// and the simulator's portrait export against the same scan as a stream.
struct Record3DReaderTests {
  typealias F = Record3DFixtures

  @Test func readsPortraitFramesWithColumnMajorIntrinsicsScaledToEachImage() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = try F.write(in: folder)
      #expect(ScanFormat.record3D.detects(path))
      #expect(try ScanFormats.format(of: path).name == "r3d")
      let reader = try openScan(at: path)
      let h = reader.header
      #expect(reader.frameCount == 3)
      #expect((h.colorWidth, h.colorHeight, h.depthWidth, h.depthHeight) == (240, 320, 120, 160))
      // K is column-major: fx = K[0], fy = K[4], cx = K[6], cy = K[7], at the colour size.
      #expect(h.intrinsics == CameraIntrinsics(fx: 300, fy: 302, cx: 118.5, cy: 161.5, width: 240, height: 320))
      #expect(h.markers == .init(dictionary: "DICT_4X4_50", sideLength: 0.016) && h.capMarkerCount == 40)
      #expect(try reader.timestamp(at: 2) == 10.1)

      let frame = try reader.frame(at: 0)
      // Depth at half the colour size: scaled about pixel edges (docs/formats.md, conventions).
      #expect(frame.depth.intrinsics == CameraIntrinsics(fx: 150, fy: 151, cx: 59, cy: 80.5, width: 120, height: 160))
      #expect(frame.color.intrinsics == h.intrinsics)
      // Frame 0 holds the reference encoder's compressed blocks: decoded value for value.
      let (expected, _) = try F.vectorDepth()
      #expect(frame.depth.metres.count == expected.count)
      #expect(zip(frame.depth.metres, expected).allSatisfy { $0.isNaN ? $1.isNaN : $0 == $1 })
      #expect(frame.depth.validCount > 15_000)
      // Colour: the JPEG of the ramp, within JPEG's error.
      let source = F.colour(0)
      let meanError = zip(frame.color.bgra, source).map { abs(Int($0) - Int($1)) }.reduce(0, +) / source.count
      #expect(meanError <= 2)
      let plane = try reader.frame(at: 2)
      #expect(plane.depth.metres == F.planeDepth(2), "raw bvx- blocks, no confidence map: every sample kept")
    }
  }

  @Test func confidenceBelowTheThresholdDropsDepth() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = try F.write(in: folder)
      let plane = F.planeDepth(1)
      for minimum: UInt8 in [0, 1, 2] {
        let reader = try openScan(at: path, options: ScanOpenOptions(minimumConfidence: minimum))
        let depth = try reader.frame(at: 1).depth.metres
        for i in [0, 1, 2, 3, 4, 5, 1000, 19_199] {
          if F.confidence[i] >= minimum {
            #expect(depth[i] == plane[i], "confidence \(F.confidence[i]) kept at minimum \(minimum)")
          } else {
            #expect(depth[i].isNaN, "confidence \(F.confidence[i]) dropped at minimum \(minimum)")
          }
        }
        #expect(depth.filter(\.isNaN).count == F.confidence.filter { $0 < minimum }.count)
      }
      // The default keeps medium and high confidence.
      #expect(try openScan(at: path).frame(at: 1).depth.validCount == 2 * 120 * 160 / 3)
    }
  }

  @Test func anMP4ExportIsRefusedInOneLine() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = try F.write(F.Layout(mp4: true), in: folder)
      do throws(ScanIOError) {
        _ = try openScan(at: path)
        Issue.record("an mp4 export opened")
      } catch {
        guard case .unsupportedContent(let named, _) = error else { Issue.record("unexpected \(error)"); return }
        #expect(named == path)
        #expect(error.description.hasPrefix(path + ": colour is stored as one rgbd.mp4"))
        #expect(!error.description.contains("\n"))
      }
    }
  }

  @Test func corruptAndTruncatedEntriesNameTheFileAndTheEntry() throws {
    try TestFiles.withTemporaryFolder { folder in
      // A depth entry that is not LZFSE, and one cut inside its raw block.
      let raw = Record3DWriter.rawLZFSE(F.planeDepth(2).withUnsafeBytes { Data($0) })
      var layout = F.Layout()
      layout.replaced = ["rgbd/1.depth": Data("bvx2 this is not a depth frame".utf8), "rgbd/2.depth": raw.prefix(raw.count / 2)]
      let path = try F.write(layout, in: folder)
      let reader = try openScan(at: path)
      #expect(try reader.frame(at: 0).depth.validCount > 0, "other frames still read")
      for (index, entry) in [(1, "rgbd/1.depth"), (2, "rgbd/2.depth")] {
        do throws(ScanIOError) {
          _ = try reader.frame(at: index)
          Issue.record("\(entry) decoded")
        } catch {
          guard case .corruptEntry(let named, let failing, _) = error else { Issue.record("unexpected \(error)"); continue }
          #expect(named == path && failing == entry)
          #expect(error.description.hasPrefix("\(path): entry '\(entry)': LZFSE"), "\(error)")
        }
      }
      // A file cut short loses its ZIP directory: one line naming the file.
      let whole = try Data(contentsOf: URL(fileURLWithPath: path))
      let cut = folder.appendingPathComponent("cut.r3d").path
      try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
      #expect(throws: ScanIOError.cannotOpen(path: cut, reason: "not a complete ZIP archive (a Record3D .r3d export is one; truncated file?)")) {
        try openScan(at: cut)
      }
      // Bytes damaged inside an entry fail its checksum, named.
      var damaged = whole
      let jpegStart = try #require(damaged.range(of: Data("rgbd/0.jpg".utf8))).upperBound + 200
      damaged[jpegStart] ^= 0xFF
      let flipped = folder.appendingPathComponent("flipped.r3d").path
      try damaged.write(to: URL(fileURLWithPath: flipped))
      try Data(F.cap.utf8).write(to: URL(fileURLWithPath: ScanCap.sidecarPath(forScan: flipped)))
      #expect(throws: ScanIOError.corruptEntry(path: flipped, entry: "rgbd/0.jpg", detail: "checksum mismatch (the entry's bytes are damaged)")) {
        try openScan(at: flipped).frame(at: 0)
      }
    }
  }

  @Test func theCapComesFromTheSidecarOrTheCallerAndItsAbsenceSaysHow() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = try F.write(F.Layout(sidecar: false), in: folder)
      let sidecar = folder.appendingPathComponent("phone.cap.json").path
      #expect(ScanCap.sidecarPath(forScan: path) == sidecar)
      do throws(ScanIOError) {
        _ = try openScan(at: path)
        Issue.record("opened without a cap")
      } catch {
        #expect(error == .missingCap(path: path, sidecar: sidecar))
        #expect(error.description.contains("write \(sidecar) beside the scan") && error.description.contains("or pass --cap FILE"))
        #expect(!error.description.contains("\n"))
      }
      let given = ScanCap(markers: .init(dictionary: "DICT_5X5_100", sideLength: 0.02), markerCount: 12)
      let reader = try #require(try openScan(at: path, options: ScanOpenOptions(cap: given)) as? Record3DReader)
      #expect(reader.header.markers == given.markers && reader.header.capMarkerCount == 12 && reader.capSidecar == nil)
      try Data(F.cap.utf8).write(to: URL(fileURLWithPath: sidecar))
      let found = try #require(try openScan(at: path) as? Record3DReader)
      #expect(found.capSidecar == sidecar && found.header.markers.sideLength == 0.016)
      // A sidecar with a bad value names its own file and key.
      try Data(#"{"markers": {"dictionary": "DICT_4X4_50", "sideLength": 16}}"#.utf8).write(to: URL(fileURLWithPath: sidecar))
      #expect(throws: ScanIOError.invalidValue(path: sidecar, key: "markers.sideLength", detail: "must be a length in metres between 0 and 1")) {
        try openScan(at: path)
      }
    }
  }

  @Test func metadataProblemsNameTheKey() throws {
    try TestFiles.withTemporaryFolder { folder in
      var rowMajor = F.Layout()
      rowMajor.metadata["K"] = [300.0, 0, 118.5, 0, 302, 161.5, 0, 0, 1]
      let path = try F.write(rowMajor, in: folder)
      #expect(throws: ScanIOError.invalidValue(path: path, key: "metadata.K", detail: "not a column-major intrinsics matrix (last row must be 0, 0, 1)")) {
        try openScan(at: path)
      }
      var noSize = F.Layout()
      noSize.metadata["dw"] = nil
      let missing = try F.write(noSize, in: folder, name: "nosize.r3d")
      #expect(throws: ScanIOError.missingKey(path: missing, key: "dw")) { try openScan(at: missing) }
    }
  }

  /// The simulator's portrait export: each landscape pixel's ray lands on the turned pixel
  /// with the same depth, and lifts to the same point once the camera turn is undone.
  @Test func theSimulatorsPortraitExportKeepsEveryRay() throws {
    try TestFiles.withTemporaryFolder { folder in
      var options = SimulationOptions()
      options.frames = 3
      (options.width, options.height) = (160, 120)
      options.record3DConfidence = true
      // Different names: each scan's companions (landmarks, truth) sit beside it under its own stem.
      let stream = folder.appendingPathComponent("landscape.rgbdscan").path
      let export = folder.appendingPathComponent("portrait.r3d").path
      let streamed = try simulateScan(options, to: stream, format: .stream)
      let exported = try simulateScan(options, to: export, format: .record3D)
      #expect(exported.capPath == folder.appendingPathComponent("portrait.cap.json").path && streamed.capPath == nil)
      let landscape = try openScan(at: stream), portrait = try openScan(at: export)
      #expect((portrait.header.colorWidth, portrait.header.colorHeight) == (120, 160))
      #expect(portrait.header.markers == landscape.header.markers && portrait.header.capMarkerCount == landscape.header.capMarkerCount)
      for index in 0..<3 {
        let l = try landscape.frame(at: index), p = try portrait.frame(at: index)
        #expect(p.timestamp == l.timestamp)
        #expect(p.depth.validCount == l.depth.validCount)
        var compared = 0
        for v in stride(from: 0, to: 120, by: 7) {
          for u in stride(from: 0, to: 160, by: 7) where !l.depth[u, v].isNaN {
            let (pu, pv) = PortraitRecord3D.portraitPixel(u: Double(u), v: Double(v), landscapeHeight: 120)
            let z = p.depth[Int(pu), Int(pv)]
            #expect(z == l.depth[u, v])
            let seen = l.depth.intrinsics.unproject(u: Double(u), v: Double(v), depth: Double(z))
            let turned = PortraitRecord3D.landscapeFromPortrait.apply(p.depth.intrinsics.unproject(u: pu, v: pv, depth: Double(z)))
            #expect((seen - turned).length < 1e-9)
            compared += 1
          }
        }
        #expect(compared > 50)
      }
      // Landmarks follow the turn; the truth's cameras turn with the frames.
      let landmarks = try LandmarkFile(path: exported.landmarksPath), original = try LandmarkFile(path: streamed.landmarksPath)
      for (name, position) in original.positions {
        if case .pixel(let frame, let u, let v) = position {
          let (pu, pv) = PortraitRecord3D.portraitPixel(u: u, v: v, landscapeHeight: 120)
          #expect(landmarks.positions[name] == .pixel(frame: frame, u: pu, v: pv))
        }
      }
      let camera = try #require(exported.truth.cameras.first), before = try #require(streamed.truth.cameras.first)
      let point = SIMD3<Double>(0.01, -0.02, 0.3)
      #expect((camera.headFromCamera.apply(point) - before.headFromCamera.apply(PortraitRecord3D.landscapeFromPortrait.apply(point))).length < 1e-12)
    }
  }
}
