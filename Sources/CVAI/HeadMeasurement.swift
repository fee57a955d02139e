import Foundation
import _HeadScanSupport

/// The clinical measures of a head from its surface points.
public struct HeadMeasurement: Sendable {
  /// The measures on the contour at the measurement level.
  public var measures: HeadShapeMeasures
  /// The parabola-fitted measurement level.
  public var level: MeasurementLevel
  /// The contour at h* and how much of it was measured.
  public var contourAtLevel: LayerEstimate
  /// Every closed layer from 0 up, 1 mm apart by default.
  public var layers: [LayerEstimate]
  /// The distance between the layers cut (closed or not), millimetres.
  public var layerSpacing = 1.0
}

/// Why a head could not be measured.
public enum MeasurementError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No layer above the ears' plane closes (too little of the head was scanned).
  case noClosedLayer
  /// The contour at the measurement level is not closed; fraction measured and widest gap.
  case openContourAtLevel(height: Double, measured: Double, gap: Double)
  /// The contour's centroid lies outside it.
  case degenerateContour(height: Double)
  /// A layer spacing outside ``SlicingOptions/spacingRange`` (millimetres).
  case invalidSpacing(Double)

  public var description: String {
    switch self {
    case .noClosedLayer: return "no closed contour above the ears' plane (is the whole head in the scan?)"
    case .openContourAtLevel(let h, let measured, let gap):
      return String(format: "the contour at the measurement level (%.1f mm) is open: %.0f %% measured, a %.0f° gap", h, measured * 100, gap)
    case .degenerateContour(let h): return String(format: "the contour at %.1f mm is degenerate", h)
    case .invalidSpacing(let spacing):
      return "the layer spacing must be within \(SlicingOptions.spacingRange.lowerBound)…\(SlicingOptions.spacingRange.upperBound) mm, got \(spacing)"
    }
  }
}

/// Slices head-frame points (metres) into layers and measures the head (docs/head-frame-and-measures.md).
///
/// Layers every `options.spacing` mm from 0 up to the highest closed one; the
/// measurement level h* is the parabola vertex over the longest layer ± 10 mm;
/// the measures come from the contour estimated at h*.
/// - Parameter workers: threads estimating layers (`nil`: one a core this process may use); the
///   result is the same for any number.
/// - Throws: ``MeasurementError``.
public func measureHead(points: [SIMD3<Double>], options: SlicingOptions = .default, workers: Int? = nil) throws(MeasurementError) -> HeadMeasurement {
  guard SlicingOptions.spacingRange.contains(options.spacing) else { throw .invalidSpacing(options.spacing) }
  let millimetres = points.map { $0 * 1000 }
  guard let top = millimetres.map(\.z).max(), top > 0 else { throw .noClosedLayer }
  func closed(_ e: LayerEstimate) -> Bool {
    e.measuredFraction >= options.minimumMeasuredFraction && e.largestGap <= options.maximumGap
  }
  let heights = Array(sequence(first: 0.0) { $0 + options.spacing }.prefix { $0 <= top })
  // Layers are independent: estimated on every core, kept in height order.
  let layers = mapConcurrently(heights.count, workers: threadsRunning(workers: workerCount(workers))) { k in
    estimateLayer(points: millimetres, height: heights[k], options: options)
  }.compactMap { $0 }.filter(closed)
  guard !layers.isEmpty else { throw .noClosedLayer }
  let level = MeasurementLevel(heights: layers.map(\.contour.height), perimeters: layers.map(\.contour.perimeter))
  guard let atLevel = estimateLayer(points: millimetres, height: level.height, options: options) else { throw .noClosedLayer }
  guard closed(atLevel) else {
    throw .openContourAtLevel(height: level.height, measured: atLevel.measuredFraction, gap: atLevel.largestGap)
  }
  guard let measures = HeadShapeMeasures(contour: atLevel.contour) else { throw .degenerateContour(height: level.height) }
  return HeadMeasurement(measures: measures, level: level, contourAtLevel: atLevel, layers: layers, layerSpacing: options.spacing)
}

extension HeadMeasurement {
  /// The measured head: the indices into ``layers`` of the unbroken run of layers around the
  /// measurement level (no height step over 1.5 layer spacings) whose contours are at least
  /// `minimumMeasuredFraction` measured and, above the fitted band (the longest layer + 10 mm),
  /// each shorter than the one below it: the vault narrows towards its vertex, so a longer layer
  /// there is the band slicing the flat crown or stray points, not a contour. Layers outside it
  /// lie above or below where the scan measured the whole contour (the vertex, the neck, bridged
  /// holes). Nil when the layer nearest h* is itself less measured.
  /// - Parameter minimumMeasuredFraction: 0…1, e.g. 0.9.
  public func measuredLayerRange(minimumMeasuredFraction: Double) -> ClosedRange<Int>? {
    guard !layers.isEmpty else { return nil }
    let heights = layers.map(\.contour.height)
    let steps = zip(heights.dropFirst(), heights).map { $0 - $1 }.filter { $0 > 0 }.sorted()
    let spacing = steps.isEmpty ? 1 : steps[steps.count / 2]
    guard let centre = heights.indices.min(by: { abs(heights[$0] - level.height) < abs(heights[$1] - level.height) }),
      layers[centre].measuredFraction >= minimumMeasuredFraction
    else { return nil }
    var low = centre, high = centre
    while low > 0, layers[low - 1].measuredFraction >= minimumMeasuredFraction, heights[low] - heights[low - 1] <= 1.5 * spacing { low -= 1 }
    // Above the fitted band the vault narrows towards its vertex: a layer there longer than the
    // one below it is not a contour of the vault (the band slicing the flat crown, stray points).
    let bandTop = level.longestLayerHeight + 10
    while high < layers.count - 1, layers[high + 1].measuredFraction >= minimumMeasuredFraction, heights[high + 1] - heights[high] <= 1.5 * spacing,
      heights[high + 1] <= bandTop || layers[high + 1].contour.perimeter < layers[high].contour.perimeter
    {
      high += 1
    }
    return low...high
  }
}
