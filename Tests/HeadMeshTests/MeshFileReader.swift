import Foundation

/// A second, independently written reader of the mesh files (not sharing code with the
/// writers): what a CAD tool would see.
struct MeshFileReader {
  /// Distinct vertices (STL: corners told apart by their exact bits), triangles, bounding box.
  var vertices: Int
  var triangles: Int
  var minimum: SIMD3<Float>
  var maximum: SIMD3<Float>

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Binary STL: 80-byte header, UInt32 count, 50 bytes per triangle.
  static func stl(_ data: Data) throws -> MeshFileReader {
    let bytes = [UInt8](data)
    guard bytes.count >= 84 else { throw Failure(description: "STL shorter than its header") }
    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    let count = Int(u32(80))
    guard bytes.count == 84 + 50 * count else { throw Failure(description: "STL of \(bytes.count) bytes for \(count) triangles") }
    var seen = Set<[UInt32]>()
    var low = SIMD3<Float>(repeating: .infinity), high = SIMD3<Float>(repeating: -.infinity)
    for t in 0..<count {
      for corner in 1...3 {
        let at = 84 + 50 * t + 12 * corner
        let bits = [u32(at), u32(at + 4), u32(at + 8)]
        let p = SIMD3(Float(bitPattern: bits[0]), Float(bitPattern: bits[1]), Float(bitPattern: bits[2]))
        seen.insert(bits)
        low = pointwiseMin(low, p)
        high = pointwiseMax(high, p)
      }
    }
    return MeshFileReader(vertices: seen.count, triangles: count, minimum: low, maximum: high)
  }

  /// OBJ text: `v` lines (first three numbers) and `f` lines.
  static func obj(_ data: Data) throws -> MeshFileReader {
    guard let text = String(data: data, encoding: .utf8) else { throw Failure(description: "OBJ is not UTF-8") }
    var vertices = 0, faces = 0
    var low = SIMD3<Float>(repeating: .infinity), high = SIMD3<Float>(repeating: -.infinity)
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard let kind = fields.first else { continue }
      if kind == "v" {
        guard fields.count >= 4, let x = Float(fields[1]), let y = Float(fields[2]), let z = Float(fields[3]) else {
          throw Failure(description: "bad vertex line \(line)")
        }
        vertices += 1
        low = pointwiseMin(low, SIMD3(x, y, z))
        high = pointwiseMax(high, SIMD3(x, y, z))
      } else if kind == "f" {
        guard fields.count == 4, fields.dropFirst().allSatisfy({ Int($0).map { $0 >= 1 && $0 <= vertices } ?? false }) else {
          throw Failure(description: "bad face line \(line)")
        }
        faces += 1
      }
    }
    return MeshFileReader(vertices: vertices, triangles: faces, minimum: low, maximum: high)
  }

  /// PLY header's element counts and property names.
  static func plyHeader(_ data: Data) throws -> (vertices: Int, faces: Int, properties: [String]) {
    guard let end = data.range(of: Data("end_header\n".utf8)), let header = String(data: data[..<end.lowerBound], encoding: .ascii) else {
      throw Failure(description: "PLY without a header")
    }
    var vertices = -1, faces = -1
    var properties: [String] = []
    for line in header.split(separator: "\n") {
      let f = line.split(separator: " ").map(String.init)
      if f.count == 3, f[0] == "element" { if f[1] == "vertex" { vertices = Int(f[2]) ?? -1 } else if f[1] == "face" { faces = Int(f[2]) ?? -1 } }
      if f.first == "property" { properties.append(f.last ?? "") }
    }
    return (vertices, faces, properties)
  }
}
