import ArgumentParser
import ArucoBridge
import Foundation
import Registration
import ScanIO

/// `headscan markers INPUT --json OUT [--dictionary NAME]` (docs/command-line.md, "markers --json").
struct MarkersCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "markers",
    abstract: "Detect the ArUco markers in every frame of a scan, or in one PNG/JPEG image.",
    discussion: """
      Writes {"frames": [{"frame": 0, "markers": [{"id": 40, "corners": [[x, y], …]}]}]}, corners in OpenCV order and pixel convention (the top-left pixel's centre is (0, 0)). Uses OpenCV's default detector parameters unless --refine says otherwise.

      Examples:
        headscan markers fixtures/scans/tiny.rgbdscan --json markers.json
        headscan markers ../shared/data/opencv-aruco/singlemarkersoriginal.jpg --json photo-markers.json --dictionary DICT_6X6_250
      """)

  @Argument(help: "A .rgbdscan file, a TUM-style scan folder, a Record3D .r3d export, or a PNG/JPEG image.")
  var input: String

  @Option(help: "Where to write the detections (JSON, written atomically).")
  var json: String

  @Option(help: "ArUco dictionary; default the scan header's, DICT_4X4_50 for images.")
  var dictionary: String?

  // Optional, with the default in the text: ArgumentParser would print a raw-valued enum's default as its number.
  @Option(help: "Corner refinement: none (OpenCV's default; the default), subpixel, contour or apriltag.")
  var refine: CornerRefinement?

  @OptionGroup(title: "Scan input") var scanInput: ScanInputOptions

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    if let dictionary {
      do {
        _ = try MarkerDetector(dictionary: dictionary)
      } catch {
        throw ValidationError("--dictionary \(dictionary): not an ArUco dictionary OpenCV knows (e.g. DICT_4X4_50, DICT_6X6_250, DICT_ARUCO_ORIGINAL)")
      }
    }
  }

  struct Report: Encodable {
    struct Frame: Encodable {
      var frame: Int
      var timestamp: Double?
      var markers: [DetectedMarker]
    }
    var input: String
    var dictionary: String
    var frames: [Frame]
  }

  func run() throws {
    try reportingErrors {
      try checkOutput(json, isNot: [input] + scanInput.inputFiles(forScan: input))
      var parameters = DetectorParameters.opencvDefault
      parameters.cornerRefinement = refine ?? .none
      let report: Report
      switch try InputKind.of(input) {
      case .image:
        let name = dictionary ?? "DICT_4X4_50"
        let detector = try MarkerDetector(dictionary: name, parameters: parameters)
        let image = try ImageFiles.readColor(at: input)
        let markers = try detector.detect(bgra: image.bytes, width: image.width, height: image.height)
        report = Report(input: input, dictionary: name, frames: [.init(frame: 0, markers: markers)])
      case .scan:
        scanInput.warnIfCapUnused(forScan: input, global)
        let scan = try openScan(at: input, options: try scanInput.openOptions())
        for warning in scan.warnings { printWarning(warning.description, options: global) }
        guard scan.frameCount > 0 else { throw ScanIOError.noFrames(path: input) }
        let name = dictionary ?? scan.header.markers.dictionary
        let detector = try naming(input) { try MarkerDetector(dictionary: name, parameters: parameters) }
        let progress = ProgressReporter("detecting", total: scan.frameCount, options: global)
        let detections = try detectMarkers(in: scan, detector: detector, workers: workers.jobs) { done, _ in progress.update(done) }
        report = Report(
          input: input, dictionary: name,
          frames: detections.map { .init(frame: $0.frameIndex, timestamp: $0.timestamp, markers: $0.markers) })
      }
      try writeJSON(report, to: json)
      let ids = Set(report.frames.flatMap { $0.markers.map(\.id) })
      let total = report.frames.reduce(0) { $0 + $1.markers.count }
      print("\(report.frames.count) frame\(report.frames.count == 1 ? "" : "s"), \(total) detections of \(ids.count) distinct markers (\(report.dictionary)) → \(json)")
      if ids.isEmpty {
        printWarning("\(input): no \(report.dictionary) markers found (wrong dictionary?)", options: global)
      }
    }
  }
}

/// What kind of input a path holds, by its content (not its name).
enum InputKind {
  case scan
  case image

  /// A scan when a registered scan format recognises `path` or it is a folder; an image when
  /// the file starts like a PNG or JPEG; an error when it is named like one but is not;
  /// otherwise a scan (opening it then says what is wrong).
  static func of(_ path: String) throws -> InputKind {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw CommandError("\(path): no such file or folder")
    }
    if isFolder.boolValue || ScanFormats.registered.contains(where: { $0.detects(path) }) { return .scan }
    guard FileManager.default.isReadableFile(atPath: path) else { throw CommandError("\(path): cannot open for reading") }
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47], jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    if ScanFormat.file(path, startsWith: png) || ScanFormat.file(path, startsWith: jpeg) { return .image }
    // Named like an image but not one: say so, rather than what a scan reader would say.
    let lowered = path.lowercased()
    if [".png", ".jpg", ".jpeg"].contains(where: lowered.hasSuffix) { throw CommandError("\(path): not a PNG or JPEG image") }
    return .scan
  }
}
