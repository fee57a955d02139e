#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `path` made absolute, with `.` and `..` removed and symbolic links resolved: two spellings of
/// one file (or folder, with or without a trailing slash) give the same string.
package func resolvedPath(_ path: String) -> String {
  URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
}

/// Why a folder's entries could not be listed, in words for a one-line error after its path.
package struct FolderListingError: Error, Equatable {
  /// `no such folder`, `not a folder`, or the system's reason (`Permission denied`).
  package var reason: String
}

/// The names in folder `path` (hidden ones included, in no particular order).
/// - Throws: ``FolderListingError`` saying whether nothing is there, something other than a
///   folder is, or the system refused (its own words, not Foundation's generic error code).
package func listFolder(_ path: String) throws(FolderListingError) -> [String] {
  var isFolder: ObjCBool = false
  guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw FolderListingError(reason: "no such folder") }
  guard isFolder.boolValue else { throw FolderListingError(reason: "not a folder") }
  guard let directory = opendir(path) else { throw FolderListingError(reason: String(cString: strerror(errno))) }
  closedir(directory)
  do {
    return try FileManager.default.contentsOfDirectory(atPath: path)
  } catch {
    throw FolderListingError(reason: (error as NSError).localizedDescription)
  }
}
