import ArgumentParser
import Foundation
import ScanIO
import ScanSimulator

/// `headscan simulate OUTPUT`: a synthetic scan with landmarks and exact truth.
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Render a synthetic scan of an infant head wearing an ArUco cap, with landmarks and truth.",
    discussion: """
      Writes the scan (a .rgbdscan file, or a TUM folder for any other name), and beside it
      NAME.landmarks.json (contract §3) and NAME.truth.json (exact measures, marker and camera
      poses). The same options and seed give the same bytes.

      Examples:
        headscan simulate out/normal.rgbdscan
        headscan simulate out/plagio.rgbdscan --cvai 9 --side left --frames 600 --seed 7
        headscan simulate out/small-tum --size 320x240 --frames 40 --format tum
      """)

  @Argument(help: "The scan to write: NAME.rgbdscan or a folder NAME.")
  var output: String

  @Option(help: "Number of frames.") var frames: Int = 240
  @Option(help: "Frames per second.") var fps: Double = 30
  @Option(help: "Image size WIDTHxHEIGHT, 4:3.") var size: String = "640x480"
  @Option(help: "Stickers on the cap (ids from 0).") var markers: Int = 30
  @Option(help: "Printed marker side, mm.") var markerSide: Double = 16
  @Option(help: "ArUco dictionary of the stickers.") var dictionary: String = "DICT_4X4_50"
  @Option(help: "Target CVAI, percent.") var cvai: Double = 0
  @Option(help: "Target cranial index.") var ci: Double = 80
  @Option(help: "Nominal head length, mm.") var length: Double = 150
  @Option(help: "Flattened back quarter: left or right.") var side: HeadShape.FlattenedQuarter = .right
  @Option(help: "Fraction of a full turn the camera covers.") var coverage: Double = 1.1
  @Option(help: "Mean camera distance from the head centre, m.") var distance: Double = 0.30
  @Option(help: "Depth noise σ at 0.3 m, mm.") var depthNoise: Double = 0.5
  @Option(help: "Colour noise σ, grey levels.") var colourNoise: Double = 1.5
  @Option(help: "Depth encoding of a stream: float32, float16, disparity32, disparity16.")
  var depthEncoding: RGBDStreamLayout.DepthEncoding = .float32
  @Option(help: "Output format: stream, tum or tum-jpeg (default from the name: stream for .rgbdscan).") var format: SimulationFormat?
  @Option(name: .customLong("lose-marker"), help: "A sticker that falls off, as ID@FRAME (repeatable).")
  var lostMarkers: [String] = []
  @Option(name: .customLong("shake"), help: "A frame blurred by a jerk of the phone, as FRAME or FRAME:PIXELS (horizontal motion blur at 640 px; default 9; repeatable).")
  var shakenFrames: [String] = []
  @Option(help: "Seed of every random choice.") var seed: UInt64 = 1

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard frames >= 1 else { throw ValidationError("--frames must be at least 1") }
    guard let (w, h) = parsedSize, w >= 64, w * 3 == h * 4 else { throw ValidationError("--size must be WIDTHxHEIGHT in 4:3, at least 64x48") }
    guard markers >= 0, markers <= 250 else { throw ValidationError("--markers must be 0…250") }
    guard cvai >= 0, cvai < 25 else { throw ValidationError("--cvai must be 0…25") }
    guard ci > 55, ci < 110 else { throw ValidationError("--ci must be between 55 and 110") }
    guard coverage > 0, coverage <= 2 else { throw ValidationError("--coverage must be in (0, 2]") }
    guard distance >= 0.1, distance <= 1 else { throw ValidationError("--distance must be 0.1…1 m") }
    for spec in lostMarkers where parseLoss(spec) == nil { throw ValidationError("--lose-marker takes ID@FRAME, got '\(spec)'") }
    for spec in shakenFrames where parseShake(spec) == nil { throw ValidationError("--shake takes FRAME or FRAME:PIXELS, got '\(spec)'") }
  }

  var parsedSize: (Int, Int)? {
    let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
  }

  func parseShake(_ spec: String) -> (Int, Double)? {
    let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let frame = Int(parts[0]), frame >= 0 else { return nil }
    guard parts.count == 2 else { return (frame, 9) }
    guard let pixels = Double(parts[1]), pixels >= 0, pixels <= 100 else { return nil }
    return (frame, pixels)
  }

  func parseLoss(_ spec: String) -> (Int, Int)? {
    let parts = spec.split(separator: "@").compactMap { Int($0) }
    return parts.count == 2 && parts[0] >= 0 && parts[1] >= 0 ? (parts[0], parts[1]) : nil
  }

  func run() throws {
    try reportingErrors {
      var options = SimulationOptions()
      options.head = HeadShape.Parameters(length: length / 1000, cranialIndex: ci, cvai: cvai, flattenedSide: side)
      options.markerCount = markers
      options.markerSide = markerSide / 1000
      options.dictionary = dictionary
      options.frames = frames
      options.fps = fps
      (options.width, options.height) = parsedSize!
      options.path.coverage = coverage
      options.path.distance = distance
      options.sensor.depthNoise = depthNoise / 1000
      options.sensor.colourNoise = colourNoise
      options.depthEncoding = depthEncoding
      options.lostMarkers = Dictionary(lostMarkers.compactMap(parseLoss), uniquingKeysWith: min)
      options.shakenFrames = Dictionary(shakenFrames.compactMap(parseShake), uniquingKeysWith: max)
      options.seed = seed
      let chosen = format ?? (output.hasSuffix(".rgbdscan") ? .stream : .tum)
      let progress = ProgressReporter("rendering", total: frames, options: global)
      let result = try naming(output) { try simulateScan(options, to: output, format: chosen) { done, _ in progress.update(done) } }
      let m = result.truth.measures
      print("wrote \(result.scanPath) (\(frames) frames), \(result.landmarksPath), \(result.truthPath)")
      print(String(
        format: "truth: CVAI %.2f %%  CVA %.2f mm  A %.2f  B %.2f  length %.2f  width %.2f  CI %.2f  circumference %.1f mm  ML %.1f mm  severity %d",
        m.cvai, m.cva, m.diagonalA, m.diagonalB, m.length, m.width, m.ci, m.circumference, m.measurementLevel, m.severity))
    }
  }
}

extension HeadShape.FlattenedQuarter: ExpressibleByArgument {}
extension SimulationFormat: ExpressibleByArgument {}
extension RGBDStreamLayout.DepthEncoding: ExpressibleByArgument {}
