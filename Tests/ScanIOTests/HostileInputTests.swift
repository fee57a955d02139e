import Foundation
import ScanIO
import Testing
import _TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Inputs that ask for more than they hold, or numbers nobody measures: refused by name from
/// their header, before anything is allocated for them, or read as no depth.
struct HostileInputTests {
  /// A header like the stream fixture's with other sizes.
  static func header(width: Int, height: Int, intrinsicsWidth: Int = 640, intrinsicsHeight: Int = 480, fx: Double = 593) -> String {
    """
    {"depth": {"width": \(width), "height": \(height), "encoding": "float32"},
     "color": {"width": \(width), "height": \(height), "encoding": "bgra8"},
     "intrinsics": {"fx": \(fx), "fy": \(fx), "cx": 319.5, "cy": 239.5, "width": \(intrinsicsWidth), "height": \(intrinsicsHeight)},
     "markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}}
    """
  }

  @Test func sizesBeyondTheLimitAreRefusedFromTheHeader() throws {
    try TestFiles.withTemporaryFolder { folder in
      let side = ScanHeader.maximumSide * 4
      let path = try StreamFixtures.write(
        StreamFixtures.stream(header: Self.header(width: side, height: side, intrinsicsWidth: side, intrinsicsHeight: side), frames: 0),
        in: folder)
      #expect(throws: ScanIOError.invalidValue(path: path, key: "depth.width", detail: "\(side) is not a size between 1 and \(ScanHeader.maximumSide)")) {
        try RGBDScanReader(path: path)
      }
    }
  }

  @Test func implausibleCamerasAreRefusedByKey() throws {
    try TestFiles.withTemporaryFolder { folder in
      for fx in [1e-30, 1e30, 0.5] {
        let path = try StreamFixtures.write(StreamFixtures.stream(header: Self.header(width: 4, height: 3, fx: fx), frames: 1), in: folder)
        do {
          _ = try RGBDScanReader(path: path)
          Issue.record("fx \(fx) accepted")
        } catch let error as ScanIOError {
          #expect(error.description.contains("intrinsics.fx"), "\(error)")
        }
      }
    }
  }

  @Test func depthsNoCameraMeasuresReadAsNoDepth() throws {
    try TestFiles.withTemporaryFolder { folder in
      // Frame 0 of the fixture with its depth replaced by 1e-30, 1e30, 0.005, 25 m and two good values.
      var bytes = StreamFixtures.stream(frames: 1)
      let json = Array(StreamFixtures.headerJSON.utf8)
      let values: [Float] = [1e-30, 1e30, 0.005, 25, 0.3, 1.2, .nan, -0.3, .infinity, 0.01, 20, 0.5]
      for (i, value) in values.enumerated() {
        let offset = 16 + json.count + 8 + 4 * i
        withUnsafeBytes(of: value.bitPattern.littleEndian) { for k in 0..<4 { bytes[offset + k] = $0[k] } }
      }
      let frame = try RGBDScanReader(path: try StreamFixtures.write(bytes, in: folder)).frame(at: 0)
      let kept = frame.depth.metres.enumerated().filter { !$0.element.isNaN }.map(\.offset)
      #expect(kept == [4, 5, 9, 10, 11], "\(frame.depth.metres)")
    }
  }

  /// A PNG that declares `width × height` but holds a few bytes of image data.
  static func pngHeaderOnly(width: UInt32, height: UInt32, bitDepth: UInt8, colourType: UInt8) -> Data {
    func chunk(_ kind: String, _ body: [UInt8]) -> [UInt8] {
      let typeAndBody = Array(kind.utf8) + body
      var crc: UInt32 = 0xFFFF_FFFF
      for byte in typeAndBody {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
      }
      crc ^= 0xFFFF_FFFF
      return withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + typeAndBody + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }
    let ihdr = withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
      + [bitDepth, colourType, 0, 0, 0]
    return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", []))
  }

  @Test func imagesAreCheckedByTheirHeaderBeforeDecoding() throws {
    try TestFiles.withTemporaryFolder { folder in
      // 8192² would need 256 MiB to decode: refused from the header, whatever the file holds.
      let huge = folder.appendingPathComponent("huge.png").path
      try Self.pngHeaderOnly(width: 8192, height: 8192, bitDepth: 8, colourType: 2).write(to: URL(fileURLWithPath: huge))
      #expect(throws: ScanIOError.self) { try ImageFiles.readColor(at: huge) }
      do {
        _ = try ImageFiles.readColor(at: huge)
      } catch {
        #expect(String(describing: error).contains("implausible size 8192×8192"), "\(error)")
      }
      // Within the limit but not the size a scan's header says: refused before decoding.
      let other = folder.appendingPathComponent("other.png").path
      try Self.pngHeaderOnly(width: 2000, height: 1000, bitDepth: 16, colourType: 0).write(to: URL(fileURLWithPath: other))
      #expect(throws: ScanIOError.sizeMismatch(path: other, detail: "depth image is 2000×1000, camera.json says 320×240")) {
        try ImageFiles.readGray16(at: other, expecting: .init(width: 320, height: 240, what: "depth image", source: "camera.json"))
      }
    }
  }

  @Test func aRecord3DExportDeclaringHugeFramesIsRefusedBeforeAnyFrame() throws {
    try TestFiles.withTemporaryFolder { folder in
      var layout = Record3DFixtures.Layout()
      for key in ["w", "h", "dw", "dh"] { layout.metadata[key] = 16384 }
      let path = try Record3DFixtures.write(layout, in: folder)
      do {
        _ = try Record3DReader(path: path)
        Issue.record("a 16384² export opened")
      } catch let error as ScanIOError {
        #expect(error.description.contains("is not a size between 1 and \(ScanHeader.maximumSide)"), "\(error)")
      }
    }
  }

  @Test func specialFilesAreNotScans() throws {
    try TestFiles.withTemporaryFolder { folder in
      let fifo = folder.appendingPathComponent("scan.r3d").path
      #expect(mkfifo(fifo, 0o600) == 0)
      // Neither detection nor opening waits for a writer.
      #expect(ScanFormats.recognising(fifo) == nil || (try? openScan(at: fifo)) == nil)
      #expect(throws: ScanIOError.self) { try openScan(at: fifo) }
      #expect(throws: ScanIOError.self) { try Record3DReader(path: fifo) }
    }
  }
}
