import Foundation
import ScanIO
import Testing
import _ImageCodec
import _TestSupport

/// Bad arguments and bad bytes to the PNG/JPEG codec come back as a status and a message.
struct ImageCodecContractTests {
  /// A real 4×3 grey PNG written by the codec itself.
  func smallPNG() throws -> [UInt8] {
    try TestFiles.withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("g.png").path
      try ImageFiles.writeGray8PNG(Array(0..<12), width: 4, height: 3, to: path)
      return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
  }

  func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  @Test func nullPointersAreInvalidArguments() {
    var info = hsi_info()
    var message = [CChar](repeating: 0, count: 128)
    #expect(hsi_probe(nil, 10, &info, &message, message.count) == HSI_INVALID_ARGUMENT)
    #expect(text(message).contains("null"))
    #expect(hsi_decode(nil, 10, HSI_BGRA8, nil, 0, &message, message.count) == HSI_INVALID_ARGUMENT)
  }

  @Test func anUndersizedPixelBufferIsRefusedBeforeDecoding() throws {
    let png = try smallPNG()
    var pixels = [UInt8](repeating: 0, count: 4 * 12 - 1)
    var message = [CChar](repeating: 0, count: 128)
    let status = hsi_decode(png, png.count, HSI_BGRA8, &pixels, pixels.count, &message, message.count)
    #expect(status == HSI_BUFFER_TOO_SMALL, "\(text(message))")
  }

  /// A text chunk whose length field claims 2 GiB in a 141-byte file is refused by name before
  /// libpng would allocate that length; a complete text chunk before the image data is skipped
  /// over as before, and the image decodes.
  @Test func anAncillaryChunkLongerThanTheFileIsRefusedBeforeDecoding() throws {
    func chunk(_ type: String, _ body: [UInt8], length: UInt32? = nil) -> [UInt8] {
      let typeBytes = Array(type.utf8)
      let declared = length ?? UInt32(body.count)
      return withUnsafeBytes(of: declared.bigEndian, Array.init) + typeBytes + body + [0, 0, 0, 0]
    }
    let png = try smallPNG()
    let signatureAndHeader = Array(png[0..<33])  // the signature and the 25-byte IHDR chunk
    let hostile = signatureAndHeader + chunk("tEXt", [UInt8](repeating: 0x61, count: 100), length: 0x7FFF_FFFF)
    var info = hsi_info()
    var message = [CChar](repeating: 0, count: 256)
    #expect(hsi_probe(hostile, hostile.count, &info, &message, message.count) == HSI_DECODE_ERROR)
    #expect(text(message).contains("PNG chunk 'tEXt' declares 2147483647 bytes"), "\(text(message))")
    // A complete chunk over 8 MiB is refused too (libpng would only warn, and read it).
    let large = signatureAndHeader + chunk("tEXt", [UInt8](repeating: 0x61, count: (8 << 20) + 1)) + Array(png[33...])
    #expect(hsi_probe(large, large.count, &info, &message, message.count) == HSI_DECODE_ERROR)
    #expect(text(message).contains("PNG chunk 'tEXt' holds 8388609 bytes, over the 8388608"), "\(text(message))")
    // The same chunk, complete and small, between the header and the image data: the image reads.
    let withText = signatureAndHeader + chunk("tEXt", Array("Comment\u{0}fine".utf8)) + Array(png[33...])
    var pixels = [UInt8](repeating: 0, count: 4 * 12)
    let status = hsi_decode(withText, withText.count, HSI_BGRA8, &pixels, pixels.count, &message, message.count)
    #expect(status == HSI_OK, "\(text(message))")
    #expect(stride(from: 0, to: 48, by: 4).map { pixels[$0] } == Array(0..<12))
  }

  @Test func everyTruncationOfAPNGIsAnErrorOrTheImage() throws {
    let png = try smallPNG()
    for length in 0..<png.count {
      var info = hsi_info()
      var pixels = [UInt8](repeating: 0, count: 4 * 12)
      var message = [CChar](repeating: 0, count: 128)
      let probe = hsi_probe(png, length, &info, &message, message.count)
      let decode = hsi_decode(png, length, HSI_BGRA8, &pixels, pixels.count, &message, message.count)
      // libpng may stop before the end chunk, so a file cut late can still decode: then it must be the whole image.
      if decode == HSI_OK {
        #expect(probe == HSI_OK && info.width == 4 && info.height == 3)
        #expect(stride(from: 0, to: 48, by: 4).map { pixels[$0] } == Array(0..<12), "length \(length)")
      } else {
        #expect(!text(message).isEmpty, "length \(length): a failure says why")
      }
    }
  }
}
