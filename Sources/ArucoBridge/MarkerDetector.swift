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
  private let handle: OpaquePointer

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
    var capacity = 64
    while true {
      var ids = [Int32](repeating: 0, count: capacity)
      var corners = [Float](repeating: 0, count: capacity * 8)
      var count: Int32 = 0
      var message = [CChar](repeating: 0, count: 512)
      let status = pixels.withUnsafeBufferPointer { buffer in
        arb_detector_detect(
          handle, buffer.baseAddress, Int32(clamping: width), Int32(clamping: height),
          Int32(clamping: width * channels), Int32(channels), &ids, &corners, Int32(capacity), &count,
          &message, message.count)
      }
      if status == ARB_BUFFER_TOO_SMALL {
        capacity = Int(count)
        continue
      }
      guard status == ARB_OK else { throw ArucoError(status: status, message: message, dictionary: dictionary) }
      var markers: [DetectedMarker] = []
      markers.reserveCapacity(Int(count))
      for i in 0..<Int(count) {
        let c = (0..<4).map { SIMD2(Double(corners[i * 8 + 2 * $0]), Double(corners[i * 8 + 2 * $0 + 1])) }
        markers.append(DetectedMarker(id: Int(ids[i]), corners: c))
      }
      return markers.sorted { ($0.id, $0.corners[0].x, $0.corners[0].y) < ($1.id, $1.corners[0].x, $1.corners[0].y) }
    }
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
