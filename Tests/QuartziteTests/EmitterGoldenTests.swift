import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// The golden scene of CAEmitterLayer: two emitters at fixed seeds, drawn at
// a fixed time (particles are a function of time and seed, so the frame is
// the same on every machine within the golden tolerance).

/// A size x size soft disc: white, alpha falling from 1 at the centre to 0
/// at the edge, premultiplied RGBA (+1).
private func softDisc(_ size: Int) -> QZCGImageRef {
    var bytes = [UInt8](repeating: 0, count: size * size * 4)
    let c = Double(size) / 2
    for y in 0..<size {
        for x in 0..<size {
            let d = (((Double(x) + 0.5 - c) * (Double(x) + 0.5 - c) + (Double(y) + 0.5 - c) * (Double(y) + 0.5 - c))).squareRoot()
            let a = UInt8(max(0, min(1, 1 - d / c)) * 255)
            for k in 0..<4 { bytes[(y * size + x) * 4 + k] = a }
        }
    }
    let provider = bytes.withUnsafeBytes { CGDataProviderCreateWithData(nil, $0.baseAddress, size * size * 4, nil)! }
    let image = CGImageCreate(size, size, 8, 32, size * 4, nil, UInt32(kCGImageAlphaPremultipliedLast), provider, nil,
                              true, kCGRenderingIntentDefault)!
    CGDataProviderRelease(provider)
    return image
}

extension RenderGoldenTests {
    /// Left: a fountain from a line (seed 7) with gravity, colour ranges and
    /// spin, and sparks nested in each drop. Right: an additive burst from a
    /// circle's outline (seed 3). At t = 2.5 s.
    @Test func emitterAtFixedSeedAndTime() {
        let root = TL(0, 0, 128, 96, color: (0.1, 0.1, 0.15, 1))
        let disc = softDisc(8)
        defer { CGImageRelease(disc) }
        func cell(_ configure: (CAEmitterCellRef) -> Void) -> CAEmitterCellRef {
            let c = CAEmitterCellCreate()!
            CAEmitterCellSetContents(c, disc)
            configure(c)
            return c
        }
        func emitter(_ cells: [CAEmitterCellRef], _ configure: (CALayerRef) -> Void) {
            let e = CAEmitterLayerCreate()!
            CALayerSetFrame(e, CGRect(x: 0, y: 0, width: 128, height: 96))
            var list: [CAEmitterCellRef?] = cells
            CAEmitterLayerSetEmitterCells(e, &list, cells.count)
            configure(e)
            CALayerAddSublayer(root.ref, e)
            CARelease(UnsafeRawPointer(e))
            for c in cells { CARelease(UnsafeRawPointer(c)) }
        }
        let spark = cell { c in
            CAEmitterCellSetBirthRate(c, 3); CAEmitterCellSetLifetime(c, 0.6); CAEmitterCellSetScale(c, 0.4)
            CAEmitterCellSetAlphaSpeed(c, -1.5)
            let yellow = CGColorCreateSRGB(1, 0.9, 0.3, 1)!
            CAEmitterCellSetColor(c, yellow); CGColorRelease(yellow)
        }
        let drop = cell { c in
            CAEmitterCellSetBirthRate(c, 25); CAEmitterCellSetLifetime(c, 2); CAEmitterCellSetLifetimeRange(c, 0.5)
            CAEmitterCellSetVelocity(c, 60); CAEmitterCellSetVelocityRange(c, 15)
            CAEmitterCellSetEmissionLongitude(c, -.pi / 2); CAEmitterCellSetEmissionRange(c, 0.6)
            CAEmitterCellSetYAcceleration(c, 50); CAEmitterCellSetSpin(c, 1); CAEmitterCellSetScaleRange(c, 0.3)
            CAEmitterCellSetScaleSpeed(c, -0.2)
            let blue = CGColorCreateSRGB(0.3, 0.6, 1, 1)!
            CAEmitterCellSetColor(c, blue); CGColorRelease(blue)
            CAEmitterCellSetRedRange(c, 0.3); CAEmitterCellSetGreenRange(c, 0.2)
            var subs: [CAEmitterCellRef?] = [spark]
            CAEmitterCellSetEmitterCells(c, &subs, 1)
        }
        CARelease(UnsafeRawPointer(spark))
        emitter([drop]) { e in
            CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 36, y: 88))
            CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerLine)
            CAEmitterLayerSetEmitterSize(e, CGSize(width: 24, height: 0))
            CAEmitterLayerSetSeed(e, 7)
        }
        let burst = cell { c in
            CAEmitterCellSetBirthRate(c, 60); CAEmitterCellSetLifetime(c, 1.2)
            CAEmitterCellSetVelocity(c, 20); CAEmitterCellSetEmissionRange(c, 2 * .pi)
            let red = CGColorCreateSRGB(0.9, 0.3, 0.2, 0.8)!
            CAEmitterCellSetColor(c, red); CGColorRelease(red)
            CAEmitterCellSetBlueRange(c, 0.2); CAEmitterCellSetAlphaSpeed(c, -0.6)
        }
        emitter([burst]) { e in
            CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 94, y: 44))
            CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerCircle)
            CAEmitterLayerSetEmitterMode(e, kCAEmitterLayerOutline)
            CAEmitterLayerSetEmitterSize(e, CGSize(width: 30, height: 30))
            CAEmitterLayerSetRenderMode(e, kCAEmitterLayerAdditive)
            CAEmitterLayerSetSeed(e, 3)
        }
        let pb = renderScene(root, 128, 96, at: 2.5)
        checkGolden("emitter_seed_time", pb)
        CVPixelBufferRelease(pb)
    }
}
