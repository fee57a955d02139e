import Foundation
import _HeadScanSupport

/// The mesh file formats ``TriangleMesh/encoded(as:comment:)`` writes, told apart by extension.
///
/// - ``ply``: binary little-endian PLY; per vertex `x y z` (float), `nx ny nz` (float, outward
///   unit normal), `red green blue` (uchar) and `filled` (uchar: 1 where the vertex closes a
///   hole and was not measured); per face a `uchar int vertex_indices` list.
/// - ``stl``: binary STL (80-byte header, triangle count, per triangle its outward unit normal
///   and three corners as little-endian floats). STL has no shared vertices, colours or flags.
/// - ``obj``: Wavefront OBJ text: `v x y z r g b` (the common vertex-colour extension, colour
///   0…1; readers without it ignore the extra numbers) and `f a b c` (1-based). The filled
///   flag is not carried.
///
/// Positions are written as they are in the mesh: the caller states frame and unit
/// (headscan: metres in the world frame, or millimetres in the head frame).
public enum MeshFileFormat: String, Sendable, Hashable, CaseIterable {
  case ply, stl, obj

  /// The format of a path's extension (case-insensitive), or `nil` for any other extension.
  public init?(path: String) {
    self.init(rawValue: URL(fileURLWithPath: path).pathExtension.lowercased())
  }
}

extension TriangleMesh {
  /// The whole file in `format` (callers write it atomically).
  /// - Parameter comment: one line for the PLY header, the OBJ's first line or the STL header
  ///   (cut to 80 bytes).
  public func encoded(as format: MeshFileFormat, comment: String? = nil) -> Data {
    let line = comment?.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    switch format {
    case .ply: return plyData(comment: line)
    case .stl: return stlData(comment: line)
    case .obj: return objData(comment: line)
    }
  }

  /// Writes the mesh atomically in the format of `path`'s extension (`.ply`, `.stl` or `.obj`).
  /// - Throws: ``MeshError/invalidOption(_:)`` for another extension; a one-line file error
  ///   (`path: problem`) when writing fails.
  public func write(to path: String, comment: String? = nil) throws {
    guard let format = MeshFileFormat(path: path) else {
      throw MeshError.invalidOption("\(path): a mesh file ends in .ply, .stl or .obj")
    }
    try AtomicFile.write(encoded(as: format, comment: comment), to: path)
  }

  private func plyData(comment: String?) -> Data {
    var header = "ply\nformat binary_little_endian 1.0\n"
    if let comment { header += "comment \(comment)\n" }
    header += "element vertex \(vertexCount)\n"
    header += "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n"
    header += "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar filled\n"
    header += "element face \(triangleCount)\nproperty list uchar int vertex_indices\nend_header\n"
    var bytes = ByteWriter(capacity: header.utf8.count + vertexCount * 28 + triangleCount * 13)
    bytes.append(contentsOf: Array(header.utf8))
    let normals = vertexNormals
    let hasColours = colours.count == vertexCount
    for v in 0..<vertexCount {
      bytes.append(positions[v])
      bytes.append(normals[v])
      let c = hasColours ? colours[v] : SIMD3<UInt8>(repeating: 128)
      bytes.append(contentsOf: [c.x, c.y, c.z, filled[v] ? 1 : 0])
    }
    for t in triangles {
      bytes.append(contentsOf: [3])
      for i in [t.x, t.y, t.z] { bytes.append(UInt32(bitPattern: i)) }
    }
    return Data(bytes.bytes)
  }

  private func stlData(comment: String?) -> Data {
    var bytes = ByteWriter(capacity: 84 + 50 * triangleCount)
    // The header must not start with "solid" (ASCII STL's keyword).
    var header = Array(("headscan mesh" + (comment.map { ": " + $0 } ?? "")).utf8.prefix(80))
    header += [UInt8](repeating: 0x20, count: 80 - header.count)
    bytes.append(contentsOf: header)
    bytes.append(UInt32(truncatingIfNeeded: triangleCount))
    for (t, n) in zip(triangles.indices, triangleNormals) {
      let (a, b, c) = corners(t)
      for v in [n, a, b, c] { bytes.append(v) }
      bytes.append(contentsOf: [0, 0])
    }
    return Data(bytes.bytes)
  }

  private func objData(comment: String?) -> Data {
    var text = "# headscan mesh" + (comment.map { ": " + $0 } ?? "") + "\n"
    text += "# \(vertexCount) vertices, \(triangleCount) triangles\n"
    let hasColours = colours.count == vertexCount
    for v in 0..<vertexCount {
      let p = positions[v]
      text += "v \(p.x) \(p.y) \(p.z)"
      if hasColours {
        let c = SIMD3<Float>(colours[v]) / 255
        text += " \(c.x) \(c.y) \(c.z)"
      }
      text += "\n"
    }
    for t in triangles { text += "f \(t.x + 1) \(t.y + 1) \(t.z + 1)\n" }
    return Data(text.utf8)
  }
}

/// Little-endian bytes.
private struct ByteWriter {
  var bytes: [UInt8]

  init(capacity: Int) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  mutating func append(contentsOf more: [UInt8]) { bytes += more }

  mutating func append(_ value: UInt32) {
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
  }

  mutating func append(_ v: SIMD3<Float>) {
    append(v.x.bitPattern)
    append(v.y.bitPattern)
    append(v.z.bitPattern)
  }
}
