import ArgumentParser
import ArucoBridge
import Figures
import Foundation
import OperatorGuidance
import Registration
import ScanIO

#if canImport(Glibc)
import Glibc
#endif

/// `headscan inspect SCAN`: header, frames, duration, depth validity, marker statistics.
struct InspectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Summarise a scan: header, frames, duration, depth validity and markers.",
    discussion: """
      Examples:
        headscan inspect fixtures/scans/orbit-small
        headscan inspect fixtures/scans/tiny.rgbdscan --stride 10 --json summary.json
        headscan inspect fixtures/scans/orbit-small --snapshot frame.png --frame 12
        headscan inspect fixtures/scans/orbit-small --overlap
        headscan inspect fixtures/scans/orbit-small --overlap --milestones half
        headscan inspect fixtures/scans/orbit-small --coverage
      """)

  @Argument(help: "A scan: a .rgbdscan file, a TUM-style folder or a Record3D .r3d export (any format of ScanFormats.registered).")
  var scan: String

  @Option(help: "Look at every n-th frame only, \(optionRange(OptionBounds.frames)) (faster on long scans).")
  var stride: Int = 1

  @Option(help: "Also write the summary as JSON (atomically).")
  var json: String?

  @Option(help: "Write a PNG of one frame: colour with detected markers outlined, beside its depth.")
  var snapshot: String?

  @Option(help: "The frame for --snapshot, \(optionRange(OptionBounds.frameIndex)) and within the scan (default: the middle one).")
  var frame: Int?

  @Flag(help: "Show each marker's overlap state over time (red new, green linked, blue seen before) and the operator guidance.")
  var overlap = false

  @Flag(
    help: """
      Replay live coverage frame by frame, as a recorder app would show it: when each sector of the band round \
      the measurement level, the face and each ear's side were first covered, and what was still missing at the \
      end (with --json, also written there as "coverage").
      """)
  var coverage = false

  // Optional, with the default in the text, so that one given without --overlap is refused.
  @Option(help: "With --overlap: when progress is announced, as in the recorder app: quarter (25/50/75/100 %; the default), half (50/100 %) or completion (100 % only).")
  var milestones: MilestoneChoice?

  @OptionGroup(title: "Scan input") var input: ScanInputOptions

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    if frame != nil && snapshot == nil { throw ValidationError("--frame goes with --snapshot") }
    if milestones != nil && !overlap { throw ValidationError("--milestones goes with --overlap") }
    try checkOption(stride, "--stride", OptionBounds.frames)
    try checkOption(frame, "--frame", OptionBounds.frameIndex)
  }

  struct Summary: Encodable {
    var path: String
    var format: String
    var depth: String
    var color: String
    var intrinsics: CameraIntrinsics
    var fps: Double
    var dictionary: String
    var markerSideLength: Double
    var capMarkerCount: Int?
    var patientID: String?
    var recordedAt: String?
    var frames: Int
    var durationSeconds: Double
    var framesInspected: Int
    var depthValidFraction: Stats
    var markersPerFrame: Stats
    var framesWithoutMarkers: Int
    var distinctMarkers: [Int]
    var framesPerMarker: [String: Int]
    var capCoveragePercent: Double?
    var warnings: [String]
    /// `--coverage`: the live coverage timeline.
    var coverage: CoverageTimeline? = nil
  }

  struct Stats: Encodable {
    var mean: Double
    var min: Double
    var max: Double

    init(_ values: [Double]) {
      mean = values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
      min = values.min() ?? 0
      max = values.max() ?? 0
    }
  }

  func run() throws {
    try reportingErrors {
      try checkOutputs([("--json", json), ("--snapshot", snapshot)], isNot: [scan] + input.inputFiles(forScan: scan))
      let format = try ScanFormats.format(of: scan)
      input.warnIfCapUnused(forScan: scan, global)
      let reader = try format.open(scan, options: try input.openOptions())
      let h = reader.header
      for warning in reader.warnings { printWarning(warning.description, options: global) }
      let indices = Array(Swift.stride(from: 0, to: reader.frameCount, by: stride))
      let detector = try naming(scan) { try MarkerDetector(dictionary: h.markers.dictionary) }
      let progress = ProgressReporter("inspecting", total: indices.count, options: global)
      let detections = try detectMarkers(in: reader, detector: detector, frames: indices, workers: workers.jobs) { done, _ in progress.update(done) }
      var perMarker: [Int: Int] = [:]
      for d in detections { for m in d.markers { perMarker[m.id, default: 0] += 1 } }
      let summary = Summary(
        path: scan, format: format.title,
        depth: "\(h.depthWidth)×\(h.depthHeight) \(format.depthStorage(of: reader))",
        color: "\(h.colorWidth)×\(h.colorHeight) BGRA", intrinsics: h.intrinsics, fps: h.fps,
        dictionary: h.markers.dictionary, markerSideLength: h.markers.sideLength, capMarkerCount: h.capMarkerCount,
        patientID: h.patientID, recordedAt: h.recordedAt, frames: reader.frameCount,
        durationSeconds: try reader.duration(), framesInspected: detections.count,
        depthValidFraction: Stats(detections.map(\.validDepthFraction)),
        markersPerFrame: Stats(detections.map { Double($0.markers.count) }),
        framesWithoutMarkers: detections.filter { $0.markers.isEmpty }.count,
        distinctMarkers: perMarker.keys.sorted(),
        framesPerMarker: Dictionary(uniqueKeysWithValues: perMarker.map { (String($0.key), $0.value) }),
        capCoveragePercent: h.capMarkerCount.map { 100 * Double(perMarker.count) / Double($0) },
        warnings: reader.warnings.map(\.description))
      print(render(summary))
      // A scan without frames is an error; its header was still worth printing.
      if reader.frameCount == 0 { throw ScanIOError.noFrames(path: scan) }
      var coverageReport: CoverageTimeline?
      if coverage {
        let replay = ProgressReporter("replaying coverage", total: reader.frameCount, options: global)
        let states = try naming(scan) { try replayCoverage(in: reader, workers: workers.jobs) { done, _ in replay.update(done) } }
        coverageReport = CoverageTimeline(states: states)
        print(CoverageLines.render(coverageReport!, fps: h.fps))
      }
      if overlap {
        let feedback = try naming(scan) { try replayFeedback(in: reader, milestones: (milestones ?? .quarter).milestones, workers: workers.jobs) }
        print(OverlapTimeline.render(feedback, colour: isatty(STDOUT_FILENO) == 1))
      }
      // Everything is read and detected before the first output is written, so a bad --frame
      // or an unreadable frame leaves the user's existing files as they were.
      var snapshotFrame: (index: Int, image: ScanFrame, markers: [DetectedMarker])?
      if snapshot != nil {
        let index = frame ?? reader.frameCount / 2
        let image = try reader.frame(at: index)
        snapshotFrame = (index, image, try detector.detect(bgra: image.color.bgra, width: image.color.width, height: image.color.height))
      }
      if let json {
        var withCoverage = summary
        withCoverage.coverage = coverageReport
        try writeJSON(withCoverage, to: json)
      }
      if let snapshot, let snapshotFrame {
        try Snapshot.write(frame: snapshotFrame.image, markers: snapshotFrame.markers, to: snapshot)
        print("snapshot    frame \(snapshotFrame.index) with \(snapshotFrame.markers.count) markers → \(snapshot)")
      }
    }
  }

  func render(_ s: Summary) -> String {
    let i = s.intrinsics
    var lines = [
      "scan        \(s.path) (\(s.format))",
      "depth       \(s.depth), colour \(s.color)",
      String(format: "camera      fx %.1f fy %.1f cx %.1f cy %.1f at %d×%d, %.0f fps", i.fx, i.fy, i.cx, i.cy, i.width, i.height, s.fps),
      String(format: "markers     %@, side %.1f mm, cap of %@", s.dictionary, s.markerSideLength * 1000, s.capMarkerCount.map(String.init) ?? "unknown size"),
    ]
    if let p = s.patientID { lines.append("patient     \(p)\(s.recordedAt.map { ", recorded \($0)" } ?? "")") }
    lines.append(String(format: "frames      %d over %.2f s%@", s.frames, s.durationSeconds, s.framesInspected == s.frames ? "" : " (\(s.framesInspected) inspected)"))
    lines.append(String(format: "depth       %.0f %% of pixels valid on average (min %.0f %%, max %.0f %%)", 100 * s.depthValidFraction.mean, 100 * s.depthValidFraction.min, 100 * s.depthValidFraction.max))
    lines.append(String(format: "detections  %.1f markers a frame (min %.0f, max %.0f), %d frames without any", s.markersPerFrame.mean, s.markersPerFrame.min, s.markersPerFrame.max, s.framesWithoutMarkers))
    var seen = "\(s.distinctMarkers.count) distinct ids"
    if let coverage = s.capCoveragePercent { seen += String(format: " = %.0f %% of the cap", coverage) }
    lines.append("seen        " + seen)
    if !s.distinctMarkers.isEmpty {
      lines.append("per id      " + s.distinctMarkers.map { "\($0):\(s.framesPerMarker[String($0)] ?? 0)" }.joined(separator: " "))
    }
    return lines.joined(separator: "\n")
  }
}

/// `inspect --milestones`: the recorder app's progress announcement settings.
enum MilestoneChoice: String, ExpressibleByArgument, CaseIterable {
  case quarter, half, completion

  var milestones: ProgressMilestones {
    switch self {
    case .quarter: return .everyQuarter
    case .half: return .everyHalf
    case .completion: return .completion
    }
  }
}

/// The live coverage timeline as text (`inspect --coverage`).
enum CoverageLines {
  static func render(_ t: CoverageTimeline, fps: Double) -> String {
    guard let final = t.final else { return "coverage    no frames" }
    var lines = [
      String(
        format: "coverage    band round the measurement level %.0f %% covered (largest gap %.0f°); %d of %d frames placed on %d mapped markers",
        final.bandCoveragePercent, final.largestGapDegrees, final.framesPlaced, final.framesSeen, final.markersMapped)
    ]
    // Parts grouped by the frame that first covered them, in recording order.
    let covered = Dictionary(grouping: t.parts.filter { $0.frame != nil }) { $0.frame! }
    for frame in covered.keys.sorted() {
      let names = covered[frame]!.map(\.name).joined(separator: ", ")
      let time = covered[frame]!.first?.timestamp ?? Double(frame) / fps
      lines.append(String(format: "  %6.2f s  frame %-5d covered %@", time, frame, names))
    }
    let missing = final.missingNames
    if missing.isEmpty {
      lines.append("missing     nothing: the band, the face and both ears were covered")
    } else {
      let named = missing.map { name in t.firstNamedMissing[name].map { "\(name) (named from frame \($0))" } ?? name }
      lines.append("missing     " + named.joined(separator: ", "))
      if let advice = final.advice { lines.append("advice      " + advice) }
    }
    if !final.headFound { lines.append("head        not found: fewer than \(LiveCoverage.Options().markersForHead) markers were mapped, so nothing could be covered") }
    return lines.joined(separator: "\n")
  }
}
