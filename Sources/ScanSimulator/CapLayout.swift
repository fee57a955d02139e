import ArucoBridge
import Foundation
import PointCloud

/// One ArUco sticker on the cap, in the head model's frame (metres).
///
/// The printed square wraps the curved surface: a surface point belongs to the
/// sticker where its orthographic projection onto the tangent plane at
/// ``surfaceCentre`` falls inside the square. Its corners are therefore on the
/// surface and very slightly off one plane, as a real sticker's are.
public struct CapMarker: Sendable, Hashable, Codable {
  /// Marker id in the cap's dictionary.
  public var id: Int
  /// The pose of contract §5 from the four corners: origin at their mean, x along
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
  /// ArUco dictionary name.
  public var dictionary: String
  /// Printed side, black border included, metres.
  public var sideLength: Double
  /// White paper around the printed marker, as a fraction of the side on each edge.
  public var margin: Double
  public var markers: [CapMarker]

  /// Places `count` markers (ids 0..<count) evenly over the cranium above the brows and ears.
  ///
  /// Directions from the vault centre follow a Fibonacci spiral over elevations
  /// −5°…78° (area-uniform), turned by a seeded azimuth; each sticker gets a
  /// seeded in-plane rotation.
  public init(head: HeadShape, count: Int, sideLength: Double = 0.016, dictionary: String = "DICT_4X4_50", seed: UInt64) {
    self.dictionary = dictionary
    self.sideLength = sideLength
    self.margin = 0.2
    var random = SeededGenerator(seed: seed ^ 0xCA9_1A70)
    let golden = Double.pi * (3 - 5.0.squareRoot())
    let low = sin(-5 * Double.pi / 180), high = sin(78 * Double.pi / 180)
    let turn = random.uniform() * 2 * .pi
    markers = (0..<count).map { k in
      let s = low + (Double(k) + 0.5) / Double(count) * (high - low)
      let elevation = asin(s), azimuth = Double(k) * golden + turn
      let direction = SIMD3(cos(elevation) * cos(azimuth), cos(elevation) * sin(azimuth), sin(elevation))
      let centre = head.crossing(from: head.vaultCentre, direction: direction, in: 0...0.3)!
      let normal = head.normal(at: centre)
      let reference: SIMD3<Double> = abs(normal.z) > 0.9 ? [1, 0, 0] : [0, 0, 1]
      var x = (reference - reference.dot(normal) * normal).normalized
      x = Rotation3(axis: normal, angle: random.uniform() * 2 * .pi) * x
      let y = normal.cross(x)
      let h = sideLength / 2
      let corners = [SIMD2(-h, h), SIMD2(h, h), SIMD2(h, -h), SIMD2(-h, -h)].map { c -> SIMD3<Double> in
        let q = centre + c.x * x + c.y * y
        return head.crossing(from: q, direction: normal, in: -0.01...0.01)!
      }
      return CapMarker(
        id: k, headFromMarker: RigidTransform(squareCorners: corners), corners: corners, surfaceCentre: centre,
        axisX: x, axisY: y, normal: normal)
    }
  }

  /// The sticker's tangent-plane coordinates (metres) of a head-frame point.
  @inline(__always)
  func stickerCoordinates(_ p: SIMD3<Double>, marker m: CapMarker) -> SIMD2<Double> {
    let d = p - m.surfaceCentre
    return SIMD2(d.dot(m.axisX), d.dot(m.axisY))
  }
}

