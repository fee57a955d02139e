import Foundation

/// The page's own files (HTML, CSS, JavaScript), read once from the package's resources into
/// memory. Requests name an asset from this fixed list; no path from a client reaches the file system.
struct PageAssets: Sendable {
  struct Asset: Sendable {
    var bytes: Data
    var contentType: String
  }

  /// Served name → resource file name and content type.
  static let catalogue: [String: (file: String, type: String)] = [
    "index.html": ("index.html", "text/html; charset=utf-8"),
    "app.js": ("app.js", "text/javascript; charset=utf-8"),
    "style.css": ("style.css", "text/css; charset=utf-8"),
  ]

  let assets: [String: Asset]

  /// Reads every asset of ``catalogue`` from the bundle's `Page` folder.
  /// - Throws: ``AnnotationError/missingAsset(_:)`` when one is missing.
  init() throws(AnnotationError) {
    var assets: [String: Asset] = [:]
    for (name, entry) in Self.catalogue {
      guard let folder = Bundle.module.url(forResource: "Page", withExtension: nil),
        let bytes = try? Data(contentsOf: folder.appendingPathComponent(entry.file))
      else { throw .missingAsset("Page/" + entry.file) }
      assets[name] = Asset(bytes: bytes, contentType: entry.type)
    }
    self.assets = assets
  }

  subscript(name: String) -> Asset? { assets[name] }
}
