import Annotation
import Foundation
import HeadScan
import Testing
import _TestSupport

/// Debian's Chromium (installed by scripts/setup.sh); the browser test is skipped, visibly, without it.
let chromium = "/usr/bin/chromium"

extension AnnotationServerTests {
  /// The round trip through the real page in headless Chromium: select each landmark with its
  /// key, pick its frame on the strip, click its true pixel on the image, save with the button;
  /// then the saved file holds the clicked pixels, lifts to the truth and measures.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "needs \(chromium) (scripts/setup.sh installs it)"))
  func placesTheFourLandmarksInTheBrowserAndSaves() async throws {
    let f = try await AnnotationFixture.shared.value
    let session = try f.session()
    let browser = try DevToolsPipe(chromium: chromium, width: 1400, height: 900)
    let page = try DevToolsPage(browser, url: "http://127.0.0.1:\(f.port)\(f.base)")
    try page.wait(for: "window.headscanAnnotate && window.headscanAnnotate.ready")
    let frameCount = session.frames.count
    var clicked: [String: (frame: Int, u: Double, v: Double)] = [:]
    var scale = 0.0
    for (i, name) in LandmarkFile.names.enumerated() {
      guard case .pixel(let frame, let u, let v)? = f.truePixels.positions[name] else {
        Issue.record("the simulator gave \(name) no pixel")
        return
      }
      try page.press("\(i + 1)", code: "Digit\(i + 1)", keyCode: 49 + i)
      try page.wait(for: "headscanAnnotate.state.selected === '\(name)'", timeout: 10)
      // The strip: frame `frame`'s column.
      let strip = try #require(try page.evaluate("(() => { const r = document.getElementById('strip').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()") as? [Double])
      try page.click(x: strip[0] + (Double(frame) + 0.5) * strip[2] / Double(frameCount), y: strip[1] + strip[3] / 2)
      try page.wait(for: "headscanAnnotate.state.frame === \(frame) && headscanAnnotate.state.frameInfo && headscanAnnotate.state.frameInfo.frame === \(frame)")
      // The image: the true pixel, where the page draws it.
      let target = try #require(try page.evaluate("(() => { const p = headscanAnnotate.imageToClient(\(u), \(v)); return [p.x, p.y, headscanAnnotate.state.view.s]; })()") as? [Double])
      scale = target[2]
      try page.click(x: target[0], y: target[1])
      try page.wait(for: "headscanAnnotate.state.landmarks.\(name) && headscanAnnotate.state.landmarks.\(name).frame === \(frame)", timeout: 10)
      // What the page placed is the image pixel under the pointer as the browser reported it.
      let placed = try #require(
        try page.evaluate("(() => { const l = headscanAnnotate.state.landmarks.\(name), p = headscanAnnotate.lastPointer, q = headscanAnnotate.clientToImage(p.x, p.y); return [l.u, l.v, q.u, q.v, p.x, p.y]; })()") as? [Double])
      #expect(abs(placed[0] - placed[2]) < 1e-9 && abs(placed[1] - placed[3]) < 1e-9)
      #expect(abs(placed[4] - target[0]) <= 0.5 && abs(placed[5] - target[1]) <= 0.5, "pointer at \(placed[4]), \(placed[5]); clicked \(target[0]), \(target[1])")
      clicked[name] = (frame, placed[0], placed[1])
    }
    try page.wait(for: "headscanAnnotate.state.evaluation && headscanAnnotate.state.evaluation.preview && Object.keys(headscanAnnotate.state.lifts).length === 4")
    let previewCVAI = try #require(try page.evaluate("headscanAnnotate.state.evaluation.preview.cvai") as? Double)
    // An output option, not a measurement: HEADSCAN_SCREENSHOT_DIR=DIR also saves the page as
    // it looks here (annotate-page.png, for the documentation's pictures).
    if let folder = ProcessInfo.processInfo.environment["HEADSCAN_SCREENSHOT_DIR"] {
      try page.screenshot(width: 1400, height: 900, scale: 0.7).write(to: URL(fileURLWithPath: folder).appendingPathComponent("annotate-page.png"))
    }
    let save = try page.centre(of: "#save")
    try page.click(x: save.x, y: save.y)
    try page.wait(for: "document.body.dataset.saved || document.body.dataset.saveError")
    #expect(try page.evaluate("document.body.dataset.saveError || ''") as? String == "")

    // The file (docs/formats.md, landmarks): the clicked pixels, each within half a screen pixel of the true one.
    let saved = try LandmarkFile(path: f.landmarksPath)
    for name in LandmarkFile.names {
      guard case .pixel(let frame, let u, let v)? = saved.positions[name], let click = clicked[name],
        case .pixel(let trueFrame, let trueU, let trueV)? = f.truePixels.positions[name]
      else {
        Issue.record("\(name) is not a pixel in the saved file")
        continue
      }
      #expect(frame == click.frame && frame == trueFrame)
      // Equal to the last bits a decimal JSON round trip keeps (1e-9 of a pixel).
      #expect(abs(u - click.u) < 1e-9 && abs(v - click.v) < 1e-9, "\(name): saved \(u), \(v); clicked \(click.u), \(click.v)")
      #expect(abs(u - trueU) <= 0.5 / scale + 1e-9 && abs(v - trueV) <= 0.5 / scale + 1e-9)
    }
    // Lifted through the reconstruction, within 1 mm of the truth's own point where the lift
    // of the true pixel itself is (the registration's own error is what the rest measures).
    let lifted = try liftLandmarks(saved, path: f.landmarksPath, scan: session.scan, reconstruction: session.reconstruction)
    let liftedTrue = try liftLandmarks(f.truePixels, path: "true-pixels.json", scan: session.scan, reconstruction: session.reconstruction)
    for ((name, point), (_, truePixelPoint)) in zip(lifted.named, liftedTrue.named) {
      let truth = try f.trueWorldPoint(name, reconstruction: session.reconstruction)
      let distances = String(
        format: "%@ %.2f mm from the truth, %.3f mm from the true pixel's lift", name, (point - truth).length * 1000,
        (point - truePixelPoint).length * 1000)
      #expect((point - truePixelPoint).length < 0.001, "\(distances)")
      // Within 1 mm of the truth (see liftsAndPreviewsLikeMeasure).
      #expect((point - truth).length < 0.001, "\(distances)")
    }
    // `measure` on the saved file: works, and gives the page's preview.
    var options = MeasureOptions.default
    options.bootstrap = false
    let measured = try measureReconstruction(session.reconstruction, of: session.scan, landmarks: .file(f.landmarksPath), options: options)
    #expect(abs(measured.report.cvai - previewCVAI) < 1e-9)
    #expect(
      abs(measured.report.cvai - f.truth.measures.cvai) <= 0.3,
      "\(String(format: "CVAI %.2f from the page's landmarks, truth %.2f", measured.report.cvai, f.truth.measures.cvai))")
  }
}
