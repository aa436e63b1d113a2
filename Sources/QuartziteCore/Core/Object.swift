import CQuartzite

/// What a handle is. Every object stores `tagMagic | kind` in its first stored
/// property, which sits at a fixed offset (16 bytes, after Swift's object
/// header), so the export layer can check a pointer's type before it trusts it.
public enum ObjectKind: UInt16, Sendable {
    case value = 1
    case color = 2
    /// An immutable CGPathRef (CGPathCreateCopy, CGPathCreateWith...).
    case path = 3
    /// A CGMutablePathRef (CGPathCreateMutable, CGPathCreateMutableCopy).
    case mutablePath = 4
    case layer = 16
    case layerClass = 17
    case context = 18
    case timingFunction = 24
    case basicAnimation = 48
    case keyframeAnimation = 49
    case animationGroup = 50
    case transition = 51
    /// A plain CAAnimation (CAAnimationCreate).
    case animation = 52
    /// A CVPixelBufferRef (Core Video's only buffer type here, so also the
    /// CVBufferRef and CVImageBufferRef).
    case pixelBuffer = 32
    case pixelBufferPool = 33
    /// The boxed CVFillExtendedPixelsCallBackData of a pixel format description.
    case fillExtendedPixelsCallback = 34
    // The transaction, run-loop and renderer domains each have a range of
    // their own.
    /// A CAActionRef made by CAActionCreate (animations are actions too).
    case action = 56
    case displayLink = 64
    case runLoop = 65
    case runLoopTimer = 66
    case renderer = 80
    case drawList = 81
    // Core Graphics (issue 13).
    case colorSpace = 96
    case image = 97
    case dataProvider = 98
    case gradient = 99
    // Core Text and Core Foundation's attributed strings (issue 14).
    case font = 120
    case attributedString = 121
    case line = 122
    case framesetter = 123
    case frame = 124
    /// A CASpringAnimation (a CABasicAnimation subclass; next to the other
    /// animations' numbers, declared last so that no case's index moves).
    case springAnimation = 53
    /// A CAEmitterCell (issue 20; declared last so that no case's index moves).
    case emitterCell = 19

    /// The C type name without "Ref", as a static C string.
    package var cTypeName: StaticString {
        switch self {
        case .value: return "CAValue"
        case .color: return "CGColor"
        case .path: return "CGPath"
        case .mutablePath: return "CGMutablePath"
        case .layer: return "CALayer"
        case .layerClass: return "CALayerClass"
        case .context: return "CGContext"
        case .timingFunction: return "CAMediaTimingFunction"
        case .basicAnimation: return "CABasicAnimation"
        case .keyframeAnimation: return "CAKeyframeAnimation"
        case .animationGroup: return "CAAnimationGroup"
        case .transition: return "CATransition"
        case .animation: return "CAAnimation"
        case .springAnimation: return "CASpringAnimation"
        case .emitterCell: return "CAEmitterCell"
        case .pixelBuffer: return "CVPixelBuffer"
        case .pixelBufferPool: return "CVPixelBufferPool"
        case .fillExtendedPixelsCallback: return "QZFillExtendedPixelsCallback"
        case .action: return "CAAction"
        case .displayLink: return "CADisplayLink"
        case .runLoop: return "CFRunLoop"
        case .runLoopTimer: return "CFRunLoopTimer"
        case .renderer: return "CARenderer"
        case .drawList: return "QZDrawList"
        case .colorSpace: return "CGColorSpace"
        case .image: return "CGImage"
        case .dataProvider: return "CGDataProvider"
        case .gradient: return "CGGradient"
        case .font: return "CTFont"
        case .attributedString: return "CFAttributedString"
        case .line: return "CTLine"
        case .framesetter: return "CTFramesetter"
        case .frame: return "CTFrame"
        }
    }

    @usableFromInline package var typeName: String { cTypeName.description }
}

@inlinable package var tagMagic: UInt32 { 0x515A_0000 }
@inlinable package var tagMagicMask: UInt32 { 0xFFFF_0000 }
/// Written by deinit so that a dangling handle reads as "not a Quartzite object"
/// for as long as its memory is not reused.
@inlinable package var deadTag: UInt32 { 0xDEAD_0000 }

/// Byte offset of `QZObject.tag` inside an instance (checked by a unit test).
@inlinable package var tagOffset: Int { 16 }

/// The root of every object a C handle can point at.
open class QZObject {
    /// Must stay the first stored property: see `tagOffset`.
    package final var tag: UInt32

    package init(kind: ObjectKind) {
        tag = tagMagic | UInt32(kind.rawValue)
    }

    deinit {
        tag = deadTag
    }

    package final var kind: ObjectKind? {
        ObjectKind(rawValue: UInt16(truncatingIfNeeded: tag))
    }
}

/// A Swift class that a C handle may point at, and which tags it accepts
/// (a class accepts its subclasses' tags, as Apple's C-style API accepts
/// every subclass of the declaring class).
@usableFromInline package protocol Handle: QZObject {
    /// The kind whose C type name errors use (the declaring class's, for a
    /// class that accepts its subclasses' tags too).
    static var handleKind: ObjectKind { get }
    static func accepts(_ tag: UInt32) -> Bool
}

extension Handle {
    /// The C type name without "Ref", from ObjectKind (the one source of
    /// type names).
    @inlinable package static var handleTypeName: String { handleKind.typeName }
}
