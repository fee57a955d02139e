import Foundation
import PointCloud
import Testing

struct PLYFormatTests {
  @Test func plyRoundTripsPositionsNormalsAndColours() {
    let points = PointSet(
      positions: [[0.1, -0.2, 0.3], [1e-3, 2e-3, -3e-3]], normals: [[0, 0, 1], [0.6, 0.8, 0]], colors: [[255, 0, 7], [1, 2, 3]])
    let data = PLYFormat.encode(points, comment: "test")
    #expect(String(decoding: data.prefix(80), as: UTF8.self).hasPrefix("ply\nformat binary_little_endian 1.0\ncomment test\nelement vertex 2\n"))
    #expect(PLYFormat.decode(data) == points)
    #expect(PLYFormat.decode(Data("not a ply".utf8)) == nil)
  }
}
