import Foundation
import PointCloud
import Testing

/// Binary PLY as `reconstruct` writes it (docs/command-line.md, reconstruct output).
struct PLYFormatTests {
  @Test func plyRoundTripsPositionsNormalsAndColours() {
    let points = PointSet(
      positions: [[0.1, -0.2, 0.3], [1e-3, 2e-3, -3e-3]], normals: [[0, 0, 1], [0.6, 0.8, 0]], colors: [[255, 0, 7], [1, 2, 3]])
    let data = PLYFormat.encode(points, comment: "test")
    #expect(String(decoding: data.prefix(80), as: UTF8.self).hasPrefix("ply\nformat binary_little_endian 1.0\ncomment test\nelement vertex 2\n"))
    #expect(PLYFormat.decode(data) == points)
    #expect(PLYFormat.decode(Data("not a ply".utf8)) == nil)
  }

  @Test func theHeaderNamesWhatTheBodyHoldsAndTheBodyIsLittleEndianFloats() throws {
    for (points, properties, stride) in [
      (PointSet(positions: [[1, 2, 3]]), ["x", "y", "z"], 12),
      (PointSet(positions: [[1, 2, 3]], normals: [[0, 1, 0]]), ["x", "y", "z", "nx", "ny", "nz"], 24),
      (PointSet(positions: [[1, 2, 3]], colors: [[9, 8, 7]]), ["x", "y", "z", "red", "green", "blue"], 15),
    ] {
      let data = PLYFormat.encode(points, comment: "two\nlines")
      let end = try #require(data.range(of: Data("end_header\n".utf8)))
      let header = String(decoding: data[..<end.lowerBound], as: UTF8.self).split(separator: "\n")
      #expect(header.contains("comment two lines"), "a comment stays on one line")
      #expect(header.filter { $0.hasPrefix("property ") }.map { String($0.split(separator: " ").last!) } == properties)
      #expect(data.count - end.upperBound == stride)
      let body = [UInt8](data[end.upperBound...])
      // 1.0 as a little-endian float: 00 00 80 3F.
      #expect(Array(body[0..<4]) == [0, 0, 0x80, 0x3F])
      #expect(PLYFormat.decode(data) == points)
    }
    let empty = PLYFormat.encode(PointSet())
    #expect(String(decoding: empty, as: UTF8.self).contains("element vertex 0\n") && PLYFormat.decode(empty) == PointSet())
  }

  @Test func aBodyOfTheWrongSizeOrAnotherFormatIsNotOurs() {
    let data = PLYFormat.encode(PointSet(positions: [[1, 2, 3], [4, 5, 6]]))
    #expect(PLYFormat.decode(data.dropLast()) == nil)
    #expect(PLYFormat.decode(data + Data([0])) == nil)
    let ascii = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "binary_little_endian", with: "ascii")
    #expect(PLYFormat.decode(Data(ascii.utf8)) == nil)
    for count in ["-1", "99999999999999999999", "4611686018427387904"] {
      let header = "ply\nformat binary_little_endian 1.0\nelement vertex \(count)\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
      #expect(PLYFormat.decode(Data(header.utf8)) == nil, "vertex count \(count)")
    }
  }
}

/// Point sets moved by rigid transforms.
struct PointSetTests {
  static func near(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Bool { ((a - b) * (a - b)).sum() < 1e-12 }

  @Test func aTransformMovesPositionsTurnsNormalsAndKeepsColours() {
    let points = PointSet(positions: [[0.01, 0, 0], [0, 0.02, 0.5]], normals: [[1, 0, 0], [0, 0, 1]], colors: [[1, 2, 3], [4, 5, 6]])
    let quarter = RigidTransform(rotation: Rotation3(axis: [0, 0, 1], angle: .pi / 2), translation: [0, 0, 0.1])
    let moved = points.transformed(by: quarter)
    #expect(moved.count == 2 && moved.colors == points.colors)
    let expectedPositions: [SIMD3<Float>] = [[0, 0.01, 0.1], [-0.02, 0, 0.6]]
    let expectedNormals: [SIMD3<Float>] = [[0, 1, 0], [0, 0, 1]]
    for (a, b) in zip(moved.positions, expectedPositions) { #expect(Self.near(a, b), "\(a)") }
    for (a, b) in zip(moved.normals, expectedNormals) { #expect(Self.near(a, b), "\(a)") }
    // Translations do not move normals; the inverse brings the set back.
    #expect(points.transformed(by: RigidTransform(rotation: .identity, translation: [1, 2, 3])).normals == points.normals)
    let back = moved.transformed(by: quarter.inverse)
    for (a, b) in zip(back.positions, points.positions) { #expect(Self.near(a, b), "\(a)") }
    // A set without normals or colours stays without them.
    let bare = PointSet(positions: [[1, 0, 0]]).transformed(by: quarter)
    #expect(bare.normals.isEmpty && bare.colors.isEmpty && bare.count == 1)
  }
}
