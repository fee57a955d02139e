import Foundation

/// The moment an ISO 8601 text names, in the forms headscan reads and writes for `recordedAt`:
/// a date-time with an offset or `Z` (`2026-11-21T10:15:00Z`, fractional seconds allowed) or a
/// date alone (`2026-11-21`); `nil` for anything else.
package func parseISO8601(_ text: String) -> Date? {
  let formatter = ISO8601DateFormatter()
  for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
    formatter.formatOptions = options
    if let date = formatter.date(from: text) { return date }
  }
  return nil
}
