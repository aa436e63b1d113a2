import CQuartzite
import Glibc
import Testing
@testable import Quartzite

// The renderer's pixel kernels. Expected values are computed by hand (in the
// comments) or by independent floating-point references written here.

/// A BGRA pixel from its channels.
private func px(_ b: UInt32, _ g: UInt32, _ r: UInt32, _ a: UInt32) -> UInt32 { b | g << 8 | r << 16 | a << 24 }

@Suite struct RenderKernelTests {
    @Test func overRoundsExactly() {
        // 50% grey-blue over opaque white: src (b 128, g 0, r 0, a 128);
        // dst*(255-128)/255 = 255*127/255 = 127 per channel -> (255, 127, 127, 255).
        var d: [UInt32] = [px(255, 255, 255, 255)]
        let s: [UInt32] = [px(128, 0, 0, 128)]
        blendSpanOver(dst: &d, src: s, count: 1)
        #expect(d[0] == px(255, 127, 127, 255))
    }
}
