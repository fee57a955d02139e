/// Makes the cloud's normals agree with their neighbours' before the signed distance is built.
///
/// A cloud's normals oriented one by one (e.g. away from the head's centre) can point inward
/// in small patches where the surface runs along that direction (the sides of the nose, under
/// the chin, behind the ears). Such a patch swaps inside and outside locally, and the zero
/// level then runs round its edge: a handle. Each round here flips every normal that points
/// against the sum of its neighbours' — points within `radius` and within `radius / 2` of its
/// tangent plane, so the far side of a thin part does not vote — until none flips (at most
/// `rounds`). Patches narrower than the neighbourhood are outvoted; larger consistent regions
/// are left as they are.
enum NormalOrientation {
  /// The most neighbours that vote on one point's normal: 256 (a head cloud of 1 mm voxels on
  /// the default 2 mm grid has at most about 140 within the radius, so all of them vote there).
  static let maximumVoters = 256

  /// The normals of `positions` (same order), flipped where their neighbours disagree.
  static func agreeing(positions: [SIMD3<Float>], normals: [SIMD3<Float>], radius: Float, rounds: Int = 4) -> [SIMD3<Float>] {
    guard positions.count == normals.count, !positions.isEmpty, radius > 0 else { return normals }
    let (firstNeighbour, neighbours) = voters(positions: positions, normals: normals, radius: radius)
    var oriented = normals
    for _ in 0..<rounds {
      var flips: [Int] = []
      for i in oriented.indices {
        let sum = neighbours[firstNeighbour[i]..<firstNeighbour[i + 1]].reduce(SIMD3<Float>.zero) { $0 + oriented[Int($1)] }
        if (sum * oriented[i]).sum() < 0 { flips.append(i) }
      }
      if flips.isEmpty { break }
      for i in flips { oriented[i] = -oriented[i] }
    }
    return oriented
  }

  /// Each point's voters (the same every round), one list after another in `neighbours`, point
  /// i's at `first[i]..<first[i + 1]`: the points within `radius` and within `radius / 2` of its
  /// tangent plane, at most ``maximumVoters``, taken evenly over those found where there are
  /// more, so memory stays bounded however wide the radius (a coarse grid's support holds
  /// thousands of points, a default one's about 140: every one of those votes).
  static func voters(positions: [SIMD3<Float>], normals: [SIMD3<Float>], radius: Float) -> (first: [Int], neighbours: [Int32]) {
    // Points by cell (side `radius`), cells sorted: a point's neighbours are in its 27 cells.
    func cell(_ p: SIMD3<Float>) -> SIMD3<Int32> { SIMD3<Int32>((p / radius).rounded(.down)) }
    func key(_ c: SIMD3<Int32>) -> Int64 { (Int64(c.x) &* 73_856_093) ^ (Int64(c.y) &* 19_349_663) ^ (Int64(c.z) &* 83_492_791) }
    var byCell: [Int64: [Int32]] = [:]
    for (i, p) in positions.enumerated() { byCell[key(cell(p)), default: []].append(Int32(i)) }
    var first = [Int](repeating: 0, count: positions.count + 1)
    var neighbours: [Int32] = []
    var found: [Int32] = []
    let r2 = radius * radius, halfPlane = radius / 2
    for (i, p) in positions.enumerated() {
      let c = cell(p), n = normals[i]
      found.removeAll(keepingCapacity: true)
      for dz in Int32(-1)...1 {
        for dy in Int32(-1)...1 {
          for dx in Int32(-1)...1 {
            for j in byCell[key(c &+ SIMD3(dx, dy, dz))] ?? [] where Int(j) != i {
              let d = positions[Int(j)] - p
              if (d * d).sum() < r2 && abs((d * n).sum()) < halfPlane { found.append(j) }
            }
          }
        }
      }
      if found.count <= maximumVoters {
        neighbours += found
      } else {
        for k in 0..<maximumVoters { neighbours.append(found[k * found.count / maximumVoters]) }
      }
      first[i + 1] = neighbours.count
    }
    return (first, neighbours)
  }
}
