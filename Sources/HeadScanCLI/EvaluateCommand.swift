import ArgumentParser
import CVAI
import Foundation
import Reconstruction
import Registration
import ScanEvaluation
import ScanIO

/// `headscan evaluate SCAN…`: registration accuracy against the simulator's truth.
struct EvaluateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract: "Reconstruct simulated scans and compare with the truth written beside them.",
    discussion: """
      Each SCAN needs NAME.truth.json beside it (headscan simulate writes one). Prints one line a scan: marker and camera pose errors, the cloud's RMS distance to the true surface, frames kept.

      With --measure, also measures each scan with its landmarks (NAME.landmarks.json) and with the automatic head frame, and prints a table of the errors against the exact measures (mm, CVAI points).

      Examples:
        headscan evaluate fixtures/scans/orbit-small
        headscan evaluate out/*.rgbdscan --measure --json accuracy.json
        scripts/accuracy-report.sh   # simulates normal, mild, moderate, severe and brachycephalic heads
      """)

  @Argument(help: "Simulated scans (.rgbdscan files or TUM folders).")
  var scans: [String]

  @Flag(help: "Registration only (skip fusion and the cloud comparison).")
  var noFusion = false

  @Flag(help: "Also measure each scan (landmarks and automatic head frame) and print the table of errors.")
  var measure = false


  @Option(help: "With --measure: how layers become contours: fourier-fit (a smooth curve fitted to the points, the default) or binned-medians (1° bins of median radii; see measure --help).")
  var contour: ContourMethod = .fourierFit

  @Option(help: "Also write the comparisons as JSON (one entry per scan).")
  var json: String?

  @OptionGroup(title: "Depth lifting") var depthLifting: FocalLengthOption
  @OptionGroup(title: "Marker detection") var detection: DetectionOption

  @OptionGroup(title: "Fusion") var fusionChoice: FusionChoice

  struct Entry: Encodable {
    var scan: String
    var registration: RegistrationAccuracy
    var cornerRMS: Double
    var measurement: MeasurementAccuracy?
    /// The stated focal length against the markers' and the simulator's true one, pixels.
    var intrinsicsCheck: IntrinsicsCheck?
    var trueFocalLength: Double?
  }

  func validate() throws {
    if measure && noFusion { throw ValidationError("--measure needs the fused cloud: drop --no-fusion") }
  }

  @OptionGroup(title: "Scan input") var input: ScanInputOptions

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func run() throws {
    try reportingErrors {
      if let json {
        try checkOutput(
          json,
          isNot: scans.flatMap { [$0, companionBase(of: $0) + ".truth.json", companionBase(of: $0) + ".landmarks.json"] + input.inputFiles(forScan: $0) })
      }
      var options = ReconstructionOptions.default
      options.fuse = !noFusion
      options.fusion.method = fusionChoice.fusion
      options.fusion.maximumFrames = try fusionChoice.maximumFrames()
      options.focalLength = depthLifting.focalLength
      options.scale = depthLifting.scale
      detection.apply(to: &options.observation)
      options.workers = workers.jobs
      let openOptions = try input.openOptions()
      var entries: [Entry] = []
      for path in scans {
        // The scan first: a missing scan is named as such, not by the truth file it would have.
        input.warnIfCapUnused(forScan: path, global)
        let reader = try openScan(at: path, options: openOptions)
        let truth = try RegistrationAccuracy.truth(beside: path)
        let result = try naming(path) { try reconstructHead(reader, options: options) }
        let accuracy = RegistrationAccuracy(result: result, truth: truth)
        print(String(format: "%@: %@; corner RMS %.2f mm", path, accuracy.description, result.cornerRMS * 1000))
        let trueFocalLength = truth.conditions?.renderedIntrinsics.fx
        if let check = result.intrinsicsCheck {
          print(
            String(
              format: "%@: focal length stated %.2f px, estimate %.2f ± %.2f px (%@), truth %@", path, check.statedFocalLength,
              check.focalLengthEstimate, check.focalLengthUncertainty, check.consistent ? "consistent" : "not consistent",
              trueFocalLength.map { String(format: "%.2f px (estimate %+.2f %%)", $0, 100 * (check.focalLengthEstimate / $0 - 1)) } ?? "unknown"))
        }
        var measured: MeasurementAccuracy?
        if measure {
          let landmarks = companionBase(of: path) + ".landmarks.json"
          // Pixel landmarks are lifted with the focal length and depth scale the reconstruction used.
          let lifting = try result.liftingScan(reader)
          measured = try naming(path) { try MeasurementAccuracy(scan: lifting, landmarksPath: landmarks, reconstruction: result, truth: truth, contour: contour) }
        }
        entries.append(
          Entry(
            scan: path, registration: accuracy, cornerRMS: result.cornerRMS * 1000, measurement: measured,
            intrinsicsCheck: result.intrinsicsCheck, trueFocalLength: trueFocalLength))
      }
      if let json { try writeJSON(entries, to: json) }
      if measure {
        let table = entries.compactMap { entry in entry.measurement.map { (entry.scan, $0) } }
        let width = max(4, table.map(\.0.count).max() ?? 0)
        print("\n" + "scan".padding(toLength: width, withPad: " ", startingAt: 0) + "  " + MeasurementAccuracy.header)
        for (path, row) in table { print(path.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.row) }
        let met = table.filter { $0.1.meetsTargets }.count, automatic = table.filter { $0.1.automaticMeetsTarget }.count
        print("\(met) of \(table.count) scans meet the targets with the landmarks' frame (|ΔCVAI| ≤ 0.3, diagonals/length/width ≤ 1 mm, HC ≤ 2 mm, severity equal)")
        print("\(automatic) of \(table.count) with the automatic frame (CVAI within 0.5 points of the landmarks' frame's)")
      }
    }
  }
}
