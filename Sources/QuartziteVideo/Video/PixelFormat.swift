import CQuartzite
import QuartziteCore
import QuartziteGeometry
import Synchronization

// Pixel format descriptions (Apple's CVPixelFormatDescription): how each
// four-character code lays out its planes, which the allocator, the
// converters and CVPixelFormatDescriptionCreateWithPixelFormatType read.

/// How one plane of a format is laid out. A block is the smallest
/// byte-addressable group of pixels ('2vuy': 2 pixels in 32 bits).
public struct PlaneFormat: Equatable, Sendable {
    public var bitsPerBlock: Int
    public var blockWidth: Int
    public var blockHeight: Int
    /// Pixels of the image per sample of this plane (2 for 4:2:0 chroma).
    public var horizontalSubsampling: Int
    public var verticalSubsampling: Int
    /// A row holds a multiple of this many blocks ('v210': 8).
    public var blockHorizontalAlignment: Int
    public var blockVerticalAlignment: Int

    public init(bitsPerBlock: Int, blockWidth: Int = 1, blockHeight: Int = 1,
                horizontalSubsampling: Int = 1, verticalSubsampling: Int = 1,
                blockHorizontalAlignment: Int = 1, blockVerticalAlignment: Int = 1) {
        self.bitsPerBlock = bitsPerBlock
        self.blockWidth = blockWidth
        self.blockHeight = blockHeight
        self.horizontalSubsampling = horizontalSubsampling
        self.verticalSubsampling = verticalSubsampling
        self.blockHorizontalAlignment = blockHorizontalAlignment
        self.blockVerticalAlignment = blockVerticalAlignment
    }

    public var bytesPerBlock: Int { bitsPerBlock / 8 }
}

/// The pixel arrangements the converters read and write. Formats with
/// `.opaque` (indexed colour, which has no colour table here, the 10-bit and
/// 4:4:4 Y'CbCr formats, registered formats) are described and can be
/// allocated, but not converted, and are refused as layer contents.
public enum PixelLayout: Equatable, Sendable {
    case bgra32, argb32, rgba32, abgr32
    case rgb24, bgr24
    /// 16-bit big-endian samples.
    case argb64, rgb48, alphaGray32, gray16
    /// 1, 2, 4 or 8-bit gray, white is zero, most significant bits first.
    case grayWhiteIsZero(bits: Int)
    /// 16-bit RGB words, big- or little-endian (read only: as layer contents
    /// and conversion sources).
    case rgb16(RGB16Packing, bigEndian: Bool)
    /// 4:2:2 in one plane: Cb Y'0 Cr Y'1 ('2vuy') or Y'0 Cb Y'1 Cr ('yuvs').
    case ycbcr422(yFirst: Bool, fullRange: Bool)
    /// 4:2:0 in three planes (Y', Cb, Cr).
    case ycbcr420Planar(fullRange: Bool)
    /// 4:2:0 in two planes (Y', interleaved CbCr).
    case ycbcr420BiPlanar(fullRange: Bool)
    case opaque

    public var isYCbCr: Bool {
        switch self {
        case .ycbcr422, .ycbcr420Planar, .ycbcr420BiPlanar: return true
        default: return false
        }
    }
}

/// How a 16-bit RGB word packs its channels (most significant bits first).
public enum RGB16Packing: Equatable, Sendable {
    /// x RRRRR GGGGG BBBBB (the top bit unused: opaque).
    case x555
    /// RRRRR GGGGG BBBBB A (a 1-bit alpha in the lowest bit).
    case rgba5551
    /// RRRRR GGGGGG BBBBB.
    case rgb565
}

/// A described pixel format: a built-in one or one registered with
/// CVPixelFormatDescriptionRegisterDescriptionWithPixelFormatType. A class,
/// so that every buffer of a format shares one description (making a
/// buffer then costs one reference count, not a copy of names and arrays).
public final class PixelFormatDescription {
    public let type: UInt32
    public let name: String
    public let planes: [PlaneFormat]
    /// Stored as planes (the buffer's base address is a planar header).
    public let isPlanar: Bool
    public let layout: PixelLayout
    /// The Microsoft FourCC of the same arrangement ("UYVY" for '2vuy').
    public let fourCC: String?
    public let cgCompatible: Bool
    public let openGLCompatible: Bool
    public let quickDrawCompatible: Bool
    /// A registered custom fill for CVPixelBufferFillExtendedPixels.
    public let fillCallback: FillExtendedPixelsCallback?
    /// A registered description's dictionary, handed back as registered.
    public let registered: Value?
    /// Bytes per pixel of a format stored as one plane of single-pixel
    /// blocks (BGRA, ARGB, gray...), else 0: the layout of its buffers
    /// takes a few steps (PixelBufferLayout's short path).
    package let simpleBytesPerPixel: Int

    public init(type: UInt32, name: String, planes: [PlaneFormat], isPlanar: Bool, layout: PixelLayout,
                fourCC: String? = nil, cgCompatible: Bool = false, openGLCompatible: Bool = false,
                quickDrawCompatible: Bool = false, fillCallback: FillExtendedPixelsCallback? = nil,
                registered: Value? = nil) {
        self.type = type
        self.name = name
        self.planes = planes
        self.isPlanar = isPlanar
        self.layout = layout
        self.fourCC = fourCC
        self.cgCompatible = cgCompatible
        self.openGLCompatible = openGLCompatible
        self.quickDrawCompatible = quickDrawCompatible
        self.fillCallback = fillCallback
        self.registered = registered
        if !isPlanar, planes.count == 1, let p = planes.first, p.blockWidth == 1, p.blockHeight == 1,
           p.horizontalSubsampling == 1, p.verticalSubsampling == 1, p.blockHorizontalAlignment == 1,
           p.blockVerticalAlignment == 1, p.bitsPerBlock > 0, p.bitsPerBlock % 8 == 0 {
            simpleBytesPerPixel = p.bitsPerBlock / 8
        } else {
            simpleBytesPerPixel = 0
        }
    }

    /// The largest subsampling of any plane, times its block size: extended
    /// pixels are rounded up to multiples of this so every plane gets whole blocks.
    package var granularity: (horizontal: Int, vertical: Int) {
        var h = 1, v = 1
        for p in planes {
            h = max(h, p.horizontalSubsampling * p.blockWidth)
            v = max(v, p.verticalSubsampling * p.blockHeight)
        }
        return (h, v)
    }
}

/// The boxed CVFillExtendedPixelsCallBackData stored in a description (Apple
/// stores the struct in a CFData).
public final class FillExtendedPixelsCallback: QZObject, Handle {
    public let data: CVFillExtendedPixelsCallBackData

    public init(_ data: CVFillExtendedPixelsCallBackData) {
        self.data = data
        super.init(kind: .fillExtendedPixelsCallback)
    }

    @inlinable package static var handleKind: ObjectKind { .fillExtendedPixelsCallback }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.fillExtendedPixelsCallback.rawValue) }
}

/// A four-character code as text ('BGRA'), or its hex value when a byte is
/// not printable (0x00000020).
public func fourCharCodeString(_ code: UInt32) -> String {
    let bytes = [UInt8(code >> 24), UInt8((code >> 16) & 0xFF), UInt8((code >> 8) & 0xFF), UInt8(code & 0xFF)]
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
    }
    let hex = String(code, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
}

/// Every known pixel format: the built-in table plus registrations.
/// Thread-safe; registration replaces an earlier description of the same code.
public enum PixelFormatRegistry {
    private struct State {
        package var formats: [UInt32: PixelFormatDescription] = [:]
        package var order: [UInt32] = []
    }

    private static let state: Mutex<State> = {
        var s = State()
        for d in builtinFormats {
            s.formats[d.type] = d
            s.order.append(d.type)
        }
        return Mutex(s)
    }()

    public static func description(of type: UInt32) -> PixelFormatDescription? {
        state.withLock { $0.formats[type] }
    }

    /// Every format, the built-in ones in Apple's header order, then the
    /// registered ones in registration order.
    public static var all: [PixelFormatDescription] {
        state.withLock { s in s.order.compactMap { s.formats[$0] } }
    }

    public static func register(_ d: PixelFormatDescription) {
        state.withLock { s in
            if s.formats[d.type] == nil { s.order.append(d.type) }
            s.formats[d.type] = d
        }
    }

    // The built-in formats: every constant of CVPixelBuffer.h's list.
    package static let builtinFormats: [PixelFormatDescription] = {
        func chunky(_ type: UInt32, _ name: String, bits: Int, blockWidth: Int = 1, alignment: Int = 1,
                    layout: PixelLayout = .opaque, fourCC: String? = nil,
                    cg: Bool = false, gl: Bool = false, qd: Bool = false) -> PixelFormatDescription {
            PixelFormatDescription(type: type, name: name,
                                   planes: [PlaneFormat(bitsPerBlock: bits, blockWidth: blockWidth,
                                                        blockHorizontalAlignment: alignment)],
                                   isPlanar: false, layout: layout, fourCC: fourCC,
                                   cgCompatible: cg, openGLCompatible: gl, quickDrawCompatible: qd)
        }
        func planar(_ type: UInt32, _ name: String, _ planes: [PlaneFormat], layout: PixelLayout = .opaque,
                    fourCC: String? = nil) -> PixelFormatDescription {
            PixelFormatDescription(type: type, name: name, planes: planes, isPlanar: true, layout: layout, fourCC: fourCC)
        }
        let luma = PlaneFormat(bitsPerBlock: 8)
        let chroma420 = PlaneFormat(bitsPerBlock: 8, horizontalSubsampling: 2, verticalSubsampling: 2)
        let chromaPairs420 = PlaneFormat(bitsPerBlock: 16, horizontalSubsampling: 2, verticalSubsampling: 2)
        return [
            chunky(0x0000_0001, "1 bit indexed", bits: 8, blockWidth: 8, qd: true),
            chunky(0x0000_0002, "2 bit indexed", bits: 8, blockWidth: 4, qd: true),
            chunky(0x0000_0004, "4 bit indexed", bits: 8, blockWidth: 2, qd: true),
            chunky(0x0000_0008, "8 bit indexed", bits: 8, qd: true),
            chunky(0x0000_0021, "1 bit indexed gray, white is zero", bits: 8, blockWidth: 8, layout: .grayWhiteIsZero(bits: 1), qd: true),
            chunky(0x0000_0022, "2 bit indexed gray, white is zero", bits: 8, blockWidth: 4, layout: .grayWhiteIsZero(bits: 2), qd: true),
            chunky(0x0000_0024, "4 bit indexed gray, white is zero", bits: 8, blockWidth: 2, layout: .grayWhiteIsZero(bits: 4), qd: true),
            chunky(0x0000_0028, "8 bit indexed gray, white is zero", bits: 8, layout: .grayWhiteIsZero(bits: 8), qd: true),
            chunky(0x0000_0010, "16 bit BE RGB 555", bits: 16, layout: .rgb16(.x555, bigEndian: true), qd: true),
            chunky(0x4C35_3535, "16 bit LE RGB 555", bits: 16, layout: .rgb16(.x555, bigEndian: false)),
            chunky(0x3535_3531, "16 bit LE RGB 5551", bits: 16, layout: .rgb16(.rgba5551, bigEndian: false)),
            chunky(0x4235_3635, "16 bit BE RGB 565", bits: 16, layout: .rgb16(.rgb565, bigEndian: true)),
            chunky(0x4C35_3635, "16 bit LE RGB 565", bits: 16, layout: .rgb16(.rgb565, bigEndian: false)),
            chunky(0x0000_0018, "24 bit RGB", bits: 24, layout: .rgb24, cg: true, qd: true),
            chunky(0x3234_4247, "24 bit BGR", bits: 24, layout: .bgr24, cg: true),
            chunky(0x0000_0020, "32 bit ARGB", bits: 32, layout: .argb32, cg: true, gl: true, qd: true),
            chunky(0x4247_5241, "32 bit BGRA", bits: 32, layout: .bgra32, cg: true, gl: true),
            chunky(0x4142_4752, "32 bit ABGR", bits: 32, layout: .abgr32, cg: true),
            chunky(0x5247_4241, "32 bit RGBA", bits: 32, layout: .rgba32, cg: true, gl: true),
            chunky(0x6236_3461, "64 bit ARGB, 16-bit big-endian samples", bits: 64, layout: .argb64, cg: true),
            chunky(0x6234_3872, "48 bit RGB, 16-bit big-endian samples", bits: 48, layout: .rgb48, cg: true),
            chunky(0x6233_3261, "32 bit AlphaGray, 16-bit big-endian samples, black is zero", bits: 32, layout: .alphaGray32),
            chunky(0x6231_3667, "16 bit Grayscale, 16-bit big-endian samples, black is zero", bits: 16, layout: .gray16, cg: true),
            chunky(0x3276_7579, "Component Y'CbCr 8-bit 4:2:2, ordered Cb Y'0 Cr Y'1", bits: 32, blockWidth: 2,
                   layout: .ycbcr422(yFirst: false, fullRange: false), fourCC: "UYVY", gl: true),
            chunky(0x7634_3038, "Component Y'CbCrA 8-bit 4:4:4:4, ordered Cb Y' Cr A", bits: 32),
            chunky(0x7234_3038, "Component Y'CbCrA 8-bit 4:4:4:4, rendering format, ordered A Y' Cb Cr", bits: 32),
            chunky(0x7633_3038, "Component Y'CbCr 8-bit 4:4:4", bits: 24),
            chunky(0x7632_3136, "Component Y'CbCr 10,12,14,16-bit 4:2:2", bits: 64, blockWidth: 2),
            // v210: 6 pixels in 128 bits, rows a multiple of 48 pixels (8 blocks).
            chunky(0x7632_3130, "Component Y'CbCr 10-bit 4:2:2", bits: 128, blockWidth: 6, alignment: 8),
            chunky(0x7634_3130, "Component Y'CbCr 10-bit 4:4:4", bits: 32),
            planar(0x7934_3230, "Planar Component Y'CbCr 8-bit 4:2:0", [luma, chroma420, chroma420],
                   layout: .ycbcr420Planar(fullRange: false), fourCC: "I420"),
            planar(0x6634_3230, "Planar Component Y'CbCr 8-bit 4:2:0, full range", [luma, chroma420, chroma420],
                   layout: .ycbcr420Planar(fullRange: true), fourCC: "I420"),
            planar(0x6132_7679, "Component Y'CbCr 8-bit 4:2:2 and 8-bit alpha, bi-planar",
                   [PlaneFormat(bitsPerBlock: 32, blockWidth: 2), luma]),
            planar(0x3432_3076, "Bi-Planar Component Y'CbCr 8-bit 4:2:0, video-range", [luma, chromaPairs420],
                   layout: .ycbcr420BiPlanar(fullRange: false), fourCC: "NV12"),
            planar(0x3432_3066, "Bi-Planar Component Y'CbCr 8-bit 4:2:0, full-range", [luma, chromaPairs420],
                   layout: .ycbcr420BiPlanar(fullRange: true), fourCC: "NV12"),
            chunky(0x7975_7673, "Component Y'CbCr 8-bit 4:2:2, ordered Y'0 Cb Y'1 Cr", bits: 32, blockWidth: 2,
                   layout: .ycbcr422(yFirst: true, fullRange: false), fourCC: "YUY2", gl: true),
            chunky(0x7975_7666, "Component Y'CbCr 8-bit 4:2:2, full range, ordered Y'0 Cb Y'1 Cr", bits: 32, blockWidth: 2,
                   layout: .ycbcr422(yFirst: true, fullRange: true), fourCC: "YUY2"),
        ]
    }()
}
