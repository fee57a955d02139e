internal import _ArucoShim

/// One detected marker: its id and four image corners.
public struct DetectedMarker: Sendable, Hashable, Codable {
  /// The marker's id in its dictionary.
  public var id: Int
  /// Corners in pixels, OpenCV order (clockwise from the printed marker's
  /// top-left) and convention (the top-left pixel's centre is (0, 0)).
  public var corners: [SIMD2<Double>]

  public init(id: Int, corners: [SIMD2<Double>]) {
    precondition(corners.count == 4, "a marker has four corners")
    self.id = id
    self.corners = corners
  }

  /// Mean of the four corners, pixels.
  public var centre: SIMD2<Double> { corners.reduce(.zero, +) / 4 }
}

/// Finds ArUco markers of one predefined dictionary in 8-bit images.
///
/// Immutable after creation and safe to share between threads: OpenCV's
/// `detectMarkers` reads the dictionary and parameters without changing them.
public final class MarkerDetector: @unchecked Sendable {
  /// The dictionary name, e.g. `DICT_4X4_50`.
  public let dictionary: String
  /// The parameters the detector was made with.
  public let parameters: DetectorParameters
  let handle: OpaquePointer

  /// - Parameters:
  ///   - dictionary: an OpenCV predefined dictionary name.
  ///   - parameters: detector parameters; default OpenCV's own.
  /// - Throws: ``ArucoError/unknownDictionary(_:)`` or ``ArucoError/invalidArgument(_:)``.
  public init(dictionary: String, parameters: DetectorParameters = .opencvDefault) throws(ArucoError) {
    var raw = parameters.raw
    var out: OpaquePointer?
    var message = [CChar](repeating: 0, count: 512)
    let status = arb_detector_create(dictionary, &raw, &out, &message, message.count)
    guard status == ARB_OK, let out else {
      throw ArucoError(status: status, message: message, dictionary: dictionary)
    }
    self.dictionary = dictionary
    self.parameters = parameters
    self.handle = out
  }

  deinit { arb_detector_destroy(handle) }

  /// How many markers the dictionary holds (ids are `0..<dictionarySize`).
  public var dictionarySize: Int { Int(arb_detector_dictionary_size(handle)) }

  /// Cells across one printed marker: the dictionary's bits plus the black border on both
  /// sides (6 for `DICT_4X4_50` with OpenCV's one-cell border).
  public var cellsAcross: Int { Int(arb_detector_marker_bits(handle)) + 2 * parameters.markerBorderBits }

  /// Detects markers in a grey image (one byte a pixel, rows tightly packed).
  public func detect(grey pixels: [UInt8], width: Int, height: Int) throws(ArucoError) -> [DetectedMarker] {
    guard pixels.count >= width * height else {
      throw .invalidArgument("grey buffer holds \(pixels.count) bytes, \(width)×\(height) needs \(width * height)")
    }
    return try detect(pixels, width: width, height: height, channels: 1)
  }

  /// Detects markers in a BGRA image (4 bytes a pixel, rows tightly packed).
  public func detect(bgra pixels: [UInt8], width: Int, height: Int) throws(ArucoError) -> [DetectedMarker] {
    guard pixels.count >= width * height * 4 else {
      throw .invalidArgument("BGRA buffer holds \(pixels.count) bytes, \(width)×\(height) needs \(width * height * 4)")
    }
    return try detect(pixels, width: width, height: height, channels: 4)
  }

  /// Detected markers sorted by id (OpenCV returns them in discovery order).
  private func detect(_ pixels: [UInt8], width: Int, height: Int, channels: Int) throws(ArucoError) -> [DetectedMarker] {
    try collect { ids, corners, capacity, count, message, messageCapacity in
      pixels.withUnsafeBufferPointer { buffer in
        arb_detector_detect(
          handle, buffer.baseAddress, Int32(clamping: width), Int32(clamping: height),
          Int32(clamping: width * channels), Int32(channels), ids, corners, capacity, count, message, messageCapacity)
      }
    }.sorted(by: DetectedMarker.detectionOrder)
  }

  /// Runs one detection call of the shim with output buffers for (ids, corners, capacity, count,
  /// message, message capacity), again with larger buffers when it found more markers than they hold.
  func collect(
    _ call: (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Float>, Int32, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>, Int)
      -> arb_status
  ) throws(ArucoError) -> [DetectedMarker] {
    var capacity = 64
    while true {
      var ids = [Int32](repeating: 0, count: capacity)
      var corners = [Float](repeating: 0, count: capacity * 8)
      var count: Int32 = 0
      var message = [CChar](repeating: 0, count: 512)
      let status = call(&ids, &corners, Int32(capacity), &count, &message, message.count)
      if status == ARB_BUFFER_TOO_SMALL {
        capacity = Int(count)
        continue
      }
      guard status == ARB_OK else { throw ArucoError(status: status, message: message, dictionary: dictionary) }
      var markers: [DetectedMarker] = []
      markers.reserveCapacity(Int(count))
      for i in 0..<Int(count) {
        let c = (0..<4).map { (k: Int) -> SIMD2<Double> in
          SIMD2(Double(corners[i * 8 + 2 * k]), Double(corners[i * 8 + 2 * k + 1]))
        }
        markers.append(DetectedMarker(id: Int(ids[i]), corners: c))
      }
      return markers
    }
  }
}

extension DetectedMarker {
  /// The order detections are returned in: by id, then by the first corner.
  static func detectionOrder(_ a: DetectedMarker, _ b: DetectedMarker) -> Bool {
    (a.id, a.corners[0].x, a.corners[0].y) < (b.id, b.corners[0].x, b.corners[0].y)
  }
}

extension ArucoError {
  init(status: arb_status, message: [CChar], dictionary: String) {
    let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    switch status {
    case ARB_UNKNOWN_DICTIONARY: self = .unknownDictionary(dictionary)
    case ARB_INVALID_ARGUMENT, ARB_BUFFER_TOO_SMALL: self = .invalidArgument(text)
    default: self = .openCV(text.isEmpty ? "OpenCV failed" : text)
    }
  }
}
