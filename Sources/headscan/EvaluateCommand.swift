import ArgumentParser
import Foundation
import Registration
import ScanEvaluation
import ScanIO

/// `headscan evaluate SCAN…`: registration accuracy against the simulator's truth.
struct EvaluateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract: "Reconstruct simulated scans and compare with the truth written beside them.",
    discussion: """
      Each SCAN needs NAME.truth.json beside it (headscan simulate writes one). Prints one line a
      scan: marker and camera pose errors, the cloud's RMS distance to the true surface, frames kept.

      Examples:
        headscan evaluate fixtures/scans/orbit-small
        headscan evaluate out/*.rgbdscan
      """)

  @Argument(help: "Simulated scans (.rgbdscan files or TUM folders).")
  var scans: [String]

  @Flag(help: "Registration only (skip fusion and the cloud comparison).")
  var noFusion = false

  @OptionGroup var global: GlobalOptions

  func run() throws {
    try reportingErrors {
      var options = ReconstructionOptions.default
      options.fuse = !noFusion
      for path in scans {
        let truth = try RegistrationAccuracy.truth(beside: path)
        let result = try naming(path) { try reconstructHead(try openScan(at: path), options: options) }
        let accuracy = RegistrationAccuracy(result: result, truth: truth)
        print(String(format: "%@: %@; corner RMS %.2f mm", path, accuracy.description, result.cornerRMS * 1000))
      }
    }
  }
}
