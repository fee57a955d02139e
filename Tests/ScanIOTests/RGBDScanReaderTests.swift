import Foundation
import ScanIO
import Testing
import _HeadScanSupport
import PointCloud
import ScanSimulator
import _TestSupport

struct RGBDScanReaderTests {
  @Test func readsAHandBuiltStream() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = try StreamFixtures.write(StreamFixtures.stream(), in: folder)
      let reader = try RGBDScanReader(path: path)
      #expect(reader.frameCount == 3)
      #expect(reader.warnings.isEmpty)
      #expect(reader.header.capMarkerCount == 40)
      #expect(reader.header.patientID == "17")
      #expect(reader.header.markers == .init(dictionary: "DICT_4X4_50", sideLength: 0.016))
      let frame = try reader.frame(at: 2)
      #expect(frame.index == 2)
      #expect(frame.timestamp == 10 + 2.0 / 30)
      let base: Float = 0.3 + Float(2) / 100  // as StreamFixtures.frame stores it
      #expect(frame.depth[0, 0] == base)
      #expect(frame.depth[3, 0] == base + Float(3) / 1000)
      #expect(frame.depth[1, 1].isNaN)  // stored 0
      #expect(frame.depth[2, 1].isNaN)  // stored −1
      #expect(frame.depth.validCount == 10)
      #expect(frame.color.bgra == (0..<48).map { UInt8($0) })
      // Intrinsics scale from 640×480 to the 4×3 images about pixel edges.
      #expect(abs(frame.depth.intrinsics.fx - 593.0 / 160) < 1e-12)
      #expect(abs(frame.depth.intrinsics.cx - ((319.5 + 0.5) / 160 - 0.5)) < 1e-12)
      #expect(abs(try reader.duration() - 2.0 / 30) < 1e-12)
    }
  }

  @Test func iteratorYieldsEveryFrameInOrder() throws {
    try TestFiles.withTemporaryFolder { folder in
      let reader = try openScan(at: try StreamFixtures.write(StreamFixtures.stream(frames: 5), in: folder))
      var iterator = reader.makeFrameIterator()
      var indices: [Int] = []
      while let frame = try iterator.next() { indices.append(frame.index) }
      #expect(indices == [0, 1, 2, 3, 4])
    }
  }

  @Test func float16DepthDecodesExactBitPatterns() throws {
    // 1.0 = 0x3C00, 0.5 = 0x3800, 0.25 = 0x3400, 0.333… = 0x3555, NaN = 0x7E00, +inf = 0x7C00, 0, −0.5 = 0xB800.
    let halves: [UInt16] = [0x3C00, 0x3800, 0x3400, 0x3555, 0x7E00, 0x7C00, 0x0000, 0xB800, 0x3A66, 0x3C00, 0x3C00, 0x3C00]
    let expected: [Float] = [1, 0.5, 0.25, 0.333251953125, .nan, .nan, .nan, .nan, 0.7998046875, 1, 1, 1]
    for disparity in [false, true] {
      let header = StreamFixtures.headerJSON.replacingOccurrences(of: "\"float32\"", with: disparity ? "\"disparity16\"" : "\"float16\"")
      let json = Array(header.utf8)
      var bytes = StreamFixtures.preamble(headerLength: json.count) + json
      withUnsafeBytes(of: 1.5.bitPattern.littleEndian) { bytes += $0 }
      for h in halves { withUnsafeBytes(of: h.littleEndian) { bytes += $0 } }
      bytes += [UInt8](repeating: 7, count: 48)
      try TestFiles.withTemporaryFolder { folder in
        let frame = try RGBDScanReader(path: try StreamFixtures.write(bytes, in: folder)).frame(at: 0)
        for (got, want) in zip(frame.depth.metres, expected) {
          if want.isNaN { #expect(got.isNaN) } else { #expect(got == (disparity ? 1 / want : want)) }
        }
        #expect(frame.color.bgra == [UInt8](repeating: 7, count: 48))
      }
    }
  }

  @Test(arguments: RGBDStreamLayout.DepthEncoding.allCases)
  func writerRoundTripsEveryEncoding(encoding: RGBDStreamLayout.DepthEncoding) throws {
    let header = StreamFixtures.header
    var random = SeededGenerator(seed: 7)
    let depths: [[Float]] = (0..<4).map { _ in
      (0..<(32 * 24)).map { i in i % 17 == 0 ? .nan : Float.random(in: 0.2...0.6, using: &random) }
    }
    let colours: [[UInt8]] = (0..<4).map { _ in (0..<(64 * 48 * 4)).map { _ in UInt8.random(in: 0...255, using: &random) } }
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("round.rgbdscan").path
      let writer = try RGBDScanWriter(path: path, header: header, layout: RGBDStreamLayout(depthEncoding: encoding))
      for k in 0..<4 { try writer.append(timestamp: Double(k) * 0.1, depthMetres: depths[k], colorBGRA: colours[k]) }
      #expect(!FileManager.default.fileExists(atPath: path), "nothing at the destination before finish()")
      try writer.finish()
      let reader = try RGBDScanReader(path: path)
      #expect(reader.header == header)
      #expect(reader.layout == RGBDStreamLayout(depthEncoding: encoding))
      #expect(reader.frameSize == 8 + 32 * 24 * encoding.bytesPerSample + 64 * 48 * 4)
      #expect(reader.frameCount == 4)
      for k in 0..<4 {
        let frame = try reader.frame(at: k)
        #expect(frame.color.bgra == colours[k])
        #expect(frame.timestamp == Double(k) * 0.1)
        // Half precision keeps 11 significant bits: relative error ≤ 2⁻¹¹ (disparity adds one rounding).
        let tolerance: Float = encoding.bytesPerSample == 2 ? 0.6 * 0.0012 : 1e-6
        for (got, want) in zip(frame.depth.metres, depths[k]) {
          if want.isNaN { #expect(got.isNaN) } else { #expect(abs(got - want) <= tolerance) }
        }
      }
    }
  }

  @Test(arguments: RGBDStreamLayout.DepthEncoding.allCases)
  func readingIntoASpareGivesTheFrameItself(encoding: RGBDStreamLayout.DepthEncoding) throws {
    var random = SeededGenerator(seed: 11)
    try TestFiles.withTemporaryFolder { folder in
      // Two scans of different sizes: a spare of the wrong size is replaced, not misread.
      var readers: [RGBDScanReader] = []
      for (name, scale) in [("a", 1), ("b", 2)] {
        var header = StreamFixtures.header
        header.depthWidth *= scale
        header.depthHeight *= scale
        let path = folder.appendingPathComponent("\(name).rgbdscan").path
        let writer = try RGBDScanWriter(path: path, header: header, layout: RGBDStreamLayout(depthEncoding: encoding))
        for k in 0..<3 {
          let depth = (0..<(header.depthWidth * header.depthHeight)).map { i in i % 13 == 0 ? Float.nan : Float.random(in: 0.2...0.6, using: &random) }
          let colour = (0..<(header.colorWidth * header.colorHeight * 4)).map { _ in UInt8.random(in: 0...255, using: &random) }
          try writer.append(timestamp: Double(k) * 0.1, depthMetres: depth, colorBGRA: colour)
        }
        try writer.finish()
        readers.append(try RGBDScanReader(path: path))
      }
      var spare: ScanFrame?
      for (reader, index) in [(0, 0), (0, 2), (0, 1), (1, 1), (1, 0), (0, 2)] {
        let kept = spare  // a copy held elsewhere must not change when the spare is read into
        try readers[reader].readFrame(at: index, into: &spare)
        let read = try #require(spare), fresh = try readers[reader].frame(at: index)
        #expect(read.index == index && read.timestamp == fresh.timestamp && read.depth.intrinsics == fresh.depth.intrinsics)
        #expect(sameContents(read.depth.metres.map(\.bitPattern), fresh.depth.metres.map(\.bitPattern)) && sameContents(read.color.bgra, fresh.color.bgra))
        if let kept { #expect(kept.depth.metres.map(\.bitPattern) != read.depth.metres.map(\.bitPattern) || kept.index == index) }
      }
      #expect(throws: ScanIOError.self) { try readers[0].readFrame(at: 3, into: &spare) }
      #expect(spare == nil)
    }
  }

  @Test func droppedWriterLeavesNoFile() throws {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("dropped.rgbdscan").path
      do {
        let writer = try RGBDScanWriter(path: path, header: StreamFixtures.header)
        try writer.append(timestamp: 0, depthMetres: .init(repeating: 0.3, count: 32 * 24), colorBGRA: .init(repeating: 0, count: 64 * 48 * 4))
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
  }

  @Test func readingNeverModifiesTheInput() throws {
    try TestFiles.withTemporaryFolder { folder in
      let bytes = StreamFixtures.stream()
      let path = try StreamFixtures.write(bytes, in: folder)
      try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
      let reader = try openScan(at: path)
      for i in 0..<reader.frameCount { _ = try reader.frame(at: i) }
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
  }
}
