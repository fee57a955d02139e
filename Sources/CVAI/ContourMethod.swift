/// How ``estimateLayer(points:height:options:)`` turns a layer's points into a contour.
public enum ContourMethod: String, Sendable, Hashable, CaseIterable, Codable {
  /// 1° angular bins, each the median radius of its points, smoothed by a least-squares line
  /// through the measured bins within ±2 (the plain average where all five are measured);
  /// empty bins from a Fourier series of up to 16 harmonics. The polygon through noisy medians
  /// is longer than the surface: radial noise on the points adds length to every step, and the
  /// result moves by a few hundredths of a CVAI point with the voxel lattice's placement.
  case binnedMedians = "binned-medians"
  /// A smooth closed curve fitted to the points themselves: the radius is a Fourier series in
  /// the polar angle, fitted by least squares to every point of the band, its order chosen by
  /// cross-validation and outliers down-weighted (Tukey's biweight). Noise on the points adds
  /// no length. The default.
  case fourierFit = "fourier-fit"
}
