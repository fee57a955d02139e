import Foundation
import ScanIO

/// Builds `.rgbdscan` bytes by hand, independently of `RGBDScanWriter`.
enum StreamFixtures {
  static let headerJSON = """
    {"depth": {"width": 4, "height": 3, "encoding": "float32"},
     "color": {"width": 4, "height": 3, "encoding": "bgra8"},
     "intrinsics": {"fx": 593.0, "fy": 593.0, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480},
     "fps": 30, "markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016},
     "cap": {"markerCount": 40}, "patientID": "17", "futureKey": [1, 2]}
    """

  static func preamble(magic: String = "RGBDSCAN", version: UInt32 = 1, headerLength: Int) -> [UInt8] {
    var bytes = Array(magic.utf8)
    withUnsafeBytes(of: version.littleEndian) { bytes += $0 }
    withUnsafeBytes(of: UInt32(headerLength).littleEndian) { bytes += $0 }
    return bytes
  }

  /// A frame of the 4×3 float32 layout: depth `base + i / 1000` m, colour bytes `i & 255`.
  static func frame(timestamp: Double, base: Float) -> [UInt8] {
    var bytes: [UInt8] = []
    withUnsafeBytes(of: timestamp.bitPattern.littleEndian) { bytes += $0 }
    for i in 0..<12 {
      let z: Float = i == 5 ? 0 : (i == 6 ? -1 : base + Float(i) / 1000)
      withUnsafeBytes(of: z.bitPattern.littleEndian) { bytes += $0 }
    }
    for i in 0..<48 { bytes.append(UInt8(i & 255)) }
    return bytes
  }

  static func stream(header: String = headerJSON, frames: Int = 3, magic: String = "RGBDSCAN", version: UInt32 = 1) -> [UInt8] {
    let json = Array(header.utf8)
    var bytes = preamble(magic: magic, version: version, headerLength: json.count) + json
    for f in 0..<frames { bytes += frame(timestamp: 10 + Double(f) / 30, base: 0.3 + Float(f) / 100) }
    return bytes
  }

  static func write(_ bytes: [UInt8], in folder: URL, name: String = "scan.rgbdscan") throws -> String {
    let url = folder.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }

  static var header: ScanHeader {
    ScanHeader(
      depthWidth: 32, depthHeight: 24, colorWidth: 64, colorHeight: 48,
      intrinsics: CameraIntrinsics(fx: 593, fy: 593, cx: 319.5, cy: 239.5, width: 640, height: 480),
      markers: .init(dictionary: "DICT_4X4_50", sideLength: 0.016), capMarkerCount: 40)
  }
}
