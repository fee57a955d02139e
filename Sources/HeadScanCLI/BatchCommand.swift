import ArgumentParser
import Foundation
import Batch
import Registration
import Reports
import ScanIO
import _HeadScanSupport

/// `headscan batch SCANS_DIR --out DIR`: measure every scan of a folder, several at a time.
struct BatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "batch",
    abstract: "Reconstruct and measure every scan in a folder (with its landmarks), in parallel, resumably.",
    discussion: """
      Scans are the folder's *.rgbdscan files and TUM-style subfolders (every registered scan format, recognised by content); each needs NAME.landmarks.json beside it (or pass --frame auto). Each scan runs as its own `headscan measure` process, so one bad scan cannot take the others down; OUT/NAME.json is its report (as measure --json writes it). A scan whose report is newer than the scan and its landmarks is skipped, so an interrupted batch resumes where it stopped. OUT/summary.csv has one row per scan. Exit 1 when any scan failed (listed with why).

      On a Slurm cluster, --slurm submits the scans as a job array instead and --collect OUT merges what its tasks wrote (docs/command-line.md, "On a cluster").

      Examples:
        headscan batch scans --out reports
        headscan batch scans --out reports --jobs 4 --plots
        headscan batch scans --out reports --html --history reports/history.html
        headscan batch scans --out reports --slurm --partition short --mem 4G
        headscan batch --collect reports
      """)

  @Argument(help: "The folder of scans.")
  var scans: String = ""

  @Option(help: "Where reports, figures and summary.csv go.")
  var out: String = ""

  @Option(help: "Scans measured at once, \(optionRange(OptionBounds.jobs)) (default: the cores this process may use). The cores are shared out among them: each scan's measure gets --jobs cores / N (at least 1).")
  var jobs: Int?

  @Option(help: "Head frame from: landmarks (default) or auto.")
  var frame: HeadFrameSource = .landmarks

  @Option(help: "auto: find each scan's landmarks on its reconstruction (measure --landmarks auto) instead of reading NAME.landmarks.json. Not with --frame auto or a Slurm cluster.")
  var landmarks: String?

  /// Whether the landmarks are found on each reconstruction (`--landmarks auto`).
  var automaticLandmarks: Bool { landmarks == "auto" }

  @Flag(help: "Also write each scan's figures to OUT/NAME-plots.")
  var plots = false

  @OptionGroup(title: "Depth lifting") var depthLifting: FocalLengthOption
  @OptionGroup(title: "Marker detection") var detection: DetectionOption
  @Flag(help: "Also write each scan's clinical report page to OUT/NAME.html (see measure --html).")
  var html = false

  @Option(help: "After measuring, write the patients' history of all the batch's reports here (see history --html).")
  var history: String?

  @Flag(help: "Measure every scan again, even where the report is up to date.")
  var force = false

  @OptionGroup(title: "Scan input") var input: ScanInputOptions

  @OptionGroup var global: GlobalOptions

  @OptionGroup(title: "On a Slurm cluster") var cluster: SlurmOptions

  func validate() throws {
    try validateModes()
    try checkOption(jobs, "--jobs", OptionBounds.jobs)
    if history != nil, cluster.isUsed {
      throw ValidationError("--history needs the reports: after --collect, run headscan history REPORTS --html HISTORY.html")
    }
    if let landmarks {
      guard landmarks == "auto" else { throw ValidationError("--landmarks takes only auto (each scan's own NAME.landmarks.json is the default)") }
      guard frame == .landmarks, !cluster.isUsed else { throw ValidationError("--landmarks auto is not for --frame auto or a Slurm cluster") }
    }
  }

  func run() throws {
    if cluster.isUsed { return try runOnSlurm() }
    try reportingErrors {
      var batch = try makeBatch()
      // After OUT exists (a history page inside it is common), before any scan is measured.
      if let history {
        try checkOutput(history, isNot: [scans] + [input.cap].compactMap { $0 })
        try Self.checkHistory(history, isNotAnOutputOf: batch)
      }
      let executable = Bundle.main.executablePath ?? URL(fileURLWithPath: CommandLine.arguments[0]).path
      let quiet = global.quiet
      let scansAtOnce = max(1, min(batch.items.count, jobs ?? coresAvailable))
      batch.options.workersPerScan = Batch.workersPerScan(cores: coresAvailable, scansAtOnce: scansAtOnce)
      let outcomes = batch.run(executable: executable, workers: scansAtOnce) {
        Self.report($0, $1, done: $2, total: $3, elapsed: $4, quiet: quiet)
      }
      try batch.writeSummary(outcomes)
      if let history {
        let page = try batch.writeHistory(to: history)
        if !global.quiet { print("history of \(page.courses.count) patient\(page.courses.count == 1 ? "" : "s"): \(history)") }
      }
      let failed = zip(batch.items, outcomes).compactMap { item, outcome -> String? in
        if case .failed(let why) = outcome { return "\(item.name): \(why)" }
        return nil
      }
      let skipped = outcomes.filter { $0 == .upToDate }.count
      print("\(batch.items.count - failed.count) of \(batch.items.count) scans measured (\(skipped) already up to date); summary: \(out)/summary.csv")
      if !failed.isEmpty {
        throw CommandError("\(failed.count) of \(batch.items.count) scans failed: " + failed.joined(separator: "; "))
      }
    }
  }

  /// Refuses a `--history` page that names one of the batch's own outputs (`summary.csv`, a
  /// report, a report page or a figures folder): the page would replace it, and a report replaced
  /// by a page would look up to date to the next batch.
  static func checkHistory(_ history: String, isNotAnOutputOf batch: Batch) throws {
    let target = resolvedPath(history)
    let own = [batch.out + "/summary.csv"] + batch.items.flatMap { batch.outputPaths(of: $0) }
    if let clash = own.first(where: { resolvedPath($0) == target || target.hasPrefix(resolvedPath($0) + "/") }) {
      throw CommandError("\(history): --history names the batch's own output \(clash); write the history page elsewhere")
    }
  }

  /// How this command line measures each scan.
  var batchOptions: BatchOptions {
    var options = BatchOptions.default
    options.headFrame = frame == .auto ? .automaticFrame : (automaticLandmarks ? .automaticLandmarks : .landmarks)
    options.plots = plots
    options.html = html
    options.force = force
    options.capFile = input.cap
    options.measureArguments += depthLifting.arguments
    options.measureArguments += detection.arguments
    options.measureArguments += input.arguments
    return options
  }

  /// The scans of SCANS_DIR (only those named by `--only` when given), with OUT created.
  func makeBatch() throws -> Batch {
    try Batch(scans: scans, out: out, only: cluster.only, options: batchOptions)
  }

  /// One line a finished scan, with the time left (from the pace so far) while scans remain.
  static func report(_ item: BatchItem, _ outcome: BatchOutcome, done: Int, total: Int, elapsed: Double, quiet: Bool) {
    var line: String
    switch outcome {
    case .measured(let seconds): line = String(format: "[%d/%d] %@: measured in %.1f s", done, total, item.name, seconds)
    case .upToDate: line = "[\(done)/\(total)] \(item.name): report up to date, skipped"
    case .failed(let why): line = "[\(done)/\(total)] \(item.name): FAILED: \(why)"
    }
    if done < total { line += ", about " + ProgressReporter.duration(elapsed / Double(done) * Double(total - done)) + " left" }
    if !quiet || line.contains("FAILED") { FileHandle.standardError.write(Data((line + "\n").utf8)) }
  }
}
