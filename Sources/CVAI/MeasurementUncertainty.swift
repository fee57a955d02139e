import _HeadScanSupport
import Foundation
import PointCloud

/// The errors a scan's measures carry besides the sampling of its cloud, each estimated from the
/// scan itself, for ``bootstrapIntervals(points:measurement:replicates:seed:denominator:options:uncertainty:workers:)``
/// to draw in every replicate.
///
/// - ``landmarks``: where the head frame's four landmarks may lie. Each replicate draws them
///   anew, rebuilds the frame (``HeadFrame``) and measures the cloud in it: a tilt of the ears'
///   plane moves the level's contour, a turn moves the diagonals.
/// - ``scaleSD``: the relative standard deviation of the reconstruction's scale (the marker map
///   and the depth it was lifted with). Each replicate scales the points about the head frame's
///   origin by `1 + scaleSD · g` (g standard normal): lengths, diagonals and circumference move
///   together, CVAI and CI not.
/// - ``poseOffsets``: the offsets the frames' pose errors leave on the fused contour (a frame's
///   pose error moves the depth it contributes as one), from each frame's jackknife over its
///   stickers (``FramePoseOffsets``). Each replicate draws them anew and adds them to the
///   contour's points along their radius.
/// - ``surfaceSD`` and ``surfaceHarmonics``: where no ``poseOffsets`` are given, the standard
///   deviation of that shared offset, millimetres, and how many turns of the contour it varies
///   over. Each replicate then adds a random smooth radial offset `Σₖ aₖ cos kθ + bₖ sin kθ`
///   (k = 0 … K, independent normal coefficients whose variances sum to `surfaceSD²`).
/// - ``contourRoughness``: the contour's error on the scale of a few degrees. Fusion and the
///   cleaning's local planes share a point's depth noise with its neighbours, so redrawing the
///   band's points as if independent sees only a fraction of it (on realistic scans at σ₂₀ =
///   0.8–1 mm, 0.015–0.032 mm a bin where the contour's error against the same scan without depth
///   noise was 0.046–0.089 mm, docs/intervals.md). The bootstrap measures the contour's roughness at the level
///   (each bin's radius less the smooth Fourier fill through them, ``SlicingOptions/harmonics``)
///   and each replicate adds that roughness, turned by a random angle and sign, to its contour
///   (radially about the contour's centroid): its size and its correlation along the contour are
///   the scan's own.
public struct MeasurementUncertainty: Sendable, Hashable {
  /// One landmark as the head frame was built from it, head frame, metres.
  public struct Landmark: Sendable, Hashable {
    /// Where it was placed (head frame, metres).
    public var position: SIMD3<Double>
    /// Standard deviation of its position in each direction, metres (the pose of the frame it
    /// was lifted in).
    public var isotropicSD: Double
    /// Standard deviation along ``ray``, metres (the depth it was lifted with).
    public var alongRaySD: Double
    /// Unit direction of the ray it was lifted along (head frame); zero for none.
    public var ray: SIMD3<Double>

    public init(position: SIMD3<Double>, isotropicSD: Double, alongRaySD: Double = 0, ray: SIMD3<Double> = .zero) {
      self.position = position
      self.isotropicSD = isotropicSD
      self.alongRaySD = alongRaySD
      self.ray = ray
    }

    /// A draw of its position.
    func drawn(_ random: inout SeededGenerator) -> SIMD3<Double> {
      let g = SIMD3(random.gaussian(), random.gaussian(), random.gaussian())
      return position + isotropicSD * g + alongRaySD * random.gaussian() * ray
    }
  }

  /// Nasion, nose tip, left and right ear (the landmarks file's order), head frame; `nil`: the frame is exact
  /// (landmarks given in the world, or a frame not built from landmarks).
  public var landmarks: [Landmark]?
  /// Relative standard deviation of the reconstruction's scale (0.001 = 0.1 %).
  public var scaleSD = 0.0
  /// Standard deviation of the surface's shared offset along its normal, millimetres.
  public var surfaceSD = 0.0
  /// Highest harmonic of the surface's shared offset around a contour.
  public var surfaceHarmonics = 4
  /// The offsets the frames' pose errors leave on the contour, from each frame's jackknife over
  /// its stickers; where given, replicates draw these instead of the smooth ``surfaceSD`` offset
  /// (`nil`: the smooth one).
  public var poseOffsets: FramePoseOffsets?
  /// Whether the replicates draw the contour's roughness measured at the level.
  public var contourRoughness = false

  /// Nothing besides the cloud's sampling (the intervals before these terms).
  public static let none = MeasurementUncertainty()

  /// The errors to draw (each default: none).
  public init(
    landmarks: [Landmark]? = nil, scaleSD: Double = 0, surfaceSD: Double = 0, surfaceHarmonics: Int = 4, contourRoughness: Bool = false,
    poseOffsets: FramePoseOffsets? = nil
  ) {
    self.poseOffsets = poseOffsets
    self.landmarks = landmarks
    self.scaleSD = scaleSD
    self.surfaceSD = surfaceSD
    self.surfaceHarmonics = surfaceHarmonics
    self.contourRoughness = contourRoughness
  }

  /// The least well placed landmark's standard deviation of position, metres:
  /// `√(3 isotropicSD² + alongRaySD²)` (its whole 3D spread) over ``landmarks``; `nil` without landmarks.
  public var largestLandmarkSD: Double? {
    landmarks?.map { (3 * $0.isotropicSD * $0.isotropicSD + $0.alongRaySD * $0.alongRaySD).squareRoot() }.max()
  }

  /// One replicate's move of head-frame points: the frame rebuilt from drawn landmarks and a
  /// drawn scale (head frame of the estimate → that replicate's, metres). Landmarks that draw a
  /// degenerate frame leave the frame as it is.
  func drawnMove(_ random: inout SeededGenerator) -> (frame: RigidTransform, scale: Double) {
    var frame = RigidTransform.identity
    if let landmarks, landmarks.count == 4 {
      let p = landmarks.map { $0.drawn(&random) }
      if let drawn = try? HeadFrame(nasion: p[0], noseTip: p[1], leftEar: p[2], rightEar: p[3]) { frame = drawn.headFromWorld }
    }
    return (frame, 1 + scaleSD * random.gaussian())
  }

  /// One replicate's draw of a measured roughness (one value a bin, mm, e.g.
  /// ``BinnedRadii/roughness()``): the same values turned by a random whole number of bins, with
  /// a random sign, as a function of the polar angle (radians).
  static func drawnRoughness(_ roughness: [Double], _ random: inout SeededGenerator) -> (Double) -> Double {
    guard !roughness.isEmpty else { return { _ in 0 } }
    let turn = random.below(roughness.count), sign = random.below(2) == 0 ? -1.0 : 1.0
    return { theta in
      let k = angularBin(theta < 0 ? theta + 2 * .pi : theta, of: roughness.count)
      return sign * roughness[(k + turn) % roughness.count]
    }
  }

  /// Whether replicates move the surface (``poseOffsets`` or a positive ``surfaceSD``).
  var drawsSurface: Bool { poseOffsets != nil || surfaceSD > 0 }

  /// One replicate's radial offset of the surface as a function of the polar angle (radians), mm.
  func drawnSurfaceOffset(_ random: inout SeededGenerator) -> (Double) -> Double {
    if let poseOffsets { return poseOffsets.drawn(&random) }
    guard surfaceSD > 0 else { return { _ in 0 } }
    // k = 0 has one coefficient, each k ≥ 1 two; all share the variance equally.
    let terms = 1 + 2 * max(0, surfaceHarmonics)
    let sd = surfaceSD / Double(terms).squareRoot()
    let a0 = sd * random.gaussian()
    let pairs = (0..<max(0, surfaceHarmonics)).map { _ in (sd * random.gaussian(), sd * random.gaussian()) }
    return { theta in
      var r = a0
      for (k, (a, b)) in pairs.enumerated() { r += a * cos(Double(k + 1) * theta) + b * sin(Double(k + 1) * theta) }
      return r
    }
  }
}
