import Foundation
import ScanIO

/// Debian's Chromium run headless on a page: its PNG screenshot and its DOM after layout.
public enum HeadlessBrowser {
  public static let path = "/usr/bin/chromium"

  /// Whether the browser is installed (scripts/setup.sh installs it); tests skip visibly without.
  public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

  /// What the browser made of one page.
  public struct Rendering {
    public var dom: String
    public var width: Int
    public var height: Int
    /// Per-pixel luminance, 0–255.
    public var luminance: [Double]

    /// Variance of the luminance: 0 for a blank page.
    public var luminanceVariance: Double {
      let mean = luminance.reduce(0, +) / Double(max(1, luminance.count))
      return luminance.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, luminance.count))
    }

    /// Share of the pixels that are not (near) white.
    public var inkedFraction: Double {
      Double(luminance.filter { $0 < 240 }.count) / Double(max(1, luminance.count))
    }
  }

  /// Renders the HTML file at `page` in a `width` × `height` window: screenshot to `png`, DOM as text.
  public static func render(page: URL, png: URL, width: Int = 900, height: Int = 1800) throws -> Rendering {
    let common = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + png.deletingLastPathComponent().appendingPathComponent("chromium-profile").path]
    _ = try run(common + ["--window-size=\(width),\(height)", "--screenshot=" + png.path, page.absoluteString])
    let dom = try run(common + ["--dump-dom", page.absoluteString])
    let image = try ImageFiles.readColor(at: png.path)
    var luminance: [Double] = []
    luminance.reserveCapacity(image.width * image.height)
    for i in 0..<(image.width * image.height) {
      let b = Double(image.bytes[4 * i]), g = Double(image.bytes[4 * i + 1]), r = Double(image.bytes[4 * i + 2])
      luminance.append(0.299 * r + 0.587 * g + 0.114 * b)
    }
    return Rendering(dom: dom, width: image.width, height: image.height, luminance: luminance)
  }

  /// Screenshots the page at `width` × `height` CSS pixels with `deviceScaleFactor` device pixels
  /// a CSS pixel: a PNG of `width × factor` by `height × factor` pixels, so that at factor
  /// `dpi / 96` a length of one inch in the page is `dpi` pixels long.
  public static func screenshot(page: URL, png: URL, width: Int, height: Int, deviceScaleFactor: Double) throws -> ImageFiles.BGRA {
    let common = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + png.deletingLastPathComponent().appendingPathComponent("chromium-profile").path]
    _ = try run(common + ["--force-device-scale-factor=\(deviceScaleFactor)", "--window-size=\(width),\(height)", "--screenshot=" + png.path, page.absoluteString])
    return try ImageFiles.readColor(at: png.path)
  }

  /// Prints the page to PDF as Chromium's print dialog would (no header or footer): the page
  /// count and the first page's size in points.
  public static func printToPDF(page: URL, pdf: URL) throws -> (pages: Int, size: SIMD2<Double>?) {
    let common = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-pdf-header-footer", "--user-data-dir=" + pdf.deletingLastPathComponent().appendingPathComponent("chromium-profile").path]
    _ = try run(common + ["--print-to-pdf=" + pdf.path, page.absoluteString])
    let text = String(decoding: try Data(contentsOf: pdf), as: Unicode.ASCII.self)
    let pages = text.matches(of: /\/Type\s*\/Page[^s]/).count
    let size = text.firstMatch(of: /\/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]/).flatMap { m in
      Double(String(m.1)).flatMap { w in Double(String(m.2)).map { SIMD2(w, $0) } }
    }
    return (pages, size)
  }

  private static func run(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}
