import Foundation

extension CapSheet {
  /// PDF points in a millimetre: 72 / 25.4.
  public static let pointsPerMillimetre = 72 / 25.4

  /// The whole sheet as one PDF 1.4 document, a page per ``pages`` entry.
  ///
  /// Written directly: a catalog, a page tree, the standard Helvetica and Helvetica-Bold fonts
  /// (WinAnsi encoding, not embedded) and per page one uncompressed content stream of filled
  /// rectangles, strokes and text; lengths converted from millimetres by exactly 72 / 25.4 and
  /// written to 0.0001 pt. The file is ASCII; its cross-reference table gives each object's
  /// byte offset.
  public func pdf() -> Data {
    // Objects 1 catalog, 2 page tree, 3 and 4 fonts, 5 document information, then each page
    // and its content stream.
    let firstPage = 6
    var objects: [String] = []
    let kids = pages.indices.map { "\(firstPage + 2 * $0) 0 R" }.joined(separator: " ")
    objects.append("<< /Type /Catalog /Pages 2 0 R >>")
    objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    let title = "headscan cap stickers, \(options.dictionary), \(Self.millimetres(options.side)) mm"
    objects.append("<< /Title (\(Self.pdfString(title))) /Producer (headscan) >>")
    for (k, page) in pages.enumerated() {
      let content = pdfContent(page)
      let box = "[0 0 \(Self.points(page.size.x)) \(Self.points(page.size.y))]"
      objects.append(
        "<< /Type /Page /Parent 2 0 R /MediaBox \(box) /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents \(firstPage + 2 * k + 1) 0 R >>"
      )
      objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
    }

    var file = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (k, object) in objects.enumerated() {
      offsets.append(file.utf8.count)
      file += "\(k + 1) 0 obj\n\(object)\nendobj\n"
    }
    let xref = file.utf8.count
    file += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets { file += String(format: "%010d 00000 n \n", offset) }
    file += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 5 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Data(file.utf8)
  }

  /// One page's content stream: black fills, black strokes, text; y measured up from the bottom.
  func pdfContent(_ page: Page) -> String {
    let height = page.size.y
    func x(_ v: Double) -> String { Self.points(v) }
    func y(_ v: Double) -> String { Self.points(height - v) }
    var lines = ["0 g", "0 G", "0 J"]
    for shape in page.shapes {
      switch shape {
      case .fill(let rects):
        // One path of rectangles, filled once (nonzero winding: their union).
        lines += rects.map { r in "\(x(r.x)) \(y(r.maxY)) \(Self.points(r.width)) \(Self.points(r.height)) re" }
        lines.append("f")
      case .line(let a, let b, let width):
        lines.append("\(Self.points(width)) w \(x(a.x)) \(y(a.y)) m \(x(b.x)) \(y(b.y)) l S")
      case .text(let text):
        let left = text.centred ? text.origin.x - text.width / 2 : text.origin.x
        let font = text.bold ? "/F2" : "/F1"
        lines.append("BT \(font) \(Self.points(text.size)) Tf \(x(left)) \(y(text.origin.y)) Td (\(Self.pdfString(text.string))) Tj ET")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Millimetres in points, to 0.0001 pt.
  static func points(_ millimetres: Double) -> String { number(millimetres * pointsPerMillimetre, digits: 4) }

  /// A PDF literal string's contents in WinAnsi encoding, kept ASCII: `(`, `)` and `\` escaped,
  /// other characters as octal escapes of their WinAnsi byte (`?` where WinAnsi has none).
  static func pdfString(_ text: String) -> String {
    let special: [Unicode.Scalar: UInt8] = ["–": 0x96, "—": 0x97, "‘": 0x91, "’": 0x92, "“": 0x93, "”": 0x94, "•": 0x95, "…": 0x85, "€": 0x80]
    var out = ""
    for c in text.unicodeScalars {
      switch c {
      case "(", ")", "\\": out += "\\" + String(c)
      case " "..."~": out.unicodeScalars.append(c)
      default:
        let byte: UInt8? = special[c] ?? ((0xA0...0xFF).contains(c.value) ? UInt8(c.value) : nil)
        if let byte { out += "\\" + String(byte, radix: 8) } else { out += "?" }
      }
    }
    return out
  }
}
