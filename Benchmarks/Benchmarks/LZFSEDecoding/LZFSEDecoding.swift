import Benchmark
import Foundation
import LZFSE

/// LZFSE decoding of Record3D-sized depth frames: 1.2 MB of float32 depth (as 480×640) a
/// frame, one core. Throughput is in decoded frames a second (× 1.2288 MB for MB/s).
///
/// Always: streams made from the committed vectors (`fixtures/lzfse/`, from the reference
/// encoder): sixteen 120×160 or 160×120 depth frames, their blocks chained into one stream
/// that decodes to 1,228,800 bytes. When `.build-lzfse-full/` holds the true 480×640 frames
/// (`scripts/make-lzfse-vectors.sh --full-size .build-lzfse-full`), those too.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
    timeUnits: .milliseconds, warmupIterations: 3, maxDuration: .seconds(4), maxIterations: 2000)

  var frames = [
    ("16 tiles of float16-rounded depth (TrueDepth-like)", DepthStream(tiling: "depth-120x160", times: 16)),
    ("16 tiles of float32 depth with noise in every bit", DepthStream(tiling: "depth-160x120-float32", times: 16)),
  ]
  for (name, file) in [("480×640 float16-rounded depth", "depth-480x640"), ("480×640 float32 depth", "depth-480x640-float32")] {
    if let frame = DepthStream(file: file, in: ".build-lzfse-full") { frames.append((name, frame)) }
  }
  for (name, frame) in frames {
    Benchmark("decode a 1.2 MB depth frame: \(name), \(frame.stream.count) bytes compressed") { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(try LZFSEDecoder.decode(frame.stream, expectedSize: frame.size))
      }
    }
  }
}

/// One LZFSE stream and its decoded size.
struct DepthStream {
  let stream: [UInt8]
  let size: Int

  /// The repository's root folder.
  static let root: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url
  }()

  /// `folder/NAME.lzfse` (relative to the repository) and the size of `NAME.raw` beside it,
  /// or `nil` when they are missing.
  init?(file name: String, in folder: String) {
    let base = Self.root.appendingPathComponent(folder).appendingPathComponent(name)
    guard let stream = try? Data(contentsOf: base.appendingPathExtension("lzfse")),
      let size = try? FileManager.default.attributesOfItem(atPath: base.appendingPathExtension("raw").path)[.size] as? Int
    else { return nil }
    self.stream = Array(stream)
    self.size = size
  }

  /// `times` copies of `fixtures/lzfse/NAME.lzfse` without their end-of-stream block, then one.
  init(tiling name: String, times: Int) {
    guard let one = DepthStream(file: name, in: "fixtures/lzfse"), one.stream.count > 4 else {
      fatalError("missing fixtures/lzfse/\(name): run scripts/make-lzfse-vectors.sh")
    }
    stream = Array(repeating: Array(one.stream.dropLast(4)), count: times).flatMap { $0 } + Array("bvx$".utf8)
    size = one.size * times
  }
}
