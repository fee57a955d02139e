import ArgumentParser
import ArucoBridge
import Foundation
import Fusion
import Reconstruction
import Registration
import ScanIO

#if canImport(Glibc)
import Glibc
import _HeadScanSupport
#endif

/// Prints `headscan: error: …` (one line) and exits 1, for any error a command throws.
func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let exit as ExitCode {
    throw exit
  } catch let error as CommandError {
    printError(error.description)
    throw ExitCode(1)
  } catch {
    printError(String(describing: error))
    throw ExitCode(1)
  }
}

/// Writes one line to standard error.
func printError(_ message: String) {
  let line = "headscan: error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
  FileHandle.standardError.write(Data(line.utf8))
}

/// Writes a warning line to standard error (not with --quiet).
func printWarning(_ message: String, options: GlobalOptions) {
  guard !options.quiet else { return }
  FileHandle.standardError.write(Data(("headscan: warning: " + message + "\n").utf8))
}

/// Problems found by the commands themselves (the libraries' errors print as they are).
struct CommandError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Adds the file name to an error that does not carry it (e.g. an unknown dictionary in a header).
func naming<T>(_ path: String, _ body: () throws -> T) throws -> T {
  do {
    return try body()
  } catch let error as ArucoError {
    throw CommandError("\(path): \(error)")
  }
}

/// Refuses to write over an input: an output that is one of `inputs` (after resolving `..` and
/// symbolic links), or an existing file inside an input folder (a TUM scan's index and images,
/// a folder of reports), since readers would take it for their own on the next run.
func checkOutput(_ output: String, isNot inputs: [String]) throws {
  func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
  let target = resolved(output)
  for input in inputs {
    let source = resolved(input)
    if source == target { throw CommandError("\(output): refusing to overwrite the input file") }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue,
      target.hasPrefix(source + "/"), FileManager.default.fileExists(atPath: target)
    {
      throw CommandError("\(output): refusing to overwrite a file inside the input folder \(input)")
    }
  }
}

/// Encodes a value as pretty JSON with sorted keys and writes it atomically.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  try AtomicFile.write(try encoder.encode(value), to: path)
}

/// What kind of input a path holds, by its content (not its name).
enum InputKind {
  case scan
  case image

  /// A scan when a registered scan format recognises `path` or it is a folder; an image when
  /// the file starts like a PNG or JPEG; otherwise a scan (opening it then says what is wrong).
  static func of(_ path: String) throws -> InputKind {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw CommandError("\(path): no such file or folder")
    }
    if isFolder.boolValue || ScanFormats.registered.contains(where: { $0.detects(path) }) { return .scan }
    guard FileManager.default.isReadableFile(atPath: path) else { throw CommandError("\(path): cannot open for reading") }
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47], jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    if ScanFormat.file(path, startsWith: png) || ScanFormat.file(path, startsWith: jpeg) { return .image }
    return .scan
  }
}

/// Progress on long work: a bar with rate and ETA on a terminal, a plain line every 10 % otherwise.
final class ProgressReporter {
  private let label: String
  private let total: Int
  private let enabled: Bool
  private let terminal: Bool
  private let started = Date()
  private var lastDraw = Date.distantPast
  private var lastDecile = -1

  init(_ label: String, total: Int, options: GlobalOptions) {
    self.label = label
    self.total = max(total, 1)
    self.enabled = !options.quiet
    self.terminal = isatty(STDERR_FILENO) == 1
  }

  func update(_ done: Int) {
    guard enabled else { return }
    let elapsed = Date().timeIntervalSince(started)
    let rate = elapsed > 0 ? Double(done) / elapsed : 0
    if terminal {
      guard done == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
      lastDraw = Date()
      let width = 28
      let filled = width * done / total
      let eta = rate > 0 && elapsed >= 0.5 ? Double(total - done) / rate : 0
      let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
      let line = String(format: "\r%@ %@ %d/%d  %.1f frames/s  ETA %@ ", label, bar, done, total, rate, Self.duration(eta))
      FileHandle.standardError.write(Data(line.utf8))
      if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
    } else {
      let decile = done * 10 / total
      guard decile != lastDecile else { return }
      lastDecile = decile
      let speed = elapsed >= 0.5 ? String(format: ", %.1f frames/s", rate) : ""
      let line = String(format: "%@: %d/%d frames (%d%%)%@\n", label, done, total, decile * 10, speed)
      FileHandle.standardError.write(Data(line.utf8))
    }
  }

  static func duration(_ seconds: Double) -> String {
    seconds >= 60 ? String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60) : String(format: "%.0fs", seconds)
  }
}

/// A progress callback for `reconstructHead`: one bar a stage (the optimisation is quick and silent).
func stageProgress(_ options: GlobalOptions) -> (ReconstructionStage, Int, Int) -> Void {
  var bars: [ReconstructionStage: ProgressReporter] = [:]
  return { stage, done, total in
    if stage == .optimising { return }
    let bar = bars[stage] ?? ProgressReporter(stage.rawValue, total: total, options: options)
    bars[stage] = bar
    bar.update(done)
  }
}

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

  public var defaultValueDescription: String { Self.allValueStrings[Int(rawValue)] }
}

extension FocalLengthChoice: ExpressibleByArgument {
  public init?(argument: String) {
    switch argument {
    case "stated": self = .stated
    case "estimate": self = .estimate
    default:
      guard let pixels = Double(argument), pixels.isFinite, pixels > 0 else { return nil }
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

/// The summary's lines on the focal length: the check (docs/registration.md, "Focal-length check") and, when the stated and
/// estimated focal lengths disagree, a warning line.
func focalLengthLines(_ check: IntrinsicsCheck?, used: Double?) -> [String] {
  var lines: [String] = []
  if let check {
    lines.append(
      String(
        format: "focal       stated %.1f px, markers show %.1f ± %.1f px (%d views): %@", check.statedFocalLength,
        check.focalLengthEstimate, check.focalLengthUncertainty, check.markersUsed, check.consistent ? "consistent" : "NOT consistent"))
    if let warning = check.warning { lines.append("WARNING     " + warning) }
  } else {
    lines.append("focal       too few markers lifted by depth to check the stated focal length")
  }
  if let used { lines.append(String(format: "focal       depth lifted with %.1f px (--focal-length)", used)) }
  return lines
}
/// Options of every command that reads scans: the cap for formats that do not record it
/// (docs/formats.md, "Cap sidecar") and Record3D's depth-confidence filter.
struct ScanInputOptions: ParsableArguments {
  @Option(help: ArgumentHelp(
    "The cap's markers for scans that do not record them (a Record3D .r3d): a JSON file like NAME.cap.json. Default: NAME.cap.json beside the scan.",
    valueName: "file"))
  var cap: String?

  @Option(help: "Record3D only: keep depth of at least this confidence (0 low, 1 medium, 2 high; frames without a confidence map keep all).")
  var minConfidence: UInt8 = 1

  func validate() throws {
    guard minConfidence <= 2 else { throw ValidationError("--min-confidence must be 0, 1 or 2") }
  }

  /// The options to open scans with; reads and checks `--cap`'s file.
  func openOptions() throws -> ScanOpenOptions {
    ScanOpenOptions(cap: try cap.map { try ScanCap(contentsOf: $0) }, minimumConfidence: minConfidence)
  }

  /// The command-line arguments that give the same options to a child `headscan` process.
  var arguments: [String] {
    (cap.map { ["--cap", $0] } ?? []) + (minConfidence == 1 ? [] : ["--min-confidence", String(minConfidence)])
  }
}

/// The focal length option of the commands that lift depth (reconstruct, measure, batch, evaluate).
struct LiftingOptions: ParsableArguments {
  @Option(help: "Focal length to lift the depth with: stated (the scan's, the default), estimate (the one the markers show: a second detection pass) or pixels of the colour image.")
  var focalLength: FocalLengthChoice = .stated
}

/// The fusion method option of the commands that fuse a cloud themselves (reconstruct, evaluate).
struct FusionChoice: ParsableArguments {
  @Option(help: "Fusion: signed-distance (a truncated signed-distance volume: averages depth noise along the surface normal; the default) or voxel-mean (points averaged per voxel; needed for --icp).")
  var fusion: FusionMethod = FusionOptions.default.method
  @Option(
    name: .customLong("fuse-frames"),
    help: "Registered frames to fuse at most, spread evenly over the recording, or all (default 600, a 20 s recording: more frames of the same views no longer make the surface more accurate, docs/performance.md).")
  var fuseFrames = FusionOptions.default.maximumFrames.map(String.init) ?? "all"

  /// The most frames to fuse (`nil`: all), or a usage error naming the option.
  func maximumFrames() throws -> Int? {
    if fuseFrames == "all" { return nil }
    guard let count = Int(fuseFrames), count >= 1 else {
      throw ValidationError("--fuse-frames must be a positive number of frames or all, not '\(fuseFrames)'")
    }
    return count
  }

  func validate() throws { _ = try maximumFrames() }
}
