import Annotation
import Foundation
import HeadScan
import Reconstruction
import ScanSimulator

#if canImport(Glibc)
import Glibc
#endif

/// One small simulated scan and one running annotation server over it, shared by the tests of
/// this target (reconstructing it once keeps them fast), removed when the test process exits.
struct AnnotationFixture: Sendable {
  /// The scan, its folder, the simulator's truth and its landmarks (the true pixels).
  var folder: String
  var scanPath: String
  var truth: SimulationTruth
  var truePixels: LandmarkFile
  /// The running server and its port.
  var server: AnnotationServer
  var port: Int
  /// Where the server saves: the scan's companion landmarks file.
  var landmarksPath: String { server.configuration.landmarksPath ?? companionBase(of: scanPath) + ".landmarks.json" }
  /// The page's address path, `/TOKEN/`.
  var base: String { "/\(server.token)/" }

  static let shared = Task<AnnotationFixture, any Error> { try await make() }

  /// A 36-frame 480×360 orbit of a plagiocephalic head (CI 84, CVAI 6, right flattening): small,
  /// so the reconstruction the tests share takes seconds.
  private static func make() async throws -> AnnotationFixture {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("headscan-annotate-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    scratchFolder = folder
    atexit { if let folder = scratchFolder { try? FileManager.default.removeItem(atPath: folder) } }
    var options = SimulationOptions()
    options.frames = 36
    options.width = 480
    options.height = 360
    options.seed = 8
    options.head = .init(cranialIndex: 84, cvai: 6, flattenedSide: .right)
    let scanPath = folder + "/scan.rgbdscan"
    let simulated = try simulateScan(options, to: scanPath, format: .stream)
    // The simulator writes the true pixels as the scan's landmarks: move them aside, so the
    // page starts with no landmarks and the tests place them.
    let truePixelsPath = folder + "/true-pixels.json"
    try FileManager.default.moveItem(atPath: simulated.landmarksPath, toPath: truePixelsPath)
    let server = try AnnotationServer(configuration: .init(scanPath: scanPath))
    let (urls, continuation) = AsyncStream.makeStream(of: String.self)
    Task { try await server.run(stopOnInterrupt: false, onListening: { continuation.yield($0) }) }
    var iterator = urls.makeAsyncIterator()
    guard let url = await iterator.next(), let port = URLComponents(string: url)?.port else {
      throw HTTPProbe.Failure(description: "the server did not report its address")
    }
    let fixture = AnnotationFixture(
      folder: folder, scanPath: scanPath, truth: simulated.truth, truePixels: try LandmarkFile(path: truePixelsPath), server: server,
      port: port)
    try await fixture.waitUntilReady()
    return fixture
  }

  /// Polls `api/status` until the reconstruction is done (at most 5 minutes).
  func waitUntilReady() async throws { try await Self.waitUntilReady(port: port, base: base) }

  /// Polls `api/status` of the page at `port` and `base` until the reconstruction is done (at most 5 minutes).
  static func waitUntilReady(port: Int, base: String) async throws {
    let deadline = Date().addingTimeInterval(300)
    while Date() < deadline {
      let reply = try HTTPProbe.get(port: port, base + "api/status")
      if reply.text.contains("\"ready\"") { return }
      if reply.text.contains("\"failed\"") { throw HTTPProbe.Failure(description: reply.text) }
      try await Task.sleep(for: .milliseconds(200))
    }
    throw HTTPProbe.Failure(description: "reconstruction did not finish in 5 minutes")
  }


  /// The reconstruction the server made (same values the page works on).
  func session() throws -> AnnotationSession {
    guard let session = server.preparedSession else { throw HTTPProbe.Failure(description: "no session") }
    return session
  }

  /// A landmark's true point in the reconstruction's world: the truth's head-frame point moved
  /// by the truth pose of the marker the registration chose as the world (docs/formats.md, world frame).
  func trueWorldPoint(_ name: String, reconstruction: HeadReconstruction) throws -> SIMD3<Double> {
    // Through the best rigid fit of the whole marker map to the true stickers: one sticker's
    // pose would carry its own error, over the lever arm to the landmark, into the comparison.
    let truthMarkers = Dictionary(uniqueKeysWithValues: truth.markers.map { ($0.id, $0) })
    let pairs = reconstruction.markers.compactMap { m in truthMarkers[m.id].map { (m.corners, $0.corners) } }
    guard let fit = RigidTransform.bestFit(from: pairs.flatMap(\.0), to: pairs.flatMap(\.1)),
      let point = truth.landmarks.named.first(where: { $0.0 == name })?.1
    else { throw HTTPProbe.Failure(description: "no truth for \(name)") }
    return fit.transform.inverse.apply(point)
  }

  /// The files in the scan's folder (names), to check what the server wrote.
  func folderContents() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder)) }
}

nonisolated(unsafe) private var scratchFolder: String?
