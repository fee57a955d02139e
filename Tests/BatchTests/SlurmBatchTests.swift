import Foundation
import Synchronization
import Testing
import _TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What scripts/slurm-local.sh needs: root, and Slurm installed or apt-get to install it.
private let localSlurmCanStart: Bool = {
  let installed = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/sbin/munged"]
    .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  return getuid() == 0 && (installed || FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get"))
}()

/// `batch --slurm` and `batch --collect` against a real single-node Slurm started by
/// scripts/slurm-local.sh (root only; it installs slurm-wlm and munge with apt where missing).
@Suite(
  .serialized,
  .enabled(
    if: localSlurmCanStart,
    "needs root and Slurm (or apt-get to install it): scripts/slurm-local.sh starts a private one"))
struct SlurmBatchTests {

  /// Runs a program with `SLURM_CONF` (when given) added to the environment, from the repository root.
  static func run(_ program: String, _ arguments: [String], slurmConf: String? = nil) throws -> CommandRun {
    try Headscan.run(program: URL(fileURLWithPath: program), arguments, environment: slurmConf.map { ["SLURM_CONF": $0] } ?? [:])
  }

  static func headscan(_ arguments: [String], slurmConf: String? = nil) throws -> CommandRun {
    try run(Headscan.executable.path, arguments, slurmConf: slurmConf)
  }

  static func slurmLocal(_ action: String, _ folder: URL) throws -> CommandRun {
    try run("/bin/bash", [TestFiles.repositoryRoot.path + "/scripts/slurm-local.sh", action, folder.path])
  }

  /// Submits with `batch --slurm`, checks what it says, waits for every array task to end
  /// (`scontrol show job`, at most `limit` seconds) and returns the job id.
  static func submitAndWait(
    _ scans: String, out: String, slurmConf: String, expecting counts: String, limit: Double = 300
  ) throws -> String? {
    let submit = try headscan(
      ["batch", scans, "--out", out, "--slurm", "--cpus", "1", "--mem", "1G", "--time", "00:05:00", "--max-parallel", "2"],
      slurmConf: slurmConf)
    #expect(submit.status == 0, "\(submit.stderr)")
    #expect(submit.stdout.contains(counts), "\(submit.stdout)")
    #expect(submit.stdout.contains("squeue -j"), "\(submit.stdout)")
    guard let line = submit.stdout.split(separator: "\n").first(where: { $0.hasPrefix("submitted job ") }),
      let id = line.dropFirst("submitted job ".count).split(separator: ":").first
    else {
      Issue.record("no job id in: \(submit.stdout)")
      return nil
    }
    let started = Date()
    let finalStates: Set<String> = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED"]
    while Date().timeIntervalSince(started) < limit {
      let show = try run("/usr/bin/scontrol", ["show", "job", String(id)], slurmConf: slurmConf)
      let states = show.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("JobState=") }
        .map { String($0.dropFirst("JobState=".count)) }
      if show.status == 0, !states.isEmpty, states.allSatisfy(finalStates.contains) { return String(id) }
      Thread.sleep(forTimeInterval: 1)
    }
    Issue.record("job \(id) did not end within \(limit) s")
    return nil
  }

  static func modified(_ url: URL) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
  }

  @Test func jobArrayWritesTheLocalReportsAndResubmitsOnlyFailures() throws {
    try TestFiles.withTemporaryFolder { folder in
      let clusterFolder = folder.appendingPathComponent("slurm")
      let start = try Self.slurmLocal("start", clusterFolder)
      defer {
        let stop = try? Self.slurmLocal("stop", clusterFolder)
        #expect(stop?.status == 0, "stopping the local Slurm: \(stop?.stderr ?? "could not run the script")")
      }
      try #require(start.status == 0, "scripts/slurm-local.sh start: \(start.stderr)")
      let slurmConf = clusterFolder.path + "/slurm.conf"
      #expect(start.stdout == "export SLURM_CONF=\(slurmConf)\n")

      // Four small scans that measure (20 frames at 320x240 keep a debug build quick): two simulated,
      // and a copy of each under another name.
      let scans = folder.appendingPathComponent("scans"), names = ["s1", "s2", "s3", "s4"]
      try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
      let simulated = Mutex([Int32](repeating: -1, count: 2))
      DispatchQueue.concurrentPerform(iterations: 2) { i in
        let run = try? Self.headscan([
          "simulate", scans.path + "/\(names[i]).rgbdscan", "--size", "320x240", "--frames", "20",
          "--seed", "\(5 + 2 * i)", "--cvai", "\(4 * i)", "--quiet",
        ])
        simulated.withLock { $0[i] = run?.status ?? -1 }
      }
      try #require(simulated.withLock { $0 } == [0, 0])
      for (copy, original) in [("s3", "s1"), ("s4", "s2")] {
        for suffix in [".rgbdscan", ".landmarks.json"] {
          try FileManager.default.copyItem(at: scans.appendingPathComponent(original + suffix), to: scans.appendingPathComponent(copy + suffix))
        }
      }

      // The reference: a local batch.
      let local = folder.appendingPathComponent("local"), cluster = folder.appendingPathComponent("cluster")
      let localRun = try Self.headscan(["batch", scans.path, "--out", local.path, "--jobs", "2", "--quiet"])
      try #require(localRun.status == 0, "\(localRun.stderr)")

      // The same scans as a job array: every report and the summary byte for byte (reports carry no timings).
      try #require(
        try Self.submitAndWait(scans.path, out: cluster.path, slurmConf: slurmConf, expecting: "4 array tasks for 4 scans") != nil)
      let collect = try Self.headscan(["batch", "--collect", cluster.path])
      #expect(collect.status == 0, "\(collect.stderr)")
      #expect(collect.stdout.contains("4 of 4 scans measured"), "\(collect.stdout)")
      for name in names {
        let report = try Data(contentsOf: cluster.appendingPathComponent(name + ".json"))
        #expect(report == (try Data(contentsOf: local.appendingPathComponent(name + ".json"))), "\(name).json differs")
      }
      let summary = try String(contentsOf: cluster.appendingPathComponent("summary.csv"), encoding: .utf8)
      #expect(summary == (try String(contentsOf: local.appendingPathComponent("summary.csv"), encoding: .utf8)))
      #expect(summary.split(separator: "\n").dropFirst().map { $0.prefix(12) } == names.map { "\($0),measured," })
      let collected = names.map { Self.modified(cluster.appendingPathComponent($0 + ".json")) }

      // s3 cut off inside its header: only s3 is submitted again, and --collect names it with its error line.
      let s3 = scans.appendingPathComponent("s3.rgbdscan")
      let original = try Data(contentsOf: s3)
      try original.prefix(40).write(to: s3)
      try #require(
        try Self.submitAndWait(scans.path, out: cluster.path, slurmConf: slurmConf, expecting: "1 array task for 1 scan (3 already measured)")
          != nil)
      let failed = try Self.headscan(["batch", "--collect", cluster.path])
      #expect(failed.status == 1)
      #expect(failed.stdout.contains("3 of 4 scans measured"), "\(failed.stdout)")
      // The error line a local batch gives for the same scan.
      let localFailure = try Self.headscan(["batch", scans.path, "--out", local.path, "--quiet"])
      #expect(localFailure.status == 1)
      let localRow = try String(contentsOf: local.appendingPathComponent("summary.csv"), encoding: .utf8)
        .split(separator: "\n").first { $0.hasPrefix("s3,") }
      let clusterRow = try String(contentsOf: cluster.appendingPathComponent("summary.csv"), encoding: .utf8)
        .split(separator: "\n").first { $0.hasPrefix("s3,") }
      #expect(localRow != nil && clusterRow == localRow, "\(String(describing: clusterRow)) vs \(String(describing: localRow))")
      #expect(clusterRow?.hasPrefix("s3,failed,") == true)
      let errorLine = "s3: FAILED: \(s3.path): "
      #expect(failed.stderr.contains(errorLine) && failed.stderr.contains("submission-2-task-1.log"), "\(failed.stderr)")
      #expect(failed.stderr.split(separator: "\n").last?.hasPrefix("headscan: error: \(cluster.path): 1 of 4 scans not measured: s3: ") == true)

      // Repaired, s3 alone runs again; the other reports stay as they were.
      try original.write(to: s3)
      try #require(
        try Self.submitAndWait(scans.path, out: cluster.path, slurmConf: slurmConf, expecting: "1 array task for 1 scan (3 already measured)")
          != nil)
      let repaired = try Self.headscan(["batch", "--collect", cluster.path])
      #expect(repaired.status == 0, "\(repaired.stderr)")
      #expect(repaired.stdout.contains("4 of 4 scans measured"), "\(repaired.stdout)")
      #expect(try Data(contentsOf: cluster.appendingPathComponent("s3.json")) == (try Data(contentsOf: local.appendingPathComponent("s3.json"))))
      for (i, name) in names.enumerated() where name != "s3" {
        #expect(Self.modified(cluster.appendingPathComponent(name + ".json")) == collected[i], "\(name).json was measured again")
      }
    }
  }
}
