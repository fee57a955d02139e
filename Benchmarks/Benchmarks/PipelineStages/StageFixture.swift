import ArucoBridge
import CVAI
import Foundation
import Landmarks
import PointCloud
import Reconstruction
import Registration
import ScanIO
import ScanSimulator

/// What the stage benchmarks work on: a 60-frame 640×480 simulated scan (float16 depth, as
/// the recorder writes), its frames decoded, detected and observed, and its reconstruction.
/// Made once per benchmark process, before the first benchmark runs.
final class StageFixture: Sendable {
  static let shared = StageFixture()

  let reader: any ScanReader
  let detector: MarkerDetector
  let options = ReconstructionOptions.default
  let frames: [ScanFrame]
  let greys: [[UInt8]]
  let detections: [[DetectedMarker]]
  let observations: [FrameObservation]
  let reconstruction: HeadReconstruction
  /// The fused cloud in the head frame, metres.
  let headPoints: [SIMD3<Double>]

  private init() {
    do {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("headscan-bench-\(getpid())")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var simulation = SimulationOptions()
      simulation.frames = 60
      simulation.depthEncoding = .float16
      simulation.seed = 11
      let scan = try simulateScan(simulation, to: folder.appendingPathComponent("stages.rgbdscan").path, format: .stream)
      let reader = try openScan(at: scan.scanPath)
      // The scan pipeline's detector: the parameters' smallest threshold window and one sized
      // from the scan's markers (observeScan's choice), not OpenCV's three.
      let opencv = try MarkerDetector(dictionary: reader.header.markers.dictionary, parameters: options.observation.detector)
      let detector = try observeScan(reader, options: options.observation).thresholdWindow?.detector(like: opencv) ?? opencv
      let frames = try (0..<reader.frameCount).map { try reader.frame(at: $0) }
      let greys = frames.map { $0.color.grey() }
      detections = try zip(frames, greys).map { frame, grey in
        try detector.detect(grey: grey, width: frame.color.width, height: frame.color.height)
      }
      let (options, side, count) = (options, reader.header.markers.sideLength, reader.header.capMarkerCount)
      observations = try frames.map {
        try observeFrame($0, detector: detector, capMarkerCount: count, sideLength: side, options: options.observation)
      }
      (self.reader, self.detector, self.frames, self.greys) = (reader, detector, frames, greys)
      reconstruction = try reconstructHead(reader)
      let frame = try HeadFrameEstimate.fromLandmarks(
        LandmarkFile(path: scan.landmarksPath), path: scan.landmarksPath, scan: reader, reconstruction: reconstruction)
      headPoints = frame.headPoints(of: reconstruction.cloud)
      try? FileManager.default.removeItem(at: folder)
    } catch {
      fatalError("could not prepare the benchmark scan: \(error)")
    }
  }

  /// `count` frames' observations: the scan's, repeated in order and renumbered, so the
  /// registration sees as many frames and observations as a scan of that length would give.
  func observations(count: Int) -> [FrameObservation] {
    (0..<count).map { i in
      var o = observations[i % observations.count]
      o.diagnostics.index = i
      o.diagnostics.timestamp = Double(i) / 30
      return o
    }
  }
}
