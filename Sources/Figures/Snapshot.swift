import ArucoBridge
import Foundation
import ScanIO
import _HeadScanSupport

/// A picture of one frame for people: colour with the detected markers outlined
/// (corner 0 marked red), beside the depth map in grey (nearest = white, 10 cm and more
/// behind it = dark; no depth = dark red).
public enum Snapshot {
  /// Writes the picture of `frame` with `markers` (colour-image pixels) as a PNG at `path`,
  /// twice the colour image's width: colour left, depth right. Written atomically.
  /// - Throws: the file's error when it cannot be written.
  public static func write(frame: ScanFrame, markers: [DetectedMarker], to path: String) throws {
    let w = frame.color.width, h = frame.color.height
    var canvas = [UInt8](repeating: 0, count: 2 * w * h * 4)
    for y in 0..<h {
      for x in 0..<w {
        for c in 0..<4 { canvas[4 * (y * 2 * w + x) + c] = frame.color.bgra[4 * (y * w + x) + c] }
      }
    }
    // Depth, scaled to the colour image's size, normalised over its valid range.
    let depth = frame.depth
    let valid = depth.metres.filter { $0.isFinite }
    let near = valid.min() ?? 0, far = min(max(valid.max() ?? 1, near + 0.001), near + 0.1)
    for y in 0..<h {
      for x in 0..<w {
        let z = depth[min(depth.width - 1, x * depth.width / w), min(depth.height - 1, y * depth.height / h)]
        let i = 4 * (y * 2 * w + w + x)
        if z.isFinite {
          let g = UInt8(40 + 215 * max(0, 1 - (z - near) / (far - near)))
          canvas[i] = g
          canvas[i + 1] = g
          canvas[i + 2] = g
        } else {
          canvas[i + 2] = 90
        }
        canvas[i + 3] = 255
      }
    }
    func plot(_ x: Int, _ y: Int, _ bgr: (UInt8, UInt8, UInt8)) {
      guard x >= 0, y >= 0, x < w, y < h else { return }
      let i = 4 * (y * 2 * w + x)
      (canvas[i], canvas[i + 1], canvas[i + 2]) = bgr
    }
    for marker in markers {
      for k in 0..<4 {
        let a = marker.corners[k], b = marker.corners[(k + 1) % 4]
        let steps = max(1, Int(max(abs(b.x - a.x), abs(b.y - a.y)) * 2))
        for s in 0...steps {
          let p = a + (b - a) * (Double(s) / Double(steps))
          plot(Int(p.x.rounded()), Int(p.y.rounded()), (40, 220, 40))
        }
      }
      let c0 = marker.corners[0]
      for dy in -1...1 { for dx in -1...1 { plot(Int(c0.x.rounded()) + dx, Int(c0.y.rounded()) + dy, (40, 40, 230)) } }
    }
    let temporary = AtomicFile.temporaryPath(beside: path)
    try AtomicFile.checkFolder(of: path)
    do {
      try ImageFiles.writeColorPNG(canvas, width: 2 * w, height: h, to: temporary)
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      throw error
    }
    try AtomicFile.commit(temporary, to: path)
  }
}
