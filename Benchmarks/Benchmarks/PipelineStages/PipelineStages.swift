import ArucoBridge
import Benchmark
import CVAI
import Foundation
import Fusion
import OperatorGuidance
import PointCloud
import Reconstruction
import Registration
import ScanIO

/// One benchmark per stage of `headscan reconstruct` and `measure`; each reports wall-clock
/// time, allocations and peak resident memory. The fixture (a simulated 640×480 scan) is made
/// before the first one runs.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
    timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(4), maxIterations: 500)
  let fixture = StageFixture.shared
  let frameCount = fixture.frames.count

  Benchmark("read a frame (640×480, float16 depth + BGRA)") { benchmark in
    for i in benchmark.scaledIterations { blackHole(try fixture.reader.frame(at: i % frameCount)) }
  }

  Benchmark("detect markers in a frame (OpenCV ArUco, sub-pixel corners)") { benchmark in
    for i in benchmark.scaledIterations {
      let frame = fixture.frames[i % frameCount]
      blackHole(try fixture.detector.detect(grey: fixture.greys[i % frameCount], width: frame.color.width, height: frame.color.height))
    }
  }

  Benchmark("lift a frame's markers to 3D (depth quadric, PnP fallback)") { benchmark in
    for i in benchmark.scaledIterations {
      let frame = fixture.frames[i % frameCount]
      for marker in fixture.detections[i % frameCount] {
        blackHole(LiftedMarker(marker: marker, depth: frame.depth, colour: frame.color.intrinsics, sideLength: 0.016))
      }
    }
  }

  Benchmark("observe a frame (grey, detect, lift, blur index)") { benchmark in
    let side = fixture.reader.header.markers.sideLength, count = fixture.reader.header.capMarkerCount
    for i in benchmark.scaledIterations {
      blackHole(
        try observeFrame(
          fixture.frames[i % frameCount], detector: fixture.detector, capMarkerCount: count, sideLength: side,
          options: fixture.options.observation))
    }
  }

  Benchmark(
    "live coverage of a frame (place on the live map, sample depth, count; after observation)",
    configuration: .init(timeUnits: .microseconds)
  ) { benchmark in
    let side = fixture.reader.header.markers.sideLength
    var tracker = LiveCoverage(sideLength: side)
    for i in benchmark.scaledIterations {
      // One tracker a pass over the scan, fed its frames in recording order.
      if i % frameCount == 0 { tracker = LiveCoverage(sideLength: side) }
      blackHole(tracker.update(frame: fixture.frames[i % frameCount], observation: fixture.observations[i % frameCount]))
    }
  }

  Benchmark(
    "register 1800 frames (chain, optimise, resect, keep markers)",
    configuration: .init(warmupIterations: 0, maxDuration: .seconds(20), maxIterations: 3)
  ) { benchmark in
    let context = ScanContext(
      path: "bench", colour: fixture.reader.header.colorIntrinsics, markerSideLength: fixture.reader.header.markers.sideLength)
    let observed = ScanObservations(context: context, frames: fixture.observations(count: 1800))
    let o = fixture.options
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      let chain = try chainFrames(observed, options: o.chain)
      let resected = resectFrames(try optimiseMap(chain, options: o.optimisation), options: o.resection)
      blackHole(try keepMarkers(resected, rule: o.markerKeep))
    }
  }

  Benchmark("fuse a registered frame (back-project, voxel averages)") { benchmark in
    let registered = fixture.reconstruction.frames.compactMap { d in d.worldFromCamera.map { (index: d.index, pose: $0) } }
    var fusion = try FrameFusion(
      aroundMarkerCentres: fixture.reconstruction.markers.map(\.worldFromMarker.translation), options: fixture.options.fusion,
      path: "bench")
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
      let d = registered[i % registered.count]
      fusion.add(fusion.projection.points(of: fixture.frames[d.index], worldFromCamera: d.pose))
    }
    blackHole(fusion.voxelCount)
  }

  Benchmark("slice + CVAI of a fused head (1 mm layers)") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try measureHead(points: fixture.headPoints)) }
  }
}
