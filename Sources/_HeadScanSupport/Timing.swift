/// Seconds elapsed since `start` on the monotonic clock.
package func seconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = (ContinuousClock.now - start).components
  return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
}
