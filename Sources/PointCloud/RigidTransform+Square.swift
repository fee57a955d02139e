extension RigidTransform {
  /// The pose of a square marker from its four corners, metres (the marker's own frame).
  ///
  /// Origin at the corners' mean; x along corner 0 → 1 and y along 3 → 0, each the
  /// mean of the two parallel edges (corners on a curved cap are not coplanar),
  /// orthonormalised keeping x; z = x × y, out of the printed face.
  /// - Parameter corners: four points, OpenCV order (clockwise from the printed top-left).
  public init(squareCorners c: [SIMD3<Double>]) {
    precondition(c.count == 4, "a square marker has four corners")
    let origin = (c[0] + c[1] + c[2] + c[3]) / 4
    let x = ((c[1] - c[0]) + (c[2] - c[3])).normalized
    let yRaw = (c[0] - c[3]) + (c[1] - c[2])
    let z = x.cross(yRaw).normalized
    self.init(rotation: Rotation3(columns: x, z.cross(x), z), translation: origin)
  }

  /// The corners of a square of side `side` in its own frame, OpenCV order.
  public static func squareModel(side: Double) -> [SIMD3<Double>] {
    let h = side / 2
    return [SIMD3(-h, h, 0), SIMD3(h, h, 0), SIMD3(h, -h, 0), SIMD3(-h, -h, 0)]
  }
}
