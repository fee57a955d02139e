import Foundation
import HeadScan

/// Where the start-up reconstruction is, shared between its thread and the requests.
final class PreparationState: @unchecked Sendable {
  enum Phase {
    case reconstructing(stage: ReconstructionStage, done: Int, total: Int)
    case ready(AnnotationSession)
    case failed(String)
  }

  private let lock = NSLock()
  private var current = Phase.reconstructing(stage: .detecting, done: 0, total: 0)

  var phase: Phase {
    get { lock.withLock { current } }
    set { lock.withLock { current = newValue } }
  }

  /// The session once ready.
  var session: AnnotationSession? {
    if case .ready(let session) = phase { return session }
    return nil
  }
}
