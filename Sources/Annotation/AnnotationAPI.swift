import HeadScan

/// The JSON the page and the server exchange (all under `/TOKEN/api/`). Points in the world
/// frame are metres; pixels follow OpenCV's convention (docs/formats.md).
enum AnnotationAPI {
  /// A landmark as the page holds it: an entry of the landmarks file.
  typealias Entry = LandmarkFile.Entry

  struct Landmarks: Codable, Sendable {
    var landmarks: [Entry]

    /// Name → position, each name known and given once.
    /// - Throws: ``AnnotationError/badRequest(_:)``.
    func positions() throws(AnnotationError) -> [String: LandmarkFile.Position] {
      do { return try LandmarkFile.positions(of: landmarks, complete: false) } catch { throw .badRequest(error.description) }
    }

    /// A complete landmarks file.
    /// - Throws: ``AnnotationError/badRequest(_:)`` naming a missing landmark.
    func file() throws(AnnotationError) -> LandmarkFile {
      let positions = try positions()
      if let missing = LandmarkFile.names.first(where: { positions[$0] == nil }) {
        throw .badRequest("landmark '\(missing)' is not placed yet")
      }
      return LandmarkFile(positions: positions)
    }
  }

  struct Status: Codable, Sendable {
    var state: String
    var stage: String?
    var done: Int?
    var total: Int?
    var error: String?
  }

  struct Proposal: Codable, Sendable {
    var name: String
    var point: [Double]
    var confidence: Double
  }

  struct Scan: Codable, Sendable {
    var scan: String
    var landmarksPath: String
    var width: Int
    var height: Int
    var frames: [FrameStatus]
    var landmarks: [Entry]
    var proposals: [Proposal]
    var proposalProblem: String?
    var markersDetected: Int
    var framesRegistered: Int
  }

  struct Marker: Codable, Sendable {
    var id: Int
    var corners: [[Double]]
    /// Overlap colour of the recorder app: `red` first seen in this frame, `green` seen before.
    var state: String
  }

  struct ProjectedProposal: Codable, Sendable {
    var name: String
    var u: Double
    var v: Double
    var visible: Bool
    var confidence: Double
  }

  struct Frame: Codable, Sendable {
    var frame: Int
    var registered: Bool
    var rejection: String?
    var markers: [Marker]
    var proposals: [ProjectedProposal]
  }

  struct Transform: Codable, Sendable {
    /// Row-major 3 × 3.
    var rotation: [Double]
    var translation: [Double]

    init(_ t: RigidTransform) {
      let r = t.rotation
      rotation = [r.r0.x, r.r0.y, r.r0.z, r.r1.x, r.r1.y, r.r1.z, r.r2.x, r.r2.y, r.r2.z]
      translation = [t.translation.x, t.translation.y, t.translation.z]
    }
  }

  struct Cloud: Codable, Sendable {
    /// x, y, z of each point, world, metres.
    var points: [Float]
    /// r, g, b of each point.
    var colors: [UInt8]
    var overviewFromWorld: Transform
  }

  struct Lift: Codable, Sendable {
    var name: String
    var point: [Double]?
    var depthAtPixel: Bool
    var registered: Bool
    var warning: String?
  }

  /// The measures the landmarks give, by report key (`cvai`, …, `measurementLevel`, `severity`).
  typealias Preview = [String: Double]

  struct Evaluation: Codable, Sendable {
    var lifts: [Lift]
    var preview: Preview?
    var previewProblem: String?
    var headFromWorld: Transform?
  }

  struct AcceptRequest: Codable, Sendable {
    var name: String
  }

  struct Saved: Codable, Sendable {
    var saved: String
    var backup: String?
  }

  struct Problem: Codable, Sendable {
    var error: String
  }
}
