import Foundation
import HeadScan
import ScanSimulator
import Testing
import _HeadScanSupport
import _TestSupport

/// Automatic landmarks (`detectLandmarks`) against the simulator's exact landmarks.
struct AutomaticLandmarksTests {
  /// The five head types of scripts/accuracy-report.sh.
  static let heads: [(name: String, parameters: HeadShape.Parameters)] = [
    ("normal", .init(cranialIndex: 80, cvai: 0, flattenedSide: .right)),
    ("mild", .init(cranialIndex: 82, cvai: 5, flattenedSide: .right)),
    ("moderate", .init(cranialIndex: 84, cvai: 7.5, flattenedSide: .left)),
    ("severe", .init(cranialIndex: 85, cvai: 10, flattenedSide: .right)),
    ("brachycephalic", .init(cranialIndex: 93, cvai: 2, flattenedSide: .left)),
  ]

  /// The exact surface sampled every 0.7 mm in height and 0.7° in azimuth, with outward
  /// normals and Gaussian noise along them (σ metres), and the cap's stickers as registered.
  static func exactScan(_ head: HeadShape, noise: Double, seed: UInt64) throws -> (cloud: PointSet, markers: [RegisteredMarker]) {
    var random = SeededGenerator(seed: seed)
    var positions: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = []
    for zStep in 0..<Int((head.vertexHeight - HeadShape.bottom - 0.002) / 0.0007) {
      let z = HeadShape.bottom + 0.001 + Double(zStep) * 0.0007
      for k in 0..<514 {
        let p = head.surfacePoint(z: z, phi: Double(k) * 2 * .pi / 514)
        let n = head.normal(at: p)
        let u1 = Double.random(in: Double.ulpOfOne...1, using: &random), u2 = Double.random(in: 0...1, using: &random)
        let gaussian = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        positions.append(SIMD3<Float>(p + noise * gaussian * n))
        normals.append(SIMD3<Float>(n))
      }
    }
    let cap = try CapLayout(head: head, count: 40, seed: seed)
    let markers = cap.markers.map { RegisteredMarker(id: $0.id, corners: $0.corners, observations: 10, rms: 0) }
    return (PointSet(positions: positions, normals: normals), markers)
  }

  /// The five heads' exact surfaces: nose tip and nasion (the truth's, the profile's deepest
  /// point) within 3 mm, tragions within 4 mm, all accepted, and CVAI measured on the cloud in
  /// the automatic landmarks' frame within 0.3 points of CVAI in the true landmarks' frame (the
  /// targets of docs/landmarks.md; CVAI moves 1.4 points per degree of turn, and a nasion 0.3 mm to the side
  /// is 0.25°, so the midline is the nose's mirror axis to a fraction of a bin). The largest,
  /// the severe head's, reads 0.22 points high: its tragions' sideways errors turn the frame 0.23°.
  @Test(arguments: 0..<5) func exactSurfacesGiveTheLandmarks(head index: Int) throws {
    let (name, parameters) = Self.heads[index]
    let head = HeadShape(solving: parameters)
    let (cloud, markers) = try Self.exactScan(head, noise: 0.0003, seed: UInt64(31 + index))
    let found = try detectLandmarks(cloud: cloud, markers: markers)
    for (proposal, (_, point)) in zip(found.all, head.landmarks.named) {
      let error = (proposal.position - point).length * 1000
      let offset = head.clinicalFrame.headFromWorld.rotation * (proposal.position - point) * 1000
      let found = String(
        format: "%@ %@: %.2f mm off (x %+.2f, y %+.2f, z %+.2f), confidence %.2f — %@", name, proposal.name, error, offset.x, offset.y,
        offset.z, proposal.confidence, proposal.detail)
      let limit = proposal.name.hasSuffix("Ear") ? 4.0 : 3.0
      #expect(error <= limit, "\(found)")
      #expect(proposal.confidence >= AutomaticLandmarks.minimumConfidence, "\(found)")
    }
    #expect(try found.accepted() == found.points)
    func cvai(_ frame: HeadFrame) throws -> Double {
      try measureHead(points: cloud.positions.map { frame.headFromWorld.apply(SIMD3<Double>($0)) }).measures.cvai
    }
    let automaticFrame = try found.points.headFrame()
    let x = head.clinicalFrame.headFromWorld.rotation * (automaticFrame.worldFromHead.rotation * SIMD3(1, 0, 0))
    let automatic = try cvai(automaticFrame), placed = try cvai(head.clinicalFrame)
    let cvais = String(
      format: "%@: CVAI %.2f in the automatic landmarks' frame, %.2f in the true one (truth %.2f); the automatic frame's x is turned %+.3f° about the true z",
      name, automatic, placed, head.truth().cvai, atan2(x.y, x.x) * 180 / .pi)
    #expect(abs(automatic - placed) <= 0.3, "\(cvais)")
  }

  @Test func aHeadWithoutEarsIsRefusedNamingTheEars() throws {
    var parameters = HeadShape.Parameters(cranialIndex: 84, cvai: 6)
    parameters.withoutEars = true
    let (cloud, markers) = try Self.exactScan(HeadShape(solving: parameters), noise: 0.0003, seed: 5)
    let found = try detectLandmarks(cloud: cloud, markers: markers)
    #expect(throws: AutomaticLandmarkError.self) { try found.accepted() }
    do {
      _ = try found.accepted()
    } catch {
      guard case .lowConfidence(let weak, _) = error else { Issue.record("\(error)"); return }
      #expect(Set(weak.map(\.name)) == ["leftEar", "rightEar"], "\(error)")
      #expect(error.description.contains("'leftEar'") && error.description.contains("'rightEar'"))
    }
  }

  @Test func aHeadWithoutAFaceIsRefusedNamingTheNose() throws {
    var parameters = HeadShape.Parameters(cranialIndex: 84, cvai: 6)
    parameters.withoutFace = true
    let (cloud, markers) = try Self.exactScan(HeadShape(solving: parameters), noise: 0.0003, seed: 6)
    let found = try detectLandmarks(cloud: cloud, markers: markers)
    do {
      _ = try found.accepted()
      Issue.record("a head without a face was accepted")
    } catch {
      guard case .lowConfidence(let weak, _) = error else { Issue.record("\(error)"); return }
      #expect(weak.map(\.name).contains("noseTip"), "\(error)")
    }
  }
}
