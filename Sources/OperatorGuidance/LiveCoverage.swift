import Foundation
import PointCloud
import Registration
import ScanIO
import _HeadScanSupport

/// What the recording has covered so far, frame by frame, as a recorder app would show it.
///
/// Fed one frame at a time as frames arrive (their markers already lifted by the observation
/// stage, see `observeFrame`), it keeps:
///
/// - **a live marker map**: the first frame with markers lifted by depth defines the world
///   frame (its camera frame, metres). Every later frame is placed by a rigid fit of its
///   lifted corners onto the markers it shares with the map: each shared marker proposes a
///   pose, the proposal most other shared markers agree with (corner RMS within a fifth of the
///   printed side: a wrong lift or match, not noise) is refitted on those markers, and the
///   frame is placed when that fit is within the same bound. Agreeing markers update their
///   running mean; a marker seen in one placed frame only waits until a second placed frame
///   agrees with it before it joins the map, so one bad lift cannot poison it;
/// - **the head from the cap**: a sphere fitted to the mapped markers' centres gives the head's
///   centre and radius (a fit outside ``headRadii`` is not a head yet). The axis *up* comes from
///   the camera, not the cap: a phone held upright keeps one image axis level, so up is the
///   direction most nearly perpendicular to that axis over all placed frames, counted once the
///   camera has travelled far enough round the head to fix it (``axisConditioning``). The front
///   is the direction the first placed frame looked from (a recording starts at the face) until
///   the nose shows where it is: the column at the face's heights that stands at least 5 mm
///   further from the axis than the face 45° to either side, within 60° of that direction;
/// - **the surface seen**: each placed frame's depth, every ``Options/pixelStride``-th pixel,
///   in voxels of ``Options/voxelSize``, counted in a head-centred grid of azimuth columns
///   (``Options/columns`` round the head) × 5 mm rows from 70 mm below the centre to 40 mm
///   above it (points 0.4–1.5 head radii from the axis).
///
/// The measurement level is estimated as the head's widest layer seen (the peak of the rows'
/// median radius). A grid cell counts as seen with two voxels in it; a column of the band is
/// covered when half its rows are seen, a sector when at most one of its six columns is not, the
/// face and an ear's side when three quarters of their cells are seen. Once covered, a part
/// stays covered (the head's refits move the grid by a few degrees and millimetres). Each ``update(frame:observation:)`` returns a ``CoverageState``: the share of
/// the band round that level (± ``Options/bandHalfHeight``) seen, the sectors of the band still
/// missing by name, whether the face and each ear's side have been seen well enough to place
/// landmarks, and which way to move.
public struct LiveCoverage: Sendable {
  /// The tracker's settings (lengths in metres).
  public struct Options: Sendable, Hashable {
    /// Every n-th depth pixel in both directions is kept (8: 4 mm apart at 30 cm on a 640 × 480 frame).
    public var pixelStride = 8
    /// Edge of the voxels that count a surface point once, metres.
    public var voxelSize = 0.004
    /// Azimuth columns round the head (48: 7.5° each, six to a sector).
    public var columns = 48
    /// Half the band's height round the measurement level, metres.
    public var bandHalfHeight = 0.015
    /// Markers mapped before the head is fitted to them.
    public var markersForHead = 6
    /// Depth beyond which points are ignored before the head is known, metres.
    public var maximumDepth = 0.8
    /// At most this many voxels are kept (memory bound; 8 bytes each).
    public var maximumVoxels = 2_000_000

    public init() {}
  }

  /// The eight sectors of the head, named from the infant's point of view.
  public enum Sector: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case front, frontLeft, left, backLeft, back, backRight, right, frontRight

    /// "back right" and so on.
    public var description: String {
      ["front", "front left", "left", "back left", "back", "back right", "right", "front right"][rawValue]
    }
    /// The sector's centre, degrees from the front towards the infant's left.
    public var azimuthDegrees: Double { Double(rawValue) * 45 }
  }

  /// One row of the grid: heights relative to the head's centre, metres.
  static let rowHeight = 0.005
  static let lowestRow = -0.070
  static let highestRow = 0.040
  /// Rows of the face (nasion to nose tip) and of the ears, relative to the measurement
  /// level, metres: the widest layer lies about 22 mm above the ears' plane and the nose
  /// reaches about 25 mm below that plane.
  static let faceRows = -0.045 ... -0.020
  static let earRows = -0.035 ... -0.010
  /// Radii of a sphere through the cap's markers that can be a head (an infant's or a
  /// test head's, 40–120 mm); a fit outside them comes from too few markers on too small a patch.
  static let headRadii = 0.040...0.120
  /// How many times the middle eigenvalue of the camera axes' moments must exceed the smallest
  /// before the up axis counts.
  static let axisConditioning = 25.0
  /// Placed frames between refits of the head's axis when no new marker came.
  static let refitInterval = 30

  public let options: Options
  /// Printed marker side, metres.
  public let sideLength: Double

  // Live map: marker id → world corners (running means) and how often each was seen.
  private var map: [Int: (corners: [SIMD3<Double>], count: Int)] = [:]
  private var voxels: Set<Int64> = []
  private var voxelList: [SIMD3<Double>] = []
  private var head: Head?
  private var firstCamera: SIMD3<Double>?
  private var firstViewDirection: SIMD3<Double>?
  private var mappedAtFit = 0
  /// Placed frames' camera x and y axes in the world frame (one of them stays level while the
  /// phone is held upright, in landscape or in portrait).
  private var axisMoments: [[Double]] = [[Double](repeating: 0, count: 9), [Double](repeating: 0, count: 9)]
  private var lastMatched = 0
  // Parts covered at some frame (they stay covered).
  private var coveredSectors = Set<Sector>()
  private var faceSeen = false, leftEarSeen = false, rightEarSeen = false
  /// Markers seen in one placed frame only (or that disagreed with their first sighting), world corners.
  private var candidates: [Int: [SIMD3<Double>]] = [:]
  private var lastRMS: Double?
  // Grid: voxels per cell and the farthest radius per cell (column-major by row).
  private var cells: [Int32] = []
  private var cellRadius: [Float] = []
  private var cellRadiusSum: [Float] = []
  private(set) var framesPlaced = 0
  private(set) var framesSeen = 0

  /// The head's centre, axes and radius in the world frame.
  struct Head: Sendable {
    var centre: SIMD3<Double>
    var up: SIMD3<Double>
    /// A fixed horizontal reference (azimuth 0 of the grid's columns) and the axis 90° from it.
    var ex: SIMD3<Double>
    var ey: SIMD3<Double>
    var radius: Double
    /// The measurement level's height above the centre, metres.
    var level = 0.0
    /// The front's azimuth in the grid, radians.
    var frontAzimuth: Double
  }

  /// - Parameters:
  ///   - sideLength: the printed markers' side, metres (the scan header's).
  ///   - options: see ``Options``.
  public init(sideLength: Double, options: Options = .init()) {
    self.sideLength = sideLength
    self.options = options
  }

  /// Rows of the grid.
  var rows: Int { Int(((Self.highestRow - Self.lowestRow) / Self.rowHeight).rounded()) }

  /// Feeds one frame: its depth and the markers the observation stage lifted from it.
  /// - Returns: the coverage after this frame.
  public mutating func update(frame: ScanFrame, observation: FrameObservation) -> CoverageState {
    update(frame: frame.index, timestamp: frame.timestamp, depth: frame.depth, markers: observation.lifted)
  }

  /// Feeds one frame given as its depth map and lifted markers (camera frame, metres).
  public mutating func update(frame index: Int, timestamp: Double, depth: DepthMap, markers: [LiftedMarker]) -> CoverageState {
    framesSeen += 1
    lastMatched = 0
    lastRMS = nil
    guard let worldFromCamera = place(markers) else { return state(frame: index, timestamp: timestamp, placed: false, lifted: markers.count, camera: nil) }
    framesPlaced += 1
    for (family, axis) in [SIMD3(1.0, 0, 0), SIMD3(0, 1.0, 0)].enumerated() {
      let a = worldFromCamera.rotation * axis
      for i in 0..<3 { for j in 0..<3 { axisMoments[family][i * 3 + j] += a[i] * a[j] } }
    }
    if firstCamera == nil {
      firstCamera = worldFromCamera.translation
      firstViewDirection = worldFromCamera.rotation * SIMD3(0, 0, 1)
    }
    let fitted = refitHeadIfMapGrew()
    addSurface(depth: depth, worldFromCamera: worldFromCamera, regrid: fitted)
    return state(frame: index, timestamp: timestamp, placed: true, lifted: markers.count, camera: worldFromCamera.translation)
  }

  // MARK: Placing frames

  /// The frame's pose from its mapped markers (and its unmapped markers added to the map).
  private mutating func place(_ all: [LiftedMarker]) -> RigidTransform? {
    // Markers lifted with depth only: a pixel-only lift's distance is too uncertain for a map.
    let markers = all.filter { $0.method == .depth }
    guard !markers.isEmpty else { return nil }
    let tolerance = 0.2 * sideLength
    var pose = RigidTransform.identity
    var agreeing = Set<Int>()
    if !map.isEmpty || !candidates.isEmpty {
      let matched = markers.compactMap { m in (map[m.id]?.corners ?? candidates[m.id]).map { (m, $0) } }
      lastMatched = matched.count
      guard !matched.isEmpty else { return nil }
      // One hypothesis a matched marker; the one most others agree with wins, and is refitted on them.
      func residual(_ t: RigidTransform, _ m: LiftedMarker, _ world: [SIMD3<Double>]) -> Double {
        (zip(m.cameraCorners, world).map { (t.apply($0) - $1).dot(t.apply($0) - $1) }.reduce(0, +) / 4).squareRoot()
      }
      var best: (inliers: [Int], spread: Double)?
      for (m, world) in matched {
        guard let t = RigidTransform.bestFit(from: m.cameraCorners, to: world)?.transform else { continue }
        let r = matched.map { residual(t, $0.0, $0.1) }
        let inliers = r.indices.filter { r[$0] <= tolerance }
        let spread = inliers.map { r[$0] }.reduce(0, +)
        if best == nil || inliers.count > best!.inliers.count || (inliers.count == best!.inliers.count && spread < best!.spread) {
          best = (inliers, spread)
        }
      }
      guard let best, !best.inliers.isEmpty else { return nil }
      let source = best.inliers.flatMap { matched[$0].0.cameraCorners }, target = best.inliers.flatMap { matched[$0].1 }
      guard let fit = RigidTransform.bestFit(from: source, to: target) else { return nil }
      lastRMS = fit.rms
      guard fit.rms <= tolerance else { return nil }
      pose = fit.transform
      agreeing = Set(best.inliers.map { matched[$0].0.id })
    }
    for m in markers {
      let world = m.cameraCorners.map { pose.apply($0) }
      if let mapped = map[m.id] {
        guard agreeing.contains(m.id) else { continue }
        let n = Double(mapped.count)
        map[m.id] = (zip(mapped.corners, world).map { ($0 * n + $1) / (n + 1) }, mapped.count + 1)
      } else if let seen = candidates[m.id], agreeing.contains(m.id) {
        // A second placed frame agrees: the marker joins the map.
        map[m.id] = (zip(seen, world).map { ($0 + $1) / 2 }, 2)
        candidates[m.id] = nil
      } else {
        candidates[m.id] = world
      }
    }
    return pose
  }

  // MARK: The head from the cap

  /// Fits the head to the mapped markers when their number grew, and its up axis every
  /// `columns` placed frames; `true` when the grid changed.
  private mutating func refitHeadIfMapGrew() -> Bool {
    guard map.count >= options.markersForHead else { return false }
    guard head == nil || map.count > mappedAtFit || framesPlaced % Self.refitInterval == 0 else { return false }
    let centres = map.values.map { $0.corners.reduce(.zero, +) / 4 }
    guard let sphere = Self.sphere(through: centres), Self.headRadii.contains(sphere.radius) else { return false }
    let mean = centres.reduce(.zero, +) / Double(centres.count)
    var toMarkers = mean - sphere.centre
    guard toMarkers.length > 1e-6 else { return false }
    toMarkers = toMarkers / toMarkers.length
    guard let up = upAxis(markers: toMarkers) else { return false }
    // A horizontal reference that does not move when the head is refitted: the first view's
    // direction (or any vector not along up) made perpendicular to up.
    var reference = -(firstViewDirection ?? SIMD3(1, 0, 0))
    reference -= up * reference.dot(up)
    if reference.length < 1e-6 { reference = abs(up.x) < 0.9 ? SIMD3(1, 0, 0) - up * up.x : SIMD3(0, 1, 0) - up * up.y }
    let ex = reference / reference.length
    let ey = up.cross(ex)
    mappedAtFit = map.count
    head = Head(centre: sphere.centre, up: up, ex: ex, ey: ey, radius: sphere.radius, frontAzimuth: 0)
    return true
  }

  /// The head's up axis: the direction most nearly perpendicular to the level camera axis of
  /// every placed frame — the smallest eigenvector of the moments of the frames' x axes (or of
  /// their y axes, for a phone held the other way round), turned to the markers' side (`m`, the
  /// direction from the centre to the markers' mean). It counts once the frames have turned
  /// round the head far enough that the eigenvector is determined: the middle eigenvalue at
  /// least ``axisConditioning`` times the smallest (an uncertainty of about
  /// √(1/25) = 0.2 rad, 11°; about 45° of camera travel with 6° of roll). `nil` before that.
  func upAxis(markers m: SIMD3<Double>) -> SIMD3<Double>? {
    guard framesPlaced >= 2 else { return nil }
    var best: (ratio: Double, axis: SIMD3<Double>)?
    for family in 0..<2 {
      let (values, v) = Self.eigen(axisMoments[family].map { $0 / Double(framesPlaced) })
      let ratio = values.1 / max(values.0, 1e-12)
      guard ratio >= Self.axisConditioning, v.length > 0.5, ratio > best?.ratio ?? 0 else { continue }
      best = (ratio, v / v.length * (v.dot(m) < 0 ? -1 : 1))
    }
    return best?.axis
  }

  /// The two smallest eigenvalues of a symmetric 3 × 3 matrix (row-major), ascending, and the
  /// unit eigenvector of the smallest (Jacobi rotations).
  static func eigen(_ matrix: [Double]) -> ((Double, Double), SIMD3<Double>) {
    var a = matrix
    var v: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    for _ in 0..<50 {
      let off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5]
      if off < 1e-30 { break }
      for (p, q) in [(0, 1), (0, 2), (1, 2)] where abs(a[p * 3 + q]) > 1e-300 {
        let theta = (a[q * 3 + q] - a[p * 3 + p]) / (2 * a[p * 3 + q])
        let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
        let c = 1 / (t * t + 1).squareRoot(), s = t * c
        for k in 0..<3 {
          let akp = a[k * 3 + p], akq = a[k * 3 + q]
          a[k * 3 + p] = c * akp - s * akq
          a[k * 3 + q] = s * akp + c * akq
        }
        for k in 0..<3 {
          let apk = a[p * 3 + k], aqk = a[q * 3 + k]
          a[p * 3 + k] = c * apk - s * aqk
          a[q * 3 + k] = s * apk + c * aqk
        }
        for k in 0..<3 {
          let vkp = v[k * 3 + p], vkq = v[k * 3 + q]
          v[k * 3 + p] = c * vkp - s * vkq
          v[k * 3 + q] = s * vkp + c * vkq
        }
      }
    }
    let order = [a[0], a[4], a[8]].enumerated().sorted { $0.element < $1.element }.map(\.offset)
    let i = order[0]
    return ((a[i * 4], a[order[1] * 4]), SIMD3(v[i], v[3 + i], v[6 + i]))
  }

  /// The least-squares sphere through `points` (|p|² = 2 c·p + k), or `nil` when degenerate.
  static func sphere(through points: [SIMD3<Double>]) -> (centre: SIMD3<Double>, radius: Double)? {
    guard points.count >= 4,
      let x = leastSquares(points, unknowns: 4, row: { p, a in
        (a[0], a[1], a[2], a[3]) = (2 * p.x, 2 * p.y, 2 * p.z, 1)
        return p.dot(p)
      })
    else { return nil }
    let c = SIMD3(x[0], x[1], x[2])
    let r2 = x[3] + c.dot(c)
    guard r2 > 0 else { return nil }
    return (c, r2.squareRoot())
  }

  // MARK: The surface seen

  private mutating func addSurface(depth: DepthMap, worldFromCamera: RigidTransform, regrid: Bool) {
    let k = depth.intrinsics, step = max(1, options.pixelStride), v = options.voxelSize
    var added: [SIMD3<Double>] = []
    for y in stride(from: step / 2, to: depth.height, by: step) {
      for x in stride(from: step / 2, to: depth.width, by: step) {
        let d = depth.metres[y * depth.width + x]
        guard d.isFinite, Double(d) <= options.maximumDepth else { continue }
        let p = worldFromCamera.apply(k.unproject(u: Double(x), v: Double(y), depth: Double(d)))
        if let head, (p - head.centre).length > 3 * head.radius { continue }
        let key = Self.key(SIMD3(Int((p.x / v).rounded(.down)), Int((p.y / v).rounded(.down)), Int((p.z / v).rounded(.down))))
        guard voxels.count < options.maximumVoxels, voxels.insert(key).inserted else { continue }
        voxelList.append(p)
        added.append(p)
      }
    }
    if regrid {
      cells = [Int32](repeating: 0, count: rows * options.columns)
      cellRadius = [Float](repeating: 0, count: rows * options.columns)
      cellRadiusSum = [Float](repeating: 0, count: rows * options.columns)
      for p in voxelList { count(p) }
      updateFront()
    } else if head != nil {
      for p in added { count(p) }
      updateFront()
    }
  }

  private static func key(_ i: SIMD3<Int>) -> Int64 {
    (Int64(i.x & 0x1FFFFF) << 42) | (Int64(i.y & 0x1FFFFF) << 21) | Int64(i.z & 0x1FFFFF)
  }

  /// Counts a world point in its grid cell (points far from the head's surface are left out).
  private mutating func count(_ p: SIMD3<Double>) {
    guard let head else { return }
    let d = p - head.centre
    let h = d.dot(head.up)
    guard h >= Self.lowestRow, h < Self.highestRow else { return }
    let x = d.dot(head.ex), y = d.dot(head.ey)
    let r = (x * x + y * y).squareRoot()
    guard r > 0.4 * head.radius, r < 1.5 * head.radius else { return }
    let cell = row(h) * options.columns + column(atan2(y, x))
    cells[cell] += 1
    cellRadius[cell] = max(cellRadius[cell], Float(r))
    cellRadiusSum[cell] += Float(r)
  }

  private func row(_ height: Double) -> Int { min(rows - 1, max(0, Int(((height - Self.lowestRow) / Self.rowHeight).rounded(.down)))) }
  private func column(_ azimuth: Double) -> Int {
    let turn = azimuth / (2 * .pi)
    return (Int(((turn - turn.rounded(.down)) * Double(options.columns)).rounded(.down))) % options.columns
  }

  /// The measurement level's height above the centre, metres: where the median radius of the
  /// rows (over the columns seen, rows seen in at least a quarter of the columns) peaks — the
  /// head's widest layer — from a parabola through the rows within 20 mm of the widest row
  /// (the profile is flat near its top, so the single widest row alone wanders by a row or
  /// two with the noise); 0 (the centre's height) until there are such rows.
  func levelHeight() -> Double {
    let n = options.columns
    var profile: [(height: Double, radius: Double)] = []
    for row in 0..<rows {
      var radii: [Float] = []
      for col in 0..<n where cells[row * n + col] >= 2 { radii.append(cellRadiusSum[row * n + col] / Float(cells[row * n + col])) }
      guard radii.count * 4 >= n else { continue }
      radii.sort()
      profile.append((Self.lowestRow + (Double(row) + 0.5) * Self.rowHeight, Double(radii[radii.count / 2])))
    }
    guard let top = profile.max(by: { $0.radius < $1.radius }) else { return 0 }
    let near = profile.filter { abs($0.height - top.height) <= 0.020 }
    // In millimetres, so the normal equations stay well away from their singularity threshold.
    guard near.count >= 3, let (a, b, _) = Self.parabola(near.map { (($0.height - top.height) * 1000, $0.radius * 1000) }), a < 0
    else { return top.height }
    let vertex = -b / (2 * a) / 1000
    return abs(vertex) <= 0.020 ? top.height + vertex : top.height
  }

  /// Least-squares y = a x² + b x + c.
  static func parabola(_ points: [(Double, Double)]) -> (Double, Double, Double)? {
    guard let x = leastSquares(points, unknowns: 3, row: { p, a in
      (a[0], a[1], a[2]) = (p.0 * p.0, p.0, 1)
      return p.1
    }) else { return nil }
    return (x[0], x[1], x[2])
  }

  /// The front: the first view's direction, moved to the nose once the face's columns show it.
  private mutating func updateFront() {
    guard var head, let firstCamera else { return }
    head.level = levelHeight()
    let c = firstCamera - head.centre
    let prior = atan2(c.dot(head.ey), c.dot(head.ex))
    head.frontAzimuth = prior
    let n = options.columns
    let faceRows = row(head.level + Self.faceRows.lowerBound)...row(head.level + Self.faceRows.upperBound)
    // The farthest radius of each column at the face's heights (0 where unseen).
    let reach = (0..<n).map { col in faceRows.map { cellRadius[$0 * n + col] }.max() ?? 0 }
    let priorColumn = column(prior)
    let span = Int((Double(n) * 60 / 360).rounded())
    let quarter = n / 8  // 45°
    var best: (column: Int, proud: Float)?
    for offset in -span...span {
      let col = ((priorColumn + offset) % n + n) % n
      let sides = [reach[(col + quarter) % n], reach[(col - quarter + n) % n]]
      guard reach[col] > 0, sides.allSatisfy({ $0 > 0 }) else { continue }
      // The nose stands at least 5 mm proud of the face 45° to either side.
      let proud = reach[col] - sides.max()!
      if proud > 0.005, proud > (best?.proud ?? 0) { best = (col, proud) }
    }
    if let best { head.frontAzimuth = (Double(best.column) + 0.5) / Double(n) * 2 * .pi }
    self.head = head
  }

  // MARK: The state

  private mutating func state(frame index: Int, timestamp: Double, placed: Bool, lifted: Int, camera: SIMD3<Double>?) -> CoverageState {
    var s = rawState(frame: index, timestamp: timestamp, placed: placed, lifted: lifted)
    guard let head else { return s }
    // Once covered, a part stays covered: later refits move the grid by a few degrees and
    // millimetres, and what was seen well enough once was seen.
    for sector in Sector.allCases where !s.missing.contains(sector) { coveredSectors.insert(sector) }
    s.missing.removeAll { coveredSectors.contains($0) }
    faceSeen = faceSeen || s.faceSeen
    leftEarSeen = leftEarSeen || s.leftEarSeen
    rightEarSeen = rightEarSeen || s.rightEarSeen
    (s.faceSeen, s.leftEarSeen, s.rightEarSeen) = (faceSeen, leftEarSeen, rightEarSeen)
    s.advice = advice(missing: s.missing, state: s, camera: camera, head: head)
    return s
  }

  /// The state from the grid as it is now (nothing carried over from earlier frames).
  private func rawState(frame index: Int, timestamp: Double, placed: Bool, lifted: Int) -> CoverageState {
    var s = CoverageState(
      frame: index, timestamp: timestamp, placed: placed, framesPlaced: framesPlaced, framesSeen: framesSeen,
      markersMapped: map.count, headFound: head != nil)
    s.markersLifted = lifted
    s.markersMatched = lastMatched
    s.placementRMS = lastRMS
    guard let head else {
      s.advice =
        map.isEmpty && candidates.isEmpty
        ? "point the camera at the cap's stickers"
        : map.count < options.markersForHead
          ? "keep filming the cap until \(options.markersForHead) stickers are mapped" : "move round the head: its axis is not known yet"
      s.missing = Sector.allCases
      return s
    }
    let front = cos(head.frontAzimuth) * head.ex + sin(head.frontAzimuth) * head.ey
    s.head = .init(centre: head.centre, up: head.up, front: front, radius: head.radius, levelHeight: head.level)
    let n = options.columns
    let band = row(head.level - options.bandHalfHeight + Self.rowHeight / 2)...row(head.level + options.bandHalfHeight - Self.rowHeight / 2)
    let seen = { (row: Int, col: Int) in cells[row * n + ((col % n) + n) % n] >= 2 }
    // A column of the band is covered when at least half its rows have surface in them.
    let covered = (0..<n).map { col in band.filter { seen($0, col) }.count * 2 >= band.count }
    s.bandCoveragePercent = 100 * Double(covered.filter { $0 }.count) / Double(n)
    s.largestGapDegrees = Double(largestGap(occupied: covered)) * 360 / Double(n)
    // Columns are counted from the grid's reference; sectors from the front towards the infant's left.
    let perSector = n / 8
    let frontColumn = head.frontAzimuth / (2 * .pi) * Double(n)
    var missing: [Sector] = []
    for sector in Sector.allCases {
      let start = Int((frontColumn + Double(sector.rawValue * perSector) - Double(perSector) / 2).rounded())
      let coveredHere = (0..<perSector).filter { covered[((start + $0) % n + n) % n] }.count
      // A sector is covered when at most one of its columns (7.5° of 45°) is not.
      if coveredHere < perSector - 1 { missing.append(sector) }
    }
    s.missing = missing
    let region = { (rows: ClosedRange<Double>, centreColumn: Double) -> Bool in
      let r = row(head.level + rows.lowerBound)...row(head.level + rows.upperBound)
      let cols = (-perSector / 2)..<(perSector / 2)
      let all = r.count * cols.count
      let hit = r.map { rr in cols.filter { seen(rr, Int((centreColumn + Double($0)).rounded())) }.count }.reduce(0, +)
      return hit * 4 >= all * 3
    }
    s.faceSeen = region(Self.faceRows, frontColumn)
    s.leftEarSeen = region(Self.earRows, frontColumn + Double(2 * perSector))
    s.rightEarSeen = region(Self.earRows, frontColumn - Double(2 * perSector))
    return s
  }

  /// Where to go next: the nearest missing sector round the head, then the face and the ears.
  private func advice(missing: [Sector], state s: CoverageState, camera: SIMD3<Double>?, head: Head) -> String? {
    var here: Double?
    if let camera {
      let c = camera - head.centre
      here = (atan2(c.dot(head.ey), c.dot(head.ex)) - head.frontAzimuth) * 180 / .pi
    }
    func signedDelta(to degrees: Double) -> Double {
      let d = (degrees - (here ?? 0)).truncatingRemainder(dividingBy: 360)
      return d > 180 ? d - 360 : (d < -180 ? d + 360 : d)
    }
    if let target = missing.min(by: { abs(signedDelta(to: $0.azimuthDegrees)) < abs(signedDelta(to: $1.azimuthDegrees)) }) {
      guard here != nil else { return "film the \(target) of the head" }
      let delta = signedDelta(to: target.azimuthDegrees)
      if abs(delta) < 22.5 { return "hold the phone here: the \(target) of the head is not covered yet" }
      return "move round to the infant's \(delta > 0 ? "left" : "right") to the \(target) of the head"
    }
    if !s.faceSeen { return "film the face from the front, level with the eyes" }
    if !s.leftEarSeen { return "lower the phone to film the left ear" }
    if !s.rightEarSeen { return "lower the phone to film the right ear" }
    return nil
  }
}

/// What ``LiveCoverage`` knows after a frame.
public struct CoverageState: Sendable, Hashable, Codable {
  /// The frame's index and time stamp, seconds.
  public var frame: Int
  public var timestamp: Double
  /// Whether this frame was placed against the markers mapped so far.
  public var placed: Bool
  /// Frames placed and frames fed so far.
  public var framesPlaced: Int
  public var framesSeen: Int
  /// Markers in the live map.
  public var markersMapped: Int
  /// Markers lifted in this frame, and how many of them were already mapped.
  public var markersLifted = 0
  public var markersMatched = 0
  /// The corner residual of this frame's placement, metres (`nil` when nothing was fitted).
  public var placementRMS: Double?
  /// Whether enough markers are mapped to fit the head (until then nothing is covered).
  public var headFound: Bool
  /// The head as fitted so far, in the live world frame (the first placed frame's camera
  /// frame, OpenCV axes, metres).
  public struct Head: Sendable, Hashable, Codable {
    /// Centre of the sphere through the mapped markers' centres, metres.
    public var centre: SIMD3<Double>
    /// Unit vectors: up (from the centre towards the cap's markers) and the front (towards the nose).
    public var up: SIMD3<Double>
    public var front: SIMD3<Double>
    /// The sphere's radius, metres.
    public var radius: Double
    /// The measurement level's estimated height above the centre along up, metres (the widest layer seen).
    public var levelHeight: Double
  }
  /// `nil` until the head is found.
  public var head: Head?
  /// Share of the band round the measurement level seen, percent of its azimuth columns.
  public var bandCoveragePercent = 0.0
  /// The longest run of the band's columns not covered, degrees.
  public var largestGapDegrees = 360.0
  /// Sectors of the band not yet covered (each covered when at most 7.5° of its 45° is missing).
  public var missing: [LiveCoverage.Sector] = []
  /// Whether the face (nasion to nose tip: 20–45 mm below the level, ±22.5° of the front) has been seen.
  public var faceSeen = false
  /// Whether each ear's side (±22.5° round the ear, 10–35 mm below the level) has been seen.
  public var leftEarSeen = false
  public var rightEarSeen = false
  /// Which way to move, in words (`nil` when everything is covered).
  public var advice: String?

  public init(frame: Int, timestamp: Double, placed: Bool, framesPlaced: Int, framesSeen: Int, markersMapped: Int, headFound: Bool) {
    self.frame = frame
    self.timestamp = timestamp
    self.placed = placed
    self.framesPlaced = framesPlaced
    self.framesSeen = framesSeen
    self.markersMapped = markersMapped
    self.headFound = headFound
  }

  /// What is still missing, in words: sectors of the band, then "face", "left ear", "right ear".
  public var missingNames: [String] {
    missing.map(\.description) + (faceSeen ? [] : ["face"]) + (leftEarSeen ? [] : ["left ear"]) + (rightEarSeen ? [] : ["right ear"])
  }
}
