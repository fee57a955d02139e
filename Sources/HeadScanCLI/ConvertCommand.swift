import ArgumentParser
import Foundation
import HeadScan
import ScanIO
import _HeadScanSupport

/// `headscan convert SCAN OUT`: any scan format read into a `.rgbdscan` stream or a TUM folder.
struct ConvertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a scan (any format read) into a .rgbdscan stream or a TUM-style folder.",
    discussion: """
      OUT's name chooses the format: NAME.rgbdscan writes a stream (docs/formats.md), any other name a TUM folder (16-bit PNG depth at 5000 units a metre, colour as PNG or JPEG). Frames are read, converted and written one at a time, so memory stays flat; OUT appears only when complete. The header keeps the scan's camera, sizes, fps and cap (for a Record3D export the cap from its NAME.cap.json or --cap, so the result needs no sidecar). NAME.landmarks.json beside SCAN is copied beside OUT: frames keep their indices and pixels.

      Examples:
        headscan convert phone.r3d phone.rgbdscan
        headscan convert phone.r3d phone-tum --color-format jpeg
        headscan convert scan.rgbdscan scan-tum
      """)

  /// How a TUM folder stores colour.
  enum ColorFormat: String, ExpressibleByArgument, CaseIterable {
    case png, jpeg
  }

  @Argument(help: "The scan to read: a .rgbdscan file, a TUM-style folder or a Record3D .r3d export.")
  var scan: String

  @Argument(help: "What to write: NAME.rgbdscan, or a TUM folder NAME.")
  var output: String

  @Option(help: "Depth encoding of a .rgbdscan output: float32, float16, disparity32, disparity16.")
  var depthEncoding: RGBDStreamLayout.DepthEncoding = .float32

  @Option(help: "Colour images of a TUM output: png (lossless) or jpeg (quality 92).")
  var colorFormat: ColorFormat = .png

  @OptionGroup(title: "Scan input") var input: ScanInputOptions

  @OptionGroup(title: "De-identification") var deidentification: DeidentifyOptions

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    if output.hasSuffix(".r3d") {
      throw ValidationError("convert writes a .rgbdscan stream or a TUM folder, not a Record3D export: name OUT NAME.rgbdscan or a folder")
    }
  }

  func run() throws {
    try reportingErrors {
      let sourceLandmarks = companionBase(of: scan) + ".landmarks.json"
      let targetLandmarks = companionBase(of: output) + ".landmarks.json"
      let inputs = [scan, sourceLandmarks] + input.inputFiles(forScan: scan) + deidentification.inputFiles
      try checkOutput(output, isNot: inputs, folder: !output.hasSuffix(".rgbdscan"))
      // NAME.r3d → NAME.rgbdscan in one folder: both share NAME.landmarks.json, nothing to copy.
      let sharesLandmarks = resolvedPath(sourceLandmarks) == resolvedPath(targetLandmarks)
      let copiesLandmarks = !sharesLandmarks && FileManager.default.fileExists(atPath: sourceLandmarks)
      if copiesLandmarks {
        try checkOutput(targetLandmarks, isNot: inputs)
        try checkOutput(targetLandmarks + ".bak", isNot: inputs + [targetLandmarks])
      }
      input.warnIfCapUnused(forScan: scan, global)
      let reader = try openScan(at: scan, options: try input.openOptions())
      for warning in reader.warnings { printWarning(warning.description, options: global) }
      let toStream = output.hasSuffix(".rgbdscan")
      let destination: ScanDestination =
        toStream
        ? .stream(path: output, depthEncoding: depthEncoding) : .tumFolder(path: output, colorFormat: colorFormat == .png ? .png : .jpeg(quality: 92))
      if let header = try deidentification.header() {
        try convertDeidentified(to: destination, landmarks: (sourceLandmarks, targetLandmarks), header: header, frames: reader.frameCount)
        return
      }
      let progress = ProgressReporter("converting", total: reader.frameCount, options: global)
      let conversion = try convertScan(reader, to: destination) { done, _ in progress.update(done) }
      let ownIntrinsics = conversion.framesWithOwnIntrinsics
      if ownIntrinsics > 0 {
        printWarning(
          "\(scan): \(ownIntrinsics) frames had their own intrinsics (Record3D perFrameIntrinsicCoeffs); \(output) keeps one set, the metadata's K",
          options: global)
      }
      var wrote = "wrote \(output) (\(reader.frameCount) frames, \(toStream ? ".rgbdscan " + depthEncoding.rawValue : "TUM folder"))"
      if copiesLandmarks {
        try Self.write(try ReadOnlyFile.contents(of: sourceLandmarks), keepingAnEarlierFileAt: targetLandmarks)
        wrote += ", " + targetLandmarks
      }
      print(wrote)
    }
  }

  /// Writes a landmarks file atomically; an earlier, different file there is kept as
  /// `PATH.bak` (landmarks are placed by hand: a copy must not silently replace them).
  static func write(_ data: Data, keepingAnEarlierFileAt path: String) throws {
    if let earlier = try? ReadOnlyFile.contents(of: path), earlier != data {
      try AtomicFile.write(earlier, to: path + ".bak")
    }
    try AtomicFile.write(data, to: path)
  }

  /// `convert --deidentify`: the copy with its header pseudonymised and the face removed, and
  /// its landmarks as world points beside it.
  func convertDeidentified(
    to destination: ScanDestination, landmarks: (source: String, target: String), header: HeaderDeidentification, frames: Int
  ) throws {
    try checkOutput(landmarks.target, isNot: [scan, landmarks.source])
    try checkOutput(landmarks.target + ".bak", isNot: [scan, landmarks.source, landmarks.target])
    var options = ScanDeidentificationOptions(header: header)
    options.measure.scan = try input.openOptions()
    let bars = stageProgress(global), writing = ProgressReporter("de-identifying", total: frames, options: global)
    let copy = try deidentifyScan(
      at: scan, landmarks: .file(landmarks.source), to: destination, options: options,
      progress: { event in
        if case .warning(let line) = event { printWarning(line, options: global) }
        if case .reconstructing(let stage, let done, let total) = event { bars(stage, done, total) }
      }, writing: { done, _ in writing.update(done) })
    try Self.write(copy.landmarks.jsonData(), keepingAnEarlierFileAt: landmarks.target)
    print(
      "wrote \(output) (\(copy.frames) frames, de-identified: patient \(copy.header.patientID ?? "not recorded"), "
        + (copy.header.ageAtScanDays.map { "age \($0) days" } ?? "recorded \(copy.header.recordedAt ?? "not recorded")")
        + ", \(copy.colourPixelsBlanked) colour pixels and \(copy.depthSamplesRemoved) depth samples of the face removed"
        + (copy.framesBlankedWhole > 0 ? ", \(copy.framesBlankedWhole) unplaced frames blanked whole" : "") + "), \(landmarks.target)")
  }
}
