package import _HeadScanSupport

extension ScanIOError {
  /// The same failure as a ``ScanIOError`` (the messages read alike).
  package init(_ error: FileAccessError) {
    switch error.failure {
    case .cannotOpen(let reason): self = .cannotOpen(path: error.path, reason: reason)
    case .truncated(let detail): self = .sizeMismatch(path: error.path, detail: detail)
    case .cannotWrite(let reason): self = .cannotWrite(path: error.path, reason: reason)
    }
  }
}

/// Runs file access from `_HeadScanSupport`, reporting its failure as a ``ScanIOError``.
package func scanIO<T>(_ body: () throws(FileAccessError) -> T) throws(ScanIOError) -> T {
  do {
    return try body()
  } catch {
    throw ScanIOError(error)
  }
}
