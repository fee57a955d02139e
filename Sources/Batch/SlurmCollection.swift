import Foundation
import _HeadScanSupport
import Reports
import ScanIO

/// What `batch --collect OUT` finds after a `batch --slurm`: each scan's report moved from its task's
/// folder into `OUT` (as a local batch would have written it), and for the others why not, from the
/// task logs.
public struct SlurmCollection: Sendable {
  /// How one scan of the batch stands.
  public enum State: Sendable, Hashable {
    /// `OUT/NAME.json` is newer than the scan (and its landmarks).
    case measured
    /// Its task ended without a report: the error line from the task's log, and that log.
    case failed(String, log: String)
    /// Its task has not ended (pending, running) or it was never submitted: why we think so.
    case missing(String)
  }

  /// The batch's output folder.
  public let out: String
  /// `OUT/slurm`.
  public let folder: String
  /// The submissions, oldest first.
  public let submissions: [SlurmSubmission]

  /// Reads the submissions in `OUT/slurm`; with `required`, having none is an error.
  public init(out: String, required: Bool) throws {
    self.out = out
    folder = SlurmSubmission.folder(of: out)
    submissions = try SlurmSubmission.existing(in: folder)
    if required && submissions.isEmpty {
      throw FileProblem(path: out, problem: "no Slurm submission here (run `headscan batch SCANS --out \(out) --slurm` first)")
    }
  }

  /// The scans folder and head-frame source of the newest submission.
  public func record() throws -> SlurmSubmission.Record? {
    try submissions.last?.record()
  }

  /// Moves every report (and figures folder) of the tasks that ended into `OUT`, where it is newer
  /// than the one there; returns the names of the scans whose report was moved.
  @discardableResult
  public func mergeFinishedReports() throws -> [String] {
    var merged: [String] = []
    for submission in submissions.reversed() {
      for (index, names) in submission.tasks.enumerated() where hasEnded(submission, task: index + 1) {
        for name in names {
          let finished = submission.reportsDirectory(index + 1) + "/" + name + ".json"
          let target = out + "/" + name + ".json"
          guard let date = Batch.modified(finished), (Batch.modified(target) ?? .distantPast) < date else { continue }
          // Figures first, so a report in OUT always comes with its figures.
          let plots = submission.reportsDirectory(index + 1) + "/" + name + "-plots"
          if FileManager.default.fileExists(atPath: plots) { try AtomicFile.commitFolder(plots, to: out + "/" + name + "-plots") }
          let page = submission.reportsDirectory(index + 1) + "/" + name + ".html"
          if FileManager.default.fileExists(atPath: page) { try AtomicFile.commit(page, to: out + "/" + name + ".html") }
          try AtomicFile.commit(finished, to: target)
          merged.append(name)
        }
      }
    }
    return merged
  }

  /// Whether a task's `batch` is over: it wrote its summary (last), or Slurm killed it. A running
  /// task's reports stay where they are, since `measure` writes the figures after the report.
  func hasEnded(_ submission: SlurmSubmission, task: Int) -> Bool {
    if FileManager.default.fileExists(atPath: submission.reportsDirectory(task) + "/summary.csv") { return true }
    guard let log = try? ReadOnlyFile.contents(of: submission.logPath(task)) else { return false }
    // "slurmstepd-NODE: error: *** JOB 7 ON NODE CANCELLED AT … DUE TO TIME LIMIT ***"
    return String(decoding: log, as: UTF8.self).split(separator: "\n").contains {
      $0.hasPrefix("slurmstepd") && $0.contains("error:")
    }
  }

  /// Where each scan stands, with `isUpToDate` telling whether `OUT/NAME.json` is newer than its inputs.
  public func states(of items: [BatchItem], isUpToDate: (BatchItem) -> Bool) -> [State] {
    items.map { item in
      if isUpToDate(item) { return .measured }
      guard let submission = submissions.last(where: { $0.tasks.contains { $0.contains(item.name) } }),
        let index = submission.tasks.firstIndex(where: { $0.contains(item.name) })
      else { return .missing("never submitted (run `headscan batch … --slurm` again)") }
      let task = index + 1
      let job = submission.jobID.map { "job \($0)" } ?? "submission \(submission.number), not submitted"
      let log = submission.logPath(task)
      guard let data = try? ReadOnlyFile.contents(of: log) else {
        return .missing("task \(task) of \(job) has not started (no \(log))")
      }
      let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
      // `batch` prints "[i/n] NAME: FAILED: why" for each scan that failed.
      if let line = lines.last(where: { $0.contains("] \(item.name): FAILED: ") }),
        let range = line.range(of: "] \(item.name): FAILED: ")
      {
        return .failed(String(line[range.upperBound...]), log: log)
      }
      // Otherwise the task itself ended badly: killed at its time limit, out of memory, cancelled.
      if let line = lines.last(where: { $0.contains("error:") || $0.contains("CANCELLED") }) {
        return .failed(line.replacingOccurrences(of: "headscan: error: ", with: ""), log: log)
      }
      return .missing("task \(task) of \(job) has not finished (\(log))")
    }
  }
}
