import ArucoBridge
import Foundation
import PointCloud
@testable import Registration
import Reconstruction
import ScanIO
import ScanSimulator
import Testing
import _TestSupport

/// The focal-length check against truth: an exact synthetic marker, the real TrueDepth board
/// with its calibrated focal length, and simulated scans whose header states a wrong one.
struct IntrinsicsCheckTests {
  static let board = TestFiles.sharedData("truedepth-board/ipad-pro-12.9-4th-gen")
  /// The source's calibrated focal length of the board recording (its README), pixels at 640×480.
  static let boardCalibratedFocalLength = 602.38

  /// Every other frame of `scan` observed (half the time of all, enough markers).
  static func observeHalf(_ scan: any ScanReader, options: ObservationOptions = .default) throws -> ScanObservations {
    let detector = try MarkerDetector(dictionary: scan.header.markers.dictionary, parameters: options.detector)
    let frames = try stride(from: 0, to: scan.frameCount, by: 2).map { index in
      try observeFrame(
        try scan.frame(at: index), detector: detector, capMarkerCount: scan.header.capMarkerCount,
        sideLength: scan.header.markers.sideLength, options: options)
    }
    return ScanObservations(
      context: ScanContext(path: scan.path, colour: scan.header.colorIntrinsics, markerSideLength: scan.header.markers.sideLength),
      frames: frames)
  }

  @Test func anExactMarkerShowsTheTrueFocalLength() throws {
    // A 16 mm marker 30 cm away, turned 40° about a skew axis, projected with fx = fy = 600.
    let truth = CameraIntrinsics(fx: 600, fy: 600, cx: 319.5, cy: 239.5, width: 640, height: 480)
    let pose = RigidTransform(rotation: Rotation3(axis: SIMD3(1, 0.5, 0).normalized, angle: 0.7), translation: SIMD3(0.03, -0.02, 0.3))
    let corners = RigidTransform.squareModel(side: 0.016).map(pose.apply)
    let pixels = corners.compactMap { truth.project($0) }
    let marker = LiftedMarker(
      id: 1, pixelCorners: pixels, cameraCorners: corners, cameraFromMarker: pose, residual: 0, method: .depth,
      cornersWithoutDepth: 0, triangulationCorners: pixels)
    // The stated intrinsics' focal length does not enter: only pixels, depths and the principal point.
    var stated = truth
    stated.fx = 640
    stated.fy = 640
    let sample = try #require(focalSample(marker, frame: 0, colour: stated, side: 0.016, bend: .zero))
    #expect(abs(sample.focalLength - 600) < 1e-6)
    // Corners 0.3 px inside each side (0.3·√2 along the diagonal) read the focal length short by about 2·0.3/ℓ.
    let centre = pixels.reduce(SIMD2<Double>.zero, +) / 4
    var biased = marker
    biased.pixelCorners = pixels.map { p in
      let inward = centre - p
      return p + 0.3 * 2.squareRoot() * inward / (inward * inward).sum().squareRoot()
    }
    let short = try #require(focalSample(biased, frame: 0, colour: stated, side: 0.016, bend: .zero))
    let expected = 600 * (1 - 2 * 0.3 / sample.apparentSide)
    #expect(abs(short.focalLength - expected) < 0.15 * (600 - expected))
  }

  /// A printed square laid on a sphere keeping its lengths along the surface: each corner at arc
  /// `s = L/√2` from the centre, so opposite corners are `2R·sin(s/R)` apart and adjacent ones
  /// `2R·sin(γ/2)` with `cos γ = cos²(s/R)`.
  @Test func aBentSquaresChordsAreThoseOnASphere() {
    let flat = bentSquareChords(side: 0.016, bend: .zero)
    #expect(abs(flat.side - 0.016) < 1e-12 && abs(flat.diagonals.x - 0.016 * 2.squareRoot()) < 1e-12)
    for radius in [0.05, 0.07, 0.1] {
      let s = 0.016 / 2.squareRoot(), gamma = acos(cos(s / radius) * cos(s / radius))
      for sign in [1.0, -1.0] {
        let bent = bentSquareChords(side: 0.016, bend: SIMD2(repeating: sign / radius))
        #expect(abs(bent.diagonals.x - 2 * radius * sin(s / radius)) < 1e-12 && bent.diagonals.x == bent.diagonals.y)
        #expect(abs(bent.side - 2 * radius * sin(gamma / 2)) < 1e-12)
      }
    }
    // On a 70 mm sphere a 16 mm sticker's corners are 0.43 % closer than printed, sides and diagonals alike.
    let head = bentSquareChords(side: 0.016, bend: SIMD2(repeating: 1 / 0.07))
    #expect(abs(1 - head.side / 0.016 - 0.00435) < 0.00001 && abs(1 - head.diagonals.x / (0.016 * 2.squareRoot()) - 0.00435) < 0.00001)
  }

  /// A decal sticker on a 70 mm sphere seen 30° off its normal: taken as flat, its corners read
  /// the focal length short by the chords' shortfall (0.43 %); with the bend measured from the
  /// sticker's surface where the diagonals cross their middles, within 0.1 %. The bend itself
  /// comes out within 35 % of the sphere's curvature: the surface point on the ray through the
  /// diagonal's middle in the image is not the arc's middle when seen obliquely.
  @Test func aStickerBentOnTheHeadShowsTheTrueFocalLength() throws {
    let truth = CameraIntrinsics(fx: 600, fy: 600, cx: 319.5, cy: 239.5, width: 640, height: 480)
    let radius = 0.07, s = 0.016 / 2.squareRoot()
    // The sphere's centre 37 cm away; the sticker's centre where the direction `n` leaves it.
    let centre = SIMD3<Double>(0.02, -0.01, 0.37)
    let n = SIMD3<Double>(0.5, -0.3, -1).normalized
    let x = SIMD3<Double>(0, 1, 0).cross(n).normalized, y = n.cross(x)
    // Corners along the diagonals' great circles (0 and 2 along x + y, 1 and 3 along y − x).
    let directions = [(x + y).normalized, (y - x).normalized, -(x + y).normalized, (x - y).normalized]
    let corners = directions.map { centre + radius * (cos(s / radius) * n + sin(s / radius) * $0) }
    let pixels = try corners.map { try #require(truth.project($0)) }
    // The sphere's depth where the ray through an image point meets its near side.
    func depth(at p: SIMD2<Double>) -> Double {
      let ray = SIMD3((p.x - truth.cx) / truth.fx, (p.y - truth.cy) / truth.fy, 1)
      let a = ray.dot(ray), b = -2 * ray.dot(centre), c = centre.dot(centre) - radius * radius
      return (-b - (b * b - 4 * a * c).squareRoot()) / (2 * a)
    }
    let middles = SIMD2(depth(at: (pixels[0] + pixels[2]) / 2), depth(at: (pixels[1] + pixels[3]) / 2))
    let pose = RigidTransform(rotation: Rotation3(axis: SIMD3(0, 0, 1), angle: 0), translation: centre + radius * n)
    var marker = LiftedMarker(
      id: 3, pixelCorners: pixels, cameraCorners: corners, cameraFromMarker: pose, residual: 0, method: .depth,
      cornersWithoutDepth: 0, triangulationCorners: pixels, diagonalMidpointDepths: middles)
    let flat = try #require(focalSample(marker, frame: 0, colour: truth, side: 0.016, bend: .zero))
    #expect(flat.focalLength < 600 * (1 - 0.003) && flat.focalLength > 600 * (1 - 0.006), "\(flat.focalLength)")
    // The bend is measured with the check's first, flat estimate (within 1 % of the truth).
    for lifting in [594.0, 600, 606] {
      let bend = try #require(stickerBends([marker], colour: truth, focalLength: lifting)[3])
      #expect(abs(bend.x * radius - 1) < 0.35 && abs(bend.y * radius - 1) < 0.35, "\(lifting): \(bend)")
    }
    let bend = try #require(stickerBends([marker], colour: truth, focalLength: flat.focalLength)[3])
    let bent = try #require(focalSample(marker, frame: 0, colour: truth, side: 0.016, bend: bend))
    #expect(abs(bent.focalLength - 600) < 0.6 && abs(bent.focalLength - 600) < 0.3 * (600 - flat.focalLength), "\(bent.focalLength)")
    // A marker without its surface's middles is taken as flat.
    marker.diagonalMidpointDepths = nil
    #expect(stickerBends([marker], colour: truth, focalLength: 600).isEmpty)
  }

  @Test(.enabled(if: board != nil, "needs ../shared/data/truedepth-board"))
  func theRealBoardAgreesWithItsCalibration() throws {
    let scan = try openScan(at: try #require(Self.board).path)
    let observed = try Self.observeHalf(scan)
    let check = try #require(checkIntrinsics(observed))
    #expect(abs(check.statedFocalLength - 595.34) < 0.01, "\(check)")
    #expect(check.consistent, "\(check)")
    #expect(abs(check.focalLengthEstimate / Self.boardCalibratedFocalLength - 1) <= 0.015, "\(check)")
    #expect(check.focalLengthUncertainty > 0 && check.focalLengthUncertainty < 0.01 * check.focalLengthEstimate, "\(check)")
    // OpenCV's own corners (no edge refinement) sit inside the printed square: measured
    // against the estimate, a few tenths of a pixel, reading sides ~2 % short.
    var raw = ObservationOptions.default
    raw.refineCornersAlongEdges = false
    let unrefined = try Self.observeHalf(scan, options: raw)
    var shortfalls: [Double] = [], biases: [Double] = []
    for (index, frame) in unrefined.frames.enumerated() {
      for marker in frame.lifted where marker.method == .depth && marker.facing >= 0.6 {
        guard let s = focalSample(marker, frame: index, colour: unrefined.context.colour, side: unrefined.context.markerSideLength, bend: .zero) else { continue }
        shortfalls.append(1 - s.focalLength / check.focalLengthEstimate)
        biases.append(s.apparentSide * (1 - s.focalLength / check.focalLengthEstimate) / 2)
      }
    }
    let bias = biases.sorted()[biases.count / 2], shortfall = shortfalls.sorted()[shortfalls.count / 2]
    let unrefinedCorners = "unrefined corners: median bias \(bias) px inward, sides \(100 * shortfall) % short"
    #expect(bias > 0.15 && bias < 0.5, "\(unrefinedCorners)")
    #expect(shortfall > 0.01 && shortfall < 0.04, "\(unrefinedCorners)")
  }

  /// 10 mm stickers 32–45 cm away have cells of 2.2–3.1 px, too small for the lifting's edge
  /// fitting: the check reads them from corners fitted to their edges for it alone, where
  /// OpenCV's corners (about 0.3 px inside the square) read the focal length percents short.
  @Test func smallFarStickersReadTheFocalLengthFromTheirEdges() throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions(preset: .realistic)
      o.frames = 40
      o.seed = 108
      o.markerSide = 0.010
      o.path.surfaceDistance = 0.32...0.45
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let truth = try #require(try simulateScan(o, to: path, format: .stream).truth.conditions).renderedIntrinsics.fx
      let scan = try openScan(at: path)
      let observed = try observeScan(scan)
      #expect(observed.frames.contains { $0.lifted.contains { $0.focalCorners != nil } })
      let check = try #require(checkIntrinsics(observed))
      var detectorCorners = ObservationOptions.default
      detectorCorners.focalCheckSmallestCell = nil
      let without = try #require(checkIntrinsics(try observeScan(scan, options: detectorCorners)))
      let error = check.focalLengthEstimate / truth - 1, errorWithout = without.focalLengthEstimate / truth - 1
      #expect(abs(error) <= 0.01 && check.edgeFittedCorners, "edge-fitted: \(check)")
      #expect(errorWithout < -0.015 && abs(error) < abs(errorWithout) / 2, "OpenCV's corners: \(without)")
    }
  }

  @Test(arguments: [0.06, -0.06])
  func aWrongStatedFocalLengthIsCaught(error: Double) throws {
    try TestFiles.withTemporaryFolder { folder in
      var o = SimulationOptions()
      o.frames = 16
      o.seed = 5
      o.focalError = error
      let path = folder.appendingPathComponent("scan.rgbdscan").path
      let simulated = try simulateScan(o, to: path, format: .stream)
      let conditions = try #require(simulated.truth.conditions)
      let scan = try openScan(at: path)
      let check = try #require(checkIntrinsics(try observeScan(scan)))
      #expect(abs(check.statedFocalLength - conditions.statedIntrinsics.fx) < 1e-9, "\(check)")
      #expect(!check.consistent && check.warning != nil, "\(check)")
      #expect(abs(check.focalLengthEstimate / conditions.renderedIntrinsics.fx - 1) <= 0.01, "\(check)")
      #expect(abs(check.relativeDifference - error) <= 0.012, "stated \(error): \(check)")
    }
  }

  @Test func aRefocusedScanScalesFocalLengthsOnly() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scan = try MetricScaleTests.smallScan(frames: 2, in: folder)
      let stated = scan.header.colorIntrinsics
      let refocused = try RefocusedScan(scan, focalLength: stated.fx * 0.9)
      #expect(abs(refocused.factor - 0.9) < 1e-12 && refocused.statedFocalLength == stated.fx)
      #expect(abs(refocused.header.colorIntrinsics.fx - 0.9 * stated.fx) < 1e-9)
      let frame = try refocused.frame(at: 1), original = try scan.frame(at: 1)
      for (k, o) in [(frame.color.intrinsics, original.color.intrinsics), (frame.depth.intrinsics, original.depth.intrinsics)] {
        #expect(abs(k.fx - 0.9 * o.fx) < 1e-9 && abs(k.fy - 0.9 * o.fy) < 1e-9 && k.cx == o.cx && k.cy == o.cy)
      }
      #expect(sameContents(frame.depth.metres.map(\.bitPattern), original.depth.metres.map(\.bitPattern)) && sameContents(frame.color.bgra, original.color.bgra))
      var spare: ScanFrame? = try scan.frame(at: 0)
      try refocused.readFrame(at: 1, into: &spare)
      #expect(spare?.color.intrinsics == frame.color.intrinsics && spare?.depth.intrinsics == frame.depth.intrinsics)
      #expect(sameContents(spare?.depth.metres.map(\.bitPattern) ?? [], frame.depth.metres.map(\.bitPattern)) && sameContents(spare?.color.bgra ?? [], frame.color.bgra))
      for bad in [0.0, -5, .nan, .infinity] {
        #expect(throws: ReconstructionError.self) { _ = try RefocusedScan(scan, focalLength: bad) }
      }
    }
  }

  @Test func aFailureWithAContradictedFocalLengthSaysSo() {
    let check = IntrinsicsCheck(
      statedFocalLength: 628.58, focalLengthEstimate: 592.4, focalLengthUncertainty: 0.14, cornerBias: 0.01, markersUsed: 46,
      framesUsed: 15, smallestSide: 36.6, limit: 0.02)
    #expect(!check.consistent && abs(check.relativeDifference - 0.0611) < 0.001)
    let failure = FocalLengthMismatch(underlying: .noWellSeenMarker(path: "scan.rgbdscan", best: "marker 25"), check: check)
    let line = failure.description
    #expect(line.hasPrefix("scan.rgbdscan: no marker's position is determined") && line.contains("628.6 px") && line.contains("592.4"))
    #expect(line.contains("+6.1 %") && line.contains("--focal-length estimate") && !line.contains("\n"))
    var agreeing = check
    agreeing.focalLengthEstimate = 620
    #expect(agreeing.consistent && agreeing.warning == nil)
  }
}
