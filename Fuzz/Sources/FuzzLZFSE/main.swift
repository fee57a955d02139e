import LZFSE

/// libFuzzer entry: the input is an LZFSE stream. It is decoded into a new array (with room
/// for word-wise copies at its end) and, when that succeeds, again into a buffer of exactly the
/// decoded size (no room past the end, so the careful copy paths run) and with the decoded size
/// as the expected size; all three must agree. Any thrown `LZFSEError` is a correct answer; a
/// crash, trap or sanitizer report (an access outside the buffers) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLZFSE(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let stream = UnsafeRawBufferPointer(start: start, count: count)
  let bytes = Array(stream)
  // At most 16 MiB of output, so that headers declaring gigabytes are refused before allocation.
  guard let decoded = try? LZFSEDecoder.decode(bytes, maximumSize: 1 << 24) else {
    // The exact-size paths must also refuse it (with a few sizes a caller might expect).
    for size in [0, 1, 4096] {
      var buffer = [UInt8](repeating: 0, count: size)
      _ = try? buffer.withUnsafeMutableBytes { try LZFSEDecoder.decode(stream, into: $0) }
    }
    return 0
  }
  precondition((try? LZFSEDecoder.decode(bytes, expectedSize: decoded.count)) == decoded, "expected-size decode differs")
  var exact = [UInt8](repeating: 0xA5, count: decoded.count)
  let written = try? exact.withUnsafeMutableBytes { try LZFSEDecoder.decode(stream, into: $0) }
  precondition(written == decoded.count && exact == decoded, "exact-buffer decode differs")
  return 0
}
