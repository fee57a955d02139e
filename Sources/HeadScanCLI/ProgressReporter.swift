import Foundation
import Reconstruction

#if canImport(Glibc)
import Glibc
#endif

/// Progress on long work: a bar with rate and ETA on a terminal, a plain line every 10 % otherwise.
final class ProgressReporter {
  private let label: String
  private let total: Int
  private let enabled: Bool
  private let terminal: Bool
  private let started = Date()
  private var lastDraw = Date.distantPast
  private var lastDecile = -1

  init(_ label: String, total: Int, options: GlobalOptions) {
    self.label = label
    self.total = max(total, 1)
    self.enabled = !options.quiet
    self.terminal = isatty(STDERR_FILENO) == 1
  }

  func update(_ done: Int) {
    guard enabled else { return }
    let elapsed = Date().timeIntervalSince(started)
    let rate = elapsed > 0 ? Double(done) / elapsed : 0
    if terminal {
      guard done == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
      lastDraw = Date()
      let width = 28
      let filled = width * done / total
      let eta = rate > 0 && elapsed >= 0.5 ? Double(total - done) / rate : 0
      let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
      let line = String(format: "\r%@ %@ %d/%d  %.1f frames/s  ETA %@ ", label, bar, done, total, rate, Self.duration(eta))
      FileHandle.standardError.write(Data(line.utf8))
      if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
    } else {
      let decile = done * 10 / total
      guard decile != lastDecile else { return }
      lastDecile = decile
      let speed = elapsed >= 0.5 ? String(format: ", %.1f frames/s", rate) : ""
      let line = String(format: "%@: %d/%d frames (%d%%)%@\n", label, done, total, decile * 10, speed)
      FileHandle.standardError.write(Data(line.utf8))
    }
  }

  static func duration(_ seconds: Double) -> String {
    seconds >= 60 ? String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60) : String(format: "%.0fs", seconds)
  }
}

/// A progress callback for `reconstructHead`: one bar a stage (the optimisation is quick and silent).
func stageProgress(_ options: GlobalOptions) -> (ReconstructionStage, Int, Int) -> Void {
  var bars: [ReconstructionStage: ProgressReporter] = [:]
  return { stage, done, total in
    if stage == .optimising { return }
    let bar = bars[stage] ?? ProgressReporter(stage.rawValue, total: total, options: options)
    bars[stage] = bar
    bar.update(done)
  }
}
