/// An 8-bit grey image read at sub-pixel positions.
///
/// Pixel centres sit at integer coordinates, the top-left pixel's at (0, 0), as in OpenCV.
public struct GreyImage: Sendable {
  /// `width × height` bytes, row-major, top row first.
  public let pixels: [UInt8]
  public let width: Int
  public let height: Int

  public init(pixels: [UInt8], width: Int, height: Int) {
    precondition(width >= 0 && height >= 0 && pixels.count >= width * height, "grey buffer too small for its size")
    self.pixels = pixels
    self.width = width
    self.height = height
  }

  /// The bilinearly interpolated grey level at `p` (pixels), or `nil` where its four
  /// neighbouring pixels are not all inside the image.
  @inline(__always)
  public func value(at p: SIMD2<Double>) -> Double? {
    guard Self.interpolates(at: p, width: width, height: height) else { return nil }
    return pixels.withUnsafeBufferPointer { Self.interpolated(at: p, in: $0, width: width) }
  }

  /// Whether `p`'s four neighbouring pixels are all inside a `width × height` image: `p` is
  /// non-negative and before the last column and row (false for NaN and ±∞).
  @inline(__always)
  static func interpolates(at p: SIMD2<Double>, width: Int, height: Int) -> Bool {
    p.x >= 0 && p.y >= 0 && p.x < Double(width - 1) && p.y < Double(height - 1)
  }

  /// The bilinear interpolation at `p`, which must pass ``interpolates(at:width:height:)``
  /// (there the floor is a truncation, no libm call, and the four pixels' indices cannot
  /// overflow, so they are computed without overflow checks).
  @inline(__always)
  static func interpolated(at p: SIMD2<Double>, in pixels: UnsafeBufferPointer<UInt8>, width: Int) -> Double {
    let x0 = Int(p.x), y0 = Int(p.y)
    let fx = p.x - Double(x0), fy = p.y - Double(y0)
    let i = y0 &* width &+ x0
    let a = Double(pixels[i]), b = Double(pixels[i &+ 1])
    let c = Double(pixels[i &+ width]), d = Double(pixels[i &+ width &+ 1])
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
  }
}

extension SIMD2 where Scalar == Double {
  @inline(__always) fileprivate func dot(_ other: SIMD2<Double>) -> Double { (self * other).sum() }
}

/// One outer border edge of a marker in the image: a parabola across the line between two
/// corner estimates, `p(s) = start + s·direction + e(s)·outward`, `e(s) = c0 + c1·t + c2·t²`
/// with `t = s / length − ½`; pixels.
struct BorderEdge {
  var start: SIMD2<Double>
  var direction: SIMD2<Double>
  var outward: SIMD2<Double>
  var length: Double
  var coefficients = SIMD3<Double>.zero

  init(from a: SIMD2<Double>, to b: SIMD2<Double>, markerCentre: SIMD2<Double>) {
    start = a
    length = ((b - a) * (b - a)).sum().squareRoot()
    direction = (b - a) / length
    let normal = SIMD2(-direction.y, direction.x)
    outward = ((a + b) / 2 - markerCentre).dot(normal) >= 0 ? normal : -normal
  }

  func offset(_ s: Double) -> Double {
    let t = s / length - 0.5
    return coefficients.x + coefficients.y * t + coefficients.z * t * t
  }

  func point(_ s: Double) -> SIMD2<Double> { start + s * direction + offset(s) * outward }

  func tangent(_ s: Double) -> SIMD2<Double> {
    let t = s / length - 0.5
    return direction + ((coefficients.y + 2 * coefficients.z * t) / length) * outward
  }

  /// Re-fits the parabola to grey-level profiles across the edge's current course.
  ///
  /// Each profile runs ±`reach` pixels across the edge; the step's position is found from the
  /// area under the normalised profile, `e = reach − ∫ (I − I_in)/(I_out − I_in)`, which is
  /// unbiased for any symmetric blur and averages the noise of every sample. Profiles stay
  /// `margin` pixels away from both corners, where the neighbouring edge blurs in, and within
  /// the fraction `from…to` of the edge's length.
  /// - Returns: `false` where fewer than six profiles show a clean dark-to-light step.
  mutating func fit(to image: GreyImage, reach: Double, margin: Double, from: Double = 0, to: Double = 1) -> Bool {
    let step = 0.25
    let count = Int((2 * reach / step).rounded(.down)) + 1
    let end = 0.5
    let first = max(margin, from * length), last = min(length - margin, to * length)
    var samples: [(s: Double, e: Double)] = []
    samples.reserveCapacity(max(0, Int(last - first) + 1))
    withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { profile in
      image.pixels.withUnsafeBufferPointer { pixels in
        var s = first
        while s <= last {
          defer { s += 1 }
          let centre = point(s), along = tangent(s)
          let across = SIMD2(-along.y, along.x)
          let out = across.dot(outward) >= 0 ? across : -across
          let unit = out / (out * out).sum().squareRoot()
          // The profile's k-th point. The points lie on a segment, in order (rounding keeps them
          // so): where both ends can be interpolated, every point between can.
          func profilePoint(_ k: Int) -> SIMD2<Double> { centre + (-reach + Double(k) * step) * unit }
          guard
            GreyImage.interpolates(at: profilePoint(0), width: image.width, height: image.height),
            GreyImage.interpolates(at: profilePoint(count - 1), width: image.width, height: image.height)
          else { continue }
          // The two ends first: a profile without a clean step is left before its middle is read.
          let ends = Int(end / step)
          var inner = 0.0, outer = 0.0
          for k in 0...ends {
            profile[k] = GreyImage.interpolated(at: profilePoint(k), in: pixels, width: image.width)
            inner += profile[k]
          }
          for k in (count - 1 - ends)..<count {
            profile[k] = GreyImage.interpolated(at: profilePoint(k), in: pixels, width: image.width)
            outer += profile[k]
          }
          inner /= Double(ends + 1)
          outer /= Double(ends + 1)
          let contrast = outer - inner
          guard contrast >= 20 else { continue }
          for k in (ends + 1)..<max(ends + 1, count - 1 - ends) {
            profile[k] = GreyImage.interpolated(at: profilePoint(k), in: pixels, width: image.width)
          }
          // The trapezoids' sum, normalised once.
          var sum = 0.0
          for k in 1..<count { sum += profile[k - 1] + profile[k] }
          let area = (sum - 2 * Double(count - 1) * inner) / (2 * contrast) * step
          let e = (Double(count - 1) * step - reach) - area
          guard abs(e) <= reach - end else { continue }
          samples.append((s, offset(s) + e))
        }
      }
    }
    // Fit, drop steps beyond 3 robust σ (MAD, at least 0.1 px) of the fit, fit again.
    guard samples.count >= 6, let first = Self.parabola(through: samples, length: length) else { return false }
    coefficients = first
    let residuals = samples.map { abs($0.e - offset($0.s)) }
    let limit = max(0.1, 3 * 1.4826 * residuals.sorted()[residuals.count / 2])
    var kept: [(s: Double, e: Double)] = []
    kept.reserveCapacity(samples.count)
    for (sample, residual) in zip(samples, residuals) where residual <= limit { kept.append(sample) }
    guard kept.count >= 6, let second = Self.parabola(through: kept, length: length) else { return false }
    coefficients = second
    return true
  }

  /// Least-squares `c0 + c1·t + c2·t²` through (s, e) pairs.
  static func parabola(through points: [(s: Double, e: Double)], length: Double) -> SIMD3<Double>? {
    // The normal matrix by rows, without allocating.
    var m = (SIMD3<Double>.zero, SIMD3<Double>.zero, SIMD3<Double>.zero), r = SIMD3<Double>.zero
    for (s, e) in points {
      let t = s / length - 0.5
      let basis = SIMD3(1, t, t * t)
      for j in 0..<3 {
        m.0[j] += basis[0] * basis[j]
        m.1[j] += basis[1] * basis[j]
        m.2[j] += basis[2] * basis[j]
      }
      r += basis * e
    }
    // Cramer's rule on the symmetric 3×3 system.
    func det(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Double {
      a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])
    }
    let d = det(m.0, m.1, m.2)
    guard abs(d) > 1e-12 else { return nil }
    var solution = SIMD3<Double>.zero
    for column in 0..<3 {
      var (a, b, c) = m
      a[column] = r[0]
      b[column] = r[1]
      c[column] = r[2]
      solution[column] = det(a, b, c) / d
    }
    return solution
  }

  /// Where this edge meets `other`, found from `guess` by intersecting their tangent lines
  /// until the point stops moving.
  func meeting(_ other: BorderEdge, near guess: SIMD2<Double>) -> SIMD2<Double>? {
    var x = guess
    for _ in 0..<6 {
      let s1 = (x - start).dot(direction), s2 = (x - other.start).dot(other.direction)
      let p = point(s1), q = other.point(s2)
      let u = tangent(s1), v = other.tangent(s2)
      let cross = u.x * v.y - u.y * v.x
      guard abs(cross) > 1e-6 else { return nil }
      let w = q - p
      let next = p + ((w.x * v.y - w.y * v.x) / cross) * u
      let moved = ((next - x) * (next - x)).sum()
      x = next
      if moved < 1e-8 { break }
    }
    return x
  }
}

extension DetectedMarker {
  /// The smallest cell, pixels, whose marker ``refinedAlongEdges(in:cellsAcross:span:smallestCell:)``
  /// refines by default.
  public static let smallestRefinedCell = 3.5

  /// The marker's cell in the image, pixels: its shortest side over `cellsAcross`.
  public func cellSize(cellsAcross: Int) -> Double {
    (0..<4).map { k in
      let side = corners[(k + 1) % 4] - corners[k]
      return (side * side).sum().squareRoot()
    }.min()! / Double(max(1, cellsAcross))
  }

  /// The marker with its corners moved to where its four outer border edges meet, each edge
  /// fitted as a slight curve to sub-pixel steps measured all along it.
  ///
  /// `cornerSubPix` finds a corner from the gradients in a small window around it; on a
  /// printed marker that window also holds the inner edge of the border and the paper's
  /// own edge, which pull each corner by an amount that depends on the marker's bits, the
  /// same in every view. The outer border edge is a clean dark-to-light step over the whole
  /// side, so fitting it along its length (a parabola, for stickers bent over a curved
  /// surface) and intersecting neighbouring edges gives corners free of that pull.
  ///
  /// Profiles reach ±0.6 cell (at most 3 px) across each edge, inside the border and the
  /// paper's margin. A corner keeps its old position where either of its edges does not fit
  /// (cells under `smallestCell`, the marker at the image border, no clean step) or where the
  /// fit would move it more than a third of a cell. Two passes: the second samples across the
  /// course the first one found.
  ///
  /// With a `span` under 1, each corner comes from its two edges refitted over only the
  /// part next to it (that fraction of the edge, from the corner): a local fit that follows
  /// a sticker bending unevenly, at the price of more noise per view.
  /// - Parameters:
  ///   - image: the grey image the marker was detected in.
  ///   - cellsAcross: cells across the printed marker, border included (``MarkerDetector/cellsAcross``).
  ///   - span: the fraction of each edge, from the corner, that places the corner (0.3…1).
  ///   - smallestCell: the smallest cell, pixels, whose marker is refined (3.5 by default: below
  ///     it the profiles, ±0.6 cell, hold little more than the blurred step, and the corners
  ///     are noisier per view; the focal-length check uses them from 2.5 px, where OpenCV's
  ///     corners are biased inwards by more).
  public func refinedAlongEdges(
    in image: GreyImage, cellsAcross: Int, span: Double = 1, smallestCell: Double = Self.smallestRefinedCell
  ) -> DetectedMarker {
    precondition(span >= 0.3 && span <= 1, "span must be in 0.3…1")
    guard let fit = fittedBorderEdges(in: image, cellsAcross: cellsAcross, smallestCell: smallestCell) else { return self }
    return DetectedMarker(id: id, corners: fit.corners(near: corners, span: span, in: image))
  }

  /// The corners where the whole border edges meet (``refinedAlongEdges(in:cellsAcross:span:smallestCell:)``
  /// with a span of 1) and, from the same fitted edges, each corner from its two edges refitted
  /// over only the fraction `localSpan` next to it; a corner whose local fit fails or would move it
  /// more than a third of a cell from its whole-edge position keeps that position.
  ///
  /// The same as refining the whole-edge corners again with `localSpan`, with one fit of the four
  /// edges instead of two.
  public func refinedAlongEdges(
    in image: GreyImage, cellsAcross: Int, localSpan: Double, smallestCell: Double = Self.smallestRefinedCell
  ) -> (whole: DetectedMarker, local: DetectedMarker) {
    precondition(localSpan >= 0.3 && localSpan <= 1, "span must be in 0.3…1")
    guard let fit = fittedBorderEdges(in: image, cellsAcross: cellsAcross, smallestCell: smallestCell) else { return (self, self) }
    let whole = fit.corners(near: corners, span: 1, in: image)
    return (DetectedMarker(id: id, corners: whole), DetectedMarker(id: id, corners: fit.corners(near: whole, span: localSpan, in: image)))
  }

  /// The four border edges fitted twice from the detected corners, or `nil` where the cell is
  /// under `smallestCell` (or the marker has fewer than three cells across).
  private func fittedBorderEdges(in image: GreyImage, cellsAcross: Int, smallestCell: Double) -> FittedBorder? {
    let centre = self.centre
    let cell = cellSize(cellsAcross: cellsAcross)
    guard cell >= smallestCell, cellsAcross >= 3 else { return nil }
    var fit = FittedBorder(
      edges: (0..<4).map { BorderEdge(from: corners[$0], to: corners[($0 + 1) % 4], markerCentre: centre) },
      fitted: [Bool](repeating: false, count: 4), cell: cell, reach: min(0.6 * cell, 3), margin: max(0.35 * cell, 2))
    for k in 0..<4 {
      var edge = fit.edges[k]
      fit.fitted[k] =
        edge.fit(to: image, reach: fit.reach, margin: fit.margin) && edge.fit(to: image, reach: fit.reach, margin: fit.margin)
      if fit.fitted[k] { fit.edges[k] = edge }
    }
    return fit
  }
}

/// A marker's four border edges after fitting (edge k runs from corner k to corner k + 1).
private struct FittedBorder {
  var edges: [BorderEdge]
  var fitted: [Bool]
  var cell: Double
  var reach: Double
  var margin: Double

  /// Each of `reference`'s corners moved to where its two fitted edges meet (refitted over the
  /// fraction `span` next to it where under 1), found from that corner; kept where an edge did
  /// not fit or the move exceeds a third of a cell.
  func corners(near reference: [SIMD2<Double>], span: Double, in image: GreyImage) -> [SIMD2<Double>] {
    var refined = reference
    for k in 0..<4 {
      let before = (k + 3) % 4
      guard fitted[k], fitted[before] else { continue }
      var a = edges[before], b = edges[k]
      if span < 1 {
        guard a.fit(to: image, reach: reach, margin: margin, from: 1 - span), b.fit(to: image, reach: reach, margin: margin, to: span)
        else { continue }
      }
      guard let p = a.meeting(b, near: reference[k]) else { continue }
      let move = p - reference[k]
      if (move * move).sum().squareRoot() <= cell / 3 { refined[k] = p }
    }
    return refined
  }
}
