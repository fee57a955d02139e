import _HeadScanSupport
import ArucoBridge
import Foundation
import PointCloud

/// One ArUco sticker on the cap, in the head model's frame (metres).
///
/// The printed square wraps the curved surface (see ``CapLayout/Wrap``): its
/// corners are on the surface and off one plane, and its edges bow with the
/// surface, as a real sticker's are.
public struct CapMarker: Sendable, Hashable, Codable {
  /// Marker id in the cap's dictionary.
  public var id: Int
  /// The marker's own frame from the four corners: origin at their mean, x along
  /// 0 → 1 (mean of the two x edges), y along 3 → 0, z out of the face.
  public var headFromMarker: RigidTransform
  /// Printed corners on the surface, OpenCV order, metres.
  public var corners: [SIMD3<Double>]
  /// Where the sticker's centre touches the surface.
  public var surfaceCentre: SIMD3<Double>
  /// Tangent axes and outward normal at the centre (right-handed).
  public var axisX: SIMD3<Double>
  public var axisY: SIMD3<Double>
  public var normal: SIMD3<Double>
}

/// The stickers on a simulated cap.
public struct CapLayout: Sendable, Hashable {
  /// How the flat print is laid onto the curved cap.
  public enum Wrap: String, Sendable, Hashable, Codable, CaseIterable {
    /// A surface point belongs to the print where its orthographic projection onto the
    /// tangent plane at the sticker's centre falls inside the square (the original model):
    /// the print is stretched a little towards its corners.
    case tangentProjection = "tangent"
    /// A decal that keeps its printed lengths along the surface: a point's print
    /// coordinates are its tangent-plane direction from the centre and its arc length
    /// along the normal section through the centre (geodesic polar coordinates, the arc
    /// taken as the circle through the centre and the point tangent to the plane). The
    /// corners lie at the printed half-diagonal along the surface.
    case decal
  }

  /// The bounds of the layout's parameters (the options' ``SimulationOptions/Bounds``).
  public enum Bounds {
    /// Stickers on the cap.
    public static let count = SimulationOptions.Bounds.markerCount
    /// Printed side, metres.
    public static let sideLength = SimulationOptions.Bounds.markerSide
    /// White paper on each edge as a fraction of the side: the options' widest margin on their smallest side.
    public static let margin = 0.0...(SimulationOptions.Bounds.markerMargin.upperBound / SimulationOptions.Bounds.markerSide.lowerBound)
  }

  /// ArUco dictionary name.
  public var dictionary: String
  /// Printed side, black border included, metres.
  public var sideLength: Double
  /// A sticker whose centre or corners cannot be placed on the head surface (far too
  /// large for the cap's curvature).
  public struct PlacementError: Error, Sendable, CustomStringConvertible {
    /// The sticker's id and printed side, metres.
    public var markerID: Int
    public var sideLength: Double
    public var description: String {
      String(format: "a %.1f mm sticker does not fit the simulated cap: marker %d's corners miss the head surface", sideLength * 1000, markerID)
    }
  }

  /// A sticker whose print overlaps an earlier sticker's at every in-plane turn tried
  /// (``turnsTried``): too many or too large stickers for the head. (White margins may cover
  /// each other and the edge of a neighbour's print, as on a crowded real cap.)
  public struct OverlapError: Error, Sendable, CustomStringConvertible {
    /// The earlier sticker's id and the id of the one that could not be placed beside it.
    public var markerIDs: (Int, Int)
    /// Their count and printed side, metres.
    public var count: Int
    public var sideLength: Double
    public var description: String {
      String(
        format: "%d stickers of %.1f mm do not fit the simulated cap: the prints of markers %d and %d overlap (use fewer or smaller stickers, or a larger head)",
        count, sideLength * 1000, markerIDs.0, markerIDs.1)
    }
  }

  /// White paper around the printed marker, as a fraction of the side on each edge.
  public var margin: Double
  /// How the print follows the surface.
  public var wrap: Wrap
  public var markers: [CapMarker]

  /// Places `count` markers (ids 0..<count) evenly over the cranium above the brows and ears.
  ///
  /// Directions from the vault centre follow a Fibonacci spiral over elevations
  /// −5°…78° (area-uniform), turned by a seeded azimuth; each sticker gets a
  /// seeded in-plane rotation, drawn again where it would lay the print over an earlier
  /// sticker's.
  /// - Parameters:
  ///   - margin: white paper on each edge, as a fraction of `sideLength`.
  ///   - wrap: how the print follows the surface.
  /// - Throws: ``SimulationError`` for a count, side or margin outside ``Bounds``;
  ///   ``PlacementError`` when a sticker's corner misses the surface; ``OverlapError`` when
  ///   no turn tried keeps a sticker's print off the earlier ones'.
  public init(
    head: HeadShape, count: Int, sideLength: Double = 0.016, margin: Double = 0.2, wrap: Wrap = .tangentProjection,
    dictionary: String = "DICT_4X4_50", seed: UInt64
  ) throws {
    try check(count, within: Bounds.count, "markerCount")
    try check(sideLength, within: Bounds.sideLength, "markerSide")
    try check(margin, within: Bounds.margin, "margin")
    self.dictionary = dictionary
    self.sideLength = sideLength
    self.margin = margin
    self.wrap = wrap
    var random = SeededGenerator(seed: seed ^ 0xCA9_1A70)
    let golden = Double.pi * (3 - 5.0.squareRoot())
    let low = sin(-5 * Double.pi / 180), high = sin(78 * Double.pi / 180)
    let turn = random.uniform() * 2 * .pi
    var placed: [CapMarker] = []
    placed.reserveCapacity(count)
    for k in 0..<count {
      let s = low + (Double(k) + 0.5) / Double(count) * (high - low)
      let elevation = asin(s), azimuth = Double(k) * golden + turn
      let direction = SIMD3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation))
      guard let centre = head.crossing(from: head.vaultCentre, direction: direction, in: 0...0.3) else {
        throw PlacementError(markerID: k, sideLength: sideLength)
      }
      let normal = head.normal(at: centre)
      let reference: SIMD3<Double> = abs(normal.z) > 0.9 ? [1, 0, 0] : [0, 0, 1]
      let untwisted = (reference - reference.dot(normal) * normal).normalized
      let h = sideLength / 2
      // A turn that lays the print over an earlier sticker's is drawn again, as a person
      // sticking the cap turns a sticker to fit beside its neighbours.
      var marker: CapMarker?, clash = 0
      for _ in 0..<Self.turnsTried {
        let x = Rotation3(axis: normal, angle: random.uniform() * 2 * .pi) * untwisted
        let y = normal.cross(x)
        let corners = try [SIMD2(-h, h), SIMD2(h, h), SIMD2(h, -h), SIMD2(-h, -h)].map { c -> SIMD3<Double> in
          guard let corner = Self.surfacePoint(printed: c, centre: centre, x: x, y: y, normal: normal, wrap: wrap, on: head) else {
            throw PlacementError(markerID: k, sideLength: sideLength)
          }
          return corner
        }
        let candidate = CapMarker(
          id: k, headFromMarker: RigidTransform(squareCorners: corners), corners: corners, surfaceCentre: centre,
          axisX: x, axisY: y, normal: normal)
        guard let other = placed.first(where: { Self.printsOverlap(candidate, $0, half: h) }) else {
          marker = candidate
          break
        }
        clash = other.id
      }
      guard let marker else { throw OverlapError(markerIDs: (clash, k), count: count, sideLength: sideLength) }
      placed.append(marker)
    }
    markers = placed
  }

  /// In-plane turns drawn for a sticker before a cap whose prints overlap is refused.
  static let turnsTried = 24

  /// Whether the printed squares (half-side `half` metres) of two stickers overlap: each square
  /// taken in its sticker's tangent plane and the other's projected onto it, the
  /// separating-axis test both ways.
  static func printsOverlap(_ a: CapMarker, _ b: CapMarker, half: Double) -> Bool {
    // Farther apart than two half-diagonals: cannot touch.
    guard (b.surfaceCentre - a.surfaceCentre).length < 2 * 2.0.squareRoot() * half else { return false }
    let square = [SIMD2(-half, -half), SIMD2(half, -half), SIMD2(half, half), SIMD2(-half, half)]
    /// Whether `o`'s square, projected onto `m`'s tangent plane, overlaps `m`'s.
    func overlap(_ m: CapMarker, _ o: CapMarker) -> Bool {
      let theirs = square.map { c -> SIMD2<Double> in
        let d = o.surfaceCentre + c.x * o.axisX + c.y * o.axisY - m.surfaceCentre
        return SIMD2(d.dot(m.axisX), d.dot(m.axisY))
      }
      var axes = [SIMD2<Double>(1, 0), SIMD2<Double>(0, 1)]
      for k in 0..<2 {
        let edge = theirs[k + 1] - theirs[k]
        axes.append(SIMD2(-edge.y, edge.x))
      }
      return !axes.contains { axis in
        let p = square.map { ($0 * axis).sum() }, q = theirs.map { ($0 * axis).sum() }
        return p.max()! <= q.min()! || q.max()! <= p.min()!
      }
    }
    return overlap(a, b) && overlap(b, a)
  }

  /// The print coordinates (metres, x along ``CapMarker/axisX``, y along
  /// ``CapMarker/axisY``, 0 at the centre) of a head-frame point on the sticker.
  @inline(__always)
  public func stickerCoordinates(_ p: SIMD3<Double>, marker m: CapMarker) -> SIMD2<Double> {
    let d = p - m.surfaceCentre
    switch wrap {
    case .tangentProjection: return SIMD2(d.dot(m.axisX), d.dot(m.axisY))
    case .decal: return Self.decalCoordinates(d, x: m.axisX, y: m.axisY, normal: m.normal)
    }
  }

  /// The surface point whose print coordinates (see ``stickerCoordinates(_:marker:)``)
  /// are `printed`, for a sticker centred at `centre` with tangent axes `x`, `y`; nil
  /// where the normal through the point's foot misses the surface within 5 cm.
  static func surfacePoint(
    printed: SIMD2<Double>, centre: SIMD3<Double>, x: SIMD3<Double>, y: SIMD3<Double>, normal: SIMD3<Double>, wrap: Wrap,
    on head: HeadShape
  ) -> SIMD3<Double>? {
    // Search 1 cm either side of the tangent plane (every sticker of normal size), then 5 cm.
    func surface(below foot: SIMD2<Double>) -> SIMD3<Double>? {
      let start = centre + foot.x * x + foot.y * y
      return head.crossing(from: start, direction: normal, in: -0.01...0.01) ?? head.crossing(from: start, direction: normal, in: -0.05...0.05)
    }
    var foot = printed  // tangent-plane coordinates of the point's foot
    guard var point = surface(below: foot) else { return nil }
    guard wrap == .decal, (printed * printed).sum() > 0 else { return point }
    // Decal coordinates are radial rescalings of the tangent-plane ones: rescale the
    // foot until the surface point's print coordinates are the asked ones.
    for _ in 0..<30 {
      let reached = decalCoordinates(point - centre, x: x, y: y, normal: normal)
      let ratio = ((printed * printed).sum() / (reached * reached).sum()).squareRoot()
      if abs(ratio - 1) < 1e-14 { break }
      foot *= ratio
      guard let moved = surface(below: foot) else { return nil }
      point = moved
    }
    return point
  }

  /// Geodesic-polar print coordinates of the offset `d` from a sticker's centre: the
  /// tangent-plane direction, and as length the arc of the circle that touches the
  /// tangent plane at the centre and passes through the point.
  @inline(__always)
  static func decalCoordinates(_ d: SIMD3<Double>, x: SIMD3<Double>, y: SIMD3<Double>, normal: SIMD3<Double>) -> SIMD2<Double> {
    let tangent = SIMD2(d.dot(x), d.dot(y))
    let rho = (tangent * tangent).sum().squareRoot(), w = abs(d.dot(normal))
    guard rho > 1e-12, w > 1e-15 else { return tangent }
    let chordSquared = rho * rho + w * w
    let radius = chordSquared / (2 * w)
    let arc = 2 * radius * asin(min(1, chordSquared.squareRoot() / (2 * radius)))
    return tangent * (arc / rho)
  }
}

