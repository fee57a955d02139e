import Annotation
import Foundation
import HeadScan
import Testing
import _TestSupport

/// The session's geometry for ghost points: projecting world points into frames, and the view
/// where accepting a proposal places a landmark.
struct AnnotationSessionTests {
  @Test func projectsWorldPointsWhereTheFramesSeeThem() async throws {
    let f = try await AnnotationFixture.shared.value
    let session = try f.session()
    for name in LandmarkFile.names {
      guard case .pixel(let frame, let u, let v)? = f.truePixels.positions[name], session.frames[frame].registered else { continue }
      // The true point, projected through the frame's estimated pose, lands near its true pixel
      // (the registration's pose error moves it a little) and is not hidden.
      let point = try f.trueWorldPoint(name, reconstruction: session.reconstruction)
      let depth = try session.scan.frame(at: frame).depth
      let seen = try #require(session.projection(of: point, inFrame: frame, depth: depth))
      #expect(
        abs(seen.u - u) < 3 && abs(seen.v - v) < 3,
        "\(String(format: "%@ projects %.2f px from its true pixel", name, ((seen.u - u) * (seen.u - u) + (seen.v - v) * (seen.v - v)).squareRoot()))")
      #expect(seen.visible)
      // Accepting it as a proposal: a registered frame that shows it, and a pixel there that
      // lifts back to within 2 mm of the point.
      let view = try #require(try session.bestView(of: point))
      #expect(session.frames[view.frame].registered)
      let lift = session.lift(name, at: .pixel(frame: view.frame, u: view.u, v: view.v), path: "proposal")
      let lifted = try #require(lift.point)
      #expect((lifted - point).length < 0.002, "\(name): \((lifted - point).length * 1000) mm")
    }
    // Behind a frame's camera: no projection in that frame.
    for status in session.frames where status.registered {
      let pose = try #require(session.reconstruction.frames[status.frame].worldFromCamera)
      #expect(session.projection(of: pose.apply(SIMD3(0, 0, -0.1)), inFrame: status.frame, depth: nil) == nil)
    }
  }

  @Test func liftWarnsAboutFramesWithoutPoseOrPixelsWithoutDepth() async throws {
    let f = try await AnnotationFixture.shared.value
    let session = try f.session()
    if let unregistered = session.frames.first(where: { !$0.registered }) {
      let lift = session.lift("nasion", at: .pixel(frame: unregistered.frame, u: 320, v: 240), path: "l.json")
      #expect(lift.point == nil && !lift.registered && lift.warning?.contains("no pose") == true)
    }
    // A corner pixel of a registered frame looks past the head: no depth there.
    let registered = try #require(session.frames.first { $0.registered })
    let depth = try session.scan.frame(at: registered.frame).depth
    if !depth[0, 0].isFinite {
      let lift = session.lift("noseTip", at: .pixel(frame: registered.frame, u: 0, v: 0), path: "l.json")
      #expect(!lift.depthAtPixel && lift.warning != nil)
    }
  }
}

/// The one file the page writes never replaces the scan, even through a link made while the page
/// was open.
struct LandmarkStoreTests {
  @Test func aLandmarksFileThatLeadsToTheScanIsNotWritten() throws {
    try TestFiles.withTemporaryFolder { folder in
      let scanPath = folder.appendingPathComponent("a.rgbdscan").path
      try FileManager.default.copyItem(atPath: TestFiles.fixture("scans/tiny.rgbdscan").path, toPath: scanPath)
      let original = try Data(contentsOf: URL(fileURLWithPath: scanPath))
      let landmarks = folder.appendingPathComponent("a.landmarks.json").path
      try FileManager.default.createSymbolicLink(atPath: landmarks, withDestinationPath: scanPath)
      let scan = try openScan(at: scanPath)
      let file = try LandmarkFile(path: TestFiles.fixture("scans/tiny.landmarks.json").path)
      #expect {
        try LandmarkStore(path: landmarks).save(file, scan: scan)
      } throws: { error in
        (error as? FileProblem)?.problem.contains("leads to the scan") == true
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: scanPath)) == original)
      // The backup a save writes first is checked too.
      try FileManager.default.removeItem(atPath: landmarks)
      try FileManager.default.copyItem(atPath: TestFiles.fixture("scans/tiny.landmarks.json").path, toPath: landmarks)
      try FileManager.default.createSymbolicLink(atPath: landmarks + ".bak", withDestinationPath: scanPath)
      #expect {
        try LandmarkStore(path: landmarks).save(file, scan: scan)
      } throws: { error in
        (error as? FileProblem)?.path == landmarks + ".bak"
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: scanPath)) == original)
    }
  }
}
