internal import _ArucoShim

/// How the detector refines marker corners (OpenCV's `CornerRefineMethod`).
public enum CornerRefinement: Int32, Sendable, Hashable, CaseIterable {
  /// Corners where the fitted border lines meet (OpenCV's default).
  case none = 0
  /// `cornerSubPix` on the grey image: best on sharp or slightly blurred markers.
  case subpixel = 1
  /// Fit of the border contour.
  case contour = 2
  /// AprilTag's quad fitting.
  case aprilTag = 3
}

/// Tunable detector parameters, the subset of OpenCV's `DetectorParameters` this library exposes.
///
/// ``opencvDefault`` holds OpenCV 4.6's own defaults, read from OpenCV at run time.
/// Window sizes are pixels; rates are fractions of the image's larger side or of a marker's perimeter, as in OpenCV.
public struct DetectorParameters: Sendable, Hashable {
  public var adaptiveThreshWinSizeMin: Int
  public var adaptiveThreshWinSizeMax: Int
  public var adaptiveThreshWinSizeStep: Int
  public var adaptiveThreshConstant: Double
  public var minMarkerPerimeterRate: Double
  public var maxMarkerPerimeterRate: Double
  public var polygonalApproxAccuracyRate: Double
  public var minCornerDistanceRate: Double
  public var minDistanceToBorder: Int
  public var minMarkerDistanceRate: Double
  public var cornerRefinement: CornerRefinement
  public var cornerRefinementWinSize: Int
  public var cornerRefinementMaxIterations: Int
  public var cornerRefinementMinAccuracy: Double
  public var markerBorderBits: Int
  public var perspectiveRemovePixelPerCell: Int
  public var perspectiveRemoveIgnoredMarginPerCell: Double
  public var maxErroneousBitsInBorderRate: Double
  public var minOtsuStdDev: Double
  public var errorCorrectionRate: Double

  /// OpenCV's defaults (`DetectorParameters::create()`): no corner refinement.
  public static let opencvDefault: DetectorParameters = {
    var raw = arb_detector_params()
    var message = [CChar](repeating: 0, count: 256)
    let status = arb_detector_params_default(&raw, &message, message.count)
    precondition(status == ARB_OK, "OpenCV did not give its default detector parameters")
    return DetectorParameters(raw)
  }()

  /// OpenCV's defaults with sub-pixel corner refinement: the setting for measurement.
  public static let subpixel: DetectorParameters = {
    var p = opencvDefault
    p.cornerRefinement = .subpixel
    return p
  }()

  init(_ p: arb_detector_params) {
    adaptiveThreshWinSizeMin = Int(p.adaptive_thresh_win_size_min)
    adaptiveThreshWinSizeMax = Int(p.adaptive_thresh_win_size_max)
    adaptiveThreshWinSizeStep = Int(p.adaptive_thresh_win_size_step)
    adaptiveThreshConstant = p.adaptive_thresh_constant
    minMarkerPerimeterRate = p.min_marker_perimeter_rate
    maxMarkerPerimeterRate = p.max_marker_perimeter_rate
    polygonalApproxAccuracyRate = p.polygonal_approx_accuracy_rate
    minCornerDistanceRate = p.min_corner_distance_rate
    minDistanceToBorder = Int(p.min_distance_to_border)
    minMarkerDistanceRate = p.min_marker_distance_rate
    cornerRefinement = CornerRefinement(rawValue: p.corner_refinement_method) ?? .none
    cornerRefinementWinSize = Int(p.corner_refinement_win_size)
    cornerRefinementMaxIterations = Int(p.corner_refinement_max_iterations)
    cornerRefinementMinAccuracy = p.corner_refinement_min_accuracy
    markerBorderBits = Int(p.marker_border_bits)
    perspectiveRemovePixelPerCell = Int(p.perspective_remove_pixel_per_cell)
    perspectiveRemoveIgnoredMarginPerCell = p.perspective_remove_ignored_margin_per_cell
    maxErroneousBitsInBorderRate = p.max_erroneous_bits_in_border_rate
    minOtsuStdDev = p.min_otsu_std_dev
    errorCorrectionRate = p.error_correction_rate
  }

  var raw: arb_detector_params {
    arb_detector_params(
      adaptive_thresh_win_size_min: Int32(clamping: adaptiveThreshWinSizeMin),
      adaptive_thresh_win_size_max: Int32(clamping: adaptiveThreshWinSizeMax),
      adaptive_thresh_win_size_step: Int32(clamping: adaptiveThreshWinSizeStep),
      adaptive_thresh_constant: adaptiveThreshConstant,
      min_marker_perimeter_rate: minMarkerPerimeterRate,
      max_marker_perimeter_rate: maxMarkerPerimeterRate,
      polygonal_approx_accuracy_rate: polygonalApproxAccuracyRate,
      min_corner_distance_rate: minCornerDistanceRate,
      min_distance_to_border: Int32(clamping: minDistanceToBorder),
      min_marker_distance_rate: minMarkerDistanceRate,
      corner_refinement_method: cornerRefinement.rawValue,
      corner_refinement_win_size: Int32(clamping: cornerRefinementWinSize),
      corner_refinement_max_iterations: Int32(clamping: cornerRefinementMaxIterations),
      corner_refinement_min_accuracy: cornerRefinementMinAccuracy,
      marker_border_bits: Int32(clamping: markerBorderBits),
      perspective_remove_pixel_per_cell: Int32(clamping: perspectiveRemovePixelPerCell),
      perspective_remove_ignored_margin_per_cell: perspectiveRemoveIgnoredMarginPerCell,
      max_erroneous_bits_in_border_rate: maxErroneousBitsInBorderRate,
      min_otsu_std_dev: minOtsuStdDev,
      error_correction_rate: errorCorrectionRate)
  }
}
