import ArgumentParser
import Foundation
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
      Scans are the folder's *.rgbdscan files and TUM-style subfolders (every registered scan format,
      recognised by content); each needs NAME.landmarks.json
      beside it (or pass --frame auto). Each scan runs as its own `headscan measure` process, so one bad
      scan cannot take the others down; OUT/NAME.json is its report (contract §6). A scan whose report
      is newer than the scan and its landmarks is skipped, so an interrupted batch resumes where it
      stopped. OUT/summary.csv has one row per scan. Exit 1 when any scan failed (listed with why).

      On a Slurm cluster, --slurm submits the scans as a job array instead and --collect OUT merges
      what its tasks wrote (docs/command-line.md, "On a cluster").

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

  @Option(help: "Scans measured at once (default: the number of cores).")
  var jobs: Int?

  @Option(help: "Head frame from: landmarks (default) or auto.")
  var frame: HeadFrameSource = .landmarks

  @Option(help: "auto: find each scan's landmarks on its reconstruction (measure --landmarks auto) instead of reading NAME.landmarks.json. Not with --frame auto or a Slurm cluster.")
  var landmarks: String?

  /// Whether the landmarks are found on each reconstruction (`--landmarks auto`).
  var automaticLandmarks: Bool { landmarks == "auto" }

  @Flag(help: "Also write each scan's figures to OUT/NAME-plots.")
  var plots = false

  @OptionGroup(title: "Depth lifting") var depthLifting: LiftingOptions
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
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    if history != nil, cluster.isUsed {
      throw ValidationError("--history needs the reports: after --collect, run headscan history REPORTS --html HISTORY.html")
    }
    if let landmarks {
      guard landmarks == "auto" else { throw ValidationError("--landmarks takes only auto (each scan's own NAME.landmarks.json is the default)") }
      guard frame == .landmarks, !cluster.isUsed else { throw ValidationError("--landmarks auto is not for --frame auto or a Slurm cluster") }
    }
  }

  /// One scan of the batch.
  struct Item {
    var name: String
    var path: String
    var landmarks: String
  }

  /// How one scan ended.
  enum Outcome {
    case measured(seconds: Double)
    case upToDate
    case failed(String)
  }

  func run() throws {
    if cluster.isUsed { return try runOnSlurm() }
    try reportingErrors {
      let items = try scansCreatingOut()
      let executable = Bundle.main.executablePath ?? URL(fileURLWithPath: CommandLine.arguments[0]).path
      let workers = min(items.count, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
      let outcomes = ResultSlots<Outcome>(count: items.count)
      let started = Date()
      forEachIndexConcurrently(items.count, workers: workers) { i in
        let outcome = measure(items[i], executable: executable)
        let done = outcomes.store(outcome, at: i)
        report(items[i], outcome, done: done, total: items.count, elapsed: Date().timeIntervalSince(started))
      }
      let results = outcomes.takeAll()
      try writeSummary(items, results)
      if let history { try writeHistory(items, to: history) }
      let failed = zip(items, results).compactMap { item, outcome -> String? in
        if case .failed(let why) = outcome { return "\(item.name): \(why)" }
        return nil
      }
      let skipped = results.filter { if case .upToDate = $0 { return true } else { return false } }.count
      print("\(items.count - failed.count) of \(items.count) scans measured (\(skipped) already up to date); summary: \(out)/summary.csv")
      if !failed.isEmpty {
        throw CommandError("\(failed.count) of \(items.count) scans failed: " + failed.joined(separator: "; "))
      }
    }
  }

  /// Runs `headscan measure` for one scan unless its report is up to date.
  func measure(_ item: Item, executable: String) -> Outcome {
    let report = out + "/" + item.name + ".json"
    let page = out + "/" + item.name + ".html"
    let pageIsUpToDate = !html || (Self.modified(page).map { $0 >= (Self.modified(report) ?? .distantFuture) } ?? false)
    // Automatic landmarks read no landmarks file: only the scan dates the report.
    if !force && pageIsUpToDate && isUpToDate(item, frame: automaticLandmarks ? .auto : frame, in: out) { return .upToDate }
    if frame == .landmarks && !automaticLandmarks && !FileManager.default.fileExists(atPath: item.landmarks) {
      return .failed("no landmarks (\(item.landmarks)); pass --frame auto to measure without")
    }
    var arguments = ["measure", item.path, "--json", report, "--frame", frame.rawValue, "--quiet"]
    if frame == .landmarks { arguments += ["--landmarks", automaticLandmarks ? "auto" : item.landmarks] }
    if plots { arguments += ["--plots", out + "/" + item.name + "-plots"] }
    if depthLifting.focalLength != .stated { arguments += ["--focal-length", depthLifting.focalLength.argument] }
    if html { arguments += ["--html", page] }
    arguments += input.arguments
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    let start = Date()
    do {
      try process.run()
    } catch {
      return .failed("cannot start \(executable): \((error as NSError).localizedDescription)")
    }
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let line = message.split(separator: "\n").last { $0.contains("error:") } ?? message.split(separator: "\n").last ?? "exit \(process.terminationStatus)"
      return .failed(String(line).replacingOccurrences(of: "headscan: error: ", with: ""))
    }
    return .measured(seconds: Date().timeIntervalSince(start))
  }

  /// One line a finished scan, with the time left (from the pace so far) while scans remain.
  func report(_ item: Item, _ outcome: Outcome, done: Int, total: Int, elapsed: Double) {
    var line: String
    switch outcome {
    case .measured(let seconds): line = String(format: "[%d/%d] %@: measured in %.1f s", done, total, item.name, seconds)
    case .upToDate: line = "[\(done)/\(total)] \(item.name): report up to date, skipped"
    case .failed(let why): line = "[\(done)/\(total)] \(item.name): FAILED: \(why)"
    }
    if done < total { line += ", about " + ProgressReporter.duration(elapsed / Double(done) * Double(total - done)) + " left" }
    if !global.quiet || line.contains("FAILED") { FileHandle.standardError.write(Data((line + "\n").utf8)) }
  }

  /// summary.csv: one row per scan with its status and measures (columns: `MeasureReport.summaryColumns`).
  func writeSummary(_ items: [Item], _ outcomes: [Outcome]) throws {
    let columns = MeasureReport.summaryColumns
    var lines = ["scan,status," + columns.joined(separator: ",") + ",error"]
    for (item, outcome) in zip(items, outcomes) {
      var status = "measured", error = ""
      if case .upToDate = outcome { status = "up to date" }
      if case .failed(let why) = outcome { (status, error) = ("failed", why) }
      var values = [String](repeating: "", count: columns.count)
      if status != "failed", let report = try? MeasureReport(path: out + "/" + item.name + ".json") {
        values = report.summaryValues
      }
      lines.append(([csvField(item.name), status] + values + [csvField(error)]).joined(separator: ","))
    }
    try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: out + "/summary.csv")
  }

  /// The history page of the batch's reports (those that exist: failed scans have none).
  func writeHistory(_ items: [Item], to path: String) throws {
    let reports = items.map { out + "/" + $0.name + ".json" }.filter { FileManager.default.fileExists(atPath: $0) }
    guard !reports.isEmpty else { throw CommandError("\(path): no reports to follow over time") }
    let page = try HistoryCommand.historyPage(of: reports)
    try AtomicFile.write(Data(page.html.utf8), to: path)
    if !global.quiet { print("history of \(page.courses.count) patient\(page.courses.count == 1 ? "" : "s"): \(path)") }
  }

  /// The folder's scans, sorted by name: every entry a registered scan format recognises
  /// (``ScanFormats/recognising(_:)``: `*.rgbdscan` files, TUM folders, …), hidden ones aside.
  static func scans(in folder: String) throws -> [Item] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: folder)
    } catch {
      throw CommandError("\(folder): cannot list the folder: \((error as NSError).localizedDescription)")
    }
    return names.sorted().compactMap { name -> Item? in
      let path = folder + "/" + name
      guard !name.hasPrefix("."), ScanFormats.recognising(path) != nil else { return nil }
      let base = companionBase(of: path)
      return Item(name: URL(fileURLWithPath: base).lastPathComponent, path: path, landmarks: base + ".landmarks.json")
    }
  }

  static func modified(_ path: String) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
  }
}
