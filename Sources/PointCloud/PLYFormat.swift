import Foundation

/// Binary little-endian PLY, as `headscan reconstruct` writes it (docs/command-line.md).
///
/// Vertex properties: `x y z` (float, metres), then `nx ny nz` (float) when the
/// set has normals, then `red green blue` (uchar) when it has colours.
public enum PLYFormat {
  /// The whole file as bytes (callers write it atomically).
  public static func encode(_ points: PointSet, comment: String? = nil) -> Data {
    var header = "ply\nformat binary_little_endian 1.0\n"
    if let comment { header += "comment \(comment.replacingOccurrences(of: "\n", with: " "))\n" }
    header += "element vertex \(points.count)\nproperty float x\nproperty float y\nproperty float z\n"
    let hasNormals = !points.normals.isEmpty, hasColours = !points.colors.isEmpty
    if hasNormals { header += "property float nx\nproperty float ny\nproperty float nz\n" }
    if hasColours { header += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
    header += "end_header\n"
    let stride = 12 + (hasNormals ? 12 : 0) + (hasColours ? 3 : 0)
    var body = [UInt8](repeating: 0, count: points.count * stride)
    body.withUnsafeMutableBytes { raw in
      for i in 0..<points.count {
        var offset = i * stride
        func put(_ v: Float) {
          raw.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
          offset += 4
        }
        let p = points.positions[i]
        put(p.x)
        put(p.y)
        put(p.z)
        if hasNormals {
          let n = points.normals[i]
          put(n.x)
          put(n.y)
          put(n.z)
        }
        if hasColours {
          let c = points.colors[i]
          raw[offset] = c.x
          raw[offset + 1] = c.y
          raw[offset + 2] = c.z
        }
      }
    }
    return Data(header.utf8) + Data(body)
  }

  /// Reads back a file written by ``encode(_:comment:)`` (binary little-endian, float xyz, optional normals, uchar colours).
  /// - Returns: `nil` when the data is not such a PLY (or its vertex count does not match its size).
  public static func decode(_ data: Data) -> PointSet? {
    guard let end = data.range(of: Data("end_header\n".utf8)) else { return nil }
    guard let header = String(data: data[..<end.lowerBound], encoding: .utf8), header.hasPrefix("ply\n"),
      header.contains("format binary_little_endian 1.0")
    else { return nil }
    let lines = header.split(separator: "\n")
    guard let countLine = lines.first(where: { $0.hasPrefix("element vertex ") }),
      let count = Int(countLine.split(separator: " ").last ?? "")
    else { return nil }
    let hasNormals = lines.contains("property float nx"), hasColours = lines.contains("property uchar red")
    let stride = 12 + (hasNormals ? 12 : 0) + (hasColours ? 3 : 0)
    // A count from the file: negative or so large that the body size overflows is no PLY of ours.
    let (size, overflow) = count.multipliedReportingOverflow(by: stride)
    guard count >= 0, !overflow, data.count - end.upperBound == size else { return nil }
    let body = [UInt8](data[end.upperBound...])
    var set = PointSet()
    body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      func float(_ o: Int) -> Float { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self))) }
      for i in 0..<count {
        let o = i * stride
        set.positions.append(SIMD3(float(o), float(o + 4), float(o + 8)))
        if hasNormals { set.normals.append(SIMD3(float(o + 12), float(o + 16), float(o + 20))) }
        if hasColours {
          let c = o + (hasNormals ? 24 : 12)
          set.colors.append(SIMD3(raw[c], raw[c + 1], raw[c + 2]))
        }
      }
    }
    return set
  }
}
