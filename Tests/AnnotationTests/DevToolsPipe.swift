import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium driven through its DevTools protocol over `--remote-debugging-pipe`
/// (JSON messages ended by NUL on file descriptors 3 and 4): no websocket needed.
final class DevToolsPipe {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let pid: pid_t
  private let toBrowser: Int32
  private let fromBrowser: Int32
  private var pending = Data()
  private var nextID = 1
  private let profile: String

  /// Starts `chromium` headless with a fresh profile and a window of `width × height` CSS pixels.
  init(chromium: String, width: Int, height: Int) throws {
    profile = FileManager.default.temporaryDirectory.appendingPathComponent("headscan-chromium-\(UUID().uuidString)").path
    var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure(description: "pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 3)
    posix_spawn_file_actions_adddup2(&actions, output[1], 4)
    let devNull = open("/dev/null", O_WRONLY)
    posix_spawn_file_actions_adddup2(&actions, devNull, 2)
    let arguments = [
      chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
      "--no-default-browser-check", "--disable-extensions", "--user-data-dir=\(profile)", "--window-size=\(width),\(height)",
      "--force-device-scale-factor=1", "about:blank",
    ]
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, chromium, &actions, nil, &argv, environ)
    close(input[0])
    close(output[1])
    close(devNull)
    guard status == 0 else { throw Failure(description: "cannot start \(chromium): \(String(cString: strerror(status)))") }
    pid = child
    toBrowser = input[1]
    fromBrowser = output[0]
  }

  deinit {
    close(toBrowser)
    close(fromBrowser)
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    try? FileManager.default.removeItem(atPath: profile)
  }

  /// Sends a command and returns its `result`, skipping events; fails on an error reply or
  /// after `timeout` seconds.
  @discardableResult
  func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil, timeout: Double = 60) throws -> [String: Any] {
    let id = nextID
    nextID += 1
    var message: [String: Any] = ["id": id, "method": method, "params": params]
    if let session { message["sessionId"] = session }
    var data = try JSONSerialization.data(withJSONObject: message)
    data.append(0)
    try data.withUnsafeBytes { raw in
      var written = 0
      while written < raw.count {
        let n = write(toBrowser, raw.baseAddress! + written, raw.count - written)
        guard n > 0 else { throw Failure(description: "write to chromium failed") }
        written += n
      }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let reply = try readMessage(until: deadline)
      guard reply["id"] as? Int == id else { continue }
      if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
      return reply["result"] as? [String: Any] ?? [:]
    }
  }

  private func readMessage(until deadline: Date) throws -> [String: Any] {
    while true {
      if let end = pending.firstIndex(of: 0) {
        let message = pending[pending.startIndex..<end]
        pending = Data(pending[(end + 1)...])
        return (try JSONSerialization.jsonObject(with: message) as? [String: Any]) ?? [:]
      }
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { throw Failure(description: "chromium did not answer in time") }
      var poller = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(min(left, 1) * 1000)) >= 0 else { throw Failure(description: "poll failed") }
      guard poller.revents != 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let n = read(fromBrowser, &buffer, buffer.count)
      guard n > 0 else { throw Failure(description: "chromium closed the pipe") }
      pending.append(contentsOf: buffer[0..<n])
    }
  }
}

/// One page (tab) of a ``DevToolsPipe``: evaluate JavaScript, click and type as a user does.
struct DevToolsPage {
  let browser: DevToolsPipe
  let session: String

  /// Opens `url` in a new tab.
  init(_ browser: DevToolsPipe, url: String) throws {
    self.browser = browser
    let target = try browser.send("Target.createTarget", ["url": url])
    guard let id = target["targetId"] as? String else { throw DevToolsPipe.Failure(description: "no target id") }
    let attached = try browser.send("Target.attachToTarget", ["targetId": id, "flatten": true])
    guard let session = attached["sessionId"] as? String else { throw DevToolsPipe.Failure(description: "no session id") }
    self.session = session
  }

  /// The value of a JavaScript expression (promises awaited), as JSON values.
  func evaluate(_ expression: String) throws -> Any? {
    let result = try browser.send(
      "Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true], session: session)
    if let exception = result["exceptionDetails"] { throw DevToolsPipe.Failure(description: "\(expression): \(exception)") }
    return (result["result"] as? [String: Any])?["value"]
  }

  /// Waits until `expression` is true (at most `timeout` seconds).
  func wait(for expression: String, timeout: Double = 120) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try evaluate("Boolean(\(expression))") as? Bool == true { return }
      usleep(100_000)
    }
    throw DevToolsPipe.Failure(description: "timed out waiting for \(expression)")
  }

  /// A left click (press and release) at page coordinates `x`, `y` (CSS pixels).
  func click(x: Double, y: Double) throws {
    try browser.send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y], session: session)
    for type in ["mousePressed", "mouseReleased"] {
      try browser.send(
        "Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "buttons": type == "mousePressed" ? 1 : 0, "clickCount": 1],
        session: session)
    }
  }

  /// A key press and release (`key` as in `KeyboardEvent.key`, with its text when printable).
  func press(_ key: String, code: String, keyCode: Int) throws {
    try browser.send("Input.dispatchKeyEvent", ["type": "keyDown", "key": key, "code": code, "text": key, "windowsVirtualKeyCode": keyCode], session: session)
    try browser.send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keyCode], session: session)
  }

  /// The centre of the first element matching `selector`, page coordinates.
  func centre(of selector: String) throws -> (x: Double, y: Double) {
    let value = try evaluate("(() => { const r = document.querySelector('\(selector)').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    guard let pair = value as? [Double], pair.count == 2 else { throw DevToolsPipe.Failure(description: "no element \(selector)") }
    return (pair[0], pair[1])
  }

  /// A PNG screenshot of the page's `width × height` CSS pixels from the top left, scaled by `scale`.
  func screenshot(width: Double, height: Double, scale: Double) throws -> Data {
    let clip: [String: Any] = ["x": 0, "y": 0, "width": width, "height": height, "scale": scale]
    let result = try browser.send("Page.captureScreenshot", ["format": "png", "clip": clip], session: session)
    guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else { throw DevToolsPipe.Failure(description: "no screenshot") }
    return data
  }
}
