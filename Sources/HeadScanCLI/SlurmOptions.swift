import ArgumentParser
import Batch

/// `batch`'s options for a Slurm cluster: submit the batch as a job array, or collect what it wrote.
struct SlurmOptions: ParsableArguments {
  @Flag(help: "Submit the scans as a Slurm job array (sbatch) instead of measuring them here, then exit.")
  var slurm = false

  @Option(help: ArgumentHelp("Slurm partition (default: the cluster's default).", valueName: "name"))
  var partition: String?

  // The next four are optional, with their defaults in the text, so that one given without
  // --slurm is refused.
  @Option(help: ArgumentHelp("Time limit of one array task, Slurm's format (default \(SlurmSettings.default.time)).", valueName: "[d-]hh:mm:ss"))
  var time: String?

  @Option(help: "CPUs of one array task, \(optionRange(OptionBounds.cpus)) (default \(SlurmSettings.default.cpus)).")
  var cpus: Int?

  @Option(help: ArgumentHelp("Memory of one array task, Slurm's format (e.g. 4G, 1500M; default \(SlurmSettings.default.mem)).", valueName: "size"))
  var mem: String?

  @Option(help: ArgumentHelp("Array tasks running at once, \(optionRange(OptionBounds.maxParallel)) (default: as many as Slurm allows).", valueName: "n"))
  var maxParallel: Int?

  @Option(help: ArgumentHelp("Scans measured one after the other by one array task, \(optionRange(OptionBounds.scansPerTask)) (default \(SlurmSettings.default.scansPerTask)).", valueName: "n"))
  var scansPerTask: Int?

  @Option(
    help: ArgumentHelp(
      "One more line for the job script's #SBATCH header, e.g. --sbatch-option=--account=lab (repeatable).",
      valueName: "option"))
  var sbatchOption: [String] = []

  @Flag(help: "With --slurm: write the job script and the tasks' scan lists, but do not submit.")
  var dryRun = false

  @Option(
    help: ArgumentHelp(
      "Merge the reports a --slurm batch's tasks wrote into OUT and OUT/summary.csv; list failed and unfinished scans.",
      valueName: "out"))
  var collect: String?

  /// A job-array task's share: measure only these scans of the folder (names without extension).
  @Option(help: .hidden)
  var only: [String] = []

  /// Whether this run goes through Slurm rather than measuring here.
  var isUsed: Bool { slurm || collect != nil }

  func validate() throws {
    try checkOption(cpus, "--cpus", OptionBounds.cpus)
    try checkOption(maxParallel, "--max-parallel", OptionBounds.maxParallel)
    try checkOption(scansPerTask, "--scans-per-task", OptionBounds.scansPerTask)
    if slurm && collect != nil { throw ValidationError("--slurm submits and --collect merges: give one of them") }
    if !only.isEmpty && isUsed { throw ValidationError("--only is for the tasks of a --slurm batch") }
    guard slurm else {
      let given = [
        partition != nil ? "--partition" : nil, time != nil ? "--time" : nil, cpus != nil ? "--cpus" : nil,
        mem != nil ? "--mem" : nil, maxParallel != nil ? "--max-parallel" : nil,
        scansPerTask != nil ? "--scans-per-task" : nil,
        sbatchOption.isEmpty ? nil : "--sbatch-option", dryRun ? "--dry-run" : nil,
      ].compactMap { $0 }
      if let first = given.first { throw ValidationError("\(first) needs --slurm") }
      return
    }
    if let (option, value) = settings.unsafeHeaderValue {
      throw ValidationError("\(option) '\(value)' cannot go into an #SBATCH line (no spaces, quotes or line breaks)")
    }
    let time = settings.time, mem = settings.mem
    if time.isEmpty || !(time.allSatisfy({ $0.isNumber || $0 == ":" || $0 == "-" }) || ["UNLIMITED", "INFINITE"].contains(time)) {
      throw ValidationError("--time must be Slurm's [days-]hours:minutes:seconds, e.g. 00:10:00, not '\(time)'")
    }
    if mem.isEmpty || !mem.allSatisfy({ $0.isNumber || "KMGTkmgt".contains($0) }) {
      throw ValidationError("--mem must be a size like 4G or 1500M, not '\(mem)'")
    }
    for option in sbatchOption where !option.hasPrefix("-") || option.contains("\n") {
      throw ValidationError("--sbatch-option takes one sbatch option such as --account=lab, not '\(option)'")
    }
  }

  /// The job array's settings.
  var settings: SlurmSettings {
    var settings = SlurmSettings.default
    settings.partition = partition
    settings.time = time ?? settings.time
    settings.cpus = cpus ?? settings.cpus
    settings.mem = mem ?? settings.mem
    settings.maxParallel = maxParallel
    settings.scansPerTask = scansPerTask ?? settings.scansPerTask
    settings.sbatchOptions = sbatchOption
    return settings
  }
}
