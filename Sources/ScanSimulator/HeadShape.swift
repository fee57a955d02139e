import CVAI
import Foundation
import PointCloud

/// A parametric infant head in its own head frame (docs/head-frame-and-measures.md), metres.
///
/// Origin at the ears' midpoint of the *model* (see ``landmarks`` for the
/// clinical frame, which differs by a small in-plane turn when the head is
/// asymmetric), z up, x anterior, y to the infant's left.
///
/// The surface is star-shaped about the vertical axis through `(vaultOffset, 0)`:
/// at height z and azimuth φ (from +x toward +y) its distance from the axis is
///
///     R(z, φ) = ρ(φ) · g(z) + face + nose + ears
///
/// - `ρ(φ)`: the vault outline, an ellipse of semi-axes `a` (x) and `b` (y),
///   flattened by `1 − f · exp(−Δφ² / 2σ²)` around the back-left or back-right;
/// - `g(z)`: vertical profile, an ellipsoid cap above `measurementHeight`, an
///   ellipsoid flank below it blending smoothly into the neck;
/// - face, nose and ear bumps live below `bumpCeiling`, so every layer within
///   10 mm of the measurement level is an exactly scaled copy of ρ;
/// - the nose's root (``noseRoot``) is placed so the midline profile's deepest point
///   between the nose tip and the forehead, the anatomical nasion, lies straight ahead in
///   the ears' plane (z = 0, φ = 0), where ``landmarks`` puts the nasion.
public struct HeadShape: Sendable, Hashable {
  /// What a user chooses; the shape is solved to hit the CI and CVAI targets.
  public struct Parameters: Sendable, Hashable, Codable {
    /// Nominal head length at the measurement level, metres.
    public var length: Double = 0.150
    /// Target cranial index (width / length × 100).
    public var cranialIndex: Double = 80
    /// Target CVAI, percent (0 = symmetric).
    public var cvai: Double = 0
    /// Which back quarter is flattened when `cvai > 0`.
    public var flattenedSide: FlattenedQuarter = .right
    /// Height of the widest layer above the ears' plane, metres.
    public var measurementHeight: Double = 0.022
    /// Vertical semi-axis of the vault above the widest layer, metres.
    public var vaultHeight: Double = 0.080
    /// Vertical semi-axis of the flank below the widest layer, metres.
    public var flankHeight: Double = 0.045
    /// How far the vault's axis sits anterior of the ears, metres.
    public var vaultOffset: Double = 0.006
    /// Leaves the ears out (a head whose tragions cannot be found; for refusal tests).
    /// `nil` (the default, not written to JSON) or `false` keeps them.
    public var withoutEars: Bool?
    /// Leaves the face and nose out (a head whose face is hidden, e.g. under a cloth; for
    /// refusal tests). `nil` (the default, not written to JSON) or `false` keeps them.
    public var withoutFace: Bool?

    public init(length: Double = 0.150, cranialIndex: Double = 80, cvai: Double = 0, flattenedSide: FlattenedQuarter = .right) {
      self.length = length
      self.cranialIndex = cranialIndex
      self.cvai = cvai
      self.flattenedSide = flattenedSide
    }

    enum CodingKeys: String, CodingKey {
      case length, cranialIndex, cvai, flattenedSide, measurementHeight, vaultHeight, flankHeight, vaultOffset, withoutEars, withoutFace
    }

    /// Reads parameters (a truth file's `parameters`) and checks them against ``Bounds``, so a
    /// head solved from a file cannot stop the program.
    /// - Throws: `DecodingError`, or ``SimulationError`` for a parameter out of bounds.
    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      length = try c.decode(Double.self, forKey: .length)
      cranialIndex = try c.decode(Double.self, forKey: .cranialIndex)
      cvai = try c.decode(Double.self, forKey: .cvai)
      flattenedSide = try c.decode(FlattenedQuarter.self, forKey: .flattenedSide)
      measurementHeight = try c.decode(Double.self, forKey: .measurementHeight)
      vaultHeight = try c.decode(Double.self, forKey: .vaultHeight)
      flankHeight = try c.decode(Double.self, forKey: .flankHeight)
      vaultOffset = try c.decode(Double.self, forKey: .vaultOffset)
      withoutEars = try c.decodeIfPresent(Bool.self, forKey: .withoutEars)
      withoutFace = try c.decodeIfPresent(Bool.self, forKey: .withoutFace)
      try validate()
    }
  }

  /// The back quarter that is flattened.
  public enum FlattenedQuarter: String, Sendable, Hashable, Codable, CaseIterable {
    case left, right
  }

  /// The user's parameters.
  public let parameters: Parameters
  /// Semi-axis along x of the vault outline, metres.
  public let semiAxisX: Double
  /// Semi-axis along y of the vault outline, metres.
  public let semiAxisY: Double
  /// Depth of the posterior flattening as a fraction of the radius.
  public let flattening: Double
  /// Upper end of the nose bump, metres above the ears' plane: where the nose's slope
  /// at z = 0 cancels the forehead's and the face's, so the midline profile is deepest
  /// there (about 1 mm; see ``noseRoot(backgroundSlope:)``).
  public let noseRoot: Double
  /// The clinical head frame from ``landmarks`` (its `headFromWorld` maps model → clinical),
  /// built and checked with the head.
  public let clinicalFrame: HeadFrame

  /// Layers at or below this height may carry face, nose or ear bumps, metres.
  public static let bumpCeiling = 0.008
  /// Lowest modelled height (the neck is cut there), metres.
  public static let bottom = -0.110
  /// Angular width σ of the posterior flattening, radians.
  static let flatteningWidth = 35.0 * Double.pi / 180
  /// How far the nose stands proud of the face, metres.
  static let noseHeight = 0.015
  /// Vertical extent of the nose bump, metres.
  static let noseLength = 0.024

  /// A head with explicit outline values (used by the solver and tests).
  /// The nose's root is placed for these values (``noseRoot(backgroundSlope:)``), and the
  /// clinical frame built from the landmarks.
  /// - Throws: ``SimulationError`` when the landmarks make no head frame (a degenerate outline).
  init(parameters: Parameters, semiAxisX: Double, semiAxisY: Double, flattening: Double) throws(SimulationError) {
    // Drafts for the nose's root and the landmarks carry a stand-in frame they never use.
    let standIn = try Self.frame(nasion: [1, 0, 0], noseTip: [1, 0, -1], leftEar: [0, 1, 0], rightEar: [0, -1, 0])
    let draft = HeadShape(
      parameters: parameters, semiAxisX: semiAxisX, semiAxisY: semiAxisY, flattening: flattening, noseRoot: 0, clinicalFrame: standIn)
    let root = Self.noseRoot(backgroundSlope: draft.midlineSlopeWithoutNose)
    let shaped = HeadShape(
      parameters: parameters, semiAxisX: semiAxisX, semiAxisY: semiAxisY, flattening: flattening, noseRoot: root, clinicalFrame: standIn)
    let l = shaped.landmarks
    self.init(
      parameters: parameters, semiAxisX: semiAxisX, semiAxisY: semiAxisY, flattening: flattening, noseRoot: root,
      clinicalFrame: try Self.frame(nasion: l.nasion, noseTip: l.noseTip, leftEar: l.leftEar, rightEar: l.rightEar))
  }

  private init(parameters: Parameters, semiAxisX: Double, semiAxisY: Double, flattening: Double, noseRoot: Double, clinicalFrame: HeadFrame) {
    self.parameters = parameters
    self.semiAxisX = semiAxisX
    self.semiAxisY = semiAxisY
    self.flattening = flattening
    self.noseRoot = noseRoot
    self.clinicalFrame = clinicalFrame
  }

  /// The head frame of four landmarks, or a ``SimulationError`` saying why they make none.
  private static func frame(
    nasion: SIMD3<Double>, noseTip: SIMD3<Double>, leftEar: SIMD3<Double>, rightEar: SIMD3<Double>
  ) throws(SimulationError) -> HeadFrame {
    do {
      return try HeadFrame(nasion: nasion, noseTip: noseTip, leftEar: leftEar, rightEar: rightEar)
    } catch {
      throw SimulationError(parameter: "head", problem: "gives no clinical head frame: \(error)")
    }
  }

  /// d/dz of the midline radius (φ = 0) at z = 0 without the nose: the forehead receding
  /// downwards minus the face bulk's upper edge (about 0.56 on a 150 mm head).
  private var midlineSlopeWithoutNose: Double {
    let h = 1e-6
    let above = outline(0) * profile(h) + Self.faceBulk(z: h, phi: 0)
    let below = outline(0) * profile(-h) + Self.faceBulk(z: -h, phi: 0)
    return (above - below) / (2 * h)
  }

  /// The nose bump's upper end δ (metres) at which its slope at z = 0, −H·(π/L)·sin(2πδ/L)
  /// for a sin² bump of height H over L ending at δ, cancels `backgroundSlope`: the midline
  /// profile then turns at z = 0 and, the nose rising below and the forehead above, is
  /// deepest there. 0 when the background does not rise (no nasion above the nose), at most L/4.
  static func noseRoot(backgroundSlope: Double) -> Double {
    let sine = backgroundSlope * noseLength / (noseHeight * Double.pi)
    return noseLength / (2 * Double.pi) * asin(max(0, min(1, sine)))
  }

  /// Height of the vertex, metres.
  public var vertexHeight: Double { parameters.measurementHeight + parameters.vaultHeight }

  /// The vault outline ρ(φ) at the widest layer, metres.
  public func outline(_ phi: Double) -> Double {
    let a = semiAxisX, b = semiAxisY
    let c = cos(phi), s = sin(phi)
    var r = a * b / ((b * c) * (b * c) + (a * s) * (a * s)).squareRoot()
    if flattening > 0 {
      let centre = parameters.flattenedSide == .right ? -150.0 * Double.pi / 180 : 150.0 * Double.pi / 180
      let d = Self.wrap(phi - centre)
      r *= 1 - flattening * exp(-d * d / (2 * Self.flatteningWidth * Self.flatteningWidth))
    }
    return r
  }

  /// Vertical profile g(z): 1 at the widest layer, 0 at the vertex.
  public func profile(_ z: Double) -> Double {
    let zc = parameters.measurementHeight
    if z >= zc {
      let t = (z - zc) / parameters.vaultHeight
      return t >= 1 ? 0 : (1 - t * t).squareRoot()
    }
    // Ellipsoid flank down to g = 0.75, then a cubic into the neck (g = 0.5) over 45 mm.
    let hl = parameters.flankHeight
    let d = zc - z
    let d1 = hl * (1 - 0.75 * 0.75).squareRoot()
    if d <= d1 { return (1 - (d / hl) * (d / hl)).squareRoot() }
    let slope = -d1 / (hl * hl * 0.75)  // dg/dd at d1
    let span = 0.045
    let u = min(1, (d - d1) / span)
    // Hermite from (0.75, slope·span) to (0.5, 0).
    let h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u, h01 = -2 * u * u * u + 3 * u * u
    return h00 * 0.75 + h10 * slope * span + h01 * 0.5
  }

  /// Distance of the surface from the axis at height `z`, azimuth `phi`, metres.
  public func radius(z: Double, phi: Double) -> Double {
    var r = outline(phi) * profile(z)
    if z < Self.bumpCeiling { r += bumps(z: z, phi: phi) }
    return r
  }

  /// Face, nose and ears: smooth bumps below ``bumpCeiling``.
  func bumps(z: Double, phi azimuth: Double) -> Double {
    // Callers sample φ over [0, 2π) (the mesh) or (−π, π] (atan2): the face and nose are
    // centred on φ = 0 and must see the same angle from either side.
    let phi = Self.wrap(azimuth)
    var extra = 0.0
    let face = parameters.withoutFace != true, ears = parameters.withoutEars != true
    if face {
      // Nose: narrow, 15 mm proud of the face, 24 mm long from its root just above the
      // ears' plane (the nasion) down; tip about 11 mm below the ears' plane.
      let nose = Self.noseHeight * Self.window(z, from: noseRoot - Self.noseLength, to: noseRoot) * exp(-phi * phi / (2 * 0.11 * 0.11))
      extra += Self.faceBulk(z: z, phi: phi) + nose
    }
    // Ears: pinnae just behind the tragion, 8 mm proud, from 25 mm below to 6 mm above.
    for side in [1.0, -1.0] where ears {
      let d = Self.wrap(phi - side * 105 * Double.pi / 180)
      extra += 0.008 * Self.window(z, from: -0.025, to: 0.006) * exp(-d * d / (2 * 0.16 * 0.16))
    }
    return extra
  }

  /// Face and chin: forward bulk that keeps the face under the forehead, 4 mm above to
  /// 70 mm below the ears' plane, metres.
  static func faceBulk(z: Double, phi: Double) -> Double {
    0.026 * window(z, from: -0.070, to: 0.004) * exp(-phi * phi / (2 * 0.6 * 0.6))
  }

  /// A smooth bump on [from, to]: 0 outside, 1 in the middle, C¹ (sin² shape).
  static func window(_ z: Double, from: Double, to: Double) -> Double {
    guard z > from && z < to else { return 0 }
    let s = sin(Double.pi * (z - from) / (to - from))
    return s * s
  }

  /// Angle wrapped to (−π, π].
  static func wrap(_ a: Double) -> Double {
    var x = a.truncatingRemainder(dividingBy: 2 * .pi)
    if x > .pi { x -= 2 * .pi }
    if x <= -.pi { x += 2 * .pi }
    return x
  }

  /// The surface point at height `z`, azimuth `phi`.
  public func surfacePoint(z: Double, phi: Double) -> SIMD3<Double> {
    let r = radius(z: z, phi: phi)
    return SIMD3(parameters.vaultOffset + r * cos(phi), r * sin(phi), z)
  }

  /// Signed distance-like function: negative inside, positive outside, zero on the surface.
  public func implicit(_ p: SIMD3<Double>) -> Double {
    if p.z > vertexHeight { return p.z - vertexHeight }
    let dx = p.x - parameters.vaultOffset
    return (dx * dx + p.y * p.y).squareRoot() - radius(z: p.z, phi: atan2(p.y, dx))
  }

  /// Central differences of ``implicit(_:)`` over ±`step` (metres) along x, y and z.
  private func differences(at p: SIMD3<Double>, step h: Double = 1e-5) -> SIMD3<Double> {
    SIMD3(
      implicit(p + [h, 0, 0]) - implicit(p - [h, 0, 0]),
      implicit(p + [0, h, 0]) - implicit(p - [0, h, 0]),
      implicit(p + [0, 0, h]) - implicit(p - [0, 0, h]))
  }

  /// Gradient of ``implicit(_:)`` by central differences (10 µm steps).
  public func gradient(at p: SIMD3<Double>) -> SIMD3<Double> { differences(at: p) / 2e-5 }

  /// Outward unit normal at (or near) the surface, from the implicit function's gradient.
  public func normal(at p: SIMD3<Double>) -> SIMD3<Double> { differences(at: p).normalized }

  /// Distance from a point near the surface to it, metres, to first order: F / |∇F|
  /// (signed: positive outside).
  public func surfaceDistance(_ p: SIMD3<Double>) -> Double { implicit(p) / gradient(at: p).length }

  /// Where the line `origin + t · direction` crosses the surface, for t in `range` (bisection).
  public func crossing(from origin: SIMD3<Double>, direction: SIMD3<Double>, in range: ClosedRange<Double>) -> SIMD3<Double>? {
    var low = range.lowerBound, high = range.upperBound
    var fLow = implicit(origin + low * direction)
    let fHigh = implicit(origin + high * direction)
    guard fLow.sign != fHigh.sign else { return nil }
    for _ in 0..<60 {
      let mid = (low + high) / 2
      let f = implicit(origin + mid * direction)
      if f.sign == fLow.sign {
        low = mid
        fLow = f
      } else {
        high = mid
      }
    }
    return origin + (low + high) / 2 * direction
  }

  /// The centre of the vault, metres: on the axis at the widest layer.
  public var vaultCentre: SIMD3<Double> { SIMD3(parameters.vaultOffset, 0, parameters.measurementHeight) }
}
