import ArgumentParser
import Foundation
import HeadScan
import Figures
import HeadMesh
import _HeadScanSupport

extension CVAIDenominator: ExpressibleByArgument {}

/// Where `measure` takes the head frame from.
enum HeadFrameSource: String, ExpressibleByArgument, CaseIterable {
  /// The four landmarks (docs/formats.md, "Landmarks"; docs/head-frame-and-measures.md).
  case landmarks
  /// The head's mirror symmetry and open side (no landmarks needed).
  case auto
}

/// `headscan measure SCAN --landmarks L.json --json REPORT.json` (docs/command-line.md, "Reports: measure --json").
struct MeasureCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "measure",
    abstract: "Reconstruct a scan and compute CVAI, CVA, diagonals, CI, circumference and severity.",
    discussion: """
      The head frame comes from the four landmarks (docs/head-frame-and-measures.md); layers 1 mm apart from the ears' plane up (--layer-spacing); the measurement level is the parabola vertex over the longest layer ± 10 mm. Numbers in mm and percent.

      The summary ends with the verdict: "usable", or "NOT usable" with the reasons (coverage of the contour at the measurement level, registration, landmark support, interval widths, focal length); the JSON report carries it as "verdict" and the page opens with it (docs/method.md, Verdict).

      Examples:
        headscan measure fixtures/scans/orbit-small --landmarks fixtures/scans/orbit-small.landmarks.json --json report.json
        headscan measure scan.rgbdscan --landmarks scan.landmarks.json --json report.json --cvai-denominator shorter
        headscan measure scan.rgbdscan --json report.json --plots figures
        headscan measure scan.rgbdscan --landmarks auto --json report.json
        headscan measure scan.rgbdscan --frame auto --json report.json
        headscan measure scan.rgbdscan --json report.json --html report.html
      """)

  @Argument(help: "A scan: a .rgbdscan file, a TUM-style folder or a Record3D .r3d export.")
  var scan: String

  @Option(help: "The landmarks file (docs/formats.md); default SCAN's name with .landmarks.json; `auto` finds them on the reconstruction (refused, naming the landmark, when one is found with too little confidence; a file named auto: ./auto). Not with --frame auto.")
  var landmarks: String?

  @Option(help: "Head frame from: landmarks (the default) or auto (experimental: the head's mirror symmetry and the cap's axis, no landmarks; a few degrees off the landmarks' frame, which moves CVAI by points on asymmetric heads).")
  var frame: HeadFrameSource = .landmarks

  @Option(help: "Where to write the report (JSON, atomically).")
  var json: String?

  @Option(help: "How layers become contours: fourier-fit (a smooth curve fitted to the points, its order chosen by cross-validation: noise adds no length; the default) or binned-medians (1° bins of median radii, smoothed: the polygon through them follows the noise).")
  var contour: ContourMethod = .fourierFit

  @Option(help: "CVAI denominator: longer (A, the default) or shorter (B).")
  var cvaiDenominator: CVAIDenominator = .longer

  @Option(help: "Distance between the layers the head is cut into, \(optionRange(OptionBounds.layerSpacing, unit: "mm")) (default 1; the intervals are calibrated at 1).")
  var layerSpacing: Double?

  @Option(help: "Write the clinical report page here: one self-contained HTML file (measures with 95 % intervals, severity scale, contour, views of the head, registration quality) that prints on A4.")
  var html: String?

  @Option(help: "Also write the fused cloud (binary PLY).")
  var cloud: String?

  @Option(help: "Write SVG figures here: contour.svg (the ML contour with its chords), layers.svg, perimeter.svg.")
  var plots: String?

  @OptionGroup(title: "Depth lifting") var depthLifting: FocalLengthOption
  @OptionGroup(title: "Marker detection") var detection: DetectionOption
  @OptionGroup(title: "Scan input") var input: ScanInputOptions
  @OptionGroup(title: "De-identification") var deidentification: DeidentifyOptions

  @OptionGroup(title: "Workers") var workers: WorkerOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    try checkOption(layerSpacing, "--layer-spacing", OptionBounds.layerSpacing, unit: "mm")
    if frame == .auto, landmarks != nil {
      throw ValidationError("--frame auto finds the head frame without landmarks: drop --landmarks, or drop --frame auto to use them")
    }
  }

  func run() throws {
    try reportingErrors {
      let source: LandmarkSource =
        frame == .auto ? .automaticFrame : landmarks == "auto" ? .automaticLandmarks : landmarks.map { .file($0) } ?? .besideScan
      let inputs = [scan] + [source.path(forScan: scan)].compactMap { $0 } + input.inputFiles(forScan: scan) + deidentification.inputFiles
      try checkOutputs([("--json", json), ("--cloud", cloud), ("--html", html)], folders: [("--plots", plots, Self.plotFiles)], isNot: inputs)
      let deidentified = try deidentification.header()
      var options = MeasureOptions.default
      options.denominator = cvaiDenominator
      options.contour = contour
      options.layerSpacing = layerSpacing
      options.reconstruction.focalLength = depthLifting.focalLength
      options.reconstruction.scale = depthLifting.scale
      detection.apply(to: &options.reconstruction.observation)
      input.warnIfCapUnused(forScan: scan, global)
      options.scan = try input.openOptions()
      options.workers = workers.jobs
      let reconstructionBars = stageProgress(global)
      var measured = try measureScan(at: scan, landmarks: source, options: options) { event in
        switch event {
        case .warning(let line): printWarning(line, options: global)
        case .reconstructing(let stage, let done, let total): reconstructionBars(stage, done, total)
        case .measuring, .bootstrapping: break
        }
      }
      if let deidentified { measured = try measured.deidentified(by: deidentified, scan: scan) }
      if let json { try AtomicFile.write(try measured.report.jsonData(), to: json) }
      if let cloud {
        try AtomicFile.write(PLYFormat.encode(measured.reconstruction.cloud, comment: "headscan measure \(scan)"), to: cloud)
      }
      if let plots { try writePlots(measured.measurement, to: plots) }
      if let html { try writeReportPage(measured, to: html) }
      print(Self.summary(measured))
    }
  }

  /// The files `--plots` writes into its folder.
  static let plotFiles = ["contour.svg", "layers.svg", "perimeter.svg"]

  /// The contour, layer and perimeter figures.

  func writePlots(_ measurement: HeadMeasurement, to folder: String) throws {
    try AtomicFile.makeOutputFolder(folder)
    let figures = zip(
      Self.plotFiles,
      [
        HeadPlots.contourAtLevel(measurement, denominator: cvaiDenominator), HeadPlots.stackedLayers(measurement),
        HeadPlots.perimeterByHeight(measurement),
      ])
    for (name, svg) in figures { try AtomicFile.write(Data(svg.utf8), to: folder + "/" + name) }
  }

  /// The clinical report page: the report with its measurement, the head as a mesh of the
  /// fused cloud in the head frame (the cloud's points where no mesh can be made) and the
  /// quality notes its JSON carries.
  func writeReportPage(_ measured: ScanMeasurement, to path: String) throws {
    let surface: HeadSurface
    if let extraction = try? extractMesh(from: measured.reconstruction.cloud) {
      let mesh = extraction.mesh.transformed(by: measured.headFrame.headFromWorld, scale: 1000)
      surface = HeadSurface(
        points: mesh.positions.map { SIMD3<Double>($0) }, triangles: mesh.triangles, filled: mesh.filled)
    } else {
      surface = HeadSurface(headPointsInMetres: measured.headFrame.headPoints(of: measured.reconstruction.cloud))
    }
    let notes = QualityNote.notes(fromReportJSON: try measured.report.jsonData())
    let page = ScanReportPage(report: measured.report, measurement: measured.measurement, surface: surface, notes: notes)
    try AtomicFile.write(Data(page.html.utf8), to: path)
  }

  /// The printed result: measures with their intervals, registration, time and the verdict.
  static func summary(_ measured: ScanMeasurement) -> String {
    let report = measured.report, result = measured.reconstruction, m = measured.measurement.measures
    let intervals = measured.intervals, time = measured.timings
    func range(_ i: Interval95?) -> String { i.map { String(format: " [%.1f, %.1f]", $0.low, $0.high) } ?? "" }
    let origin = measured.headFrame.source == .automatic ? "lowest scanned layer (automatic head frame)" : "ears' plane"
    return String(
      format: """
        CVAI        %.1f %%%@ (%@ denominator)   severity %d (CHOA)   flattening: %@
        CVA         %.1f mm%@   diagonals A %.1f mm%@, B %.1f mm%@
        CI          %.1f%@ (%@)   length %.1f mm, width %.1f mm
        HC          %.1f mm%@ at %.1f mm above the %@ (%.0f %% of the contour measured)
        registered  %d of %d frames, %d markers, corner RMS %.2f mm
        time        %.1f s: reconstruction %.1f, head frame and measures %.1f, intervals %.1f
        """,
      report.cvai, range(intervals?.cvai), (report.cvaiDenominator ?? .longer).rawValue, report.severity, m.flattenedSide.rawValue,
      report.cva, range(intervals?.cva), report.diagonalA, range(intervals?.diagonalA), report.diagonalB,
      range(intervals?.diagonalB), report.ci, range(intervals?.ci), m.cranialIndexClass.rawValue, report.length,
      report.width, report.circumference, range(intervals?.circumference), report.measurementLevel, origin,
      measured.measurement.contourAtLevel.measuredFraction * 100, result.framesRegistered, result.frames.count,
      result.markers.count, result.cornerRMS * 1000,
      time.total, time.reconstruction.total, time.measuring, time.bootstrapping)
      + "\n" + focalLengthLines(result.intrinsicsCheck, used: result.focalLengthUsed, scale: result.scale).joined(separator: "\n")
      + (report.contourIncomplete == true
        ? String(
          format: "\nwarning     incomplete scan: only %.1f %% of the contour at the measurement level is measured (under %.1f %%); the rest is bridged",
          measured.measurement.contourAtLevel.measuredFraction * 100, MeasureReport.completeContourPercent) : "")
      + (report.verdict.map { "\n" + verdictLine($0) } ?? "")
  }

  /// `verdict     usable` or `verdict     NOT usable: REASON; REASON`.
  static func verdictLine(_ verdict: Verdict) -> String { "verdict     " + verdict.summary }
}

extension ContourMethod: ExpressibleByArgument {}
