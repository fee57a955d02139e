import Foundation
import Reports
import Testing
import _TestSupport

@testable import Batch

/// What `batch --slurm` writes and `batch --collect` reads, without a cluster: the submission's
/// files (docs/command-line.md, on a cluster) in a temporary folder, the job script run by bash
/// with the array task's number, and the states read from hand-made task logs.
struct SlurmSubmissionTests {
  static func items(_ names: [String], in folder: String) -> [BatchItem] {
    names.map { BatchItem(name: $0, path: folder + "/" + $0 + ".rgbdscan", landmarks: folder + "/" + $0 + ".landmarks.json") }
  }

  static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  static func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  /// Runs `script` with bash and `SLURM_ARRAY_TASK_ID=task`.
  static func bash(_ script: String, task: Int) throws -> CommandRun {
    try Headscan.run(program: URL(fileURLWithPath: "/bin/bash"), [script], environment: ["SLURM_ARRAY_TASK_ID": "\(task)"])
  }

  @Test func aSubmissionWritesItsTasksRecordAndJobScript() throws {
    try TestFiles.withTemporaryFolder { folder in
      let slurm = folder.path + "/out/slurm"
      var settings = SlurmSettings.default
      settings.scansPerTask = 2
      settings.maxParallel = 3
      settings.partition = "short"
      settings.time = "01:30:00"
      settings.cpus = 4
      settings.mem = "1500M"
      settings.sbatchOptions = ["--account=lab", "--qos=low"]
      let scans = folder.path + "/scans"
      let items = Self.items(["a", "b", "o'brien", "d e", "$HOME"], in: scans)
      let submission = try SlurmSubmission.write(
        items, from: scans, into: slurm, headFrame: .landmarks, batchArguments: ["--plots", "--cap", "it's a cap.json"],
        settings: settings)
      #expect(submission.number == 1 && submission.folder == slurm && submission.directory == slurm + "/submission-1")
      #expect(submission.tasks == [["a", "b"], ["o'brien", "d e"], ["$HOME"]])
      #expect(submission.jobID == nil, "not submitted")

      // The task list and the record, read back as --collect reads them.
      #expect(try Self.text(submission.directory + "/tasks.tsv") == "1\ta\n1\tb\n2\to'brien\n2\td e\n3\t$HOME\n")
      let record = try submission.record()
      #expect(record == .init(scans: scans, directory: FileManager.default.currentDirectoryPath, frame: "landmarks"))
      #expect(record.headFrame == .landmarks)
      let existing = try SlurmSubmission.existing(in: slurm)
      #expect(existing.map(\.number) == [1] && existing.first?.tasks == submission.tasks)
      // Each task's own reports folder and the shared logs folder.
      for task in 1...3 {
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: submission.directory + "/task-\(task)/reports", isDirectory: &isFolder) && isFolder.boolValue)
      }
      #expect(FileManager.default.fileExists(atPath: slurm + "/logs"))
      #expect(submission.logPath(2) == slurm + "/logs/submission-1-task-2.log")

      // The job script: Slurm's settings, then one `headscan batch` a task.
      let script = try Self.text(submission.scriptPath)
      let permissions = try FileManager.default.attributesOfItem(atPath: submission.scriptPath)[.posixPermissions] as? Int
      #expect(permissions == 0o755)
      let lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      #expect(lines.first == "#!/bin/bash")
      #expect(
        lines.filter { $0.hasPrefix("#SBATCH ") } == [
          "#SBATCH --job-name=headscan-batch", "#SBATCH --array=1-3%3", "#SBATCH --cpus-per-task=4", "#SBATCH --mem=1500M",
          "#SBATCH --time=01:30:00", "#SBATCH --output=\(slurm)/logs/submission-1-task-%a.log",
          "#SBATCH --chdir=\(FileManager.default.currentDirectoryPath)", "#SBATCH --partition=short", "#SBATCH --account=lab",
          "#SBATCH --qos=low",
        ])
      #expect(lines.contains("  2) only=(--only 'o'\\''brien' --only 'd e') ;;"), "\(script)")
      #expect(lines.contains("  3) only=(--only '$HOME') ;;"), "\(script)")
      let executable = SlurmSubmission.executablePath()
      #expect(executable.hasPrefix("/") && script.contains("exec " + SlurmSubmission.shellQuoted(executable) + " batch "))

      // Run by bash with the executable swapped for printf: each task's arguments arrive as
      // written, one word each, nothing expanded.
      let printing = folder.path + "/job-printing.sh"
      try Self.write(script.replacingOccurrences(of: "exec " + SlurmSubmission.shellQuoted(executable), with: "printf '%s\\n'"), to: printing)
      let common = ["--out", submission.directory + "/task-2/reports", "--plots", "--cap", "it's a cap.json"]
      let two = try Self.bash(printing, task: 2)
      #expect(two.status == 0, "\(two.stderr)")
      #expect(two.stdout.split(separator: "\n").map(String.init) == ["batch", scans, "--only", "o'brien", "--only", "d e"] + common)
      let three = try Self.bash(printing, task: 3)
      #expect(three.stdout.split(separator: "\n").map(String.init).prefix(4) == ["batch", scans, "--only", "$HOME"])
      let missing = try Self.bash(printing, task: 4)
      #expect(missing.status == 1 && missing.stdout.isEmpty && missing.stderr.contains("no array task 4"), "\(missing.stderr)")

      // A second submission into the same folder is number 2; the automatic frame is recorded.
      let second = try SlurmSubmission.write(
        Array(items.prefix(1)), from: scans, into: slurm, headFrame: .automaticFrame, batchArguments: [], settings: .default)
      #expect(second.number == 2 && second.tasks == [["a"]])
      #expect(try second.record().headFrame == .automaticFrame)
      // Records name their head frame by a word --collect reads back.
      #expect(SlurmSubmission.Record(scans: "s", directory: "/", frame: "auto").headFrame == .automaticFrame)
      #expect(SlurmSubmission.Record(scans: "s", directory: "/", frame: "landmarks").headFrame == .landmarks)
      #expect(try Self.text(second.scriptPath).contains("#SBATCH --array=1-1\n"))
      #expect(try SlurmSubmission.existing(in: slurm).map(\.number) == [1, 2])
    }
  }

  /// Every head frame is recorded and read back: a batch of automatic landmarks is collected
  /// without landmarks files (their dates do not count).
  @Test func theHeadFrameSurvivesTheRecordAndTheCollection() throws {
    try TestFiles.withTemporaryFolder { folder in
      for frame in BatchHeadFrame.allCases {
        let submission = try SlurmSubmission.write(
          Self.items(["a"], in: folder.path), from: folder.path, into: folder.path + "/\(frame.rawValue)/slurm", headFrame: frame,
          batchArguments: [], settings: .default)
        #expect(try submission.record().headFrame == frame)
      }
      let scans = folder.path + "/scans", out = folder.path + "/out"
      try Self.write("x", to: scans + "/s1.rgbdscan")
      try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-100)], ofItemAtPath: scans + "/s1.rgbdscan")
      var options = BatchOptions.default
      options.headFrame = .automaticLandmarks
      let dry = try Batch(scans: scans, out: out, options: options).submitToSlurm(settings: .default, taskArguments: [], dryRun: true)
      let submission = try #require(dry.submission)
      try Self.write(BatchTests.minimalReport, to: submission.directory + "/task-1/reports/s1.json")
      try Self.write("scan,status\n", to: submission.directory + "/task-1/reports/summary.csv")
      let collected = try #require(try Batch.collectFromSlurm(out))
      #expect(collected.batch.options.headFrame == .automaticLandmarks)
      #expect(collected.outcomes == [.measured(seconds: 0)] && collected.problems.isEmpty, "\(collected.problems)")
    }
  }

  @Test func damagedSubmissionRecordsAreFileProblems() throws {
    try TestFiles.withTemporaryFolder { folder in
      let slurm = folder.path + "/slurm"
      try Self.write("1\ta\n3\tb\n", to: slurm + "/submission-1/tasks.tsv")
      #expect(throws: FileProblem(path: slurm + "/submission-1/tasks.tsv:2", problem: "expected 'task<TAB>scan' with tasks numbered from 1, got '3\tb'")) {
        try SlurmSubmission.existing(in: slurm)
      }
      try Self.write("1\ta\n", to: slurm + "/submission-1/tasks.tsv")
      let submission = try #require(try SlurmSubmission.existing(in: slurm).first)
      #expect {
        try submission.record()
      } throws: { error in
        (error as? FileProblem)?.path == slurm + "/submission-1/batch.json"
      }
      try Self.write("{\"scans\": 3}", to: slurm + "/submission-1/batch.json")
      #expect {
        try submission.record()
      } throws: { error in
        (error as? FileProblem).map { $0.problem.hasPrefix("not a batch record: ") } ?? false
      }
      #expect(throws: FileProblem.self) { try SlurmCollection(out: folder.path + "/elsewhere", required: true) }
      #expect(try SlurmCollection(out: folder.path + "/elsewhere", required: false).submissions.isEmpty)
    }
  }

  @Test func statesComeFromTheReportsAndTheTaskLogs() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.path + "/out", slurm = SlurmSubmission.folder(of: out)
      let items = Self.items(["measured", "failed", "timed-out", "crashed", "running", "waiting", "never"], in: folder.path + "/scans")
      let first = try SlurmSubmission.write(
        Array(items.prefix(6)), from: "scans", into: slurm, headFrame: .landmarks, batchArguments: [], settings: .default)
      // A later submission of the scan that failed: its newest task's log is the one read.
      let second = try SlurmSubmission.write([items[1]], from: "scans", into: slurm, headFrame: .landmarks, batchArguments: [], settings: .default)
      try Self.write("4242", to: second.directory + "/job-id")
      #expect(second.jobID == "4242")
      try Self.write("[1/1] failed: FAILED: scans/failed.rgbdscan: cut off in frame 3\n", to: second.logPath(1))
      try Self.write("[1/1] failed: FAILED: an older failure\n", to: first.logPath(2))
      try Self.write(
        "[0/1] timed-out\nslurmstepd-node1: error: *** JOB 7 ON node1 CANCELLED AT 2026-01-01T10:00:00 DUE TO TIME LIMIT ***\n",
        to: first.logPath(3))
      try Self.write("headscan: error: out of memory\n", to: first.logPath(4))
      try Self.write("measuring...\n", to: first.logPath(5))

      let collection = try SlurmCollection(out: out, required: true)
      #expect(collection.submissions.map(\.number) == [1, 2] && collection.folder == slurm)
      #expect(try collection.record()?.scans == "scans")
      let states = collection.states(of: items) { $0.name == "measured" }
      #expect(
        states == [
          .measured,
          .failed("scans/failed.rgbdscan: cut off in frame 3", log: second.logPath(1)),
          .failed("slurmstepd-node1: error: *** JOB 7 ON node1 CANCELLED AT 2026-01-01T10:00:00 DUE TO TIME LIMIT ***", log: first.logPath(3)),
          .failed("out of memory", log: first.logPath(4)),
          .missing("task 5 of submission 1, not submitted has not finished (\(first.logPath(5)))"),
          .missing("task 6 of submission 1, not submitted has not started (no \(first.logPath(6)))"),
          .missing("never submitted (run `headscan batch … --slurm` again)"),
        ])
      // Over: a task that wrote its summary or that Slurm killed; not one still running.
      try Self.write("scan,status\n", to: first.directory + "/task-1/reports/summary.csv")
      #expect(collection.hasEnded(first, task: 1) && collection.hasEnded(first, task: 3))
      #expect(!collection.hasEnded(first, task: 4) && !collection.hasEnded(first, task: 5) && !collection.hasEnded(first, task: 6))
    }
  }

  @Test func finishedReportsMoveIntoTheOutputFolderWithTheirFigures() throws {
    try TestFiles.withTemporaryFolder { folder in
      let out = folder.path + "/out", slurm = SlurmSubmission.folder(of: out)
      let submission = try SlurmSubmission.write(
        Self.items(["done", "older", "running"], in: folder.path), from: folder.path, into: slurm, headFrame: .landmarks, batchArguments: [],
        settings: .default)
      let now = Date()
      for task in 1...2 {
        let reports = submission.directory + "/task-\(task)/reports"
        try Self.write("scan,status\n", to: reports + "/summary.csv")
      }
      try Self.write("{}", to: submission.directory + "/task-1/reports/done.json")
      try Self.write("<svg/>", to: submission.directory + "/task-1/reports/done-plots/contour.svg")
      try Self.write("<html/>", to: submission.directory + "/task-1/reports/done.html")
      // A report already in OUT that is newer than the task's stays.
      try Self.write("{\"task\": true}", to: submission.directory + "/task-2/reports/older.json")
      try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-60)], ofItemAtPath: submission.directory + "/task-2/reports/older.json")
      try Self.write("{\"out\": true}", to: out + "/older.json")
      // A task still running (no summary, no Slurm error) keeps its report.
      try Self.write("{}", to: submission.directory + "/task-3/reports/running.json")

      let merged = try SlurmCollection(out: out, required: true).mergeFinishedReports()
      #expect(merged == ["done"])
      #expect(try Self.text(out + "/done.json") == "{}" && (try Self.text(out + "/done-plots/contour.svg")) == "<svg/>")
      #expect(try Self.text(out + "/done.html") == "<html/>")
      #expect(try Self.text(out + "/older.json") == "{\"out\": true}")
      #expect(!FileManager.default.fileExists(atPath: out + "/running.json"))
      #expect(try SlurmCollection(out: out, required: true).mergeFinishedReports().isEmpty, "nothing left to move")
    }
  }

  /// `submitToSlurm` as `--dry-run` and `collectFromSlurm` over hand-finished tasks: the
  /// outcomes, the problems and the summary a local batch would have written.
  @Test func aDryRunThenCollectingGivesTheOutcomesAndTheSummary() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scans = folder.path + "/scans", out = folder.path + "/out"
      let before = Date().addingTimeInterval(-100)
      for name in ["s1", "s2", "s3"] {
        for suffix in [".rgbdscan", ".landmarks.json"] {
          try Self.write("x", to: scans + "/" + name + suffix)
          try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: scans + "/" + name + suffix)
        }
      }
      let batch = try Batch(scans: scans, out: out)
      let dry = try batch.submitToSlurm(settings: .default, taskArguments: ["--quiet"], dryRun: true)
      #expect(dry.pending.map(\.name) == ["s1", "s2", "s3"] && dry.jobID == nil)
      let submission = try #require(dry.submission)
      #expect(submission.number == 1 && submission.tasks == [["s1"], ["s2"], ["s3"]])
      #expect(try Self.text(submission.scriptPath).contains(" batch " + SlurmSubmission.shellQuoted(scans) + " \"${only[@]}\" "))

      // Task 1 measured s1; task 2 failed on s2; task 3 has not started.
      try Self.write(BatchTests.minimalReport, to: submission.directory + "/task-1/reports/s1.json")
      try Self.write("scan,status\n", to: submission.directory + "/task-1/reports/summary.csv")
      try Self.write("[1/1] s2: FAILED: \(scans)/s2.rgbdscan: cut off\n", to: submission.logPath(2))
      let collected = try #require(try Batch.collectFromSlurm(out))
      #expect(collected.batch.items.map(\.name) == ["s1", "s2", "s3"] && collected.batch.out == out)
      let notStarted = "task 3 of submission 1, not submitted has not started (no \(submission.logPath(3)))"
      #expect(collected.outcomes == [.measured(seconds: 0), .failed("\(scans)/s2.rgbdscan: cut off"), .failed("not finished: " + notStarted)])
      #expect(collected.problems == ["s2: \(scans)/s2.rgbdscan: cut off", "s3: not finished: " + notStarted])
      let summary = try Self.text(out + "/summary.csv").split(separator: "\n").map(String.init)
      let noValues = String(repeating: ",", count: MeasureReport.summaryColumns.count + 1)
      #expect(
        Array(summary.dropFirst()) == [
          "s1,measured,\(BatchTests.minimalReportValues),,\(BatchTests.minimalReportVerdict)", "s2,failed\(noValues)\(scans)/s2.rgbdscan: cut off,,",
          "s3,failed\(noValues)\"not finished: \(notStarted)\",,",
        ])

      // Submitted again: only the scans not measured.
      let again = try batch.submitToSlurm(settings: .default, taskArguments: [], dryRun: true)
      #expect(again.pending.map(\.name) == ["s2", "s3"] && again.submission?.number == 2)
      // Nothing left to measure: no submission at all.
      for name in ["s2", "s3"] { try Self.write(BatchTests.minimalReport, to: out + "/" + name + ".json") }
      let none = try batch.submitToSlurm(settings: .default, taskArguments: [], dryRun: true)
      #expect(none.submission == nil && none.pending.isEmpty && none.jobID == nil)
    }
  }
}
