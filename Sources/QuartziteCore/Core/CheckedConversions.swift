// Doubles that may come from outside (geometry, times, colours, counts, or
// arithmetic on them: inf - inf is NaN) converted to integers. Swift's Int(x)
// traps on NaN, on infinities and beyond the integer's range, and a trap kills
// the host; these clamp instead. Every Double-to-integer conversion reachable
// from an export goes through one of them unless its operand is bounded on
// the line before (a comment says so).

/// 2^52: every integer of this size is exact in a Double, and sums and
/// products of a few of them stay inside Int.
package let saturatingIntLimit = 4_503_599_627_370_496.0

/// `x` rounded toward zero as an Int, clamped to ±`limit`; NaN gives `nan`.
@inline(__always)
package func saturatingInt(_ x: Double, limit: Double = saturatingIntLimit, nan: Int = 0) -> Int {
    if x > -limit && x < limit { return Int(x) }   // (false for NaN)
    if x.isNaN { return nan }
    return x > 0 ? Int(limit) : -Int(limit)
}

/// A pixel coordinate: `x` clamped to ±2^30 (room for widths and offsets of
/// such coordinates to add up without overflow); NaN gives 0.
@inline(__always)
package func pixelCoordinate(_ x: Double) -> Int {
    saturatingInt(x, limit: 1_073_741_824)
}

/// A fraction clamped to 0...1 (NaN gives 0) as 0...255, rounded.
@inline(__always)
package func unitByte(_ x: Double) -> UInt32 {
    x >= 1 ? 255 : (x > 0 ? UInt32(x * 255 + 0.5) : 0)
}

/// The same for a Float.
@inline(__always)
package func unitByte(_ x: Float) -> UInt32 {
    x >= 1 ? 255 : (x > 0 ? UInt32(x * 255 + 0.5) : 0)
}
