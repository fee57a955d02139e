import Annotation
import ArgumentParser
import Dispatch
import Foundation
import HeadScan

/// `headscan annotate SCAN [--landmarks L.json] [--port N]`: the local landmark page.
struct AnnotateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "annotate",
    abstract: "Place the four landmarks on a scan in a local web page and save SCAN's .landmarks.json.",
    discussion: """
      Reconstructs the scan once, then serves a page on 127.0.0.1 only, at an address with a random token printed here (every request must carry it). The page shows each frame with its markers, depth coverage and pose, places nasion, nose tip and both tragions by click, lifts them to 3D, shows them on the fused head and previews CVAI; the automatic landmarks (measure --landmarks auto) are shown as ghost points to accept or move. Save writes the landmarks file (docs/formats.md) atomically and keeps the previous one as .landmarks.json.bak; nothing else is written. Ctrl-C stops the server.

      Examples:
        headscan annotate scans/infant.rgbdscan
        headscan annotate scans/infant.r3d --landmarks scans/infant.landmarks.json --port 8765
      """)

  @Argument(help: "A scan: a .rgbdscan file, a TUM-style folder or a Record3D .r3d export.")
  var scan: String

  @Option(help: "The landmarks file to read (if present) and save; default SCAN's name with .landmarks.json.")
  var landmarks: String?

  @Option(help: "Port to listen on, \(optionRange(OptionBounds.port)); 0 (the default) picks a free one.")
  var port = 0

  @Option(help: "Loopback address to listen on: 127.0.0.1 (the default), another 127.x.y.z, ::1 or localhost; any other is refused.")
  var host = "127.0.0.1"

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard AnnotationServer.isLoopback(host) else {
      throw ValidationError("--host \(host): refusing to listen on a non-loopback address: the page serves the scan to anyone who can reach it (use 127.0.0.1, ::1 or localhost)")
    }
    guard port == 0 || OptionBounds.port.contains(port) else {
      throw ValidationError("--port must be 0 (a free one) or within \(optionRange(OptionBounds.port)), got \(port)")
    }
  }

  func run() throws {
    try reportingErrors {
      // The file Save writes (and its .bak), checked before the reconstruction and the page.
      let saved = landmarks ?? companionBase(of: scan) + ".landmarks.json"
      try checkOutput(saved, isNot: [scan])
      try checkOutput(saved + ".bak", isNot: [scan, saved])
      var configuration = AnnotationServer.Configuration(scanPath: scan, landmarksPath: landmarks)
      configuration.host = host
      configuration.port = port
      configuration.workers = workers.jobs
      // The automatic landmarks, shown as ghost points to accept or move (whatever their
      // confidence: the page shows it beside each).
      configuration.proposer = { context in
        let found = try detectLandmarks(cloud: context.reconstruction.cloud, markers: context.reconstruction.markers)
        return Dictionary(
          found.all.map { ($0.name, GhostLandmark(point: $0.position, confidence: $0.confidence)) }, uniquingKeysWith: { first, _ in first })
      }
      let server = try AnnotationServer(configuration: configuration)
      let options = global
      let bars = ProgressBars(options)
      try waitFor {
        try await server.run(
          onListening: { url in
            // Unbuffered, so a pipe or a log sees the address at once.
            FileHandle.standardOutput.write(Data("headscan annotate: open \(url) in a browser on this machine (Ctrl-C stops)\n".utf8))
          },
          progress: { stage, done, total in bars.update(stage, done, total) })
      }
    }
  }
}

/// The reconstruction's progress bars, fed from the reconstruction's thread.
private final class ProgressBars: @unchecked Sendable {
  private let lock = NSLock()
  private let report: (ReconstructionStage, Int, Int) -> Void

  init(_ options: GlobalOptions) { report = stageProgress(options) }

  func update(_ stage: ReconstructionStage, _ done: Int, _ total: Int) {
    lock.withLock { report(stage, done, total) }
  }
}

/// Runs async work to its end from a synchronous command (the root command stays synchronous).
private func waitFor(_ work: @escaping @Sendable () async throws -> Void) throws {
  final class Outcome: @unchecked Sendable { var error: (any Error)? }
  let outcome = Outcome()
  let done = DispatchSemaphore(value: 0)
  Task {
    do { try await work() } catch { outcome.error = error }
    done.signal()
  }
  done.wait()
  if let error = outcome.error { throw error }
}
