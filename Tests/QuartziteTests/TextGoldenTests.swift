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

// Golden scenes of text: CATextLayer through the display cycle and the
// renderer, and Core Text drawn into a bitmap context. The fonts are pinned
// by Tests/fonts/fonts.conf (pinTestFonts), so the images are the same on
// every machine that ran scripts/install-deps.sh. Compared with
// Tests/golden/text_<scene>.png within goldenTolerance per channel.

private let ink = (0.1, 0.1, 0.15, 1.0)
private let paper = (0.97, 0.96, 0.92, 1.0)
private let tint = (0.85, 0.9, 0.97, 1.0)

private func renderText(_ name: String, _ root: TL, _ w: Int, _ h: Int, at t: Double = 1000) {
    CATransactionFlush()
    let pb = renderScene(root, w, h, at: t)
    checkGolden("text_" + name, pb)
    CVPixelBufferRelease(pb)
}

private let pangram = "The quick brown fox jumps over the lazy dog."

@Suite("Text golden scenes", .serialized)
struct TextGoldenTests {
    init() {
        pinTestFonts()
        clearLastError()
    }

    @Test func alignmentModes() {
        let root = TL(0, 0, 240, 236, color: paper)
        let modes = [kCAAlignmentNatural, kCAAlignmentLeft, kCAAlignmentRight, kCAAlignmentCenter, kCAAlignmentJustified]
        var labels: [TextL] = []
        for (i, mode) in modes.enumerated() {
            // Natural: a left-to-right and a right-to-left paragraph.
            let text = i == 0 ? "Natural follows the script\nمرحبا بالعالم" : pangram
            let l = TextL(8, 6 + Double(i) * 46, 224, 42, text, font: "Helvetica", size: 13, color: ink, background: tint)
            l.set(wrapped: true)
            l.set(alignment: mode)
            root.add(l)
            labels.append(l)
        }
        renderText("alignment", root, 240, 236)
        #expect(lastErrorCode() == QZErrorNone, "\(lastErrorMessage())")
    }

    @Test func wrappingOnAndOff() {
        let root = TL(0, 0, 200, 110, color: paper)
        let on = TextL(8, 8, 84, 94, "Wrapping words in a narrow layer", font: "Helvetica", size: 14, color: ink, background: tint)
        on.set(wrapped: true)
        let off = TextL(108, 8, 84, 94, "Wrapping words in a narrow layer", font: "Helvetica", size: 14, color: ink, background: tint)
        root.add(on)
        root.add(off)
        renderText("wrapping", root, 200, 110)
    }

    @Test func truncationModes() {
        let root = TL(0, 0, 200, 150, color: paper)
        var labels: [TextL] = []
        for (i, mode) in [kCATruncationNone, kCATruncationStart, kCATruncationMiddle, kCATruncationEnd].enumerated() {
            let l = TextL(8, 8 + Double(i) * 27, 184, 22, "Beginning, a long middle part, and the end", font: "Helvetica",
                          size: 15, color: ink, background: tint)
            l.set(truncation: mode)
            root.add(l)
            labels.append(l)
        }
        // Wrapped and truncated: the last line that fits ends in the ellipsis.
        let wrapped = TextL(8, 8 + 4 * 27, 184, 30, pangram + " " + pangram, font: "Helvetica", size: 12, color: ink, background: tint)
        wrapped.set(wrapped: true)
        wrapped.set(truncation: kCATruncationEnd)
        root.add(wrapped)
        renderText("truncation", root, 200, 150)
    }

    @Test func fontSizeAnimationFrames() {
        let clock = RenderClock(10)
        defer { withExtendedLifetime(clock) {} }
        let root = TL(0, 0, 200, 56, color: paper)
        let label = TextL(8, 4, 184, 48, "Size", font: "Helvetica-Bold", size: 12, color: ink, background: tint)
        root.add(label)
        CATransactionFlush()
        let a = CABasicAnimationCreate("fontSize")!
        let from = CAValueCreateNumber(12)!, to = CAValueCreateNumber(36)!
        CABasicAnimationSetFromValue(a, from)
        CABasicAnimationSetToValue(a, to)
        CAAnimationSetDuration(a, 1)
        CALayerAddAnimation(label.ref, a, "size")
        CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
        CATransactionFlush()
        for (i, t) in [10.0, 10.5, 10.999].enumerated() {
            renderText("font_size_frame_\(i)", root, 200, 56, at: t)
        }
        // The model keeps its own size.
        #expect(CATextLayerGetFontSize(label.ref) == 12)
    }

    @Test func foregroundColorAnimation() {
        let clock = RenderClock(20)
        defer { withExtendedLifetime(clock) {} }
        let root = TL(0, 0, 200, 50, color: paper)
        let label = TextL(8, 4, 184, 42, "Colour", font: "Helvetica-Bold", size: 30, color: (0.9, 0.1, 0.1, 1))
        root.add(label)
        CATransactionFlush()
        let a = CABasicAnimationCreate("foregroundColor")!
        let red = CGColorCreateSRGB(0.9, 0.1, 0.1, 1)!, blue = CGColorCreateSRGB(0.1, 0.1, 0.9, 1)!
        let from = CAValueCreateColor(red)!, to = CAValueCreateColor(blue)!
        CABasicAnimationSetFromValue(a, from)
        CABasicAnimationSetToValue(a, to)
        CAAnimationSetDuration(a, 1)
        CALayerAddAnimation(label.ref, a, "color")
        CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
        CGColorRelease(red); CGColorRelease(blue)
        CATransactionFlush()
        renderText("foreground_color_animation", root, 200, 50, at: 20.5)
        // Half-way: the glyphs' core is the mix of red and blue.
        let pb = renderScene(root, 200, 50, at: 20.5)
        var best = (0, 0, 0, 0), bestDistance = Int.max
        for y in 0..<50 {
            for x in 0..<200 {
                let p = pixel(pb, x, y)
                let d = abs(p.0 - 128) + abs(p.1 - 26) + abs(p.2 - 128)
                if d < bestDistance { bestDistance = d; best = p }
            }
        }
        CVPixelBufferRelease(pb)
        #expect(bestDistance < 12, "no pixel near (128, 26, 128): closest \(best)")
    }

    @Test func mixedScripts() {
        let root = TL(0, 0, 300, 50, color: paper)
        let label = TextL(8, 6, 284, 40, "Hello مرحبا بالعالم नमस्ते दुनिया", font: "Helvetica", size: 20, color: ink)
        root.add(label)
        renderText("mixed_scripts", root, 300, 50)
    }

    @Test func attributedStringTwoFontsTwoColoursUnderline() {
        let root = TL(0, 0, 260, 50, color: paper)
        let s = makeAttributed([("Bold red ", "Helvetica-Bold", 20, (0.8, 0.1, 0.1, 1), 0),
                                ("and Times blue", "Times", 22, (0.1, 0.2, 0.8, 1), Int32(kCTUnderlineStyleSingle))])
        let label = TextL(8, 8, 244, 36)
        CATextLayerSetString(label.ref, s)
        CARelease(UnsafeRawPointer(s))
        root.add(label)
        renderText("attributed", root, 260, 50)
    }

    @Test func contentsScale1And2() {
        // Magnified 3x so the difference shows: the scale-2 label is sharper.
        let root = TL(0, 0, 360, 66, color: paper)
        let zoom = TL(0, 0, 120, 22)
        CALayerSetAnchorPoint(zoom.ref, CGPoint(x: 0, y: 0))
        CALayerSetPosition(zoom.ref, CGPoint(x: 0, y: 0))
        CALayerSetTransform(zoom.ref, CATransform3DMakeScale(3, 3, 1))
        root.add(zoom)
        let one = TextL(2, 2, 56, 18, "Aa 1x", font: "Helvetica", size: 12, color: ink)
        let two = TextL(62, 2, 56, 18, "Aa 2x", font: "Helvetica", size: 12, color: ink)
        two.set(scale: 2)
        zoom.add(one)
        zoom.add(two)
        CATransactionFlush()
        #expect(CVPixelBufferGetWidth(two.contents!) == 112 && CVPixelBufferGetWidth(one.contents!) == 56)
        renderText("contents_scale", root, 360, 66)
    }

    @Test func coreTextFrameInRectangle() {
        let pb = makeBuffer(240, 150)
        let ctx = QZBitmapContextCreateWithPixelBuffer(pb)!
        CGContextSetRGBFillColor(ctx, paper.0, paper.1, paper.2, 1)
        CGContextFillRect(ctx, CGRect(x: 0, y: 0, width: 240, height: 150))
        let rect = CGRect(x: 20, y: 15, width: 200, height: 120)
        CGContextSetRGBStrokeColor(ctx, 0.6, 0.7, 0.9, 1)
        CGContextStrokeRect(ctx, rect.insetBy(dx: -0.5, dy: -0.5))
        // The iOS idiom: flip to Core Text's y-up space.
        CGContextTranslateCTM(ctx, 0, 150)
        CGContextScaleCTM(ctx, 1, -1)
        let s = makeAttributed([("Core Text lays this paragraph out in a rectangle: ", "Times", 15, ink, 0),
                                ("words wrap at its width, ", "Times-Italic", 15, (0.7, 0.2, 0.1, 1), 0),
                                ("and lines that do not fit its height are left out of the frame entirely.", "Times", 15, ink, 0)])
        let setter = CTFramesetterCreateWithAttributedString(s)!
        let path = CGPathCreateMutable()!
        // (Flipped: the rectangle in y-up coordinates.)
        CGPathAddRect(path, nil, CGRect(x: rect.minX, y: 150 - rect.maxY, width: rect.width, height: rect.height))
        let frame = CTFramesetterCreateFrame(setter, CFRange(location: 0, length: 0), path, nil)!
        CTFrameDraw(frame, ctx)
        #expect(lastErrorCode() == QZErrorNone, "\(lastErrorMessage())")
        checkGolden("text_ct_frame", pb)
        CARelease(UnsafeRawPointer(frame)); CGPathRelease(path); CARelease(UnsafeRawPointer(setter))
        CARelease(UnsafeRawPointer(s)); CGContextRelease(ctx); CVPixelBufferRelease(pb)
    }
}
