import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Core Video in the engine: layouts against hand-computed numbers, the SIMD
// Y'CbCr decoders against the Double reference (every format, matrix and
// range, the tail path included), the 32-bit reorderings, attributes,
// pools and descriptions.

private let bgra: UInt32 = 0x4247_5241

private func buffer(_ w: Int, _ h: Int, _ format: UInt32, _ attributes: Value? = nil) -> PixelBuffer {
    try! PixelBuffer.create(width: w, height: h, pixelFormat: format, attributes: attributes)
}

private func dictionary(_ pairs: [(String, Value)]) -> Value {
    var d = ValueDictionary()
    for (k, v) in pairs { d.set(v, for: k) }
    return Value(.dictionary(d))
}

private func number(_ x: Double) -> Value { Value(.number(x)) }

/// A deterministic byte stream.
private struct Bytes {
    var state: UInt32
    mutating func next() -> UInt8 {
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

@Suite struct PixelBufferLayoutTests {
    @Test func layoutOf420vAt1080pWith64ByteRows() throws {
        let format = try #require(PixelFormatRegistry.description(of: 0x3432_3076))
        let l = try PixelBufferLayout(width: 1920, height: 1080, format: format, rowAlignment: 64)
        #expect(l.headerBytes == 16)
        #expect(l.planes.map(\.offset) == [64, 2_073_664])
        #expect(l.planes.map(\.bytesPerRow) == [1920, 1920])
        #expect(l.planes.map(\.width) == [1920, 960] && l.planes.map(\.height) == [1080, 540])
        #expect(l.planes.map(\.byteCount) == [2_073_600, 1_036_800])
        #expect(l.totalBytes == 3_110_464 && l.memoryAlignment == 64)
    }

    /// One plane of single-pixel blocks with the default alignments takes
    /// a short path (the display cycle's backing stores): it must give what
    /// the general path gives (an explicit row alignment of 16, the default,
    /// takes the general one).
    @Test func theShortPathLaysOutSimpleFormatsAsTheGeneralPathDoes() throws {
        let simple = PixelFormatRegistry.all.filter { $0.simpleBytesPerPixel > 0 }
        #expect(simple.contains { $0.type == 0x4247_5241 })   // 'BGRA'
        #expect(!PixelFormatRegistry.all.filter { $0.simpleBytesPerPixel == 0 }.isEmpty)
        for format in simple {
            for (w, h) in [(1, 1), (13, 7), (240, 24), (1001, 3), (4096, 2)] {
                let short = try PixelBufferLayout(width: w, height: h, format: format)
                let general = try PixelBufferLayout(width: w, height: h, format: format, rowAlignment: 16)
                #expect(short == general, "\(fourCharCodeString(format.type)) \(w)x\(h)")
            }
        }
        let bgra = try #require(PixelFormatRegistry.description(of: 0x4247_5241))
        let l = try PixelBufferLayout(width: 240, height: 24, format: bgra)
        #expect(l.planes.count == 1 && l.planes[0].bytesPerRow == 960 && l.totalBytes == 960 * 24)
        #expect(l.memoryAlignment == 64 && l.headerBytes == 0)
        let odd = try PixelBufferLayout(width: 13, height: 2, format: bgra)
        #expect(odd.planes[0].bytesPerRow == 64)   // 52 bytes, padded to 16
    }

    @Test func blockFormatsRoundRowsToBlocks() throws {
        // v210: 6 pixels per 16-byte block, rows a multiple of 8 blocks.
        let v210 = try #require(PixelFormatRegistry.description(of: 0x7632_3130))
        #expect(try PixelBufferLayout(width: 1280, height: 1, format: v210).planes[0].bytesPerRow == 216 * 16)
        #expect(try PixelBufferLayout(width: 48, height: 1, format: v210).planes[0].bytesPerRow == 128)
        #expect(try PixelBufferLayout(width: 49, height: 1, format: v210).planes[0].bytesPerRow == 256)
        // 2-bit gray: 4 pixels per byte; 13 pixels need 4 bytes.
        let gray2 = try #require(PixelFormatRegistry.description(of: 0x22))
        #expect(try PixelBufferLayout(width: 13, height: 1, format: gray2, rowAlignment: 1).planes[0].bytesPerRow == 4)
    }

    @Test func extendedPixelsRoundToWholeBlocksOfEveryPlane() throws {
        let y420 = try #require(PixelFormatRegistry.description(of: 0x7934_3230))
        let l = try PixelBufferLayout(width: 8, height: 8, format: y420, extended: (left: 1, top: 3, right: 2, bottom: 0))
        #expect((l.extendedLeft, l.extendedTop, l.extendedRight, l.extendedBottom) == (2, 4, 2, 0))
        #expect(l.planes[1].extendedLeft == 1 && l.planes[1].extendedTop == 2 && l.planes[1].extendedRight == 1)
        // Plane 0: 12 pixels -> 16-byte rows, 12 rows; pixel (0, 0) 4 rows and 2 pixels in.
        #expect(l.planes[0].bytesPerRow == 16 && l.planes[0].offset == l.planes[0].start + 4 * 16 + 2)
        let uyvy = try #require(PixelFormatRegistry.description(of: 0x3276_7579))
        #expect(try PixelBufferLayout(width: 8, height: 1, format: uyvy, extended: (3, 0, 0, 0)).extendedLeft == 4)
    }

    @Test func invalidSizesThrow() throws {
        let format = try #require(PixelFormatRegistry.description(of: bgra))
        #expect(throws: CVError.self) { try PixelBufferLayout(width: 0, height: 1, format: format) }
        #expect(throws: CVError.self) { try PixelBufferLayout(width: 1, height: maximumPixelBufferDimension + 1, format: format) }
        do {
            _ = try PixelBufferLayout(width: -3, height: 1, format: format)
            Issue.record("a negative width was accepted")
        } catch {
            #expect(error.code == CVReturn(kCVReturnInvalidSize))
        }
    }

    @Test func fourCharCodesPrintAsTextOrHex() {
        #expect(fourCharCodeString(0x4247_5241) == "'BGRA'")
        #expect(fourCharCodeString(0x3432_3076) == "'420v'")
        #expect(fourCharCodeString(0x20) == "0x00000020")
    }
}

@Suite struct YCbCrConversionTests {
    static let matrices: [(String?, YCbCrMatrix)] = [
        (nil, .itu601), (kCVImageBufferYCbCrMatrix_ITU_R_601_4, .itu601),
        (kCVImageBufferYCbCrMatrix_ITU_R_709_2, .itu709), (kCVImageBufferYCbCrMatrix_SMPTE_240M_1995, .smpte240M),
    ]

    /// The largest difference of any channel from the reference; alpha must be 255.
    static func worstDifference(_ src: PixelBuffer, _ matrix: YCbCrMatrix, fullRange: Bool,
                                sample: (Int, Int) -> (y: Int, cb: Int, cr: Int)) -> Int {
        let dst = buffer(src.width, src.height, bgra)
        try! src.convert(to: dst)
        var worst = 0
        for y in 0..<src.height {
            for x in 0..<src.width {
                let s = sample(x, y)
                let ref = matrix.rgb(y: s.y, cb: s.cb, cr: s.cr, fullRange: fullRange)
                let p = dst.planeAddress(0) + y * dst.planes[0].bytesPerRow + 4 * x
                let b = Int(p.load(as: UInt8.self)), g = Int(p.load(fromByteOffset: 1, as: UInt8.self))
                let r = Int(p.load(fromByteOffset: 2, as: UInt8.self)), a = p.load(fromByteOffset: 3, as: UInt8.self)
                if a != 255 { return 999 }
                worst = max(worst, abs(r - Int(ref.r)), abs(g - Int(ref.g)), abs(b - Int(ref.b)))
            }
        }
        return worst
    }

    static func setMatrix(_ b: PixelBuffer, _ name: String?) {
        if let name { b.setAttachment(kCVImageBufferYCbCrMatrixKey, Value(string: name), mode: 1) }
    }

    @Test(arguments: [0x3432_3076, 0x3432_3066] as [UInt32])
    func biPlanarMatchesTheReferenceForEveryLumaValue(format: UInt32) {
        // 256 columns of luma 0...255 against a grid of chroma pairs (every
        // 5th value, ends included): each pair is shared by a 2x2 block.
        let full = format == 0x3432_3066
        let steps = Array(stride(from: 0, through: 255, by: 5)) + [255]
        for (name, matrix) in Self.matrices {
            let b = buffer(256, 2 * steps.count, format)
            Self.setMatrix(b, name)
            for row in 0..<b.height {
                for x in 0..<256 { b.row(0, row).storeBytes(of: UInt8(x), toByteOffset: x, as: UInt8.self) }
            }
            for cy in 0..<steps.count {
                for cx in 0..<128 {
                    let c = b.row(1, cy)
                    c.storeBytes(of: UInt8(steps[cx % steps.count]), toByteOffset: 2 * cx, as: UInt8.self)
                    c.storeBytes(of: UInt8(steps[cy]), toByteOffset: 2 * cx + 1, as: UInt8.self)
                }
            }
            let worst = Self.worstDifference(b, matrix, fullRange: full) { x, y in
                (x, steps[(x / 2) % steps.count], steps[y / 2])
            }
            #expect(worst <= 1, "\(fourCharCodeString(format)) \(matrix)")
        }
    }

    @Test(arguments: [0x3432_3076, 0x3432_3066, 0x7934_3230, 0x6634_3230, 0x3276_7579, 0x7975_7673, 0x7975_7666] as [UInt32])
    func everyFormatMatchesTheReferenceAtOddSizes(format: UInt32) throws {
        let layout = try #require(PixelFormatRegistry.description(of: format)).layout
        var bytes = Bytes(state: format)
        for (name, matrix) in Self.matrices {
            for (w, h) in [(1, 1), (2, 3), (15, 2), (16, 1), (17, 5), (33, 4), (40, 3)] {
                let b = buffer(w, h, format)
                Self.setMatrix(b, name)
                for (i, p) in b.planes.enumerated() {
                    let rowBytes = PixelBuffer.minimumBytesPerRow(b.format.planes[i], width: p.width)
                    for y in 0..<p.height {
                        for x in 0..<rowBytes { b.row(i, y).storeBytes(of: bytes.next(), toByteOffset: x, as: UInt8.self) }
                    }
                }
                let full: Bool
                let sample: (Int, Int) -> (y: Int, cb: Int, cr: Int)
                func byte(_ plane: Int, _ y: Int, _ x: Int) -> Int { Int(b.row(plane, y).load(fromByteOffset: x, as: UInt8.self)) }
                switch layout {
                case .ycbcr420BiPlanar(let f):
                    full = f
                    sample = { x, y in (byte(0, y, x), byte(1, y / 2, x / 2 * 2), byte(1, y / 2, x / 2 * 2 + 1)) }
                case .ycbcr420Planar(let f):
                    full = f
                    sample = { x, y in (byte(0, y, x), byte(1, y / 2, x / 2), byte(2, y / 2, x / 2)) }
                case .ycbcr422(let yFirst, let f):
                    full = f
                    sample = { x, y in
                        let pair = x / 2 * 4
                        return yFirst ? (byte(0, y, pair + 2 * (x % 2)), byte(0, y, pair + 1), byte(0, y, pair + 3))
                                      : (byte(0, y, pair + 1 + 2 * (x % 2)), byte(0, y, pair), byte(0, y, pair + 2))
                    }
                default:
                    Issue.record("not a Y'CbCr format")
                    return
                }
                let worst = Self.worstDifference(b, matrix, fullRange: full, sample: sample)
                #expect(worst <= 1, "\(fourCharCodeString(format)) \(w)x\(h) \(matrix)")
            }
        }
    }

    @Test func referenceFormulaHandValues() {
        // Video range: Y' 16 is black, 235 white; C 128 neutral.
        #expect(YCbCrMatrix.itu601.rgb(y: 16, cb: 128, cr: 128, fullRange: false) == (0, 0, 0))
        #expect(YCbCrMatrix.itu601.rgb(y: 235, cb: 128, cr: 128, fullRange: false) == (255, 255, 255))
        // 601, full range, Cr 255: R = Y + 1.402 * 127 = 128 + 178.05 -> 255 clamped; G = 128 - 0.714136 * 127 = 37.3.
        let p = YCbCrMatrix.itu601.rgb(y: 128, cb: 128, cr: 255, fullRange: true)
        #expect(p.r == 255 && p.g == 37 && p.b == 128)
        // 709, full range, Cb 0: B = 128 - 1.8556 * 128 = -109.5 -> 0; G = 128 + 0.187324 * 128 = 151.98 -> 152.
        let q = YCbCrMatrix.itu709.rgb(y: 128, cb: 0, cr: 128, fullRange: true)
        #expect(q.b == 0 && q.g == 152 && q.r == 128)
    }
}

@Suite struct RGBConversionTests {
    @Test func thirtyTwoBitOrdersRoundTripThroughBGRA() {
        var bytes = Bytes(state: 7)
        let src = buffer(19, 3, bgra)
        for y in 0..<3 { for x in 0..<(19 * 4) { src.row(0, y).storeBytes(of: bytes.next(), toByteOffset: x, as: UInt8.self) } }
        // (format, byte order of B, G, R, A in the format's pixel)
        for (format, order) in [(UInt32(0x20), [3, 2, 1, 0]), (0x5247_4241, [2, 1, 0, 3]), (0x4142_4752, [1, 2, 3, 0])] {
            let mid = buffer(19, 3, format), back = buffer(19, 3, bgra)
            try! src.convert(to: mid)
            try! mid.convert(to: back)
            for y in 0..<3 {
                for x in 0..<19 {
                    for c in 0..<4 {
                        let s = src.row(0, y).load(fromByteOffset: 4 * x + c, as: UInt8.self)
                        #expect(mid.row(0, y).load(fromByteOffset: 4 * x + order[c], as: UInt8.self) == s)
                        #expect(back.row(0, y).load(fromByteOffset: 4 * x + c, as: UInt8.self) == s)
                    }
                }
            }
        }
    }

    @Test func sixteenBitSamplesRoundAndWiden() {
        // 64ARGB big-endian samples: 0x8080 -> 128, 0x807F -> 127.998 -> 128, 0x0100 -> 0.996 -> 1, 0xFFFF -> 255.
        let src = buffer(1, 1, 0x6236_3461)
        let p = src.row(0, 0)
        for (i, v) in [0xFFFF, 0x8080, 0x807F, 0x0100].enumerated() {
            p.storeBytes(of: UInt16(v).bigEndian, toByteOffset: 2 * i, as: UInt16.self)
        }
        let dst = buffer(1, 1, bgra)
        try! src.convert(to: dst)
        #expect(dst.row(0, 0).load(as: UInt32.self) == 0xFF80_8001)   // A 255, R 128, G 128, B 1
    }

    @Test func describedOnlyFormatsRefuseConversion() {
        let v408 = buffer(4, 4, 0x7634_3038)
        do {
            try v408.convert(to: buffer(4, 4, bgra))
            Issue.record("converted a format that is only described")
        } catch {
            #expect(error.code == CVReturn(kCVReturnInvalidPixelFormat))
        }
    }
}

@Suite struct AttributeTests {
    @Test func pixelFormatMayBeAnArray() throws {
        let a = try PixelBufferAttributes(dictionary([(kCVPixelBufferPixelFormatTypeKey, Value(.array([number(32), number(0x4247_5241)])))]))
        #expect(a.pixelFormats == [32, 0x4247_5241])
        #expect(throws: CVError.self) {
            try PixelBufferAttributes(dictionary([(kCVPixelBufferPixelFormatTypeKey, Value(.array([])))]))
        }
        #expect(throws: CVError.self) {
            try PixelBufferAttributes(dictionary([(kCVPixelBufferPixelFormatTypeKey, number(-1))]))
        }
    }

    @Test func resolvingTakesTheLeastCommonMultipleAndOrsFlags() throws {
        let a = dictionary([(kCVPixelBufferBytesPerRowAlignmentKey, number(12)), (kCVPixelBufferOpenGLCompatibilityKey, Value(.bool(false))),
                            ("Custom", Value(string: "first"))])
        let b = dictionary([(kCVPixelBufferBytesPerRowAlignmentKey, number(18)), (kCVPixelBufferOpenGLCompatibilityKey, Value(.bool(true))),
                            ("Custom", Value(string: "second"))])
        let r = try PixelBufferAttributes.resolve([a, b])
        #expect(r[kCVPixelBufferBytesPerRowAlignmentKey]?.number == 36)
        #expect(r[kCVPixelBufferOpenGLCompatibilityKey]?.number == 1)
        #expect(r["Custom"]?.string == "first")
        #expect(try PixelBufferAttributes.resolve([]).count == 0)
    }

    @Test func poolAttributesHaveApplesDefaults() throws {
        let p = try PoolAttributes(nil)
        #expect(p.minimumBufferCount == 0 && p.maximumBufferAge == 1)
        #expect(p.resolved[kCVPixelBufferPoolMaximumBufferAgeKey]?.number == 1)
        #expect(throws: CVError.self) { try PoolAttributes(dictionary([(kCVPixelBufferPoolMaximumBufferAgeKey, number(.infinity))])) }
    }
}

@Suite struct PixelBufferTests {
    @Test func attachmentSnapshotsFollowChanges() {
        let b = buffer(2, 2, bgra)
        b.setAttachment("a", number(1), mode: 1)
        let first = b.attachments(mode: 1)
        #expect(first === b.attachments(mode: 1))
        b.setAttachment("b", number(2), mode: 1)
        let second = b.attachments(mode: 1)
        #expect(second !== first && second.count == 2)
        b.removeAttachment("a")
        #expect(b.attachments(mode: 1).count == 1 && b.attachments(mode: 0).count == 0)
        #expect(b.attachment("b")?.mode == 1)
    }

    @Test func unlockMustMatchTheLock() {
        let b = buffer(2, 2, bgra)
        #expect(throws: CVError.self) { try b.unlock(readOnly: false) }
        b.lock(readOnly: true)
        b.lock(readOnly: false)
        let seed = b.seed
        #expect(throws: Never.self) { try b.unlock(readOnly: true) }
        #expect(b.seed == seed)
        #expect(throws: CVError.self) { try b.unlock(readOnly: true) }
        #expect(throws: Never.self) { try b.unlock(readOnly: false) }
        #expect(b.seed == seed &+ 1 && b.lockCounts == (0, 0))
    }

    @Test func poolMemoryComesBackAndIsFreedAfterThePoolGoes() throws {
        let attrs = dictionary([(kCVPixelBufferWidthKey, number(8)), (kCVPixelBufferHeightKey, number(8)),
                                (kCVPixelBufferPixelFormatTypeKey, number(Double(bgra)))])
        var pool: PixelBufferPool? = try PixelBufferPool.create(poolAttributes: nil, pixelBufferAttributes: attrs)
        let state = pool!.state
        var b: PixelBuffer? = try pool!.makeBuffer()
        let memory = b!.baseAddress
        b = nil
        #expect(state.counts == (1, 0))
        b = try pool!.makeBuffer()
        #expect(b!.baseAddress == memory)
        weak var storage = b!.storage
        pool = nil   // the buffer keeps working; its memory is freed when it goes
        #expect(state.counts == (0, 1) && storage != nil)
        b = nil
        #expect(storage == nil && state.counts == (0, 0))
        _ = (b, pool)
    }

    @Test func descriptionsReadBackPlanesAndRegisteredFormats() throws {
        let d = try #require(PixelFormatRegistry.description(of: 0x7934_3230)).dictionary
        guard case .dictionary(let dict) = d.storage, case .array(let planes)? = dict[kQZPixelFormatPlaneDescriptions]?.storage else {
            Issue.record("no plane descriptions")
            return
        }
        #expect(dict[kCVPixelFormatPlanes]?.number == 3 && planes.count == 3)
        #expect(dict[kCVPixelFormatFourCC]?.string == "I420")
        // A registration with the planes as a number repeats the top-level plane.
        let custom = try PixelFormatDescription(registering: dictionary([(kCVPixelFormatPlanes, number(2)),
                                                                          (kCVPixelFormatBitsPerBlock, number(8)),
                                                                          (kCVPixelFormatVerticalSubsampling, number(2))]),
                                                as: 0x515A_7071)
        #expect(custom.isPlanar && custom.planes.count == 2 && custom.planes[1].verticalSubsampling == 2)
        #expect(throws: CVError.self) {
            try PixelFormatDescription(registering: dictionary([(kCVPixelFormatBitsPerBlock, number(8)),
                                                                (kCVPixelFormatBlockWidth, number(0))]), as: 1)
        }
    }
}
