import Foundation
import Reports

/// A batch handed to a Slurm cluster as a job array (``Batch/submitToSlurm(settings:taskArguments:dryRun:)``).
public struct SlurmBatchSubmission: Sendable {
  /// The submission written into `OUT/slurm`; `nil` when every scan was already measured.
  public var submission: SlurmSubmission?
  /// The scans handed to the array (those not yet measured, or all with ``BatchOptions/force``).
  public var pending: [BatchItem]
  /// The job id `sbatch` gave it; `nil` for a dry run or when nothing was submitted.
  public var jobID: String?
}

/// What ``Batch/collectFromSlurm(_:)`` found: the batch, each scan's outcome, and the problems.
public struct CollectedBatch: Sendable {
  /// The batch as its newest submission recorded it, writing into the collected folder.
  public var batch: Batch
  /// Each scan's outcome: measured, failed (with the error line of its task's log) or not finished.
  public var outcomes: [BatchOutcome]
  /// One line a scan not measured: `NAME: why`.
  public var problems: [String]
  /// Where each scan stands, with the task log of those that failed.
  public var states: [SlurmCollection.State]
}

extension Batch {
  /// Writes the job array of the scans not yet measured into `OUT/slurm` and, unless `dryRun`,
  /// submits it with `sbatch`. Reports finished by earlier tasks are merged into `OUT` first.
  /// - Parameter taskArguments: the options each task's `headscan batch` gets after its folders
  ///   (the same measuring options as this batch's).
  /// - Throws: `FileProblem` when the submission cannot be written or `sbatch` refuses it.
  public func submitToSlurm(settings: SlurmSettings, taskArguments: [String], dryRun: Bool) throws -> SlurmBatchSubmission {
    // Reports finished by earlier tasks count as measured, even where nobody collected them.
    try SlurmCollection(out: out, required: false).mergeFinishedReports()
    let pending = options.force ? items : items.filter { !isUpToDate($0) }
    guard !pending.isEmpty else { return SlurmBatchSubmission(submission: nil, pending: [], jobID: nil) }
    let submission = try SlurmSubmission.write(
      pending, from: scansFolder, into: SlurmSubmission.folder(of: out), headFrame: options.headFrame, batchArguments: taskArguments,
      settings: settings)
    guard !dryRun else { return SlurmBatchSubmission(submission: submission, pending: pending, jobID: nil) }
    do {
      return SlurmBatchSubmission(submission: submission, pending: pending, jobID: try submission.submit())
    } catch {
      try? FileManager.default.removeItem(atPath: submission.directory)
      throw error
    }
  }

  /// Merges what a Slurm batch's tasks finished into `reports` (the batch's output folder) and
  /// writes its `summary.csv`, as a local batch would have.
  /// - Parameter options: how the scans were measured, for which inputs date a report (the
  ///   head frame is taken from the submission's record).
  /// - Throws: `FileProblem` when `reports` holds no submission or its records are damaged.
  public static func collectFromSlurm(_ reports: String, options: BatchOptions = .default) throws -> CollectedBatch? {
    let collection = try SlurmCollection(out: reports, required: true)
    guard let record = try collection.record() else { return nil }
    var options = options
    options.headFrame = record.headFrame
    let folder = record.scans.hasPrefix("/") ? record.scans : record.directory + "/" + record.scans
    let batch = Batch(scansFolder: folder, out: reports, items: try scans(in: folder), options: options)
    try collection.mergeFinishedReports()
    let states = collection.states(of: batch.items) { batch.isUpToDate($0) }
    var problems: [String] = [], outcomes: [BatchOutcome] = []
    for (item, state) in zip(batch.items, states) {
      switch state {
      case .measured:
        outcomes.append(.measured(seconds: 0))
      case .failed(let why, _):
        outcomes.append(.failed(why))
        problems.append("\(item.name): \(why)")
      case .missing(let why):
        outcomes.append(.failed("not finished: " + why))
        problems.append("\(item.name): not finished: \(why)")
      }
    }
    try batch.writeSummary(outcomes)
    return CollectedBatch(batch: batch, outcomes: outcomes, problems: problems, states: states)
  }
}
