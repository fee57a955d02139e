/// Decodes an LZVN block (`bvxn`): a byte-oriented LZ77 code whose opcodes carry a literal
/// length L, a match length M and a match distance D, or reuse the previous distance.
///
/// Opcodes, by their bits (L literals follow the opcode's bytes):
/// - `LLMMMDDD DDDDDDDD` (low 3 bits 0–5): small distance, L 0–3, M 3–10, D up to 1535;
/// - `LLMMM111 DDDDDDDD DDDDDDDD`: large distance (16 bits, little-endian);
/// - `LLMMM110` (from 64 up): the previous distance;
/// - `101LLMMM MMDDDDDD DDDDDDDD`: medium, M 3–34, D 14 bits;
/// - `1110LLLL` (L 1–15), `11100000 L-16`: literals only;
/// - `1111MMMM` (M 1–15), `11110000 M-16`: match only, previous distance;
/// - `00000110` then 7 bytes: end of stream; `00001110`, `00010110`: no operation;
/// - `0111xxxx`, `1101xxxx` and `00xxx110` from 30 up: undefined.
enum LZVNBlockDecoder {
  /// Decodes the block `frame` of `source` into `output` at `position`, where the caller has
  /// checked that `frame.decodedLength` bytes fit. The payload must end with the end-of-stream
  /// opcode exactly at its last byte, and decode to exactly the declared length.
  static func decode(
    _ frame: BlockFrame, source: ByteSource, into output: OutputBuffer, at position: Int
  ) throws(LZFSEError) -> Int {
    let block = frame.offset
    var input = frame.offset + frame.headerLength
    let inputEnd = input + frame.payloadLength
    var position = position
    let end = position + frame.decodedLength
    var distance = 0
    while true {
      guard input < inputEnd else {
        throw .corruptPayload(offset: block, detail: "LZVN payload ends without its end-of-stream opcode")
      }
      let available = inputEnd - input
      let opcode = Int(source.byte(at: input))
      var literals = 0, match = 0, opcodeLength = 1
      switch opcode {
      case 0xE0, 0xF0:  // 16 to 271 literals, or match bytes
        guard available >= 2 else { throw .corruptPayload(offset: block, detail: "LZVN payload ends inside an opcode") }
        let count = Int(source.byte(at: input + 1)) + 16
        if opcode == 0xE0 { literals = count } else { match = count }
        opcodeLength = 2
      case 0xE1...0xEF:
        literals = opcode & 15
      case 0xF1...0xFF:
        match = opcode & 15
      case 0xA0...0xBF:
        guard available >= 3 else { throw .corruptPayload(offset: block, detail: "LZVN payload ends inside an opcode") }
        let word = Int(source.uint16(at: input + 1))
        literals = (opcode >> 3) & 3
        match = ((opcode & 7) << 2 | word & 3) + 3
        distance = word >> 2
        opcodeLength = 3
      case 0x70...0x7F, 0xD0...0xDF:
        throw .corruptPayload(offset: block, detail: "undefined LZVN opcode \(opcode)")
      default:
        literals = opcode >> 6
        match = ((opcode >> 3) & 7) + 3
        switch opcode & 7 {
        case 7:
          guard available >= 3 else { throw .corruptPayload(offset: block, detail: "LZVN payload ends inside an opcode") }
          distance = Int(source.uint16(at: input + 1))
          opcodeLength = 3
        case 6 where opcode >= 64:
          break  // previous distance
        case 6:
          if opcode == 6 {
            guard available == 8, position == end else {
              throw .corruptPayload(
                offset: block,
                detail: "LZVN end-of-stream opcode with \(available - 8) payload bytes and \(end - position) output bytes left")
            }
            return position
          }
          guard opcode == 14 || opcode == 22 else {
            throw .corruptPayload(offset: block, detail: "undefined LZVN opcode \(opcode)")
          }
          input += 1
          continue
        default:
          guard available >= 2 else { throw .corruptPayload(offset: block, detail: "LZVN payload ends inside an opcode") }
          distance = (opcode & 7) << 8 | Int(source.byte(at: input + 1))
          opcodeLength = 2
        }
      }
      guard opcodeLength + literals <= available else {
        throw .corruptPayload(offset: block, detail: "LZVN literals run past the payload")
      }
      guard literals + match <= end - position else {
        throw .corruptPayload(offset: block, detail: "block decodes past its declared \(frame.decodedLength) bytes")
      }
      input += opcodeLength
      let wide = position + literals + match + OutputBuffer.slack <= output.writableCount
      output.copyLiteral(
        from: source.base + input, to: position, count: literals, wide: wide && input + literals + 16 <= source.count)
      position += literals
      input += literals
      if match > 0 {
        guard distance >= 1, distance <= position else {
          throw .matchDistanceOutOfRange(offset: block, distance: distance, position: position)
        }
        output.copyMatch(to: position, distance: distance, count: match, wide: wide)
        position += match
      }
    }
  }
}
