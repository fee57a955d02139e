import Agreement
import ArgumentParser
import CVAI
import Figures
import Foundation
import ScanIO
import _HeadScanSupport

/// `headscan validate CALLIPER.csv --reports DIR` (docs/command-line.md, "validate"; docs/validation.md).
struct ValidateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "validate",
    abstract: "Compare measure reports with calliper measurements: Bland–Altman agreement, r, ICC, severity κ.",
    discussion: """
      CALLIPER.csv has a header row and one row per scan: scan,diagonalA,diagonalB required; length,width,circumference optional (mm). `scan` matches a report's file name without .json in the reports folder. Differences are report minus calliper. CVAI, CVA and CI on the calliper side are derived from its diagonals, length and width as docs/head-frame-and-measures.md defines them.

      Examples:
        headscan validate calliper.csv --reports reports
        headscan validate calliper.csv --reports reports --json agreement.json --plots bland-altman
      """)

  @Argument(help: "The calliper table (CSV).")
  var calliper: String

  @Option(help: "The folder of measure reports (*.json).")
  var reports: String

  @Option(help: "Also write the statistics as JSON.")
  var json: String?

  @Option(help: "Write one Bland–Altman SVG per measure here.")
  var plots: String?

  @OptionGroup var global: GlobalOptions

  func run() throws {
    try reportingErrors {
      try checkOutputs([("--json", json)], folders: [("--plots", plots, HeadMeasure.allCases.map(Self.plotFile))], isNot: [calliper, reports])
      let table = try CalliperTable(path: calliper)
      let found = try CalliperValidation.reports(in: reports)
      let validation = CalliperValidation(calliper: table, reports: found)
      guard validation.matched.count >= 2 else {
        throw CommandError("\(calliper): only \(validation.matched.count) of its \(table.rows.count) scans have a report in \(reports); agreement needs at least 2")
      }
      if let json { try writeJSON(validation, to: json) }
      if let plots {
        try AtomicFile.makeOutputFolder(plots)
        for m in validation.measures {
          try AtomicFile.write(Data(BlandAltmanPlot.svg(m).utf8), to: plots + "/" + Self.plotFile(m.measure))
        }
      }
      print(Self.render(validation, quiet: global.quiet))
    }
  }

  /// The Bland–Altman plot `--plots` writes for `measure`.
  static func plotFile(_ measure: HeadMeasure) -> String { "bland-altman-\(measure.rawValue).svg" }

  /// The readable table.
  static func render(_ v: CalliperValidation, quiet: Bool) -> String {
    var lines = [
      "\(v.matched.count) scans with both a report and a calliper row (differences: report − calliper)",
      "",
      "measure          unit        n    bias   95% CI of bias     SD      95% limits of agreement (95% CIs)            MAD      r      ICC(2,1)",
    ]
    func f(_ x: Double?) -> String { x.map { String(format: "%.3f", $0) } ?? "  –  " }
    for m in v.measures {
      let s = m.statistics
      lines.append(
        m.measure.title.padding(toLength: 17, withPad: " ", startingAt: 0) + m.measure.unit.padding(toLength: 10, withPad: " ", startingAt: 0)
          + String(
            format: "%3d  %+7.2f  [%+6.2f, %+6.2f]  %6.2f   %+7.2f [%+7.2f, %+7.2f] to %+7.2f [%+7.2f, %+7.2f]  %6.2f  %@  %@",
            s.n, s.bias, s.biasCI.low, s.biasCI.high, s.sd, s.lowerLoA, s.lowerLoACI.low, s.lowerLoACI.high, s.upperLoA,
            s.upperLoACI.low, s.upperLoACI.high, s.meanAbsoluteDifference, f(s.pearsonR), f(s.icc)))
    }
    for measure in v.measuresOnOneScan {
      lines.append(
        measure.title.padding(toLength: 17, withPad: " ", startingAt: 0) + measure.unit.padding(toLength: 10, withPad: " ", startingAt: 0)
          + "  1  (one scan has it on both sides: agreement needs at least 2)")
    }
    lines.append("")
    let k = v.severity
    lines.append(String(format: "CHOA severity (rows: report, columns: calliper CVAI): agreement %.0f %%, Cohen's κ %@", k.observedAgreement * 100, f(k.kappa)))
    lines.append("        " + k.levels.map { String(format: "%5d", $0) }.joined())
    for (i, row) in k.table.enumerated() { lines.append(String(format: "  %5d ", k.levels[i]) + row.map { String(format: "%5d", $0) }.joined()) }
    if !v.calliperWithoutReport.isEmpty {
      lines.append("")
      lines.append("calliper rows without a report (\(v.calliperWithoutReport.count)): " + v.calliperWithoutReport.joined(separator: ", "))
    }
    if !v.reportsWithoutCalliper.isEmpty {
      lines.append("reports without a calliper row (\(v.reportsWithoutCalliper.count)): " + v.reportsWithoutCalliper.joined(separator: ", "))
    }
    return lines.joined(separator: "\n")
  }
}

/// `headscan simulate-calliper --reports DIR -o calliper.csv`: a calliper table with a known bias.
struct SimulateCalliperCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate-calliper",
    abstract: "Write a calliper-like CSV from measure reports: each value minus a known bias plus noise.",
    discussion: """
      For checking `validate` on data whose answer is known: validate should find the bias (report − calliper = +BIAS) inside its 95 % confidence interval.

      Examples:
        headscan simulate-calliper --reports reports -o calliper.csv --bias 1.5 --noise 1.0
        headscan validate calliper.csv --reports reports
      """)

  @Option(help: "The folder of measure reports (*.json).")
  var reports: String

  @Option(name: .shortAndLong, help: "The CSV to write.")
  var output: String

  @Option(help: "Subtracted from every report value, \(optionRange(OptionBounds.calliperBias, unit: "mm")).")
  var bias: Double = 1.5

  @Option(help: "SD of the Gaussian noise added, \(optionRange(OptionBounds.calliperNoise, unit: "mm")).")
  var noise: Double = 1.0

  @Option(help: "Seed of the noise.")
  var seed: UInt64 = 1

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    try checkOption(bias, "--bias", OptionBounds.calliperBias, unit: "mm")
    try checkOption(noise, "--noise", OptionBounds.calliperNoise, unit: "mm")
  }

  func run() throws {
    try reportingErrors {
      try checkOutput(output, isNot: [reports])
      let found = try CalliperValidation.reports(in: reports)
      guard !found.isEmpty else { throw CommandError("\(reports): no *.json reports") }
      try AtomicFile.write(Data(simulatedCalliperCSV(reports: found, bias: bias, noise: noise, seed: seed).utf8), to: output)
      print("wrote \(output): \(found.count) scans, calliper = report − \(bias) mm + N(0, \(noise) mm)")
    }
  }
}
