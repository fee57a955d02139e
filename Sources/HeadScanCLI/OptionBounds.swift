import ArgumentParser
import Foundation
import ScanSimulator

/// The bounds of the numeric options that are not the simulator's (those are
/// ``SimulationOptions/Bounds`` and its kin, in the library's units). docs/command-line.md,
/// "Option bounds", lists them all.
enum OptionBounds {
  /// Frames: `inspect --stride`, `--fuse-frames` (as many as a simulated scan may have).
  static let frames = SimulationOptions.Bounds.frames
  /// A frame index: `inspect --frame`.
  static let frameIndex = SimulationOptions.Bounds.frameIndex
  /// `reconstruct --voxel` and `--mesh-spacing`, mm.
  static let voxel = 0.2...10.0
  static let meshSpacing = 0.2...10.0
  /// `measure --layer-spacing`, mm: from a tenth of the default to five layers across the
  /// measurement level's ±10 mm band.
  static let layerSpacing = 0.1...5.0
  /// `reconstruct --mesh-triangles`.
  static let meshTriangles = 100...10_000_000
  /// `--focal-length` in pixels of the colour image (TrueDepth 593 px at 640 px wide, a phone's
  /// main camera about 1450 px at 1920 px).
  static let focalLength = 100.0...10_000.0
  /// Record3D depth confidence kept (`--min-confidence`).
  static let minConfidence = 0...2
  /// `batch --jobs`, and a Slurm task's `--cpus`.
  static let jobs = 1...1024
  static let cpus = 1...1024
  /// `batch --max-parallel` and `--scans-per-task`.
  static let maxParallel = 1...100_000
  static let scansPerTask = 1...100_000
  /// `annotate --port` (0 picks a free one; below 1024 needs root).
  static let port = 1024...65535
  /// `simulate-calliper --bias` and `--noise`, mm.
  static let calliperBias = -50.0...50.0
  static let calliperNoise = 0.0...50.0
  /// `simulate --grazing`, degrees of incidence (the cosines of ``SensorModel/Bounds/cosine``).
  static let grazing = 0.0...90.0
}

/// A number as the bounds and messages print it: `0.2`, `10`, `1e+308`, `nan`, `inf`.
func optionNumber(_ value: Double) -> String { String(format: "%g", value) }

/// `LOW…HIGH` of a range given in the library's units, in the option's (`scale` of them a library unit).
func optionRange(_ range: ClosedRange<Double>, scale: Double = 1, unit: String = "") -> String {
  optionNumber(range.lowerBound * scale) + "…" + optionNumber(range.upperBound * scale) + (unit.isEmpty ? "" : " " + unit)
}

func optionRange(_ range: ClosedRange<Int>, unit: String = "") -> String {
  "\(range.lowerBound)…\(range.upperBound)" + (unit.isEmpty ? "" : " " + unit)
}

/// Checks a number given in the option's units against bounds in the library's: finite, and
/// within `range` once divided by `scale` (the same division the command makes).
/// - Throws: `ValidationError` (exit 64), one line naming the option and its range.
func checkOption(_ value: Double?, _ option: String, _ range: ClosedRange<Double>, scale: Double = 1, unit: String = "") throws {
  guard let value else { return }
  guard value.isFinite, range.contains(value / scale) else {
    throw ValidationError("\(option) must be within \(optionRange(range, scale: scale, unit: unit)), got \(optionNumber(value))")
  }
}

func checkOption(_ value: Int?, _ option: String, _ range: ClosedRange<Int>, unit: String = "") throws {
  guard let value else { return }
  guard range.contains(value) else { throw ValidationError("\(option) must be within \(optionRange(range, unit: unit)), got \(value)") }
}

/// `MIN:MAX` (or one number when `single`): finite numbers, MIN ≤ MAX.
func parseNumberRange(_ spec: String, single: Bool = false) -> ClosedRange<Double>? {
  let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
  if single, parts.count == 1, let value = parts[0], value.isFinite { return value...value }
  guard parts.count == 2, let low = parts[0], let high = parts[1], low.isFinite, high.isFinite, low <= high else { return nil }
  return low...high
}

/// Checks a `MIN:MAX` option (or one number when `single`) whose ends must lie within `range`
/// once divided by `scale`.
/// - Throws: `ValidationError` (exit 64), one line naming the option, its form and its range.
func checkRangeOption(_ spec: String?, _ option: String, _ range: ClosedRange<Double>, scale: Double = 1, unit: String = "", single: Bool = false) throws {
  guard let spec else { return }
  guard let given = parseNumberRange(spec, single: single), range.contains(given.lowerBound / scale), range.contains(given.upperBound / scale)
  else {
    let form = single ? "a number or MIN:MAX" : "MIN:MAX with MIN ≤ MAX"
    throw ValidationError("\(option) takes \(form) within \(optionRange(range, scale: scale, unit: unit)), got '\(spec)'")
  }
}
