// The text caches' keys hash their strings once, with 64-bit FNV-1a over the
// UTF-8 bytes (a few instructions a byte), instead of SipHash for every
// dictionary probe. The keys are not chosen by an adversary who could flood
// a bucket, and a collision costs only an equality check.

/// 64-bit FNV-1a, fed strings (UTF-8) and numbers (bit patterns).
package struct CacheKeyHash {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    @inline(__always)
    private mutating func byte(_ b: UInt8) { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }

    package mutating func add(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
            for b in bytes { byte(b) }
        }
        if done == nil { for b in s.utf8 { byte(b) } }
        byte(0xff)   // a separator: ("ab", "c") and ("a", "bc") differ
    }

    package mutating func add(_ v: UInt64) {
        // One multiply per 64-bit word (its bytes folded in at once).
        value = (value ^ v) &* 0x0000_0100_0000_01b3
        value ^= value >> 29
    }

    /// (-0 and +0 are equal, so they hash alike.)
    package mutating func add(_ d: Double) { add(d == 0 ? 0 : d.bitPattern) }
    package mutating func add(_ d: Double?) { if let d { add(d) } else { add(UInt64(0x7ff8_dead_beef_0001)) } }

    /// A well-mixed word from `code` and a dictionary's per-instance seed
    /// (the murmur3 finaliser), for `_rawHashValue(seed:)`.
    @inline(__always)
    package static func mix(_ code: UInt64, seed: Int) -> Int {
        var x = code ^ UInt64(UInt(bitPattern: seed))
        x ^= x >> 33; x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33; x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }
}
