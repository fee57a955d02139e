import Foundation
import ScanIO
import Testing
import _TestSupport

struct TUMFolderTests {
  /// Writes a 3-frame folder with the writer and returns its path and the depth written.
  func writeFolder(in folder: URL) throws -> (String, [[Float]]) {
    let path = folder.appendingPathComponent("scan").path
    let header = StreamFixtures.header
    let writer = try TUMFolderWriter(path: path, header: header)
    var depths: [[Float]] = []
    for k in 0..<3 {
      let depth = (0..<(32 * 24)).map { i -> Float in i % 11 == 0 ? .nan : 0.25 + Float(i) / 10000 + Float(k) / 100 }
      let colour = (0..<(64 * 48 * 4)).map { i -> UInt8 in i % 4 == 3 ? 255 : UInt8((i * 7 + k) & 255) }
      try writer.append(timestamp: 100 + Double(k) / 30, depthMetres: depth, colorBGRA: colour)
      depths.append(depth)
    }
    try writer.finish()
    return (path, depths)
  }

  @Test func roundTripQuantisesDepthToTheScale() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, depths) = try writeFolder(in: folder)
      let reader = try openScan(at: path)
      #expect(reader is TUMFolderReader)
      #expect(reader.frameCount == 3)
      #expect(reader.header.capMarkerCount == 40)
      for k in 0..<3 {
        let frame = try reader.frame(at: k)
        #expect(abs(frame.timestamp - (100 + Double(k) / 30)) < 1e-6)
        for (got, want) in zip(frame.depth.metres, depths[k]) {
          if want.isNaN { #expect(got.isNaN) } else { #expect(abs(got - want) <= 0.5 / 5000 + 1e-7) }
        }
        #expect(frame.color.bgra[4] == UInt8((4 * 7 + k) & 255))
        #expect(frame.color.bgra[7] == 255)
      }
    }
  }

  @Test func pairsByNearestTimestampWithin20ms() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try writeFolder(in: folder)
      // Shift depth stamps by 12 ms and add an unpartnered colour entry.
      let depthIndex = try String(contentsOfFile: path + "/depth.txt", encoding: .utf8)
      var shifted = ""
      for line in depthIndex.split(separator: "\n") {
        if line.hasPrefix("#") { shifted += line + "\n"; continue }
        let parts = line.split(separator: " ")
        shifted += String(format: "%.6f", Double(parts[0])! + 0.012) + " " + parts[1] + "\n"
      }
      try shifted.write(toFile: path + "/depth.txt", atomically: true, encoding: .utf8)
      try ("200.0 rgb/none.png\n" + String(contentsOfFile: path + "/rgb.txt", encoding: .utf8)).write(toFile: path + "/rgb.txt", atomically: true, encoding: .utf8)
      let reader = try TUMFolderReader(path: path)
      #expect(reader.frameCount == 3)
      #expect(reader.warnings == [.unpairedEntries(path: path, colour: 1, depth: 0)])
      #expect(abs(try reader.timestamp(at: 0) - 100) < 1e-6)
    }
  }

  @Test func missingTimestampsFileIsNamed() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try writeFolder(in: folder)
      try FileManager.default.removeItem(atPath: path + "/depth.txt")
      #expect(throws: ScanIOError.missingFile(path: path + "/depth.txt")) { try openScan(at: path) }
      try FileManager.default.removeItem(atPath: path + "/camera.json")
      #expect(throws: ScanIOError.missingFile(path: path + "/camera.json")) { try openScan(at: path) }
    }
  }

  @Test func badIndexLineIsNamedWithItsNumber() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try writeFolder(in: folder)
      try "# comment\n100.0 rgb/a.png\nnot-a-time rgb/b.png\n".write(toFile: path + "/rgb.txt", atomically: true, encoding: .utf8)
      #expect(throws: ScanIOError.invalidIndexLine(path: path + "/rgb.txt", line: 3, detail: "'not-a-time' is not a timestamp")) {
        try openScan(at: path)
      }
    }
  }

  @Test func unreadablePNGIsNamed() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try writeFolder(in: folder)
      let reader = try TUMFolderReader(path: path)
      let depthFile = try FileManager.default.contentsOfDirectory(atPath: path + "/depth").sorted()[1]
      let full = path + "/depth/" + depthFile
      let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
      try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: full))  // truncated PNG
      #expect(throws: ScanIOError.self) { try reader.frame(at: 1) }
      do {
        _ = try reader.frame(at: 1)
      } catch {
        #expect(String(describing: error).hasPrefix(full + ": unreadable image"))
      }
      try Data("not an image".utf8).write(to: URL(fileURLWithPath: full))
      #expect(throws: ScanIOError.unreadableImage(path: full, detail: "not a PNG or JPEG image")) { try reader.frame(at: 1) }
    }
  }

  @Test func imageOfTheWrongSizeIsNamed() throws {
    try TestFiles.withTemporaryFolder { folder in
      let (path, _) = try writeFolder(in: folder)
      let colourFile = path + "/rgb/" + (try FileManager.default.contentsOfDirectory(atPath: path + "/rgb").sorted()[0])
      try ImageFiles.writeColorPNG([UInt8](repeating: 9, count: 8 * 6 * 4), width: 8, height: 6, to: colourFile)
      let reader = try TUMFolderReader(path: path)
      #expect(throws: ScanIOError.sizeMismatch(path: colourFile, detail: "colour image is 8×6, camera.json says 64×48")) {
        try reader.frame(at: 0)
      }
    }
  }

  @Test func gray16PNGRoundTripsEveryValue() throws {
    try TestFiles.withTemporaryFolder { folder in
      let values = (0..<256).map { UInt16($0 * 257) } + [1, 2, 65534, 65535, 4999, 5000, 5001, 12345]
      let path = folder.appendingPathComponent("d.png").path
      try ImageFiles.writeGray16PNG(values, width: 264, height: 1, to: path)
      let back = try ImageFiles.readGray16(at: path)
      #expect(back.values == values)
    }
  }
}
