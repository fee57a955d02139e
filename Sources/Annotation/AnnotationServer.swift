import Foundation
import HeadScan
import Hummingbird
import Logging

/// The local annotation page of one scan: a web server on the loopback interface, reachable only
/// with a random token made for this run, serving the scan's frames and the page's own files,
/// and writing nothing but the landmarks file.
///
/// ```swift
/// let server = try AnnotationServer(configuration: .init(scanPath: "scans/infant.rgbdscan"))
/// try await server.run { url in print("open \(url)") }
/// ```
/// The scan is reconstructed once when ``run(stopOnInterrupt:onListening:progress:)`` starts; the
/// page shows the progress and works on the result.
public struct AnnotationServer: Sendable {
  /// What to serve and where.
  public struct Configuration: Sendable {
    /// The scan: a `.rgbdscan` file or a TUM-style folder.
    public var scanPath: String
    /// The landmarks file to read (if present) and write; default the scan's companion name
    /// plus `.landmarks.json`.
    public var landmarksPath: String?
    /// Loopback address to listen on: 127.0.0.0/8, `::1` or `localhost` (anything else is refused).
    public var host = "127.0.0.1"
    /// Port; 0 lets the system pick a free one.
    public var port = 0
    /// Automatic proposals shown as ghost points, if any.
    public var proposer: LandmarkProposer?
    /// Worker threads of the reconstruction (`nil`: one a core this process may use).
    public var workers: Int?

    public init(scanPath: String, landmarksPath: String? = nil) {
      self.scanPath = scanPath
      self.landmarksPath = landmarksPath
    }
  }

  /// The settings this server runs with.
  public let configuration: Configuration
  /// The secret every request's path starts with (32 hex digits, new each run).
  public let token: String
  let scan: any ScanReader
  let store: LandmarkStore
  let initialLandmarks: LandmarkFile?
  let assets: PageAssets
  let state = PreparationState()

  /// Checks the address, opens the scan and reads the landmarks file if there is one; no
  /// reconstruction yet.
  /// - Throws: ``AnnotationError`` for a non-loopback host or a bad port; `ScanIOError` naming
  ///   the scan or the landmarks file; `LandmarkError` for landmarks outside the scan.
  public init(configuration: Configuration) throws {
    guard Self.isLoopback(configuration.host) else { throw AnnotationError.notLoopback(host: configuration.host) }
    guard (0...65_535).contains(configuration.port) else { throw AnnotationError.invalidPort(configuration.port) }
    self.configuration = configuration
    scan = try openScan(at: configuration.scanPath)
    guard scan.frameCount > 0 else { throw ScanIOError.noFrames(path: configuration.scanPath) }
    store = LandmarkStore(path: configuration.landmarksPath ?? companionBase(of: configuration.scanPath) + ".landmarks.json")
    let initial = try store.load()
    if let initial { try checkLandmarks(initial, path: store.path, scan: scan) }
    initialLandmarks = initial
    assets = try PageAssets()
    var generator = SystemRandomNumberGenerator()
    token = (0..<4).map { _ in String(generator.next() as UInt32, radix: 16).leftPadded(to: 8) }.joined()
  }

  /// Whether `host` names the loopback interface: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
  public static func isLoopback(_ host: String) -> Bool {
    if host == "localhost" || host == "::1" || host == "[::1]" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, parts.first == "127" else { return false }
    return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil && part.allSatisfy(\.isASCII) }
  }

  /// The page's address on `port`, token included.
  public func url(port: Int) -> String {
    let host = configuration.host.contains(":") && !configuration.host.hasPrefix("[") ? "[\(configuration.host)]" : configuration.host
    return "http://\(host):\(port)/\(token)/"
  }

  /// Serves the page until interrupted (Ctrl-C, SIGTERM) or the task is cancelled, while the
  /// scan is reconstructed on a thread of its own.
  /// - Parameters:
  ///   - stopOnInterrupt: stop gracefully on SIGINT and SIGTERM (the command line); tests cancel instead.
  ///   - onListening: called once with the page's URL when the server listens.
  ///   - progress: the reconstruction's (stage, done, total), from its thread.
  /// - Throws: a reconstruction error (the server then stops: there is nothing to annotate), or
  ///   the server's own (e.g. the port is taken).
  public func run(
    stopOnInterrupt: Bool = true, onListening: @escaping @Sendable (String) -> Void,
    progress: @escaping @Sendable (ReconstructionStage, Int, Int) -> Void = { _, _, _ in }
  ) async throws {
    var logger = Logger(label: "headscan.annotate")
    logger.logLevel = .error
    let app = Application(
      responder: CallbackResponder<BasicRequestContext> { request, _ in await self.respond(to: request) },
      configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
      onServerRunning: { channel in onListening(self.url(port: channel.localAddress?.port ?? configuration.port)) },
      logger: logger)
    let server = Task {
      if stopOnInterrupt { try await app.runService() } else { try await app.runService(gracefulShutdownSignals: []) }
    }
    // The reconstruction runs on a thread of its own (a long synchronous job must not hold a
    // thread of the server's pool); if it fails there is nothing to annotate: stop the server.
    let failure = FailureBox()
    let (scan, proposer, workers, state) = (self.scan, configuration.proposer, configuration.workers, self.state)
    let thread = Thread {
      do {
        let session = try AnnotationSession.prepare(scan: scan, proposer: proposer, workers: workers) { stage, done, total in
          state.phase = .reconstructing(stage: stage, done: done, total: total)
          progress(stage, done, total)
        }
        state.phase = .ready(session)
      } catch {
        state.phase = .failed(String(describing: error))
        failure.error = error
        server.cancel()
      }
    }
    thread.stackSize = 16 << 20
    thread.start()
    // Ctrl-C ends the server at once, even mid-reconstruction (the thread ends with the process).
    do {
      try await withTaskCancellationHandler {
        try await server.value
      } onCancel: {
        server.cancel()
      }
    } catch {
      if failure.error == nil { throw error }
    }
    if let error = failure.error { throw error }
  }
}

/// The reconstruction thread's error, read after the server stopped.
private final class FailureBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: (any Error)?
  var error: (any Error)? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension AnnotationServer {
  /// The reconstructed scan once the start-up reconstruction is done, else `nil`.
  public var preparedSession: AnnotationSession? { state.session }
}
