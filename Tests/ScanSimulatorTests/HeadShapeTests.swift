import CVAI
import Foundation
import PointCloud
import Testing
import ScanSimulator

struct HeadShapeTests {
  @Test(arguments: [(80.0, 0.0), (78.0, 4.5), (82.0, 8.0), (84.0, 12.0), (92.0, 2.0)])
  func solvedHeadHitsItsTargets(ci: Double, cvai: Double) {
    let head = HeadShape(solving: .init(length: 0.150, cranialIndex: ci, cvai: cvai, flattenedSide: .left))
    let truth = head.truth()
    #expect(abs(truth.cvai - cvai) < 0.01)
    #expect(abs(truth.ci - ci) < 0.01)
    #expect(truth.severity == choaSeverity(cvai: cvai))
    // Every layer of the band is a scaled copy: perimeter ∝ g(h), the vertical profile.
    // The measurement level's parabola fit over the longest layer ± 10 mm (docs/head-frame-and-measures.md),
    // done here by hand on g, must agree.
    let heights = (12...32).map(Double.init)
    let g = heights.map { head.profile($0 / 1000) }
    #expect(abs(truth.measurementLevel - Self.parabolaVertex(heights, g)) < 1e-6)
    #expect(truth.circumference > 380 && truth.circumference < 480)
    if cvai > 0 { #expect(truth.flattenedSide == .leftPosterior) }
  }

  /// Vertex of the least-squares parabola through (x, y), from the closed-form sums.
  static func parabolaVertex(_ x: [Double], _ y: [Double]) -> Double {
    let n = Double(x.count)
    let mx = x.reduce(0, +) / n
    let t = x.map { $0 - mx }
    let s2 = t.map { $0 * $0 }.reduce(0, +) / n, s3 = t.map { $0 * $0 * $0 }.reduce(0, +) / n
    let s4 = t.map { $0 * $0 * $0 * $0 }.reduce(0, +) / n
    let my = y.reduce(0, +) / n
    let sy = zip(t, y).map { $0 * ($1 - my) }.reduce(0, +) / n
    let s2y = zip(t, y).map { ($0 * $0 - s2) * ($1 - my) }.reduce(0, +) / n
    // y − ȳ = b t + a (t² − s2): solve the 2×2 normal equations.
    let det = s2 * (s4 - s2 * s2) - s3 * s3
    let b = (sy * (s4 - s2 * s2) - s3 * s2y) / det
    let a = (s2 * s2y - s3 * sy) / det
    return mx - b / (2 * a)
  }

  @Test func landmarksDefineTheModelFrameUpToAnInPlaneTurn() throws {
    let head = HeadShape(solving: .init(cvai: 10, flattenedSide: .right))
    let l = head.landmarks
    #expect(abs(l.nasion.z) < 1e-12 && abs(l.leftEar.z) < 1e-12 && abs(l.rightEar.z) < 1e-12)
    #expect(l.noseTip.z < -0.005 && l.noseTip.x > l.nasion.x)
    #expect(abs(l.leftEar.x) < 1e-9 && abs(l.rightEar.x) < 1e-9)
    let frame = head.clinicalFrame
    let zAxis = frame.worldFromHead.rotation * SIMD3(0, 0, 1)
    #expect((zAxis - SIMD3(0, 0, 1)).length < 1e-9)
  }

  /// The truth's nasion (straight ahead in the ears' plane) is the anatomical one: the deepest
  /// point of the midline profile between the nose tip and the forehead (the widest layer),
  /// found here by a 0.05 mm scan of the profile, on heads of 130–170 mm and CI 78–93.
  @Test(arguments: [(0.150, 80.0, 0.0), (0.150, 85, 10), (0.150, 93, 2), (0.130, 82, 5), (0.170, 78, 7.5)])
  func truthNasionIsTheProfilesDeepestPoint(length: Double, ci: Double, cvai: Double) {
    let head = HeadShape(solving: .init(length: length, cranialIndex: ci, cvai: cvai, flattenedSide: .right))
    let l = head.landmarks
    let top = head.parameters.measurementHeight
    let steps = Int(((top - l.noseTip.z) / 0.00005).rounded(.down))
    let profile = (1..<steps).map { head.surfacePoint(z: l.noseTip.z + Double($0) * 0.00005, phi: 0) }
    guard let deepest = profile.min(by: { $0.x < $1.x }) else {
      Issue.record("no profile between nose tip and forehead")
      return
    }
    #expect((deepest - l.nasion).length < 0.0005, "deepest point at z = \(deepest.z * 1000) mm")
    // A real concavity: the nose tip stands well in front of it and the forehead above rises.
    #expect(l.noseTip.x - l.nasion.x > 0.005 && head.surfacePoint(z: 0.008, phi: 0).x - l.nasion.x > 0.002)
    #expect(head.noseRoot > 0 && head.noseRoot < HeadShape.bumpCeiling)
  }

  /// The landmarks' frame of a plagiocephalic head is not its plane of mirror symmetry: the ear on
  /// the flattened side sits nearer the axis, the ears' midpoint moves, and x = nasion − midpoint
  /// turns. A frame on the exact mirror plane (the model's y = 0, ears made symmetric) is off the
  /// landmarks' by 0.9–1.7° and reads CVAI 0.6–1.0 points higher: the floor of any automatic frame
  /// built on reflective symmetry, against the automatic frame's 0.5-point target (docs/method.md).
  @Test(arguments: [(0.0, 80.0, HeadShape.FlattenedQuarter.right), (5, 82, .right), (7.5, 84, .left), (10, 85, .right)])
  func mirrorPlaneFrameTurnsAwayFromTheLandmarksFrame(cvai: Double, ci: Double, side: HeadShape.FlattenedQuarter) throws {
    let head = HeadShape(solving: .init(cranialIndex: ci, cvai: cvai, flattenedSide: side))
    let l = head.landmarks
    let halfWidth = (abs(l.leftEar.y) + abs(l.rightEar.y)) / 2, mid = (l.leftEar + l.rightEar) / 2
    let mirror = try HeadFrame(
      nasion: l.nasion, noseTip: l.noseTip, leftEar: SIMD3(mid.x, halfWidth, mid.z), rightEar: SIMD3(mid.x, -halfWidth, mid.z))
    let turn = (head.clinicalFrame.headFromWorld.rotation.transposed * mirror.headFromWorld.rotation).angle * 180 / .pi
    let truth = head.truth()
    let byMirror = HeadShapeMeasures(contour: head.layerContour(height: truth.measurementLevel / 1000, frame: mirror))!
    let mirrored = String(format: "CVAI %.1f: mirror-plane frame turned %.2f°, CVAI %.2f against the landmarks' %.2f", cvai, turn, byMirror.cvai, truth.cvai)
    if cvai == 0 {
      #expect(turn < 1e-6 && abs(byMirror.cvai - truth.cvai) < 1e-6, "\(mirrored)")
    } else {
      // Ears 2–4 mm out of symmetry: a turn of about a degree, more with a deeper flattening.
      #expect(turn > 0.7 && turn < 2.0, "\(mirrored)")
      #expect(byMirror.cvai - truth.cvai > 0.5 && byMirror.cvai - truth.cvai < 1.1, "\(mirrored)")
    }
  }

  @Test func surfacePointsLieOnTheImplicitSurface() {
    let head = HeadShape(solving: .init(cvai: 6))
    for z in stride(from: -0.1, through: 0.1, by: 0.01) {
      for phi in stride(from: -3.0, through: 3.0, by: 0.5) {
        #expect(abs(head.implicit(head.surfacePoint(z: z, phi: phi))) < 1e-12)
      }
    }
  }
}
