import ArgumentParser
import Batch
import Foundation
import _HeadScanSupport
import ScanIO

/// `batch --slurm` (submit the batch as a job array) and `batch --collect` (merge what it wrote).
extension BatchCommand {
  /// The command line's consistency when Slurm is involved (called first by `validate()`).
  func validateModes() throws {
    if cluster.collect != nil {
      if !scans.isEmpty || !out.isEmpty { throw ValidationError("--collect OUT takes no scans folder and no --out") }
    } else {
      if scans.isEmpty { throw ValidationError("Missing expected argument '<scans>'") }
      if out.isEmpty { throw ValidationError("Missing expected argument '--out <out>'") }
    }
  }

  /// Runs `--slurm` or `--collect`.
  func runOnSlurm() throws {
    try reportingErrors {
      if let reports = cluster.collect { try collect(reports) } else { try submit() }
    }
  }

  /// Writes the job array of the scans not yet measured into `OUT/slurm` and submits it.
  func submit() throws {
    let batch = try makeBatch()
    var arguments = ["--jobs", "\(jobs ?? 1)", "--frame", frame.rawValue]
    if plots { arguments.append("--plots") }
    arguments += depthLifting.arguments
    arguments += detection.arguments
    if html { arguments.append("--html") }
    if force { arguments.append("--force") }
    if global.verbose { arguments.append("--verbose") }
    arguments += input.arguments
    let result = try batch.submitToSlurm(settings: cluster.settings, taskArguments: arguments, dryRun: cluster.dryRun)
    guard let submission = result.submission else {
      print("all \(batch.items.count) scans already measured in \(out); nothing to submit (--force measures them again)")
      return
    }
    let tasks = submission.tasks.count, pending = result.pending.count
    let counts = "\(tasks) array task\(tasks == 1 ? "" : "s") for \(pending) scan\(pending == 1 ? "" : "s")"
      + " (\(batch.items.count - pending) already measured)"
    guard let id = result.jobID else {
      print("wrote \(submission.scriptPath): \(counts); submit it with: sbatch \(submission.scriptPath)")
      return
    }
    if global.quiet {
      print(id)
    } else {
      print("""
        submitted job \(id): \(counts)
          follow it:  squeue -j \(id)   or   scontrol show job \(id)
          task logs:  \(submission.folder)/logs/submission-\(submission.number)-task-*.log
          when done:  headscan batch --collect \(out)
        """)
    }
  }

  /// Merges what the tasks finished into `OUT` and `OUT/summary.csv`; lists failed and unfinished scans.
  func collect(_ reports: String) throws {
    guard let collected = try Batch.collectFromSlurm(reports, options: batchOptions) else { return }
    for (item, state) in zip(collected.batch.items, collected.states) {
      switch state {
      case .measured: break
      case .failed(let why, let log): FileHandle.standardError.write(Data("\(item.name): FAILED: \(why) (log: \(log))\n".utf8))
      case .missing(let why): FileHandle.standardError.write(Data("\(item.name): NOT FINISHED: \(why)\n".utf8))
      }
    }
    let count = collected.batch.items.count, problems = collected.problems
    print("\(count - problems.count) of \(count) scans measured; summary: \(reports)/summary.csv")
    if !problems.isEmpty {
      throw CommandError("\(reports): \(problems.count) of \(count) scans not measured: " + problems.joined(separator: "; "))
    }
  }
}
