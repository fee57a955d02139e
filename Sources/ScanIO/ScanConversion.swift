/// Where ``convertScan(_:to:header:progress:transform:)`` writes a scan.
public enum ScanDestination: Sendable, Hashable {
  /// A `.rgbdscan` recorder stream with the given depth encoding.
  case stream(path: String, depthEncoding: RGBDStreamLayout.DepthEncoding)
  /// A TUM-style folder (16-bit PNG depth at 5000 units a metre, colour as PNG or JPEG).
  case tumFolder(path: String, colorFormat: TUMFolderWriter.ColorFormat)

  /// The file or folder written.
  public var path: String {
    switch self {
    case .stream(let path, _), .tumFolder(let path, _): return path
    }
  }
}

/// What ``convertScan(_:to:header:progress:transform:)`` wrote.
public struct ScanConversion: Sendable, Hashable {
  /// Frames written (all the scan's frames).
  public var frames: Int
  /// Frames that carried intrinsics of their own (Record3D's per-frame coefficients): the output
  /// keeps one set, the header's.
  public var framesWithOwnIntrinsics: Int
}

/// Copies a scan frame by frame into another format: memory stays flat whatever the scan's
/// length, and the output appears only when complete (atomically). The header keeps the scan's
/// camera, sizes, fps, cap and patient fields.
/// - Parameters:
///   - header: the output's header (default: the scan's); sizes must be the scan's.
///   - transform: changes each frame before it is written (default: none), e.g. a de-identified
///     copy's blanking; it keeps the frame's sizes.
///   - progress: called after each frame with (frames written, frames in all).
/// - Throws: `ScanIOError` naming the scan or the output; `.noFrames` for a scan without frames.
public func convertScan(
  _ reader: any ScanReader, to destination: ScanDestination, header: ScanHeader? = nil,
  progress: ((Int, Int) -> Void)? = nil, transform: ((ScanFrame) throws(ScanIOError) -> ScanFrame)? = nil
) throws(ScanIOError) -> ScanConversion {
  guard reader.frameCount > 0 else { throw ScanIOError.noFrames(path: reader.path) }
  let header = header ?? reader.header
  let append: (ScanFrame) throws(ScanIOError) -> Void
  let finish: () throws(ScanIOError) -> Void
  switch destination {
  case .stream(let path, let encoding):
    let writer = try RGBDScanWriter(path: path, header: header, layout: RGBDStreamLayout(depthEncoding: encoding))
    append = { frame throws(ScanIOError) in try writer.append(frame) }
    finish = { () throws(ScanIOError) in try writer.finish() }
  case .tumFolder(let path, let colorFormat):
    // Every timestamp must name a file of its own: checked before any frame is written, and
    // named by the scan they come from.
    var previous: Double?
    for index in 0..<reader.frameCount {
      let timestamp = try reader.timestamp(at: index)
      if let problem = TUMFolderWriter.timestampProblem(timestamp, index: index, after: previous) {
        throw .invalidValue(path: reader.path, key: "timestamp", detail: problem)
      }
      previous = timestamp
    }
    let writer = try TUMFolderWriter(path: path, header: header, colorFormat: colorFormat)
    append = { frame throws(ScanIOError) in
      try writer.append(timestamp: frame.timestamp, depthMetres: frame.depth.metres, colorBGRA: frame.color.bgra)
    }
    finish = { () throws(ScanIOError) in try writer.finish() }
  }
  var ownIntrinsics = 0
  for index in 0..<reader.frameCount {
    let frame = try reader.frame(at: index)
    if frame.color.intrinsics != header.colorIntrinsics { ownIntrinsics += 1 }
    try append(try transform?(frame) ?? frame)
    progress?(index + 1, reader.frameCount)
  }
  try finish()
  return ScanConversion(frames: reader.frameCount, framesWithOwnIntrinsics: ownIntrinsics)
}
