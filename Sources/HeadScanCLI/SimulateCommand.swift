import ArgumentParser
import Foundation
import ScanIO
import ScanSimulator
import _HeadScanSupport

/// `headscan simulate OUTPUT`: a synthetic scan with landmarks and exact truth.
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Render a synthetic scan of an infant head wearing an ArUco cap, with landmarks and truth.",
    discussion: """
      Writes the scan (a .rgbdscan file, a Record3D .r3d export, or a TUM folder for any other name), and beside it NAME.landmarks.json (docs/formats.md) and NAME.truth.json (exact measures, marker and camera poses, and the conditions rendered under). The same options and seed give the same bytes.

      --preset default is the simulator's base model; --preset realistic renders a TrueDepth recording as an independent simulator renders it (600 frames, 40 decal stickers of 16 mm with 2 mm margin, σ = 0.4 mm·(z/0.2 m)², dropouts at 72–80° incidence, half the silhouette lost, 3 holes a frame, motion blur in 5 % of frames, 24–39 cm from the surface, fx 587.5–592.5 px, the last 35 % of the frames a pass at ear level). Options given explicitly override the preset. docs/simulator.md has the full model.

      Every number must lie within the bounds its help gives (docs/command-line.md, "Option bounds"); outside them, or not a finite number, the command line is refused (exit 64) before anything is written.

      Examples:
        headscan simulate out/normal.rgbdscan
        headscan simulate out/plagio.rgbdscan --cvai 9 --side left --frames 600 --seed 7
        headscan simulate out/small-tum --size 320x240 --frames 40 --format tum
        headscan simulate out/phone.r3d --frames 120      (portrait, with out/phone.cap.json)
        headscan simulate out/real.rgbdscan --preset realistic --cvai 9 --focal-error 0.06
      """)

  typealias Limits = SimulationOptions.Bounds
  typealias HeadLimits = HeadShape.Parameters.Bounds
  typealias SensorLimits = SensorModel.Bounds
  typealias PathLimits = CameraPath.Bounds

  @Argument(help: "The scan to write: NAME.rgbdscan, NAME.r3d or a folder NAME.")
  var output: String

  @Option(help: "Conditions to start from: default or realistic.") var preset: SimulationPreset = .default
  @Option(help: "Number of frames, \(optionRange(Limits.frames)) (default 240; realistic 600).") var frames: Int?
  @Option(help: "Frames per second, \(optionRange(Limits.fps)).") var fps: Double = 30
  @Option(help: "Image size WIDTHxHEIGHT, 4:3, \(Limits.width.lowerBound)x\(Limits.height.lowerBound) to \(Limits.width.upperBound)x\(Limits.height.upperBound).")
  var size: String = "640x480"
  @Option(help: "Stickers on the cap, ids from 0, \(optionRange(Limits.markerCount)) (default 30; realistic 40); more than fit the head without prints overlapping are refused.") var markers: Int?
  @Option(help: "Printed marker side, \(optionRange(Limits.markerSide, scale: 1000, unit: "mm")) (default 16).") var markerSide: Double?
  @Option(help: "White paper around each printed marker, \(optionRange(Limits.markerMargin, scale: 1000, unit: "mm")) (default 20 % of the side; realistic 2).")
  var markerMargin: Double?
  @Option(help: "How stickers follow the cap: tangent (projected square) or decal (keeps printed lengths along the surface; realistic).")
  var stickerWrap: CapLayout.Wrap?
  @Option(help: "ArUco dictionary of the stickers.") var dictionary: String = "DICT_4X4_50"
  @Option(help: "Target CVAI, percent, \(optionRange(HeadLimits.cvai)).") var cvai: Double = 0
  @Option(help: "Target cranial index, \(optionRange(HeadLimits.cranialIndex)).") var ci: Double = 80
  @Option(help: "Nominal head length, \(optionRange(HeadLimits.length, scale: 1000, unit: "mm")).") var length: Double = 150
  @Option(help: "Flattened back quarter: left or right.") var side: HeadShape.FlattenedQuarter = .right
  @Flag(help: "Leave the ears out (a head whose tragions cannot be found, to see `measure --landmarks auto` refuse).") var noEars = false
  @Flag(help: "Leave the face and nose out (a head whose face is hidden, to see `measure --landmarks auto` refuse).") var noFace = false
  @Option(help: "Fraction of a full turn the camera covers, \(optionRange(PathLimits.coverage)).") var coverage: Double = 1.1
  @Option(help: "Mean camera distance from the head centre, \(optionRange(PathLimits.distance, unit: "m")) (default 0.30 ± 0.03).") var distance: Double?
  @Option(help: "Camera distance from the head surface as MIN:MAX within \(optionRange(PathLimits.surfaceDistance, unit: "m")) (swings between them; realistic 0.24:0.39).")
  var distanceRange: String?
  @Option(help: "Slow hand tremor amplitude, \(optionRange(PathLimits.tremor, scale: 1000, unit: "mm")) (default 3).") var tremor: Double?
  @Option(help: "Fast (8–12 Hz) hand tremor amplitude, \(optionRange(PathLimits.fineTremor, scale: 1000, unit: "mm")) (default 0; realistic 0.5).")
  var fineTremor: Double?
  @Option(help: "Per-pixel depth noise σ at the reference distance, \(optionRange(SensorLimits.depthNoise, scale: 1000, unit: "mm")) (default 0.5; realistic 0.4).")
  var depthNoise: Double?
  @Option(help: "Reference distance of --depth-noise, \(optionRange(SensorLimits.noiseReferenceDepth, unit: "m")): σ(z) = σ0·(z/z0)² (default 0.3; realistic 0.2).")
  var noiseDistance: Double?
  @Option(help: "Spatially correlated depth noise σ, \(optionRange(SensorLimits.depthNoise, scale: 1000, unit: "mm")) (default 0).") var correlatedNoise: Double?
  @Option(help: "Correlation length of --correlated-noise, \(optionRange(SensorLimits.correlationLength, unit: "pixels")) (default 40).")
  var correlationLength: Double?
  @Option(help: "σ of a depth offset drawn per frame, \(optionRange(SensorLimits.depthNoise, scale: 1000, unit: "mm")) (default 0).") var frameOffset: Double?
  @Option(help: "Incidence angles START:END within \(optionRange(OptionBounds.grazing, unit: "degrees")): depth drops out with a probability ramping from 0 to 1 between them (default 69.5:78.5; realistic 72:80).")
  var grazing: String?
  @Option(help: "Fraction of silhouette and depth-edge pixels losing depth, \(optionRange(SensorLimits.fraction)) (default 0; realistic 0.5).")
  var silhouetteLoss: Double?
  @Option(help: "Mean number of random round depth holes a frame, \(optionRange(SensorLimits.holesPerFrame)) (default 0; realistic 3).") var holes: Double?
  @Option(help: "Hole diameter range MIN:MAX within \(optionRange(SensorLimits.holeDiameter, unit: "pixels")) (default 2:6).") var holeSize: String?
  @Option(help: "Fraction of other depth pixels lost at random, \(optionRange(SensorLimits.fraction)) (default 0.003; realistic 0).") var randomDropout: Double?
  @Option(help: "Fraction of frames with a motion blur in a random direction, \(optionRange(Limits.motionBlurRate)) (default 0; realistic 0.05).")
  var motionBlurRate: Double?
  @Option(help: "Length range MIN:MAX of those blurs within \(optionRange(Limits.motionBlurLength, unit: "pixels")) at 640 px (default 3:14).")
  var motionBlurLength: String?
  @Option(help: "True focal length, pixels at 640 px, or MIN:MAX drawn with the seed, within \(optionRange(Limits.focalLength)) (default 593; realistic 587.5:592.5).")
  var focalLength: String?
  @Option(help: "Relative error of the header's focal length, \(optionRange(Limits.focalError)): stated = true·(1 + e); the truth keeps the true one (default 0).")
  var focalError: Double?
  @Option(help: "Relative error of the depth sensor's scale, \(optionRange(Limits.depthScaleError)): written depth = true·(1 + e) (default 0).")
  var depthScaleError: Double?
  @Option(help: "Relative error of the printed stickers, \(optionRange(Limits.printedSideError)): rendered side = stated·(1 + e), the header stating --marker-side / (1 + e) (default 0).")
  var printedSideError: Double?
  @Option(help: "Colour noise σ, grey levels, \(optionRange(SensorLimits.colourNoise)).") var colourNoise: Double = 1.5
  @Option(help: "Depth encoding of a stream: float32, float16, disparity32, disparity16.")
  var depthEncoding: RGBDStreamLayout.DepthEncoding = .float32
  @Option(help: "Output format: stream, tum, tum-jpeg or r3d (default from the name: stream for .rgbdscan, r3d for .r3d, else tum).")
  var format: SimulationFormat?
  @Flag(help: "r3d only: also write confidence maps (rgbd/<i>.conf: 2 where there is depth, 0 where not).") var r3dConfidence = false
  @Option(name: .customLong("lose-marker"), help: "A sticker that falls off, as ID@FRAME, ID \(optionRange(Limits.markerID)), FRAME \(optionRange(Limits.frameIndex)) (repeatable).")
  var lostMarkers: [String] = []
  @Option(name: .customLong("shake"), help: "A frame blurred by a jerk of the phone, as FRAME or FRAME:PIXELS, FRAME \(optionRange(Limits.frameIndex)), PIXELS \(optionRange(Limits.motionBlurLength)) (horizontal motion blur at 640 px; default 9; repeatable).")
  var shakenFrames: [String] = []
  @Option(help: "Seed of every random choice.") var seed: UInt64 = 1
  @Option(help: "The header's patientID (default simulated-SEED).") var patientId: String?
  @Option(help: "The header's recordedAt, ISO 8601 (default 2026-11-21T10:15:00Z).") var recordedAt: String?

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  /// Checks every number against the simulator's bounds (``SimulationOptions/Bounds`` and its
  /// kin, converted to the options' units), then the options as a whole as the library will.
  func validate() throws {
    if let recordedAt, parseISO8601(recordedAt) == nil {
      throw ValidationError("--recorded-at must be an ISO 8601 date or time (2026-11-21T10:15:00Z or 2026-11-21), not '\(recordedAt)'")
    }
    try checkOption(frames, "--frames", Limits.frames)
    try checkOption(fps, "--fps", Limits.fps)
    guard parsedSize != nil else {
      throw ValidationError(
        "--size must be WIDTHxHEIGHT in 4:3 within \(Limits.width.lowerBound)x\(Limits.height.lowerBound)…\(Limits.width.upperBound)x\(Limits.height.upperBound), got '\(size)'")
    }
    try checkOption(markers, "--markers", Limits.markerCount)
    try checkOption(markerSide, "--marker-side", Limits.markerSide, scale: 1000, unit: "mm")
    try checkOption(markerMargin, "--marker-margin", Limits.markerMargin, scale: 1000, unit: "mm")
    try checkOption(cvai, "--cvai", HeadLimits.cvai)
    try checkOption(ci, "--ci", HeadLimits.cranialIndex)
    try checkOption(length, "--length", HeadLimits.length, scale: 1000, unit: "mm")
    try checkOption(coverage, "--coverage", PathLimits.coverage)
    try checkOption(distance, "--distance", PathLimits.distance, unit: "m")
    try checkRangeOption(distanceRange, "--distance-range", PathLimits.surfaceDistance, unit: "m")
    try checkOption(tremor, "--tremor", PathLimits.tremor, scale: 1000, unit: "mm")
    try checkOption(fineTremor, "--fine-tremor", PathLimits.fineTremor, scale: 1000, unit: "mm")
    try checkOption(depthNoise, "--depth-noise", SensorLimits.depthNoise, scale: 1000, unit: "mm")
    try checkOption(noiseDistance, "--noise-distance", SensorLimits.noiseReferenceDepth, unit: "m")
    try checkOption(correlatedNoise, "--correlated-noise", SensorLimits.depthNoise, scale: 1000, unit: "mm")
    try checkOption(correlationLength, "--correlation-length", SensorLimits.correlationLength, unit: "pixels")
    try checkOption(frameOffset, "--frame-offset", SensorLimits.depthNoise, scale: 1000, unit: "mm")
    try checkRangeOption(grazing, "--grazing", OptionBounds.grazing, unit: "degrees")
    try checkOption(silhouetteLoss, "--silhouette-loss", SensorLimits.fraction)
    try checkOption(holes, "--holes", SensorLimits.holesPerFrame)
    try checkRangeOption(holeSize, "--hole-size", SensorLimits.holeDiameter, unit: "pixels")
    try checkOption(randomDropout, "--random-dropout", SensorLimits.fraction)
    try checkOption(motionBlurRate, "--motion-blur-rate", Limits.motionBlurRate)
    try checkRangeOption(motionBlurLength, "--motion-blur-length", Limits.motionBlurLength, unit: "pixels")
    try checkRangeOption(focalLength, "--focal-length", Limits.focalLength, unit: "pixels", single: true)
    try checkOption(focalError, "--focal-error", Limits.focalError)
    try checkOption(depthScaleError, "--depth-scale-error", Limits.depthScaleError)
    try checkOption(printedSideError, "--printed-side-error", Limits.printedSideError)
    try checkOption(colourNoise, "--colour-noise", SensorLimits.colourNoise)
    for spec in lostMarkers where parseLoss(spec) == nil {
      throw ValidationError("--lose-marker takes ID@FRAME, ID within \(optionRange(Limits.markerID)), FRAME within \(optionRange(Limits.frameIndex)), got '\(spec)'")
    }
    for spec in shakenFrames where parseShake(spec) == nil {
      throw ValidationError(
        "--shake takes FRAME or FRAME:PIXELS, FRAME within \(optionRange(Limits.frameIndex)), PIXELS within \(optionRange(Limits.motionBlurLength)), got '\(spec)'")
    }
    // What the library checks besides: every option together (the same bounds, so this only
    // catches what the checks above do not name).
    do {
      try simulationOptions().validate()
    } catch {
      throw ValidationError(error.description)
    }
  }

  /// WIDTH and HEIGHT within the bounds, 4:3; nil otherwise (never an overflow: both are
  /// checked before they are multiplied).
  var parsedSize: (Int, Int)? {
    let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 2, let w = parts[0], let h = parts[1], Limits.width.contains(w), Limits.height.contains(h), w * 3 == h * 4 else {
      return nil
    }
    return (w, h)
  }

  /// FRAME or FRAME:PIXELS within the bounds.
  func parseShake(_ spec: String) -> (Int, Double)? {
    let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let frame = Int(parts[0]), Limits.frameIndex.contains(frame) else { return nil }
    guard parts.count == 2 else { return (frame, 9) }
    guard let pixels = Double(parts[1]), pixels.isFinite, Limits.motionBlurLength.contains(pixels) else { return nil }
    return (frame, pixels)
  }

  /// ID@FRAME within the bounds.
  func parseLoss(_ spec: String) -> (Int, Int)? {
    let parts = spec.split(separator: "@", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 2, let id = parts[0], let frame = parts[1], Limits.markerID.contains(id), Limits.frameIndex.contains(frame) else {
      return nil
    }
    return (id, frame)
  }

  /// The simulator's options from the command line (after ``validate()``'s checks).
  func simulationOptions() -> SimulationOptions {
    var options = SimulationOptions(preset: preset)
    options.workers = workers.jobs
    options.head = HeadShape.Parameters(length: length / 1000, cranialIndex: ci, cvai: cvai, flattenedSide: side)
    if noEars { options.head.withoutEars = true }
    if noFace { options.head.withoutFace = true }
    if let markers { options.markerCount = markers }
    if let markerSide { options.markerSide = markerSide / 1000 }
    if let markerMargin { options.markerMargin = markerMargin / 1000 }
    if let stickerWrap { options.stickerWrap = stickerWrap }
    options.dictionary = dictionary
    if let frames { options.frames = frames }
    options.fps = fps
    (options.width, options.height) = parsedSize ?? (640, 480)
    options.path.coverage = coverage
    if let distance {
      options.path.distance = distance
      options.path.surfaceDistance = nil
    }
    if let range = distanceRange.flatMap({ parseNumberRange($0) }) { options.path.surfaceDistance = range }
    if let tremor { options.path.tremor = tremor / 1000 }
    if let fineTremor { options.path.fineTremor = fineTremor / 1000 }
    if let depthNoise { options.sensor.depthNoise = depthNoise / 1000 }
    if let noiseDistance { options.sensor.noiseReferenceDepth = noiseDistance }
    if let correlatedNoise { options.sensor.correlatedNoise = correlatedNoise / 1000 }
    if let correlationLength { options.sensor.correlationLength = correlationLength }
    if let frameOffset { options.sensor.frameDepthOffset = frameOffset / 1000 }
    if let range = grazing.flatMap({ parseNumberRange($0) }) { options.sensor.setGrazingIncidence(from: range.lowerBound, to: range.upperBound) }
    if let silhouetteLoss { options.sensor.silhouetteLoss = silhouetteLoss }
    if let holes { options.sensor.holesPerFrame = holes }
    if let range = holeSize.flatMap({ parseNumberRange($0) }) { options.sensor.holeDiameter = range }
    if let randomDropout { options.sensor.randomDropout = randomDropout }
    if let motionBlurRate { options.motionBlurRate = motionBlurRate }
    if let range = motionBlurLength.flatMap({ parseNumberRange($0) }) { options.motionBlurLength = range }
    if let range = focalLength.flatMap({ parseNumberRange($0, single: true) }) { options.focalLength = range }
    if let focalError { options.focalError = focalError }
    if let depthScaleError { options.depthScaleError = depthScaleError }
    if let printedSideError { options.printedSideError = printedSideError }
    options.sensor.colourNoise = colourNoise
    options.depthEncoding = depthEncoding
    options.lostMarkers = Dictionary(lostMarkers.compactMap(parseLoss), uniquingKeysWith: min)
    options.shakenFrames = Dictionary(shakenFrames.compactMap(parseShake), uniquingKeysWith: max)
    options.seed = seed
    (options.patientID, options.recordedAt) = (patientId, recordedAt)
    options.record3DConfidence = r3dConfidence
    return options
  }

  func run() throws {
    try reportingErrors {
      let options = simulationOptions()
      let chosen = format ?? (output.hasSuffix(".rgbdscan") ? .stream : output.hasSuffix(".r3d") ? .record3D : .tum)
      // Every file it writes, checked before rendering: the scan, and the files beside it.
      try checkOutput(output, isNot: [], folder: chosen == .tum)
      let base = companionBase(of: output)
      let companions = [base + ".landmarks.json", base + ".truth.json"] + (chosen == .record3D ? [ScanCap.sidecarPath(forScan: output)] : [])
      for companion in companions { try checkOutput(companion, isNot: [output]) }
      let progress = ProgressReporter("rendering", total: options.frames, options: global)
      let result = try naming(output) { try simulateScan(options, to: output, format: chosen) { done, _ in progress.update(done) } }
      let m = result.truth.measures
      let cap = result.capPath.map { ", " + $0 } ?? ""
      print("wrote \(result.scanPath) (\(options.frames) frames), \(result.landmarksPath), \(result.truthPath)\(cap)")
      print(String(
        format: "truth: CVAI %.2f %%  CVA %.2f mm  A %.2f  B %.2f  length %.2f  width %.2f  CI %.2f  circumference %.1f mm  ML %.1f mm  severity %d",
        m.cvai, m.cva, m.diagonalA, m.diagonalB, m.length, m.width, m.ci, m.circumference, m.measurementLevel, m.severity))
    }
  }
}

extension HeadShape.FlattenedQuarter: ExpressibleByArgument {}
extension SimulationFormat: ExpressibleByArgument {}
extension RGBDStreamLayout.DepthEncoding: ExpressibleByArgument {}
extension SimulationPreset: ExpressibleByArgument {}
extension CapLayout.Wrap: ExpressibleByArgument {}
