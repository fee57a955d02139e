import Foundation

extension CapSheet {
  /// Page `index` (0-based) as a standalone SVG file: `width` and `height` in millimetres and a
  /// `viewBox` in millimetres, so a renderer or printer at 100 % draws every length at size.
  public func svg(page index: Int) -> String {
    let page = pages[index]
    let w = Self.number(page.size.x, digits: 4), h = Self.number(page.size.y, digits: 4)
    var svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)mm\" height=\"\(h)mm\" viewBox=\"0 0 \(w) \(h)\""
    svg += " font-family=\"Helvetica, Arial, 'Liberation Sans', sans-serif\">\n"
    svg += "<title>\(HTMLPage.escaped("headscan cap stickers, \(options.dictionary), \(Self.millimetres(options.side)) mm, page \(page.number) of \(pages.count)"))</title>\n"
    svg += "<rect width=\"\(w)\" height=\"\(h)\" fill=\"#fff\"/>\n"
    for shape in page.shapes {
      switch shape {
      case .fill(let rects):
        // One path: cells that share an edge are filled together, without an anti-aliased seam.
        let d = rects.map { r in
          "M\(Self.svgNumber(r.x)) \(Self.svgNumber(r.y))H\(Self.svgNumber(r.maxX))V\(Self.svgNumber(r.maxY))H\(Self.svgNumber(r.x))Z"
        }.joined()
        svg += "<path fill=\"#000\" d=\"\(d)\"/>\n"
      case .line(let a, let b, let width):
        svg += "<line x1=\"\(Self.svgNumber(a.x))\" y1=\"\(Self.svgNumber(a.y))\" x2=\"\(Self.svgNumber(b.x))\" y2=\"\(Self.svgNumber(b.y))\""
        svg += " stroke=\"#000\" stroke-width=\"\(Self.svgNumber(width))\"/>\n"
      case .text(let text):
        svg += "<text x=\"\(Self.svgNumber(text.origin.x))\" y=\"\(Self.svgNumber(text.origin.y))\" font-size=\"\(Self.svgNumber(text.size))\""
        if text.bold { svg += " font-weight=\"bold\"" }
        if text.centred { svg += " text-anchor=\"middle\"" }
        svg += ">\(HTMLPage.escaped(text.string))</text>\n"
      }
    }
    return svg + "</svg>\n"
  }

  /// Millimetres to 0.1 µm.
  static func svgNumber(_ value: Double) -> String { number(value, digits: 4) }
}
