import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a raw TCP socket to 127.0.0.1, so a test sends exactly the
/// path it means (`..` and percent escapes included; URL libraries normalise them away).
enum HTTPProbe {
  struct Reply {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The server closed the connection before a reply could be read (it may refuse a request
  /// body over its limit by answering and closing while the body is still being sent).
  struct ClosedWithoutReply: Error {}

  static func get(port: Int, _ path: String) throws -> Reply { try request(port: port, method: "GET", path: path) }

  static func post(port: Int, _ path: String, json: Data) throws -> Reply {
    try request(port: port, method: "POST", path: path, body: json)
  }

  static func request(port: Int, method: String, path: String, body: Data = Data()) throws -> Reply {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw Failure(description: "connect to port \(port): \(String(cString: strerror(errno)))") }
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
    let message = Data((head + "\r\n").utf8) + body
    try message.withUnsafeBytes { raw in
      var sent = 0
      while sent < raw.count {
        let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
        if n < 0 && (errno == EPIPE || errno == ECONNRESET) { break }  // answered and closed: read the reply
        guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
        sent += n
      }
    }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n < 0 && errno == ECONNRESET && received.isEmpty { throw ClosedWithoutReply() }
      if n < 0 { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
      if n == 0 { break }
      received.append(contentsOf: buffer[0..<n])
    }
    if received.isEmpty { throw ClosedWithoutReply() }
    return try parse(received)
  }

  private static func parse(_ data: Data) throws -> Reply {
    guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no HTTP head in \(data.count) bytes") }
    let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = lines.first?.split(separator: " ") ?? []
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines.first ?? "")") }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Data(data[split.upperBound...])
    if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
    return Reply(status: status, headers: headers, body: body)
  }

  private static func dechunk(_ data: Data) throws -> Data {
    var out = Data()
    var rest = data[...]
    while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
      guard let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else { break }
      if size == 0 { break }
      let start = lineEnd.upperBound
      guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else { throw Failure(description: "short chunk") }
      out += rest[start..<rest.index(start, offsetBy: size)]
      rest = rest[rest.index(start, offsetBy: size + 2)...]
    }
    return out
  }
}
