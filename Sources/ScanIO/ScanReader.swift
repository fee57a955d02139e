import Foundation

/// A recorded scan that yields its frames one at a time.
///
/// Readers hold a few frames at most: a 3 GB scan is read with memory that
/// does not grow with its length. They are immutable after opening and safe to
/// use from several threads (each call reads its own frame).
public protocol ScanReader: AnyObject, Sendable {
  /// The file or folder this reader reads.
  var path: String { get }
  /// The scan's header (camera, image layouts, markers).
  var header: ScanHeader { get }
  /// Number of complete frames.
  var frameCount: Int { get }
  /// What the reader skipped or worked around while opening.
  var warnings: [ScanWarning] { get }
  /// Frame `index` (random access).
  /// - Throws: ``ScanIOError/frameOutOfRange(path:index:frameCount:)`` and read errors.
  func frame(at index: Int) throws(ScanIOError) -> ScanFrame
  /// Frame `index` into `frame`, reusing the depth and colour buffers of the frame it holds
  /// where they have the frame's size (a worker reading frame after frame then allocates none);
  /// the same frame as ``frame(at:)`` gives. On a throw `frame` is `nil`.
  func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError)
  /// The timestamp of frame `index`, seconds, without decoding its images.
  func timestamp(at index: Int) throws(ScanIOError) -> Double
}

extension ScanReader {
  /// Reads ``frame(at:)`` afresh: for formats that decode into new buffers anyway.
  public func readFrame(at index: Int, into frame: inout ScanFrame?) throws(ScanIOError) {
    frame = nil
    frame = try self.frame(at: index)
  }

  /// Frame `index` read into `buffer` (``readFrame(at:into:)``), which keeps it for the next read;
  /// where a reader leaves no frame there, ``frame(at:)``'s, so that every index gets its frame.
  package func frame(at index: Int, reusing buffer: inout ScanFrame?) throws(ScanIOError) -> ScanFrame {
    try readFrame(at: index, into: &buffer)
    if let frame = buffer { return frame }
    return try frame(at: index)
  }

  /// Iterates the frames in order, decoding each when asked for.
  public func makeFrameIterator() -> ScanFrameIterator { ScanFrameIterator(reader: self) }

  /// Time from the first to the last frame, seconds (0 for fewer than two frames).
  public func duration() throws(ScanIOError) -> Double {
    guard frameCount > 1 else { return 0 }
    return try timestamp(at: frameCount - 1) - timestamp(at: 0)
  }

  func checkIndex(_ index: Int) throws(ScanIOError) {
    guard index >= 0 && index < frameCount else {
      throw .frameOutOfRange(path: path, index: index, frameCount: frameCount)
    }
  }
}

/// Yields a scan's frames in order; `next()` throws instead of ending silently on a read error.
public struct ScanFrameIterator {
  let reader: any ScanReader
  var nextIndex = 0

  /// The next frame, or `nil` after the last.
  public mutating func next() throws(ScanIOError) -> ScanFrame? {
    guard nextIndex < reader.frameCount else { return nil }
    defer { nextIndex += 1 }
    return try reader.frame(at: nextIndex)
  }
}

/// Opens a scan in any registered format (``ScanFormats/registered``): a `.rgbdscan` stream
/// file, a TUM-style folder or a Record3D `.r3d` export.
///
/// - Parameters:
///   - path: a file or a folder; its format is recognised by content (a file that no
///     format recognises is read as a stream, whatever its extension, and fails as one).
///   - options: the cap for formats that do not record it (default: the sidecar
///     `NAME.cap.json` beside the scan), Record3D's confidence filter.
/// - Throws: ``ScanIOError`` naming the file and the problem.
public func openScan(at path: String, options: ScanOpenOptions = .default) throws(ScanIOError) -> any ScanReader {
  try ScanFormats.format(of: path).open(path, options: options)
}
