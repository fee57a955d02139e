import Figures
import Foundation
import Reports
import ScanIO
import _HeadScanSupport

/// One scan of a batch.
public struct BatchItem: Sendable, Hashable {
  /// The scan's name without its extension: its report is `OUT/NAME.json`.
  public var name: String
  /// The scan: a file or a folder of any registered scan format.
  public var path: String
  /// Its landmarks file, `NAME.landmarks.json` beside it (read unless the batch finds the
  /// landmarks or the frame itself).
  public var landmarks: String

  /// An item from its name (the report's `NAME`), the scan's path and its landmarks file's path.
  public init(name: String, path: String, landmarks: String) {
    (self.name, self.path, self.landmarks) = (name, path, landmarks)
  }
}

/// How one scan of a batch ended.
public enum BatchOutcome: Sendable, Hashable {
  /// Measured now, in this many seconds (wall clock).
  case measured(seconds: Double)
  /// Its report was newer than the scan and everything it was measured from: left alone.
  case upToDate
  /// Not measured: the error line of its `headscan measure`, without the `headscan: error: ` prefix.
  case failed(String)
}

/// Where each scan of a batch takes its head frame from.
public enum BatchHeadFrame: String, Sendable, Hashable, CaseIterable {
  /// The four landmarks in the scan's own `NAME.landmarks.json`.
  case landmarks
  /// The four landmarks found on each reconstruction (`measure --landmarks auto`): no file read.
  case automaticLandmarks
  /// The experimental automatic head frame (`measure --frame auto`): no landmarks at all.
  case automaticFrame

  /// Whether a scan's report depends on its landmarks file.
  public var readsLandmarksFile: Bool { self == .landmarks }

  /// `measure`'s options that choose this head frame for `item`.
  func measureArguments(for item: BatchItem) -> [String] {
    switch self {
    case .landmarks: return ["--frame", "landmarks", "--landmarks", item.landmarks]
    case .automaticLandmarks: return ["--frame", "landmarks", "--landmarks", "auto"]
    case .automaticFrame: return ["--frame", "auto"]
    }
  }
}

/// What a batch writes and how it measures, beside the scans and the output folder.
public struct BatchOptions: Sendable, Hashable {
  /// Where each scan's head frame comes from.
  public var headFrame = BatchHeadFrame.landmarks
  /// Also write each scan's figures to `OUT/NAME-plots`.
  public var plots = false
  /// Also write each scan's clinical report page to `OUT/NAME.html`.
  public var html = false
  /// Measure every scan, even those whose report is up to date.
  public var force = false
  /// The cap file given for every scan (`--cap`), whose date counts for being up to date; `nil`
  /// for each scan's own `NAME.cap.json` where there is one.
  public var capFile: String? = nil
  /// More `headscan measure` options, passed to every scan's run as they are (for example
  /// `--focal-length estimate`, `--cap FILE`, `--min-confidence 2`).
  public var measureArguments: [String] = []
  /// Worker threads each scan's `headscan measure` uses (its `--jobs`); `nil` for its default,
  /// every core the process may use. ``Batch/workersPerScan(cores:scansAtOnce:)`` splits the
  /// cores among the scans measured at once.
  public var workersPerScan: Int? = nil

  /// The defaults: landmarks files, reports only, up-to-date reports kept.
  public static let `default` = BatchOptions()

  /// The default options (``default``).
  public init() {}
}

/// A folder of scans measured into an output folder, each scan by its own `headscan measure`
/// process (so one bad scan cannot take the others down), several at a time, resumably: a scan
/// whose report is newer than the scan, its landmarks and its cap is skipped.
///
/// ```swift
/// let batch = try Batch(scans: "scans", out: "reports")
/// let outcomes = batch.run(executable: "/usr/local/bin/headscan", workers: 4) { item, outcome, done, total, _ in
///   print("[\(done)/\(total)] \(item.name): \(outcome)")
/// }
/// try batch.writeSummary(outcomes)  // reports/summary.csv
/// ```
public struct Batch: Sendable {
  /// The scans folder, as given.
  public let scansFolder: String
  /// The output folder: reports, figures, `summary.csv`.
  public let out: String
  /// The scans, sorted by name.
  public let items: [BatchItem]
  /// How the scans are measured.
  public var options: BatchOptions

  /// The scans of `scans` (only those named in `only`, when given), with `out` created.
  /// - Throws: `FileProblem` when the folder cannot be listed, holds no scan, `only` names a
  ///   scan it does not hold, or `out` cannot be created.
  public init(scans: String, out: String, only: [String] = [], options: BatchOptions = .default) throws {
    var items = try Self.scans(in: scans)
    guard !items.isEmpty else {
      let kinds = ScanFormats.registered.map(\.title).joined(separator: ", ")
      throw FileProblem(path: scans, problem: "no scans (\(kinds))")
    }
    // Two scans with one name (s2.rgbdscan and a TUM folder s2) would write one report.
    for (name, group) in Dictionary(grouping: items, by: \.name) where group.count > 1 {
      let paths = group.map { URL(fileURLWithPath: $0.path).lastPathComponent }.sorted().joined(separator: " and ")
      throw FileProblem(path: scans, problem: "two scans named '\(name)' (\(paths)): their reports would replace each other; rename one")
    }
    if !only.isEmpty {
      let names = Set(items.map(\.name))
      if let unknown = only.first(where: { !names.contains($0) }) { throw FileProblem(path: scans, problem: "no scan named '\(unknown)'") }
      items = items.filter { only.contains($0.name) }
    }
    // Reports written among the scans could replace a scan's own files (its NAME.json sidecars,
    // another scan's landmarks) and a user's files of the same names.
    if resolvedPath(out) == resolvedPath(scans) {
      throw FileProblem(path: out, problem: "is the scans folder itself: write the reports into a folder of their own")
    }
    do {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      throw FileProblem(path: out, problem: "cannot create the folder: \((error as NSError).localizedDescription)")
    }
    self.init(scansFolder: scans, out: out, items: items, options: options)
  }

  /// A batch of given items (no folder listed, nothing created).
  public init(scansFolder: String, out: String, items: [BatchItem], options: BatchOptions = .default) {
    (self.scansFolder, self.out, self.items, self.options) = (scansFolder, out, items, options)
  }

  /// The folder's scans, sorted by name: every entry a registered scan format recognises
  /// (`ScanFormats.recognising(_:)`: `*.rgbdscan` files, TUM folders, …), hidden ones aside.
  /// - Throws: `FileProblem` when the folder cannot be listed.
  public static func scans(in folder: String) throws -> [BatchItem] {
    let names: [String]
    do throws(FolderListingError) {
      names = try listFolder(folder)
    } catch {
      throw FileProblem(path: folder, problem: "cannot list the folder: \(error.reason)")
    }
    return names.sorted().compactMap { name -> BatchItem? in
      let path = folder + "/" + name
      guard !name.hasPrefix("."), ScanFormats.recognising(path) != nil else { return nil }
      let base = companionBase(of: path)
      return BatchItem(name: URL(fileURLWithPath: base).lastPathComponent, path: path, landmarks: base + ".landmarks.json")
    }
  }

  /// `OUT/NAME.json`.
  public func reportPath(of item: BatchItem) -> String { out + "/" + item.name + ".json" }

  /// Everything the batch may write for `item` in OUT: its report, its report page
  /// (`OUT/NAME.html`) and its figures folder (`OUT/NAME-plots`), whether or not the options ask
  /// for the last two.
  public func outputPaths(of item: BatchItem) -> [String] {
    [reportPath(of: item), out + "/" + item.name + ".html", out + "/" + item.name + "-plots"]
  }

  /// Whether `item`'s report is newer than the scan, its cap file and, where the head frame
  /// reads it, its landmarks file, and reads as a report.
  public func isUpToDate(_ item: BatchItem) -> Bool {
    let sidecar = ScanCap.sidecarPath(forScan: item.path)
    let capFile = options.capFile ?? (FileManager.default.fileExists(atPath: sidecar) ? sidecar : nil)
    let inputs = (options.headFrame.readsLandmarksFile ? [item.path, item.landmarks] : [item.path]) + [capFile].compactMap { $0 }
    guard let reportDate = Self.modified(reportPath(of: item)) else { return false }
    // A report cut short or damaged is measured again, however new.
    return inputs.allSatisfy { (Self.modified($0) ?? .distantFuture) < reportDate } && (try? MeasureReport(path: reportPath(of: item))) != nil
  }

  /// The `headscan measure` arguments that measure `item` into `out`.
  public func measureArguments(for item: BatchItem) -> [String] {
    var arguments = ["measure", item.path, "--json", reportPath(of: item)] + options.headFrame.measureArguments(for: item) + ["--quiet"]
    if options.plots { arguments += ["--plots", out + "/" + item.name + "-plots"] }
    if options.html { arguments += ["--html", out + "/" + item.name + ".html"] }
    if let workers = options.workersPerScan { arguments += ["--jobs", String(workers)] }
    return arguments + options.measureArguments
  }

  /// The worker threads for each of `scansAtOnce` scans measured at once on `cores` cores: the
  /// cores shared out evenly, at least one, so the batch runs about one thread a core instead of
  /// `scansAtOnce × cores` threads competing (each with its own frame buffers).
  public static func workersPerScan(cores: Int, scansAtOnce: Int) -> Int {
    max(1, max(1, cores) / max(1, scansAtOnce))
  }

  /// Measures one scan with `executable` (a `headscan` binary) unless its report (and page,
  /// with ``BatchOptions/html``) is up to date.
  public func measure(_ item: BatchItem, executable: String) -> BatchOutcome {
    let report = reportPath(of: item)
    let page = out + "/" + item.name + ".html"
    let pageIsUpToDate = !options.html || (Self.modified(page).map { $0 >= (Self.modified(report) ?? .distantFuture) } ?? false)
    if !options.force && pageIsUpToDate && isUpToDate(item) { return .upToDate }
    if options.headFrame.readsLandmarksFile && !FileManager.default.fileExists(atPath: item.landmarks) {
      return .failed("no landmarks (\(item.landmarks)); pass --frame auto to measure without")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = measureArguments(for: item)
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
      let lines = message.split(separator: "\n")
      let line = lines.last { $0.contains("error:") } ?? lines.last ?? "exit \(process.terminationStatus)"
      return .failed(String(line).replacingOccurrences(of: "headscan: error: ", with: ""))
    }
    return .measured(seconds: Date().timeIntervalSince(start))
  }

  /// Measures every scan, `workers` at a time; `finished` is called (from the worker that
  /// measured it) as each scan ends, with the number ended so far, the total and the seconds since
  /// the start. Returns the outcomes in item order.
  public func run(
    executable: String, workers: Int, finished: @escaping @Sendable (BatchItem, BatchOutcome, _ done: Int, _ total: Int, _ elapsed: Double) -> Void
  ) -> [BatchOutcome] {
    let outcomes = ResultSlots<BatchOutcome>(count: items.count)
    let started = Date()
    forEachIndexConcurrently(items.count, workers: max(1, min(items.count, workers))) { i in
      let outcome = measure(items[i], executable: executable)
      let done = outcomes.store(outcome, at: i)
      finished(items[i], outcome, done, items.count, Date().timeIntervalSince(started))
    }
    return outcomes.takeAll()
  }

  /// `OUT/summary.csv`: a row a scan with its status and measures (the columns of
  /// `MeasureReport.summaryColumns`, then the error), then the verdict: `usable` (`true` or
  /// `false`, empty for a failed scan) and `reasons` (joined by `; `); every text field quoted
  /// for CSV. A report without a `verdict` key gets one made from its values (`Verdict(report:)`).
  /// - Throws: the file's error when `summary.csv` cannot be written.
  public func writeSummary(_ outcomes: [BatchOutcome]) throws {
    let columns = MeasureReport.summaryColumns
    var lines = ["scan,status," + columns.joined(separator: ",") + ",error,usable,reasons"]
    for (item, outcome) in zip(items, outcomes) {
      var status = "measured", error = ""
      if case .upToDate = outcome { status = "up to date" }
      if case .failed(let why) = outcome { (status, error) = ("failed", why) }
      var values = [String](repeating: "", count: columns.count), verdict = ["", ""]
      if status != "failed", let report = try? MeasureReport(path: reportPath(of: item)) {
        values = report.summaryValues
        let v = report.verdict ?? Verdict(report: report)
        verdict = [String(v.usable), csvField(v.reasons.joined(separator: "; "))]
      }
      lines.append(([csvField(item.name), status] + values + [csvField(error)] + verdict).joined(separator: ","))
    }
    try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: out + "/summary.csv")
  }

  /// Writes the history page of the batch's reports (those that exist: failed scans have none)
  /// to `path` and returns it.
  /// - Throws: `FileProblem` when there is no report, or one cannot be read.
  @discardableResult
  public func writeHistory(to path: String) throws -> HistoryPage {
    let reports = items.map(reportPath(of:)).filter { FileManager.default.fileExists(atPath: $0) }
    guard !reports.isEmpty else { throw FileProblem(path: path, problem: "no reports to follow over time") }
    let page = try HistoryPage(reportFiles: reports)
    try AtomicFile.write(Data(page.html.utf8), to: path)
    return page
  }

  /// A file's modification date, `nil` where it does not exist.
  static func modified(_ path: String) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
  }
}
