// bench_kernels: the renderer's pixel kernels against pixman on the same
// buffers, one thread, one process (interleaved rounds, best kept). The
// scenes are those of bench_render.c, drawn with the kernels a compositor
// calls rather than through CARenderer:
//   a  solid fill + 1000 x compositeOver (64x64, half translucent)
//   b  ScaledRowSampler (1280x720 -> 1920x1080: each source row resampled
//      once, then one vertical blend per row) + blendSpanOver per row
//   r  the same image rotated by 10 degrees and scaled (the general affine
//      rows), edges clamped (pixman: PIXMAN_REPEAT_PAD)
//   c  solid fill + 100 x (shadow colour through a pre-blurred mask, card
//      colour through a rounded-rectangle mask) with fillMaskOver
//   blur  gaussianBlur of one card's shadow mask (sigma 3), for scale
// Usage: bench_kernels [--reps R] [--frames F]
import CPixman
import Glibc

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

var reps = 7, frames = 3
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    if a == "--reps", let v = args.popFirst(), let n = Int(v) { reps = max(n, 1) }
    else if a == "--frames", let v = args.popFirst(), let n = Int(v) { frames = max(n, 1) }
    else { print("usage: bench_kernels [--reps R] [--frames F]"); exit(2) }
}

let W = 1920, H = 1080, TILE = 64, PW = 1280, PH = 720, CW = 150, CH = 80
var lcg: UInt32 = 12345
func rnd() -> UInt32 { lcg = lcg &* 1103515245 &+ 12345; return (lcg >> 16) & 0x7fff }

// MARK: - Content (as in bench_render.c)

let tiles = (0..<2).map { k -> Bitmap in
    let b = Bitmap(width: TILE, height: TILE)!
    for y in 0..<TILE { for x in 0..<TILE {
        let a: UInt32 = k == 0 ? 255 : UInt32(60 + x + y)
        let r = UInt32(x * 4) * a / 255, g = UInt32(y * 4) * a / 255, bl = 128 * a / 255
        b.surface[x, y] = bl | g << 8 | r << 16 | a << 24
    } }
    return b
}
let positions = (0..<1000).map { _ in (Int(rnd()) % (W - TILE), Int(rnd()) % (H - TILE)) }
let photo = Bitmap(width: PW, height: PH)!
for y in 0..<PH { for x in 0..<PW {
    photo.surface[x, y] = UInt32(x & 255) | UInt32(y & 255) << 8 | UInt32((x ^ y) & 255) << 16 | 0xFF00_0000
} }
let cards = (0..<100).map { (20 + ($0 % 10) * 189, 20 + ($0 / 10) * 105) }
let background: UInt32 = 0xFF20_3040, cardColor: UInt32 = 0xFFE0_C0A0, shadowColor: UInt32 = 0x8000_0000  // black at 0.5
let corner = 12.0, sigma = 3.0
// The rounded-rectangle coverage (16x16 samples) and its blurred shadow (kernels' blur), made once.
let round = MaskBitmap(width: CW, height: CH)!
for y in 0..<CH { for x in 0..<CW {
    var n = 0
    for j in 0..<16 { for i in 0..<16 {
        let px = Double(x) + (Double(i) + 0.5) / 16, py = Double(y) + (Double(j) + 0.5) / 16
        let qx = min(max(px, corner), Double(CW) - corner), qy = min(max(py, corner), Double(CH) - corner)
        if (px - qx) * (px - qx) + (py - qy) * (py - qy) <= corner * corner { n += 1 }
    } }
    round.mask[x, y] = UInt8((Double(n) / 256 * 255).rounded())
} }
let pad = blurExtent(sigma: sigma)
let shadow = MaskBitmap(width: CW + 2 * pad, height: CH + 2 * pad)!
for y in 0..<CH { for x in 0..<CW { shadow.mask[x + pad, y + pad] = round.mask[x, y] } }
gaussianBlur(mask: shadow, sigma: sigma)

// MARK: - Kernel side

let kdst = Bitmap(width: W, height: H)!
let texture = Texture(bitmap: photo)
let rowBuffer = UnsafeMutablePointer<UInt32>.allocate(capacity: W)

func kernelFrame(_ scene: Character) {
    let d = kdst.surface
    switch scene {
    case "a":
        d.fill(background)
        for (i, p) in positions.enumerated() { compositeOver(dst: d, x: p.0, y: p.1, src: tiles[i & 1].surface) }
    case "b":
        d.fill(0)
        let sx = Double(PW) / Double(W), sy = Double(PH) / Double(H)
        let rows = ScaledRowSampler(texture: texture, count: W, u0: 0.5 * sx, du: sx)
        for y in 0..<H {
            blendSpanOver(dst: d.row(y), src: rows.row(v: (Double(y) + 0.5) * sy), count: W)
        }
    case "r":
        d.fill(0)
        // Pixel centre (x, y) -> texel: the inverse of rotate-then-scale about the origin.
        let m = rotation
        for y in 0..<H {
            let py = Double(y) + 0.5
            texture.sampleRowBilinear(dst: rowBuffer, count: W, u0: m.0 * 0.5 + m.1 * py + m.2, v0: m.3 * 0.5 + m.4 * py + m.5,
                                      du: m.0, dv: m.3)
            blendSpanOver(dst: d.row(y), src: rowBuffer, count: W)
        }
    default:
        d.fill(background)
        for c in cards {
            fillMaskOver(dst: d, x: c.0 - pad, y: c.1 - pad + 3, mask: shadow.mask, color: shadowColor)
            fillMaskOver(dst: d, x: c.0, y: c.1, mask: round.mask, color: cardColor)
        }
    }
}

// MARK: - pixman side

let pbuf = UnsafeMutablePointer<UInt32>.allocate(capacity: W * H)
let pdst = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(W), Int32(H), pbuf, Int32(W * 4))
let ptiles = tiles.map { pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(TILE), Int32(TILE), $0.surface.base, Int32($0.surface.rowPixels * 4)) }
let pphoto = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(PW), Int32(PH), photo.surface.base, Int32(photo.surface.rowPixels * 4))
/// pixman_fixed_t (16.16) of a Double (pixman_double_to_fixed is a macro).
func toFixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }
var transform = pixman_transform()
pixman_transform_init_scale(&transform, toFixed(Double(PW) / Double(W)), toFixed(Double(PH) / Double(H)))
pixman_image_set_transform(pphoto, &transform)
pixman_image_set_filter(pphoto, PIXMAN_FILTER_BILINEAR, nil, 0)
pixman_image_set_repeat(pphoto, PIXMAN_REPEAT_PAD)
// Scene r: texel = M (pixel) with M the inverse of a 10 degree rotation and the 1.5x scale.
let angle = 10.0 * Double.pi / 180, scaleR = Double(PW) / Double(W)
let rotation = (cos(angle) * scaleR, sin(angle) * scaleR, 40.0, -sin(angle) * scaleR, cos(angle) * scaleR, 60.0)
let protated = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(PW), Int32(PH), photo.surface.base, Int32(photo.surface.rowPixels * 4))
// pixman's transform maps destination pixel centres to source coordinates (both with centres at +0.5).
var rtransform = pixman_transform(matrix: ((toFixed(rotation.0), toFixed(rotation.1), toFixed(rotation.2)),
                                           (toFixed(rotation.3), toFixed(rotation.4), toFixed(rotation.5)),
                                           (0, 0, pixman_fixed_t(65536))))
pixman_image_set_transform(protated, &rtransform)
pixman_image_set_filter(protated, PIXMAN_FILTER_BILINEAR, nil, 0)
pixman_image_set_repeat(protated, PIXMAN_REPEAT_PAD)
func solid(_ p: UInt32) -> OpaquePointer? {
    func c(_ v: UInt32) -> UInt16 { UInt16(v & 255) * 257 }
    var col = pixman_color_t(red: c(p >> 16), green: c(p >> 8), blue: c(p), alpha: c(p >> 24))
    return pixman_image_create_solid_fill(&col)
}
let pbg = solid(background), pclear = solid(0), pcard = solid(cardColor), pshadowColor = solid(shadowColor)
// pixman's a8 images need rows that are a multiple of 4 bytes; MaskBitmap rows are 64-byte aligned.
let pround = pixman_image_create_bits(PIXMAN_a8, Int32(CW), Int32(CH),
                                      UnsafeMutableRawPointer(round.mask.base).assumingMemoryBound(to: UInt32.self), Int32(round.mask.rowBytes))
let pshadow = pixman_image_create_bits(PIXMAN_a8, Int32(shadow.width), Int32(shadow.height),
                                       UnsafeMutableRawPointer(shadow.mask.base).assumingMemoryBound(to: UInt32.self), Int32(shadow.mask.rowBytes))

func pixmanFrame(_ scene: Character) {
    switch scene {
    case "a":
        pixman_image_composite32(PIXMAN_OP_SRC, pbg, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
        for (i, p) in positions.enumerated() {
            pixman_image_composite32(PIXMAN_OP_OVER, ptiles[i & 1], nil, pdst, 0, 0, 0, 0, Int32(p.0), Int32(p.1), Int32(TILE), Int32(TILE))
        }
    case "b":
        pixman_image_composite32(PIXMAN_OP_SRC, pclear, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
        pixman_image_composite32(PIXMAN_OP_OVER, pphoto, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
    case "r":
        pixman_image_composite32(PIXMAN_OP_SRC, pclear, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
        pixman_image_composite32(PIXMAN_OP_OVER, protated, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
    default:
        pixman_image_composite32(PIXMAN_OP_SRC, pbg, nil, pdst, 0, 0, 0, 0, 0, 0, Int32(W), Int32(H))
        for c in cards {
            pixman_image_composite32(PIXMAN_OP_OVER, pshadowColor, pshadow, pdst, 0, 0, 0, 0, Int32(c.0 - pad), Int32(c.1 - pad + 3),
                                     Int32(shadow.width), Int32(shadow.height))
            pixman_image_composite32(PIXMAN_OP_OVER, pcard, pround, pdst, 0, 0, 0, 0, Int32(c.0), Int32(c.1), Int32(CW), Int32(CH))
        }
    }
}

// MARK: - Agreement, then timing

let names: [Character: String] = ["a": "1000 64x64 image layers (compositeOver)", "b": "full-screen bilinear scale (scaled rows)",
                                  "c": "100 masked cards and shadows (fillMaskOver)",
                                  "r": "full-screen rotated bilinear image (rows)"]
print("  \(pad("kernels vs pixman (1920x1080, one thread)", 52))     kernels      pixman     ratio")
for scene in "abrc" {
    kernelFrame(scene)
    pixmanFrame(scene)
    var worst = 0, differ = 0
    for y in 0..<H {
        let k = kdst.surface.row(y), p = pbuf + y * W
        for x in 0..<W where k[x] != p[x] {
            var m = 0
            for s in stride(from: 0, to: 32, by: 8) { m = max(m, abs(Int((k[x] >> UInt32(s)) & 255) - Int((p[x] >> UInt32(s)) & 255))) }
            worst = max(worst, m)
            if m > 1 { differ += 1 }
        }
    }
    var bestK = Double.infinity, bestP = Double.infinity
    for _ in 0..<reps {
        var t = now()
        for _ in 0..<frames { kernelFrame(scene) }
        bestK = min(bestK, (now() - t) / Double(frames))
        t = now()
        for _ in 0..<frames { pixmanFrame(scene) }
        bestP = min(bestP, (now() - t) / Double(frames))
    }
    let line = pad("\(scene) \(names[scene]!)", 52)
    let ratio = bestK / bestP
    print("  \(line) \(fmt(bestK / 1e6)) ms \(fmt(bestP / 1e6)) ms \(fmt(ratio))x   (frames agree: \(differ) pixels differ by > 1, largest \(worst))")
    print("SUMMARY kernels \(scene): \(names[scene]!): \(fmt(ratio).trimmingSpaces)x pixman's time\(scene == "c" || scene == "r" ? "" : ratio <= 1.5 ? " (target <= 1.5x: met)" : " (target <= 1.5x: NOT met)")")
}
// The blur of one card's shadow mask (what a renderer without a shadow cache pays per layer).
let scratch = MaskBitmap(width: shadow.width, height: shadow.height)!
var bestBlur = Double.infinity
for _ in 0..<reps {
    for y in 0..<CH { for x in 0..<CW { scratch.mask[x + pad, y + pad] = round.mask[x, y] } }
    let t = now()
    gaussianBlur(mask: scratch, sigma: sigma)
    bestBlur = min(bestBlur, now() - t)
}
print("  blur of one \(shadow.width)x\(shadow.height) shadow mask (sigma \(sigma)): \(fmt(bestBlur / 1e3)) us")

func fmt(_ v: Double) -> String {
    let s = String(Int((v * 1000).rounded()))
    let padded = String(repeating: "0", count: max(0, 4 - s.count)) + s
    let r = padded.dropLast(3) + "." + padded.suffix(3)
    return String(repeating: " ", count: max(0, 8 - r.count)) + r
}

func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }

extension String {
    var trimmingSpaces: String { String(drop { $0 == " " }) }
}
