import CQuartzite
import QuartziteCore
import QuartziteGeometry

// Pixel format descriptions as dictionaries (kCVPixelFormat... keys), both
// ways: CVPixelFormatDescriptionCreateWithPixelFormatType builds one, and
// CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType reads one.

extension PlaneFormat {
    /// The plane's keys (defaults of 1 left out, as Apple's descriptions do).
    package func entries(into d: inout ValueDictionary) {
        d.set(Value(.number(Double(bitsPerBlock))), for: kCVPixelFormatBitsPerBlock)
        for (key, n) in [(kCVPixelFormatBlockWidth, blockWidth), (kCVPixelFormatBlockHeight, blockHeight),
                         (kCVPixelFormatHorizontalSubsampling, horizontalSubsampling),
                         (kCVPixelFormatVerticalSubsampling, verticalSubsampling),
                         (kCVPixelFormatBlockHorizontalAlignment, blockHorizontalAlignment),
                         (kCVPixelFormatBlockVerticalAlignment, blockVerticalAlignment)] where n != 1 {
            d.set(Value(.number(Double(n))), for: key)
        }
    }

    /// Reads a plane's keys; BitsPerBlock is required.
    package init(_ d: ValueDictionary, where context: String) throws(CVError) {
        func integer(_ key: String, _ range: ClosedRange<Int>, default value: Int?) throws(CVError) -> Int {
            guard let v = d[key] else {
                if let value { return value }
                throw .invalidArgument("\(context) has no \(key) (it is required)")
            }
            guard let n = v.number, n.isFinite, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
                throw .invalidArgument("\(context): \(key) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return Int(n)
        }
        let bits = try integer(kCVPixelFormatBitsPerBlock, 8...1024, default: nil)
        guard bits % 8 == 0 else {
            throw .invalidArgument("\(context): \(kCVPixelFormatBitsPerBlock) must be a multiple of 8 (a block is byte-addressable), got \(bits)")
        }
        self.init(bitsPerBlock: bits,
                  blockWidth: try integer(kCVPixelFormatBlockWidth, 1...64, default: 1),
                  blockHeight: try integer(kCVPixelFormatBlockHeight, 1...64, default: 1),
                  horizontalSubsampling: try integer(kCVPixelFormatHorizontalSubsampling, 1...16, default: 1),
                  verticalSubsampling: try integer(kCVPixelFormatVerticalSubsampling, 1...16, default: 1),
                  blockHorizontalAlignment: try integer(kCVPixelFormatBlockHorizontalAlignment, 1...64, default: 1),
                  blockVerticalAlignment: try integer(kCVPixelFormatBlockVerticalAlignment, 1...64, default: 1))
    }
}

extension PixelFormatDescription {
    /// The description as Core Video hands it out: Name, PixelFormat,
    /// CodecType, FourCC (when there is one), Planes (the plane count, a
    /// number as the Quartz Core reference documents), plane 0's BitsPerBlock
    /// and block keys at the top level, the chroma subsampling of a planar
    /// format, one dictionary per plane under kQZPixelFormatPlaneDescriptions
    /// for planar formats, and the compatibility flags. A registered format
    /// gives back the dictionary it was registered with.
    public var dictionary: Value {
        if let registered { return registered }
        var d = ValueDictionary()
        d.set(Value(string: name), for: kCVPixelFormatName)
        d.set(Value(.number(Double(type))), for: kCVPixelFormatConstant)
        d.set(Value(.number(Double(type))), for: kCVPixelFormatCodecType)
        if let fourCC { d.set(Value(string: fourCC), for: kCVPixelFormatFourCC) }
        d.set(Value(.number(Double(planes.count))), for: kCVPixelFormatPlanes)
        planes[0].entries(into: &d)
        if isPlanar {
            let h = planes.map(\.horizontalSubsampling).max() ?? 1, v = planes.map(\.verticalSubsampling).max() ?? 1
            d.set(Value(.number(Double(h))), for: kCVPixelFormatHorizontalSubsampling)
            d.set(Value(.number(Double(v))), for: kCVPixelFormatVerticalSubsampling)
            d.set(Value(.array(planes.map { p in
                var pd = ValueDictionary()
                p.entries(into: &pd)
                return Value(.dictionary(pd))
            })), for: kQZPixelFormatPlaneDescriptions)
        }
        d.set(Value(.bool(cgCompatible)), for: kCVPixelFormatCGBitmapContextCompatibility)
        d.set(Value(.bool(cgCompatible)), for: kCVPixelFormatCGImageCompatibility)
        d.set(Value(.bool(openGLCompatible)), for: kCVPixelFormatOpenGLCompatibility)
        d.set(Value(.bool(quickDrawCompatible)), for: kCVPixelFormatQDCompatibility)
        return Value(.dictionary(d))
    }

    /// Reads a description to register under `type`. The planes come from
    /// kCVPixelFormatPlanes given as an array of plane dictionaries (Apple's
    /// own form), else from kQZPixelFormatPlaneDescriptions, else from the
    /// top-level keys (repeated kCVPixelFormatPlanes times when that is a
    /// number). A kCVPixelFormatFillExtendedPixelsCallback entry must be the
    /// value QZPixelFormatCreateFillExtendedPixelsCallbackValue makes.
    /// Custom formats are allocated, described and copied, not converted.
    public convenience init(registering value: Value, as type: UInt32) throws(CVError) {
        guard case .dictionary(let d) = value.storage else { throw .invalidArgument("the description is not a dictionary") }
        var planes: [PlaneFormat] = []
        func planeList(_ v: Value) throws(CVError) -> [PlaneFormat]? {
            guard case .array(let items) = v.storage else { return nil }
            guard (1...8).contains(items.count) else { throw .invalidArgument("a format has 1 to 8 planes, not \(items.count)") }
            var result: [PlaneFormat] = []
            for (i, item) in items.enumerated() {
                guard case .dictionary(let pd) = item.storage else { throw .invalidArgument("plane \(i) is not a dictionary") }
                result.append(try PlaneFormat(pd, where: "plane \(i)"))
            }
            return result
        }
        if let v = d[kCVPixelFormatPlanes], let list = try planeList(v) {
            planes = list
        } else if let v = d[kQZPixelFormatPlaneDescriptions] {
            guard let list = try planeList(v) else { throw .invalidArgument("\(kQZPixelFormatPlaneDescriptions) must be an array") }
            planes = list
        } else {
            var count = 1
            if let v = d[kCVPixelFormatPlanes] {
                guard let n = v.number, n.isFinite, n == n.rounded(), n >= 1, n <= 8 else {
                    throw .invalidArgument("\(kCVPixelFormatPlanes) must be a plane count in 1...8 or an array of plane dictionaries")
                }
                count = Int(n)
            }
            let p = try PlaneFormat(d, where: "the description")
            planes = Array(repeating: p, count: count)
        }
        var fill: FillExtendedPixelsCallback?
        if let v = d[kCVPixelFormatFillExtendedPixelsCallback] {
            guard case .object(let o) = v.storage, let f = o as? FillExtendedPixelsCallback else {
                throw .invalidArgument("\(kCVPixelFormatFillExtendedPixelsCallback) must be a value made by QZPixelFormatCreateFillExtendedPixelsCallbackValue")
            }
            fill = f
        }
        func boolEntry(_ key: String) -> Bool { d[key]?.number.map { $0 != 0 } ?? false }
        // Handed back as registered, with the constant it was registered under.
        var kept = d
        if kept[kCVPixelFormatConstant] == nil { kept.set(Value(.number(Double(type))), for: kCVPixelFormatConstant) }
        self.init(type: type, name: d[kCVPixelFormatName]?.string ?? fourCharCodeString(type), planes: planes,
                  isPlanar: planes.count > 1, layout: .opaque, fourCC: d[kCVPixelFormatFourCC]?.string,
                  cgCompatible: boolEntry(kCVPixelFormatCGBitmapContextCompatibility),
                  openGLCompatible: boolEntry(kCVPixelFormatOpenGLCompatibility),
                  quickDrawCompatible: boolEntry(kCVPixelFormatQDCompatibility),
                  fillCallback: fill, registered: Value(.dictionary(kept)))
    }
}
