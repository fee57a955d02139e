import ArgumentParser
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

  /// The scans of SCANS_DIR (at least one; only those named by `--only` when given), once OUT exists.
  func scansCreatingOut() throws -> [Item] {
    var items = try Self.scans(in: scans)
    guard !items.isEmpty else {
      let kinds = ScanFormats.registered.map(\.title).joined(separator: ", ")
      throw CommandError("\(scans): no scans (\(kinds))")
    }
    if !cluster.only.isEmpty {
      let names = Set(items.map(\.name))
      if let unknown = cluster.only.first(where: { !names.contains($0) }) { throw CommandError("\(scans): no scan named '\(unknown)'") }
      items = items.filter { cluster.only.contains($0.name) }
    }
    do {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      throw CommandError("\(out): cannot create the folder: \((error as NSError).localizedDescription)")
    }
    return items
  }

  /// Whether `OUT/NAME.json` is newer than the scan and, when the frame comes from them, its landmarks.
  func isUpToDate(_ item: Item, frame: HeadFrameSource, in out: String) -> Bool {
    let sidecar = ScanCap.sidecarPath(forScan: item.path)
    let capFile = input.cap ?? (FileManager.default.fileExists(atPath: sidecar) ? sidecar : nil)
    let inputs = (frame == .landmarks ? [item.path, item.landmarks] : [item.path]) + [capFile].compactMap { $0 }
    guard let reportDate = Self.modified(out + "/" + item.name + ".json") else { return false }
    return inputs.allSatisfy { (Self.modified($0) ?? .distantFuture) < reportDate }
  }

  /// Writes the job array of the scans not yet measured into `OUT/slurm` and submits it.
  func submit() throws {
    let items = try scansCreatingOut()
    // Reports finished by earlier tasks count as measured, even where nobody ran --collect.
    try SlurmCollection(out: out, required: false).mergeFinishedReports()
    let pending = force ? items : items.filter { !isUpToDate($0, frame: frame, in: out) }
    guard !pending.isEmpty else {
      print("all \(items.count) scans already measured in \(out); nothing to submit (--force measures them again)")
      return
    }
    var arguments = ["--jobs", "\(jobs ?? 1)", "--frame", frame.rawValue]
    if plots { arguments.append("--plots") }
    if depthLifting.focalLength != .stated { arguments += ["--focal-length", depthLifting.focalLength.argument] }
    if html { arguments.append("--html") }
    if force { arguments.append("--force") }
    if global.verbose { arguments.append("--verbose") }
    arguments += input.arguments
    let submission = try SlurmSubmission.write(
      pending, from: scans, into: SlurmSubmission.folder(of: out), frame: frame, batchArguments: arguments, options: cluster)
    let tasks = submission.tasks.count
    let counts = "\(tasks) array task\(tasks == 1 ? "" : "s") for \(pending.count) scan\(pending.count == 1 ? "" : "s")"
      + " (\(items.count - pending.count) already measured)"
    if cluster.dryRun {
      print("wrote \(submission.scriptPath): \(counts); submit it with: sbatch \(submission.scriptPath)")
      return
    }
    let id: String
    do {
      id = try submission.submit()
    } catch {
      try? FileManager.default.removeItem(atPath: submission.directory)
      throw error
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
    let collection = try SlurmCollection(out: reports, required: true)
    guard let record = try collection.record() else { return }
    let frame = HeadFrameSource(rawValue: record.frame) ?? .landmarks
    let items = try Self.scans(in: record.scans.hasPrefix("/") ? record.scans : record.directory + "/" + record.scans)
    try collection.mergeFinishedReports()
    let states = collection.states(of: items) { isUpToDate($0, frame: frame, in: reports) }
    var problems: [String] = []
    var outcomes: [Outcome] = []
    for (item, state) in zip(items, states) {
      switch state {
      case .measured:
        outcomes.append(.measured(seconds: 0))
      case .failed(let why, let log):
        outcomes.append(.failed(why))
        problems.append("\(item.name): \(why)")
        FileHandle.standardError.write(Data("\(item.name): FAILED: \(why) (log: \(log))\n".utf8))
      case .missing(let why):
        outcomes.append(.failed("not finished: " + why))
        problems.append("\(item.name): not finished: \(why)")
        FileHandle.standardError.write(Data("\(item.name): NOT FINISHED: \(why)\n".utf8))
      }
    }
    // The same summary a local batch writes.
    var local = self
    local.out = reports
    try local.writeSummary(items, outcomes)
    print("\(items.count - problems.count) of \(items.count) scans measured; summary: \(reports)/summary.csv")
    if !problems.isEmpty {
      throw CommandError("\(reports): \(problems.count) of \(items.count) scans not measured: " + problems.joined(separator: "; "))
    }
  }
}
