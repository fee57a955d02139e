import Foundation
import _HeadScanSupport
import Reports
import ScanIO

/// One `batch --slurm` submission: a job array whose task `t` runs `headscan batch SCANS --only …`
/// on its share of the scans, from the folder the batch was submitted in and with the scans folder
/// as it was given (so reports name their scan exactly as a local run's do), laid out in `OUT/slurm`:
///
/// - `submission-N/job.sh`: the job script (`sbatch` it again by hand after `--dry-run`);
/// - `submission-N/tasks.tsv`: `task<TAB>scan` lines, and `submission-N/batch.json` (the scans folder,
///   where it was given, the head-frame source), read by `--collect`; `submission-N/job-id` once submitted;
/// - `submission-N/task-T/reports/`: that task's `batch --out` (reports, figures, its own summary);
/// - `logs/submission-N-task-T.log`: the task's standard output and error.
///
/// So two tasks never write the same file, and a task killed by the scheduler leaves at most a
/// hidden temporary file (reports are written atomically).
public struct SlurmSubmission: Sendable {
  /// What `--collect` needs to know about the batch: where its scans are and how they were measured.
  public struct Record: Codable, Sendable, Hashable {
    /// The scans folder as given to `batch`.
    public var scans: String
    /// The working folder `batch --slurm` ran in (and its tasks run in).
    public var directory: String
    /// The head-frame source, a ``BatchHeadFrame`` raw value (`landmarks`, `automaticLandmarks`,
    /// `automaticFrame`; `auto` also reads as the automatic frame).
    public var frame: String

    /// The head frame the record names.
    public var headFrame: BatchHeadFrame { BatchHeadFrame(rawValue: frame) ?? (frame == "auto" ? .automaticFrame : .landmarks) }
  }

  /// `OUT/slurm`, absolute.
  public let folder: String
  /// 1 for the first submission into `OUT`, then 2, …
  public let number: Int
  /// The scan names of each array task; task `t` (from 1) is `tasks[t - 1]`.
  public let tasks: [[String]]

  /// `OUT/slurm` of a batch writing into `out`.
  public static func folder(of out: String) -> String {
    URL(fileURLWithPath: out).standardizedFileURL.path + "/slurm"
  }

  /// `OUT/slurm/submission-N`.
  public var directory: String { folder + "/submission-\(number)" }
  /// The job script.
  public var scriptPath: String { directory + "/job.sh" }
  var jobIDPath: String { directory + "/job-id" }
  func taskDirectory(_ task: Int) -> String { directory + "/task-\(task)" }
  func reportsDirectory(_ task: Int) -> String { taskDirectory(task) + "/reports" }
  func logPath(_ task: Int) -> String { folder + "/logs/submission-\(number)-task-\(task).log" }

  /// The job id `sbatch` gave it, or `nil` when it was not submitted (`--dry-run`).
  public var jobID: String? {
    (try? ReadOnlyFile.contents(of: jobIDPath)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The submissions already in `folder`, oldest first.
  public static func existing(in folder: String) throws -> [SlurmSubmission] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let numbers = names.compactMap { name in name.hasPrefix("submission-") ? Int(name.dropFirst("submission-".count)) : nil }
    return try numbers.sorted().map { number in
      let path = folder + "/submission-\(number)/tasks.tsv"
      let text = try contents(of: path)
      var tasks: [[String]] = []
      for (index, line) in text.split(separator: "\n").enumerated() {
        let fields = line.split(separator: "\t", maxSplits: 1)
        guard fields.count == 2, let task = Int(fields[0]), task >= 1, task <= tasks.count + 1 else {
          throw FileProblem(path: "\(path):\(index + 1)", problem: "expected 'task<TAB>scan' with tasks numbered from 1, got '\(line)'")
        }
        if task > tasks.count { tasks.append([]) }
        tasks[task - 1].append(String(fields[1]))
      }
      return SlurmSubmission(folder: folder, number: number, tasks: tasks)
    }
  }

  /// The batch record of this submission.
  public func record() throws -> Record {
    let path = directory + "/batch.json"
    let text = try Self.contents(of: path)
    do {
      return try JSONDecoder().decode(Record.self, from: Data(text.utf8))
    } catch {
      throw FileProblem(path: path, problem: "not a batch record: \(error)")
    }
  }

  static func contents(of path: String) throws -> String {
    do {
      return String(decoding: try ReadOnlyFile.contents(of: path), as: UTF8.self)
    } catch {
      throw FileProblem(path: error.path, problem: error.problem)
    }
  }

  /// Writes a new submission of `items` (split `scansPerTask` to a task) into `folder`: the task
  /// folders, the task list, the record and the job script.
  /// - Parameters:
  ///   - scansFolder: the folder the items were listed from, as given.
  ///   - batchArguments: the options each task's `headscan batch` gets after its folders.
  public static func write(
    _ items: [BatchItem], from scansFolder: String, into folder: String, headFrame: BatchHeadFrame,
    batchArguments: [String], settings options: SlurmSettings
  ) throws -> SlurmSubmission {
    try checkScriptValues(items, scansFolder: scansFolder, folder: folder, settings: options)
    let number = (try existing(in: folder).map(\.number).max() ?? 0) + 1
    let chunks = stride(from: 0, to: items.count, by: options.scansPerTask).map {
      Array(items[$0..<min($0 + options.scansPerTask, items.count)])
    }
    let submission = SlurmSubmission(folder: folder, number: number, tasks: chunks.map { $0.map(\.name) })
    let record = Record(scans: scansFolder, directory: FileManager.default.currentDirectoryPath, frame: headFrame.rawValue)
    do {
      try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
      for task in submission.tasks.indices {
        try FileManager.default.createDirectory(atPath: submission.reportsDirectory(task + 1), withIntermediateDirectories: true)
      }
    } catch {
      throw FileProblem(path: submission.directory, problem: "cannot write the task folders: \((error as NSError).localizedDescription)")
    }
    let list = chunks.enumerated().flatMap { index, chunk in chunk.map { "\(index + 1)\t\($0.name)\n" } }.joined()
    try AtomicFile.write(Data(list.utf8), to: submission.directory + "/tasks.tsv")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try AtomicFile.write(try encoder.encode(record), to: submission.directory + "/batch.json")
    let script = submission.script(record, batchArguments: batchArguments, options: options)
    try AtomicFile.write(Data(script.utf8), to: submission.scriptPath)
    chmod(submission.scriptPath, 0o755)
    return submission
  }

  /// The job-array script: Slurm's settings, then each task's `headscan batch` on its own scans into
  /// its own folder, with the absolute path of this very binary (nothing needs to be in the compute
  /// nodes' PATH).
  func script(_ record: Record, batchArguments: [String], options: SlurmSettings) -> String {
    let executable = Self.executablePath()
    var header = [
      "--job-name=headscan-batch",
      "--array=1-\(tasks.count)" + (options.maxParallel.map { "%\($0)" } ?? ""),
      "--cpus-per-task=\(options.cpus)", "--mem=\(options.mem)", "--time=\(options.time)",
      "--output=" + folder + "/logs/submission-\(number)-task-%a.log", "--chdir=" + record.directory,
    ]
    if let partition = options.partition { header.append("--partition=\(partition)") }
    header += options.sbatchOptions
    let shares = tasks.enumerated().map { index, names in
      "  \(index + 1)) only=(" + names.map { "--only " + Self.shellQuoted($0) }.joined(separator: " ") + ") ;;"
    }
    let command = ([Self.shellQuoted(executable), "batch", Self.shellQuoted(record.scans), "\"${only[@]}\""]
      + ["--out", Self.shellQuoted(directory) + "/task-$SLURM_ARRAY_TASK_ID/reports"]
      + batchArguments.map(Self.shellQuoted)).joined(separator: " ")
    return """
      #!/bin/bash
      # Written by `headscan batch --slurm` (submission \(number)): \(tasks.count) array tasks over \(tasks.joined().count) scans.
      # Each task measures its scans into task-T/reports; `headscan batch --collect` merges those
      # into the batch's folder and summary.csv.
      \(header.map { "#SBATCH " + $0 }.joined(separator: "\n"))
      set -eu
      case $SLURM_ARRAY_TASK_ID in
      \(shares.joined(separator: "\n"))
        *) echo "headscan: error: $0: no array task $SLURM_ARRAY_TASK_ID" >&2; exit 1 ;;
      esac
      exec \(command)

      """
  }

  /// Submits the job script with `sbatch --parsable`, records and returns the job id.
  public func submit() throws -> String {
    guard let sbatch = Self.inPath("sbatch") else {
      throw FileProblem(path: "sbatch", problem: "not found in PATH (run this on a Slurm login node, or write the job script with --dry-run)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: sbatch)
    process.arguments = ["--parsable", scriptPath]
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw FileProblem(path: sbatch, problem: "cannot start: \((error as NSError).localizedDescription)")
    }
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // --parsable prints `id` or `id;cluster`.
    let id = printed.split(separator: "\n").last.map { String($0.split(separator: ";").first ?? "") } ?? ""
    guard process.terminationStatus == 0, !id.isEmpty, id.allSatisfy(\.isNumber) else {
      let why = complaint.split(separator: "\n").last(where: { !$0.isEmpty }) ?? "exit status \(process.terminationStatus)"
      throw FileProblem(path: scriptPath, problem: "sbatch refused the job: \(why)")
    }
    try AtomicFile.write(Data(id.utf8), to: jobIDPath)
    return id
  }

  /// The running binary, symbolic links resolved (`/proc/self/exe`), so that tasks run the same one.
  static func executablePath() -> String {
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
    return resolvedPath(Bundle.main.executablePath ?? CommandLine.arguments[0])
  }

  /// The first executable `name` along PATH.
  static func inPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// `s` as one word for bash.
  static func shellQuoted(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// The resources and placement of a job array's tasks, in Slurm's own formats.
public struct SlurmSettings: Sendable, Hashable {
  /// Slurm partition (`nil`: the cluster's default).
  public var partition: String? = nil
  /// Time limit of one array task, `[days-]hours:minutes:seconds`.
  public var time = "00:10:00"
  /// CPUs of one array task.
  public var cpus = 2
  /// Memory of one array task, e.g. `4G` or `1500M`.
  public var mem = "4G"
  /// Array tasks running at once (`nil`: as many as Slurm allows).
  public var maxParallel: Int? = nil
  /// Scans measured one after the other by one array task.
  public var scansPerTask = 1
  /// More `#SBATCH` lines, each one sbatch option such as `--account=lab`.
  public var sbatchOptions: [String] = []

  /// The defaults: 10 minutes, 2 CPUs and 4 GB a task, one scan a task.
  public static let `default` = SlurmSettings()

  /// The default settings (``default``).
  public init() {}

  /// The first `#SBATCH` header value that cannot go into a job script (sbatch reads a value up
  /// to the first space or line break; quotes and control characters would change the line),
  /// with the option it came from; `nil` when every one can.
  public var unsafeHeaderValue: (option: String, value: String)? {
    let header = [("--time", time), ("--mem", mem), ("--partition", partition ?? "")] + sbatchOptions.map { ("--sbatch-option", $0) }
    return header.first { Self.breaksHeaderLine($0.1) }.map { (option: $0.0, value: $0.1) }
  }

  /// Whether `value` cannot go into an `#SBATCH` line: it holds a space, a quote or a control
  /// character (a tab or line break among them).
  static func breaksHeaderLine(_ value: String) -> Bool {
    hasControlCharacter(value) || value.contains { $0 == " " || $0 == "\"" || $0 == "'" }
  }

  /// Whether `text` holds a control character (a tab or line break among them).
  static func hasControlCharacter(_ text: String) -> Bool {
    text.unicodeScalars.contains { $0.properties.generalCategory == .control }
  }
}

extension SlurmSubmission {
  /// Refuses values that would break the files a submission writes: the `#SBATCH` header's values
  /// (sbatch reads them up to the first space or line break), the task list's scan names (one a
  /// line, after a tab) and the folders the script names. The script's command line quotes every
  /// word for bash (``shellQuoted(_:)``), so names with spaces and quotes are fine there.
  /// - Throws: ``FileProblem`` naming the value.
  static func checkScriptValues(_ items: [BatchItem], scansFolder: String, folder: String, settings: SlurmSettings) throws {
    let hasControl = SlurmSettings.hasControlCharacter
    for item in items where hasControl(item.name) || hasControl(item.path) {
      throw FileProblem(path: item.path, problem: "a scan name with a tab or line break cannot go into a Slurm task list: rename it")
    }
    // The scans folder goes only into the quoted command line; the output and working folders
    // go into #SBATCH --output and --chdir.
    if hasControl(scansFolder) {
      throw FileProblem(path: scansFolder, problem: "a scans folder with a tab or line break cannot go into a Slurm job script")
    }
    let directory = FileManager.default.currentDirectoryPath
    for (what, value) in [("the output folder", folder), ("the working folder", directory)]
    where SlurmSettings.breaksHeaderLine(value) {
      throw FileProblem(path: value, problem: "\(what) goes into the job script's #SBATCH lines, which cannot carry spaces, quotes or line breaks")
    }
    if let (option, value) = settings.unsafeHeaderValue {
      throw FileProblem(path: option, problem: "'\(value)' cannot go into an #SBATCH line (no spaces, quotes or line breaks)")
    }
    guard settings.cpus >= 1, settings.scansPerTask >= 1, (settings.maxParallel ?? 1) >= 1 else {
      throw FileProblem(path: "--cpus", problem: "CPUs, scans per task and tasks at once must be at least 1")
    }
  }
}
