import ArgumentParser
import ArucoBridge
import Fusion
import Registration
import ScanIO

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
  @Flag(name: .shortAndLong, help: "Print only errors and the final result.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "Print more detail (reconstruct: each stage's time and counts).")
  var verbose = false
}

/// The worker threads of the commands that process a scan's frames in parallel (inspect,
/// markers, reconstruct, measure, evaluate, annotate, simulate).
struct WorkerOption: ParsableArguments {
  @Option(
    name: .customLong("jobs"),
    help: ArgumentHelp(
      "Worker threads, \(optionRange(OptionBounds.jobs)). Default: the cores this process may use (its CPU affinity, e.g. under taskset or a cluster's allocation). At most one worker a core runs at once: more add neither speed nor memory. Results do not depend on it.",
      valueName: "n"))
  var jobs: Int?

  func validate() throws {
    try checkOption(jobs, "--jobs", OptionBounds.jobs)
  }
}

/// Options of every command that reads scans: the cap for formats that do not record it
/// (docs/formats.md, "Cap sidecar") and Record3D's depth-confidence filter.
struct ScanInputOptions: ParsableArguments {
  @Option(help: ArgumentHelp(
    "The cap's markers for scans that do not record them (a Record3D .r3d): a JSON file like NAME.cap.json. Default: NAME.cap.json beside the scan.",
    valueName: "file"))
  var cap: String?

  @Option(help: "Record3D only: keep depth of at least this confidence, \(optionRange(OptionBounds.minConfidence)) (0 low, 1 medium, 2 high; frames without a confidence map keep all).")
  var minConfidence: UInt8 = 1

  func validate() throws {
    try checkOption(Int(minConfidence), "--min-confidence", OptionBounds.minConfidence)
  }

  /// The cap file these options read for `scan` (`--cap`'s, or the sidecar beside the scan that
  /// is read without it): an input no output may replace.
  func inputFiles(forScan scan: String) -> [String] { [cap ?? ScanCap.sidecarPath(forScan: scan)] }

  /// The options to open scans with; reads and checks `--cap`'s file.
  func openOptions() throws -> ScanOpenOptions {
    ScanOpenOptions(cap: try cap.map { try ScanCap(contentsOf: $0) }, minimumConfidence: minConfidence)
  }

  /// Warns (unless quiet) that `--cap` is not used for `scan` where its format records its own
  /// cap, rather than leaving the user to believe the file was read.
  func warnIfCapUnused(forScan scan: String, _ global: GlobalOptions) {
    guard let cap, let format = try? ScanFormats.format(of: scan), format.recordsCap else { return }
    printWarning("--cap \(cap) is not used for \(scan): a \(format.title) records its own cap", options: global)
  }

  /// The command-line arguments that give the same options to a child `headscan` process.
  var arguments: [String] {
    (cap.map { ["--cap", $0] } ?? []) + (minConfidence == 1 ? [] : ["--min-confidence", String(minConfidence)])
  }
}

/// The focal length option of the commands that lift depth (reconstruct, measure, batch, evaluate).
struct FocalLengthOption: ParsableArguments {
  @Option(help: "Focal length to lift the depth with: stated (the scan's, the default), estimate (the one the markers show: a second detection pass) or pixels of the colour image, \(optionRange(OptionBounds.focalLength)).")
  var focalLength: FocalLengthChoice = .stated
  @Option(help: "Metric scale: auto (the printed stickers' where, with edge-fitted corners, they show it off by more than their 95 % interval, else the depth sensor's; with --focal-length stated, a stated focal length they call inconsistent is replaced by theirs: the default), markers (the stickers' always) or depth (the depth sensor's; the stickers' scale is still reported).")
  var scale: ScaleSource = .auto

  /// The command-line arguments that give the same options to a child `headscan measure`.
  var arguments: [String] {
    (focalLength == .stated ? [] : ["--focal-length", focalLength.argument]) + (scale == .auto ? [] : ["--scale", scale.rawValue])
  }

  func validate() throws {
    if case .pixels(let pixels) = focalLength {
      try checkOption(pixels, "--focal-length", OptionBounds.focalLength, unit: "pixels")
    }
  }
}

/// The marker detection option of the commands that observe a scan (reconstruct, measure, batch, evaluate).
struct DetectionOption: ParsableArguments {
  @Option(
    name: .customLong("threshold-window"),
    help: "Adaptive-threshold windows of the marker detector: marker-size (3 px and one two cells of the scan's median marker wide, the median measured in 24 frames searched with OpenCV's windows; a frame where the two find fewer than the two markers a frame needs is searched again with those: the default) or opencv (OpenCV's 3, 13 and 23 px on every frame).")
  var thresholdWindow: ThresholdWindowArgument = .markerSize
  @Option(
    name: .customLong("marker-search"),
    help: "Where each frame is searched for markers: tracked (every eighth frame whole, the others in one box reaching a sticker spacing beyond the markers seen in the frames before, whole again where the box misses markers it should hold: the default) or whole (every frame whole).")
  var markerSearch: MarkerSearchArgument = .tracked

  /// The library's setting.
  var thresholdWindows: ThresholdWindows { thresholdWindow == .opencv ? .detectorParameters : .fromMarkerSize() }

  /// Frames a run of tracked frames holds (`ObservationOptions.wholeImageSearchInterval`).
  var wholeImageSearchInterval: Int { markerSearch == .whole ? 1 : ObservationOptions.default.wholeImageSearchInterval }

  /// Sets these options in the library's observation options.
  func apply(to observation: inout ObservationOptions) {
    observation.thresholdWindows = thresholdWindows
    observation.wholeImageSearchInterval = wholeImageSearchInterval
  }

  /// The command-line arguments that give the same options to a child `headscan measure`.
  var arguments: [String] {
    (thresholdWindow == .markerSize ? [] : ["--threshold-window", thresholdWindow.rawValue])
      + (markerSearch == .tracked ? [] : ["--marker-search", markerSearch.rawValue])
  }
}

/// The values of `--marker-search`.
enum MarkerSearchArgument: String, ExpressibleByArgument, CaseIterable {
  case tracked
  case whole
}

/// The values of `--threshold-window`.
enum ThresholdWindowArgument: String, ExpressibleByArgument, CaseIterable {
  case markerSize = "marker-size"
  case opencv
}

/// The fusion method option of the commands that fuse a cloud themselves (reconstruct, evaluate).
struct FusionChoice: ParsableArguments {
  @Option(help: "Fusion: signed-distance (a truncated signed-distance volume: averages depth noise along the surface normal; the default) or voxel-mean (points averaged per voxel; needed for --icp).")
  var fusion: FusionMethod = FusionOptions.default.method
  @Option(
    name: .customLong("fuse-frames"),
    help: "Registered frames to fuse at most, \(optionRange(OptionBounds.frames)), spread evenly over the recording, or all (default 600, a 20 s recording: more frames of the same views no longer make the surface more accurate, docs/performance.md).")
  var fuseFrames = FusionOptions.default.maximumFrames.map(String.init) ?? "all"

  /// The most frames to fuse (`nil`: all), or a usage error naming the option.
  func maximumFrames() throws -> Int? {
    if fuseFrames == "all" { return nil }
    guard let count = Int(fuseFrames), OptionBounds.frames.contains(count) else {
      throw ValidationError("--fuse-frames must be a positive number of frames or all, within \(optionRange(OptionBounds.frames)), not '\(fuseFrames)'")
    }
    return count
  }

  func validate() throws { _ = try maximumFrames() }
}

extension ScaleSource: ExpressibleByArgument {}

extension CornerRefinement: ExpressibleByArgument {
  public init?(argument: String) {
    switch argument {
    case "none": self = .none
    case "subpixel": self = .subpixel
    case "contour": self = .contour
    case "apriltag": self = .aprilTag
    default: return nil
    }
  }

  public static var allValueStrings: [String] { ["none", "subpixel", "contour", "apriltag"] }

  /// None: the option's help says what each value does (ArgumentParser's default, keyed by the
  /// raw values, listed the values without their descriptions).
  public static var allValueDescriptions: [String: String] { [:] }

  public var defaultValueDescription: String { Self.allValueStrings[Int(rawValue)] }
}

extension FocalLengthChoice: ExpressibleByArgument {
  public init?(argument: String) {
    switch argument {
    case "stated": self = .stated
    case "estimate": self = .estimate
    default:
      // Any number here; ``FocalLengthOption/validate()`` refuses those outside the bounds by name.
      guard let pixels = Double(argument) else { return nil }
      self = .pixels(pixels)
    }
  }

  public var defaultValueDescription: String { "stated" }

  /// The option's text for this choice (what `init(argument:)` reads back).
  var argument: String {
    switch self {
    case .stated: return "stated"
    case .estimate: return "estimate"
    case .pixels(let pixels): return "\(pixels)"
    }
  }
}
