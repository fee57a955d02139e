import Foundation
import ScanIO
import ZIPFoundation
import _TestSupport

/// Small Record3D `.r3d` exports built entry by entry, so tests control every byte: a
/// portrait front-camera layout (colour 240×320, depth 120×160), depth from the committed
/// LZFSE vectors (frame 0: the reference encoder's compressed blocks) or raw `bvx-` blocks.
enum Record3DFixtures {
  static let colourWidth = 240, colourHeight = 320, depthWidth = 120, depthHeight = 160
  /// Column-major K of the colour image: fx 300, fy 302, cx 118.5, cy 161.5.
  static let k: [Double] = [300, 0, 0, 0, 302, 0, 118.5, 161.5, 1]
  static let cap = #"{"markers": {"dictionary": "DICT_4X4_50", "sideLength": 0.016}, "cap": {"markerCount": 40}}"#

  /// The reference encoder's depth frame (120 wide, 160 high, metres, NaN holes) and its stream.
  static func vectorDepth() throws -> (values: [Float], stream: Data) {
    let raw = try Data(contentsOf: TestFiles.fixture("lzfse/depth-120x160.raw"))
    let values = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    return (values, try Data(contentsOf: TestFiles.fixture("lzfse/depth-120x160.lzfse")))
  }

  /// Depth of frame `i` > 0: a tilted plane, 0.3 m + 1 mm a column + 0.1 mm·i.
  static func planeDepth(_ i: Int) -> [Float] {
    (0..<(depthWidth * depthHeight)).map { Float(0.3 + 0.001 * Double($0 % depthWidth) + 0.0001 * Double(i)) }
  }

  /// A confidence map cycling 0, 1, 2 along each row.
  static let confidence: [UInt8] = (0..<(120 * 160)).map { UInt8($0 % 3) }

  /// A colour frame: a horizontal ramp in blue, vertical in green, `i`-dependent red.
  static func colour(_ i: Int) -> [UInt8] {
    var bgra = [UInt8](repeating: 255, count: colourWidth * colourHeight * 4)
    for y in 0..<colourHeight {
      for x in 0..<colourWidth {
        let p = 4 * (y * colourWidth + x)
        bgra[p] = UInt8(x * 255 / colourWidth)
        bgra[p + 1] = UInt8(y * 255 / colourHeight)
        bgra[p + 2] = UInt8(40 * i % 256)
      }
    }
    return bgra
  }

  /// What to put in an export.
  struct Layout {
    var frames = 3
    /// Frames with a `.conf` entry.
    var confidenceFrames: Set<Int> = [1]
    /// Entries replaced by these bytes (e.g. a corrupt `rgbd/1.depth`).
    var replaced: [String: Data] = [:]
    /// Store colour as one `rgbd.mp4` instead of JPEGs.
    var mp4 = false
    var metadata: [String: Any] = [
      "w": 240, "h": 320, "dw": 120, "dh": 160, "fps": 30, "K": k, "cameraType": 0,
      "frameTimestamps": [10.0, 10.05, 10.1], "poses": [[0, 0, 0, 1, 0, 0, 0]], "initPose": [0, 0, 0, 1, 0, 0, 0],
    ]
    /// Write `NAME.cap.json` beside the export.
    var sidecar = true
  }

  /// Writes `name` (and its sidecar) into `folder`; returns the export's path.
  static func write(_ layout: Layout = Layout(), in folder: URL, name: String = "phone.r3d") throws -> String {
    let path = folder.appendingPathComponent(name).path
    let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
    func add(_ entry: String, _ data: Data) throws {
      let bytes = layout.replaced[entry] ?? data
      try archive.addEntry(with: entry, type: .file, uncompressedSize: Int64(bytes.count)) { position, size in
        bytes.subdata(in: Int(position)..<Int(position) + size)
      }
    }
    try add("metadata", try JSONSerialization.data(withJSONObject: layout.metadata))
    let (_, vectorStream) = try vectorDepth()
    for i in 0..<layout.frames {
      if !layout.mp4 {
        let jpeg = folder.appendingPathComponent("frame.jpg").path
        try ImageFiles.writeColorJPEG(colour(i), width: colourWidth, height: colourHeight, quality: 95, to: jpeg)
        try add("rgbd/\(i).jpg", try Data(contentsOf: URL(fileURLWithPath: jpeg)))
      }
      let depth = i == 0 ? vectorStream : Record3DWriter.rawLZFSE(planeDepth(i).withUnsafeBytes { Data($0) })
      try add("rgbd/\(i).depth", depth)
      if layout.confidenceFrames.contains(i) { try add("rgbd/\(i).conf", Record3DWriter.rawLZFSE(Data(confidence))) }
    }
    if layout.mp4 { try add("rgbd.mp4", Data(repeating: 0, count: 64)) }
    if layout.sidecar { try Data(cap.utf8).write(to: URL(fileURLWithPath: ScanCap.sidecarPath(forScan: path))) }
    return path
  }
}
