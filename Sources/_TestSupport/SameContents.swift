/// Whether two buffers (file contents, images) are equal, for `#expect(sameContents(a, b))`.
///
/// Written as `#expect(a == b)`, a failing comparison of two collections makes the testing
/// library compute their element-by-element difference for its message: for files of a
/// megabyte that takes hours, and the suite hangs instead of failing. Here the comparison is
/// a call, whose failure shows only the two arguments' descriptions.
public func sameContents<C: Collection & Equatable>(_ a: C, _ b: C) -> Bool { a == b }
