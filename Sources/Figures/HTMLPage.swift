import Foundation

/// The frame every page shares: one self-contained HTML document (inline CSS and SVG, no
/// scripts, no external resources) laid out for the screen and for A4 paper.
enum HTMLPage {
  /// A complete document with `title` in its `<title>` and `body` inside `<body>`.
  static func document(title: String, body: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>\(escaped(title))</title>
    <style>
    \(style)
    </style>
    </head>
    <body>
    \(body)
    </body>
    </html>

    """
  }

  /// Text made safe for HTML content and attribute values.
  static func escaped(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.count)
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(c)
      }
    }
    return out
  }

  /// A number with `digits` decimals (`-0.0` printed as `0.0`).
  static func number(_ x: Double, _ digits: Int = 1) -> String {
    let text = String(format: "%.\(digits)f", x)
    return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
  }

  /// A 95 % interval as `[low, high]`.
  static func interval(_ low: Double, _ high: Double, _ digits: Int = 1) -> String {
    "[\(number(low, digits)), \(number(high, digits))]"
  }

  /// Screen and print styles: A4 pages with 12 mm margins, sections kept whole where they fit.
  static let style = """
    @page { size: A4; margin: 12mm; }
    * { box-sizing: border-box; }
    body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 10pt; color: #222;
           max-width: 186mm; margin: 0 auto; padding: 10px; background: white; }
    h1 { font-size: 16pt; margin: 0 0 6px; color: #1f4e79; }
    h2 { font-size: 12pt; color: #1f4e79; border-bottom: 1px solid #1f4e79; margin: 14px 0 6px; padding-bottom: 2px; }
    h3 { font-size: 10.5pt; margin: 10px 0 4px; }
    table { border-collapse: collapse; width: 100%; margin: 4px 0; }
    th, td { padding: 2px 6px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
    th { background: #eef3f8; font-weight: 600; }
    table.visits { font-size: 8.5pt; }
    table.visits th, table.visits td { padding: 2px 4px; white-space: normal; }
    td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
    dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 1px 14px; margin: 4px 0; }
    dl.meta dt { color: #555; } dl.meta dd { margin: 0; font-weight: 600; }
    section { break-inside: avoid; page-break-inside: avoid; }
    .figures { display: flex; flex-wrap: wrap; gap: 6px; }
    .figures figure { flex: 1 1 30%; margin: 0; min-width: 52mm; }
    .figures.two figure { flex: 1 1 45%; min-width: 80mm; }
    figure svg { width: 100%; height: auto; display: block; }
    figcaption { font-size: 8.5pt; color: #555; }
    .scale svg { width: 100%; height: auto; display: block; }
    .warning { color: #a04000; font-weight: 600; }
    .info { color: #333; }
    .exceeds { color: #b03a2e; font-weight: 700; }
    .within { color: #555; }
    ul.notes { margin: 4px 0; padding-left: 18px; }
    .verdict { border: 2px solid; padding: 4px 10px; margin: 0 0 8px; }
    .verdict.usable { border-color: #2e7d32; } .verdict.unusable { border-color: #b03a2e; }
    .verdict-word { font-size: 13pt; font-weight: 700; margin: 2px 0; }
    .verdict.usable .verdict-word { color: #2e7d32; } .verdict.unusable .verdict-word { color: #b03a2e; }
    ul.reasons { margin: 2px 0; padding-left: 18px; }
    footer { margin-top: 14px; font-size: 8pt; color: #666; border-top: 1px solid #ccc; padding-top: 4px; }
    @media print {
      body { max-width: none; padding: 0; font-size: 9.5pt; }
      h2 { break-after: avoid; page-break-after: avoid; }
      .patient { break-before: page; page-break-before: always; }
      .patient:first-of-type { break-before: auto; page-break-before: auto; }
    }
    """
}
