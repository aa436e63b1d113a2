import CQuartzite
import QuartziteCore
import QuartziteGeometry

/// A failed Core Video operation: Apple's CVReturn code plus the Quartzite
/// error and message the export layer records.
public struct CVError: Error, Equatable {
    public let code: CVReturn
    public let error: QZError
    public let message: String

    public init(_ code: Int, _ error: QZError, _ message: String) {
        self.code = CVReturn(code)
        self.error = error
        self.message = message
    }

    public static func invalidArgument(_ m: String) -> CVError { CVError(kCVReturnInvalidArgument, QZErrorInvalidArgument, m) }
    public static func invalidAttributes(_ m: String) -> CVError {
        CVError(kCVReturnInvalidPixelBufferAttributes, QZErrorInvalidArgument, m)
    }
    public static func invalidPoolAttributes(_ m: String) -> CVError {
        CVError(kCVReturnInvalidPoolAttributes, QZErrorInvalidArgument, m)
    }
    public static func invalidPixelFormat(_ type: UInt32, _ why: String = "is not a known pixel format") -> CVError {
        CVError(kCVReturnInvalidPixelFormat, QZErrorInvalidArgument, "pixel format \(fourCharCodeString(type)) \(why)")
    }
    public static func invalidSize(_ m: String) -> CVError { CVError(kCVReturnInvalidSize, QZErrorInvalidArgument, m) }
    public static func allocationFailed(_ bytes: Int) -> CVError {
        CVError(kCVReturnAllocationFailed, QZErrorOutOfMemory, "cannot allocate \(bytes) bytes of pixels")
    }
}

/// The largest width or height accepted (kCVReturnInvalidSize beyond).
public let maximumPixelBufferDimension = 1 << 20
/// The largest alignment or extension accepted in an attribute dictionary.
package let maximumAttributeValue = 1 << 16

/// A pixel buffer attribute dictionary (kCVPixelBuffer...Key), checked.
/// Unknown keys are kept and otherwise ignored, as Core Video does.
public struct PixelBufferAttributes {
    public var width: Int?
    public var height: Int?
    /// kCVPixelBufferPixelFormatTypeKey: one number or an array of numbers.
    public var pixelFormats: [UInt32] = []
    public var bytesPerRowAlignment: Int?
    public var planeAlignment: Int?
    public var extendedLeft = 0, extendedTop = 0, extendedRight = 0, extendedBottom = 0
    public var propagatedAttachments: ValueDictionary?
    public var nonPropagatedAttachments: ValueDictionary?
    /// Everything as given.
    public var dictionary = ValueDictionary()

    public init() {}

    /// Checks `value` (NULL: no attributes). A value that is not a
    /// dictionary, or a known key with a value of the wrong kind or out of
    /// range, throws kCVReturnInvalidPixelBufferAttributes.
    public init(_ value: Value?) throws(CVError) {
        guard let value else { return }
        guard case .dictionary(let d) = value.storage else {
            throw .invalidAttributes("the pixel buffer attributes are not a dictionary")
        }
        dictionary = d
        for (key, v) in zip(d.keys, d.values) {
            switch key.string {
            case kCVPixelBufferWidthKey: width = try Self.integer(v, key.string, 1...maximumPixelBufferDimension)
            case kCVPixelBufferHeightKey: height = try Self.integer(v, key.string, 1...maximumPixelBufferDimension)
            case kCVPixelBufferPixelFormatTypeKey: pixelFormats = try Self.formats(v)
            case kCVPixelBufferBytesPerRowAlignmentKey:
                let a = try Self.integer(v, key.string, 0...maximumAttributeValue)
                bytesPerRowAlignment = a == 0 ? nil : a
            case kCVPixelBufferPlaneAlignmentKey:
                let a = try Self.integer(v, key.string, 0...maximumAttributeValue)
                guard a & (a - 1) == 0 else {
                    throw .invalidAttributes("\(key.string) must be a power of two, got \(a)")
                }
                planeAlignment = a == 0 ? nil : a
            case kCVPixelBufferExtendedPixelsLeftKey: extendedLeft = try Self.integer(v, key.string, 0...maximumAttributeValue)
            case kCVPixelBufferExtendedPixelsTopKey: extendedTop = try Self.integer(v, key.string, 0...maximumAttributeValue)
            case kCVPixelBufferExtendedPixelsRightKey: extendedRight = try Self.integer(v, key.string, 0...maximumAttributeValue)
            case kCVPixelBufferExtendedPixelsBottomKey: extendedBottom = try Self.integer(v, key.string, 0...maximumAttributeValue)
            case kCVBufferPropagatedAttachmentsKey: propagatedAttachments = try Self.dictionary(v, key.string)
            case kCVBufferNonPropagatedAttachmentsKey: nonPropagatedAttachments = try Self.dictionary(v, key.string)
            case kCVPixelBufferIOSurfacePropertiesKey: _ = try Self.dictionary(v, key.string)
            case kCVPixelBufferCGImageCompatibilityKey, kCVPixelBufferCGBitmapContextCompatibilityKey,
                 kCVPixelBufferOpenGLCompatibilityKey:
                guard v.number != nil else { throw .invalidAttributes("\(key.string) must be a boolean") }
            default: break
            }
        }
    }

    package static func integer(_ v: Value, _ key: String, _ range: ClosedRange<Int>) throws(CVError) -> Int {
        guard let n = v.number else { throw .invalidAttributes("\(key) must be a number") }
        guard n.isFinite, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            throw .invalidAttributes("\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), got \(n)")
        }
        return Int(n)
    }

    package static func formats(_ v: Value) throws(CVError) -> [UInt32] {
        func one(_ item: Value) throws(CVError) -> UInt32 {
            UInt32(try integer(item, kCVPixelBufferPixelFormatTypeKey, 0...Int(UInt32.max)))
        }
        if case .array(let items) = v.storage {
            guard !items.isEmpty else { throw .invalidAttributes("\(kCVPixelBufferPixelFormatTypeKey) is an empty array") }
            var result: [UInt32] = []
            for item in items { result.append(try one(item)) }
            return result
        }
        return [try one(v)]
    }

    package static func dictionary(_ v: Value, _ key: String) throws(CVError) -> ValueDictionary {
        guard case .dictionary(let d) = v.storage else { throw .invalidAttributes("\(key) must be a dictionary") }
        return d
    }

    /// Combines several clients' attributes into one dictionary
    /// (CVPixelBufferCreateResolvedAttributesDictionary): widths and heights
    /// must agree, pixel formats are intersected (in the first list's
    /// order), alignments take their least common multiple, extended pixels
    /// the largest request, compatibility flags are true if any asks,
    /// attachment dictionaries are merged (the first value of a key wins),
    /// and any other key keeps its first value.
    public static func resolve(_ list: [Value]) throws(CVError) -> ValueDictionary {
        var parsed: [PixelBufferAttributes] = []
        for v in list { parsed.append(try PixelBufferAttributes(v)) }
        var out = ValueDictionary()
        func agree(_ key: String, _ values: [Int?]) throws(CVError) {
            let given = values.compactMap { $0 }
            guard let first = given.first else { return }
            guard given.allSatisfy({ $0 == first }) else {
                throw .invalidAttributes("the dictionaries ask for different \(key) values: \(given)")
            }
            out.set(Value(.number(Double(first))), for: key)
        }
        try agree(kCVPixelBufferWidthKey, parsed.map(\.width))
        try agree(kCVPixelBufferHeightKey, parsed.map(\.height))

        let formatLists = parsed.map(\.pixelFormats).filter { !$0.isEmpty }
        if var common = formatLists.first {
            for other in formatLists.dropFirst() { common = common.filter { other.contains($0) } }
            guard !common.isEmpty else { throw .invalidAttributes("the dictionaries have no pixel format in common") }
            out.set(common.count == 1 ? Value(.number(Double(common[0])))
                                      : Value(.array(common.map { Value(.number(Double($0))) })),
                    for: kCVPixelBufferPixelFormatTypeKey)
        }
        for (key, values) in [(kCVPixelBufferBytesPerRowAlignmentKey, parsed.map(\.bytesPerRowAlignment)),
                              (kCVPixelBufferPlaneAlignmentKey, parsed.map(\.planeAlignment))] {
            let given = values.compactMap { $0 }
            guard !given.isEmpty else { continue }
            let l = given.reduce(1, lcm)
            guard l <= maximumAttributeValue else {
                throw .invalidAttributes("the least common multiple of the \(key) values is \(l), above \(maximumAttributeValue)")
            }
            out.set(Value(.number(Double(l))), for: key)
        }
        for (key, values) in [(kCVPixelBufferExtendedPixelsLeftKey, parsed.map(\.extendedLeft)),
                              (kCVPixelBufferExtendedPixelsTopKey, parsed.map(\.extendedTop)),
                              (kCVPixelBufferExtendedPixelsRightKey, parsed.map(\.extendedRight)),
                              (kCVPixelBufferExtendedPixelsBottomKey, parsed.map(\.extendedBottom))] {
            if let m = values.max(), m > 0 { out.set(Value(.number(Double(m))), for: key) }
        }
        for key in [kCVPixelBufferCGImageCompatibilityKey, kCVPixelBufferCGBitmapContextCompatibilityKey,
                    kCVPixelBufferOpenGLCompatibilityKey] {
            let flags = parsed.compactMap { $0.dictionary[key]?.number }
            if !flags.isEmpty { out.set(Value(.bool(flags.contains { $0 != 0 })), for: key) }
        }
        for key in [kCVBufferPropagatedAttachmentsKey, kCVBufferNonPropagatedAttachmentsKey] {
            var merged = ValueDictionary()
            var any = false
            for p in parsed {
                guard let d = key == kCVBufferPropagatedAttachmentsKey ? p.propagatedAttachments : p.nonPropagatedAttachments
                else { continue }
                any = true
                for (k, v) in zip(d.keys, d.values) where merged[k.string] == nil { merged.set(v, for: k.string) }
            }
            if any { out.set(Value(.dictionary(merged)), for: key) }
        }
        for p in parsed {
            for (k, v) in zip(p.dictionary.keys, p.dictionary.values) where out[k.string] == nil {
                out.set(v, for: k.string)
            }
        }
        return out
    }
}

package func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
package func lcm(_ a: Int, _ b: Int) -> Int { a / gcd(a, b) * b }

/// A pixel buffer pool attribute dictionary (kCVPixelBufferPool...Key).
public struct PoolAttributes {
    /// The pool keeps at least this many buffers (in use or free).
    public var minimumBufferCount = 0
    /// Seconds a free buffer waits for reuse before it is freed; 0: forever.
    public var maximumBufferAge = 1.0
    public var dictionary = ValueDictionary()

    public init() {}

    public init(_ value: Value?) throws(CVError) {
        guard let value else { return }
        guard case .dictionary(let d) = value.storage else {
            throw .invalidPoolAttributes("the pool attributes are not a dictionary")
        }
        dictionary = d
        if let v = d[kCVPixelBufferPoolMinimumBufferCountKey] {
            guard let n = v.number, n.isFinite, n == n.rounded(), n >= 0, n <= 1024 else {
                throw .invalidPoolAttributes("\(kCVPixelBufferPoolMinimumBufferCountKey) must be a whole number in 0...1024")
            }
            minimumBufferCount = Int(n)
        }
        if let v = d[kCVPixelBufferPoolMaximumBufferAgeKey] {
            guard let n = v.number, n.isFinite, n >= 0 else {
                throw .invalidPoolAttributes("\(kCVPixelBufferPoolMaximumBufferAgeKey) must be a finite number of seconds >= 0")
            }
            maximumBufferAge = n
        }
    }

    /// The dictionary with both keys resolved (CVPixelBufferPoolGetAttributes).
    public var resolved: ValueDictionary {
        var d = dictionary
        d.set(Value(.number(Double(minimumBufferCount))), for: kCVPixelBufferPoolMinimumBufferCountKey)
        d.set(Value(.number(maximumBufferAge)), for: kCVPixelBufferPoolMaximumBufferAgeKey)
        return d
    }
}
