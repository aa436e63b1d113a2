import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
// The GL renderer's shaders (GLSL ES 3.00). Every fragment program evaluates
// the CPU compositor's per-pixel model (Render/Compositor.swift) at its
// pixel: the pixel centre mapped back into layer coordinates through the
// inverse homography (perspective-correct by construction), coverage from
// the distance to the shape's edges in pixels (edge anti-aliasing, rounded
// corners, borders), the product of the enclosing clips' coverage, and
// texels fetched and filtered in the shader the way the CPU kernels filter
// them (Render/Kernels/Texture.swift), so the two renderers agree to within
// 8-bit rounding. Colours are premultiplied sRGB values, blended without
// linearisation (source over: ONE, ONE_MINUS_SRC_ALPHA).
//
// Coordinates: "target pixels" are the draw list's (x right, y down, pixel
// (i, j) covering [i, i + 1) x [j, j + 1)). A framebuffer covers a rectangle
// of them (uTarget: x, y, width, height); offscreen ones store rows top-down,
// the host's framebuffer bottom-up (uFlipY = 1, GL's convention), so that
// the frame is upright when GL shows or samples it.

package enum GLShaders {
    /// Four vertices (a triangle strip) covering uBox, in target pixels.
    package static let vertex = """
    #version 300 es
    uniform vec4 uBox;
    uniform vec4 uTarget;
    uniform float uFlipY;
    void main() {
        vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
        vec2 p = mix(uBox.xy, uBox.zw, corner);
        vec2 ndc = (p - uTarget.xy) / uTarget.zw * 2.0 - 1.0;
        if (uFlipY > 0.5) ndc.y = -ndc.y;
        gl_Position = vec4(ndc, 0.0, 1.0);
    }
    """

    /// What every fragment program shares: the pixel centre, shapes, clips.
    static let common = """
    #version 300 es
    precision highp float;
    precision highp int;
    precision highp sampler2D;
    uniform vec4 uTarget;
    uniform float uFlipY;
    out vec4 fragColor;

    // The centre of this fragment's pixel in target pixels.
    vec2 targetPixel() {
        vec2 f = gl_FragCoord.xy;
        return vec2(uTarget.x + f.x, uFlipY > 0.5 ? uTarget.y + uTarget.w - f.y : uTarget.y + f.y);
    }

    // An 8-bit coverage or opacity, as the CPU kernels round it (unit8).
    float unit8(float x) { return x >= 1.0 ? 1.0 : (x > 0.0 ? floor(x * 255.0 + 0.5) / 255.0 : 0.0); }

    // The layer point under target point p (inverse homography), and the
    // pixel scales along the layer's x and y axes; false behind the eye.
    bool localPoint(mat3 inv, mat3 fwd, vec2 p, out vec2 q, out vec2 s) {
        vec3 h = inv * vec3(p, 1.0);
        q = vec2(0.0); s = vec2(0.0);
        if (h.z == 0.0) return false;
        q = h.xy / h.z;
        float w = q.x * fwd[0][2] + q.y * fwd[1][2] + fwd[2][2];
        if (w <= 1e-9) return false;
        vec2 a = vec2(fwd[0][0] - p.x * fwd[0][2], fwd[0][1] - p.y * fwd[0][2]) / w;
        vec2 b = vec2(fwd[1][0] - p.x * fwd[1][2], fwd[1][1] - p.y * fwd[1][2]) / w;
        s = vec2(length(a), length(b));
        return true;
    }

    float edgeLo(float d, bool aa) { return aa ? clamp(0.5 - d, 0.0, 1.0) : (d <= 0.0 ? 1.0 : 0.0); }
    float edgeHi(float d, bool aa) { return aa ? clamp(0.5 - d, 0.0, 1.0) : (d < 0.0 ? 1.0 : 0.0); }

    // Coverage of the pixel whose centre maps to q by the rounded rectangle
    // r (minX, minY, maxX, maxY); edges outside the mask (left 1, right 2,
    // bottom 4, top 8) are hard.
    float coverage(vec4 r, float radius, int edges, vec2 q, vec2 s) {
        float cl = edgeLo((r.x - q.x) * s.x, (edges & 1) != 0), cr = edgeHi((q.x - r.z) * s.x, (edges & 2) != 0);
        float ct = edgeLo((r.y - q.y) * s.y, (edges & 8) != 0), cb = edgeHi((q.y - r.w) * s.y, (edges & 4) != 0);
        float c = max(cl + cr - 1.0, 0.0) * max(ct + cb - 1.0, 0.0);
        if (radius > 0.0 && c > 0.0) {
            float ix = min(max(q.x, r.x + radius), r.z - radius);
            float iy = min(max(q.y, r.y + radius), r.w - radius);
            if (ix != q.x && iy != q.y) {
                vec2 d2 = vec2((q.x - ix) * s.x, (q.y - iy) * s.y);
                float d = length(d2) - radius * (s.x + s.y) * 0.5;
                c = min(c, clamp(0.5 - d, 0.0, 1.0));
            }
        }
        return c;
    }

    // The enclosing clips: six RGBA32F texels per row, one row per clip
    // (inverse and forward homographies, corner radius, edge mask, rect).
    uniform sampler2D uClips;
    uniform int uClipCount;
    float clipCoverage(vec2 p) {
        float c = 1.0;
        for (int i = 0; i < uClipCount; i++) {
            vec4 t0 = texelFetch(uClips, ivec2(0, i), 0), t1 = texelFetch(uClips, ivec2(1, i), 0);
            vec4 t2 = texelFetch(uClips, ivec2(2, i), 0), t3 = texelFetch(uClips, ivec2(3, i), 0);
            vec4 t4 = texelFetch(uClips, ivec2(4, i), 0), t5 = texelFetch(uClips, ivec2(5, i), 0);
            mat3 inv = mat3(t0.xyz, vec3(t0.w, t1.xy), vec3(t1.zw, t2.x));
            mat3 fwd = mat3(t2.yzw, t3.xyz, vec3(t3.w, t4.xy));
            vec2 q, s;
            if (!localPoint(inv, fwd, p, q, s)) return 0.0;
            c *= coverage(t5, t4.z, int(t4.w), q, s);
            if (c <= 0.0) return 0.0;
        }
        return c;
    }
    """

    /// Fills, borders and images (DrawOp .fill, .border, .image).
    static let quad = common + """

    uniform mat3 uInv;
    uniform mat3 uFwd;
    uniform vec4 uRect;
    uniform float uRadius;
    uniform int uEdges;
    uniform int uKind;          // 0 fill, 1 border, 2 image
    uniform float uBorderWidth;
    uniform vec4 uColor;        // premultiplied RGBA, already 8-bit values (an image's tint)
    uniform float uOpacity;
    uniform sampler2D uTex;
    uniform vec2 uTexOrigin;    // the texel at the layer space's origin
    uniform vec2 uTexScale;     // texels per layer unit
    uniform int uMinFilter;     // 0 nearest, 1 linear, 2 trilinear
    uniform int uMagFilter;
    uniform float uBias;
    uniform int uLevels;        // mip levels present (1: none)
    uniform int uFlipV;         // 1: texture rows bottom-up (GL-rendered content)

    vec4 fetch(ivec2 c, int level) {
        ivec2 size = textureSize(uTex, level);
        c = clamp(c, ivec2(0), size - 1);
        if (uFlipV == 1) c.y = size.y - 1 - c.y;
        return texelFetch(uTex, c, level);
    }

    // Texture.bilinear: the four texels around uv, 8-bit weights.
    vec4 bilinear(vec2 uv, int level) {
        vec2 t = uv - 0.5;
        vec2 fl = floor(t);
        vec2 a = floor((t - fl) * 256.0) / 256.0;
        ivec2 i = ivec2(fl);
        vec4 p00 = fetch(i, level), p01 = fetch(i + ivec2(1, 0), level);
        vec4 p10 = fetch(i + ivec2(0, 1), level), p11 = fetch(i + ivec2(1, 1), level);
        return mix(mix(p00, p01, a.x), mix(p10, p11, a.x), a.y);
    }

    // Texture.trilinear: bilinear samples of two levels blended by lod's
    // fraction (in 8-bit steps); past the last level, the last level.
    vec4 trilinear(vec2 uv, float lod) {
        float l = min(lod, float(uLevels - 1));
        int l0 = int(l);
        float f = floor((l - float(l0)) * 255.0 + 0.5) / 255.0;
        vec2 base = vec2(textureSize(uTex, 0));
        vec4 p0 = bilinear(uv * vec2(textureSize(uTex, l0)) / base, l0);
        if (f == 0.0 || l0 + 1 >= uLevels) return p0;
        vec4 p1 = bilinear(uv * vec2(textureSize(uTex, l0 + 1)) / base, l0 + 1);
        return mix(p0, p1, f);
    }

    vec4 sampleTexture(vec2 q, vec2 s) {
        vec2 uv = uTexOrigin + q * uTexScale;
        float perPixel = max(uTexScale.x / max(s.x, 1e-12), uTexScale.y / max(s.y, 1e-12));
        float lod = log2(max(perPixel, 1e-12));
        int chosen = lod > 0.0 ? uMinFilter : uMagFilter;
        if (chosen == 0) return fetch(ivec2(floor(uv)), 0);
        if (chosen == 2) {
            float l = lod + uBias;
            if (l > 0.0 && uLevels > 1) return trilinear(uv, l);
        }
        return bilinear(uv, 0);
    }

    void main() {
        vec2 p = targetPixel();
        vec2 q, s;
        if (!localPoint(uInv, uFwd, p, q, s)) discard;
        float cov = coverage(uRect, uRadius, uEdges, q, s);
        if (uKind == 1) {
            vec4 inner = vec4(uRect.xy + uBorderWidth, uRect.zw - uBorderWidth);
            if (inner.z > inner.x && inner.w > inner.y)
                cov = max(cov - coverage(inner, max(uRadius - uBorderWidth, 0.0), 15, q, s), 0.0);
        }
        if (cov <= 0.0) discard;
        if (uClipCount > 0) cov *= clipCoverage(p);
        float k = unit8(cov * uOpacity);
        if (k == 0.0) discard;
        // (An image's uColor is its tint: texels times it.)
        vec4 src = uKind == 2 ? sampleTexture(q, s) * uColor : uColor;
        fragColor = src * k;
    }
    """

    /// A group's offscreen pixels multiplied by its colour, composited with
    /// its opacity, times its mask's alpha when it has one (compositeGroup).
    package static let group = common + """

    uniform sampler2D uTex;
    uniform sampler2D uMask;
    uniform vec2 uTexOrigin;   // the offscreen's corner in target pixels
    uniform int uHasMask;
    uniform float uOpacity;    // 8-bit value
    uniform vec4 uColor;       // multiplies the pixels (premultiplied; white: none)
    void main() {
        ivec2 c = ivec2(floor(targetPixel() - uTexOrigin));
        vec4 src = texelFetch(uTex, c, 0) * uColor;
        float m = uHasMask == 1 ? texelFetch(uMask, c, 0).a : 1.0;
        fragColor = src * (uOpacity * m);
    }
    """

    /// One axis of a shadow's blur: the silhouette's alpha convolved with
    /// the weights along x (into an offscreen of the silhouette's size).
    package static let blur = common + """

    uniform sampler2D uTex;      // the silhouette (alpha)
    uniform sampler2D uWeights;  // R32F, 2 * radius + 1 taps
    uniform int uRadius;
    uniform vec2 uTexOrigin;     // the silhouette's corner in target pixels
    void main() {
        ivec2 c = ivec2(floor(targetPixel() - uTexOrigin));
        ivec2 size = textureSize(uTex, 0);
        float sum = 0.0;
        for (int k = -uRadius; k <= uRadius; k++) {
            int x = c.x + k;
            if (x < 0 || x >= size.x) continue;
            sum += texelFetch(uWeights, ivec2(k + uRadius, 0), 0).r * texelFetch(uTex, ivec2(x, c.y), 0).a;
        }
        fragColor = vec4(0.0, 0.0, 0.0, sum);
    }
    """

    /// A shadow: the other axis of the blur, tinted and offset, through the
    /// enclosing clips (compositeShadow).
    package static let shadow = common + """

    uniform sampler2D uTex;      // the silhouette blurred along x
    uniform sampler2D uWeights;
    uniform int uRadius;
    uniform vec2 uTexOrigin;     // the silhouette's corner, plus the shadow's offset
    uniform vec4 uColor;         // premultiplied, 8-bit values, opacity applied
    void main() {
        vec2 p = targetPixel();
        ivec2 c = ivec2(floor(p - uTexOrigin));
        ivec2 size = textureSize(uTex, 0);
        float m = 0.0;
        for (int k = -uRadius; k <= uRadius; k++) {
            int y = c.y + k;
            if (y < 0 || y >= size.y) continue;
            m += texelFetch(uWeights, ivec2(k + uRadius, 0), 0).r * texelFetch(uTex, ivec2(c.x, y), 0).a;
        }
        m = floor(clamp(m, 0.0, 1.0) * 255.0 + 0.5) / 255.0;
        if (uClipCount > 0) m *= clipCoverage(p);
        if (m <= 0.0) discard;
        fragColor = uColor * m;
    }
    """

    /// A path filled from its coverage, rasterized on the CPU by the
    /// kernels' polygon rasterizer (16 sample rows, exact horizontal
    /// coverage) into an R8 texture over the pixels it touches.
    package static let path = common + """

    uniform sampler2D uTex;
    uniform vec2 uTexOrigin;
    uniform vec4 uColor;         // premultiplied, 8-bit values, opacity applied
    void main() {
        vec2 p = targetPixel();
        float cov = texelFetch(uTex, ivec2(floor(p - uTexOrigin)), 0).r;
        if (uClipCount > 0) cov *= clipCoverage(p);
        if (cov <= 0.0) discard;
        fragColor = uColor * cov;
    }
    """

    /// Layer filters' passes (filters and backgroundFilters), each from a
    /// source image (a texture covering uSourceBox, in target pixels) into
    /// an offscreen, as Render/Kernels/Filters.swift computes them:
    /// 0 CIColorMatrix, 1 CIColorControls (unpremultiplied, clamped,
    /// premultiplied again), 2 one axis of the Gaussian blur of the four
    /// channels (the CPU kernels' weights), 3 the f x f block means of a
    /// reduced blur, 4 its bilinear expansion (8-bit weights), 5 a copy.
    package static let filter = common + """

    uniform sampler2D uTex;
    uniform vec4 uSourceBox;     // the source's pixels (x0, y0, x1, y1)
    uniform int uClampSource;    // 1: outside the source repeats its edge pixels; 0: transparent
    uniform int uKind;
    uniform mat4 uMatrix;        // CIColorMatrix: columns are the R, G, B, A vectors
    uniform vec4 uVector;        // the bias vector; (saturation, brightness, contrast) for CIColorControls
    uniform sampler2D uWeights;
    uniform int uRadius;
    uniform int uAxis;           // blur: 0 along x, 1 along y
    uniform int uFinal;          // blur: the last pass (colours kept within alpha)
    uniform int uFactor;         // reduce, expand: the reduction
    uniform vec2 uTexOrigin;     // reduce: unused; expand: the full-size box's corner

    vec4 source(ivec2 p) {
        ivec2 lo = ivec2(uSourceBox.xy), hi = ivec2(uSourceBox.zw) - 1;
        if (uClampSource == 1) p = clamp(p, lo, hi);
        else if (any(lessThan(p, lo)) || any(greaterThan(p, hi))) return vec4(0.0);
        return texelFetch(uTex, p - lo, 0);
    }

    vec4 bytes(vec4 c) { return floor(c * 255.0 + 0.5); }

    void main() {
        vec2 t = targetPixel();
        ivec2 c = ivec2(floor(t));
        if (uKind <= 1) {
            vec4 p = source(c);
            float a = p.a;
            vec4 u = a > 0.0 ? vec4(p.rgb / a, a) : vec4(0.0);
            vec4 o;
            if (uKind == 0) {
                o = u * uMatrix + uVector;
            } else {
                float l = 0.2126 * u.r + 0.7152 * u.g + 0.0722 * u.b;
                o.rgb = vec3(l) + (u.rgb - vec3(l)) * uVector.x;
                o.rgb += vec3(uVector.y);
                o.rgb = (o.rgb - vec3(0.5)) * uVector.z + vec3(0.5);
                o.a = u.a;
            }
            o = clamp(o, 0.0, 1.0);
            fragColor = vec4(o.rgb * o.a, o.a);
        } else if (uKind == 2) {
            ivec2 step = uAxis == 0 ? ivec2(1, 0) : ivec2(0, 1);
            vec4 sum = vec4(0.0);
            for (int k = -uRadius; k <= uRadius; k++)
                sum += texelFetch(uWeights, ivec2(k + uRadius, 0), 0).r * source(c + step * k);
            sum = clamp(sum, 0.0, 1.0);
            if (uFinal == 1) {
                // (Each channel rounded on its own, then colours within alpha.)
                vec4 b = bytes(sum);
                sum = vec4(min(b.rgb, vec3(b.a)), b.a) / 255.0;
            }
            fragColor = sum;
        } else if (uKind == 3) {
            ivec2 lo = ivec2(uSourceBox.xy), hi = ivec2(uSourceBox.zw);
            ivec2 b0 = lo + c * uFactor;
            ivec2 b1 = min(b0 + ivec2(uFactor), hi);
            vec4 sum = vec4(0.0);
            for (int y = b0.y; y < b1.y; y++)
                for (int x = b0.x; x < b1.x; x++) sum += bytes(texelFetch(uTex, ivec2(x, y) - lo, 0));
            float n = float((b1.x - b0.x) * (b1.y - b0.y));
            fragColor = floor((sum + floor(n / 2.0)) / n) / 255.0;
        } else if (uKind == 4) {
            ivec2 size = textureSize(uTex, 0);
            float f = float(uFactor);
            vec2 u = clamp((vec2(c) - uTexOrigin + 0.5) / f - 0.5, vec2(0.0), vec2(size - 1));
            ivec2 i0 = ivec2(u), i1 = min(i0 + 1, size - 1);
            vec2 w = floor((u - vec2(i0)) * 256.0 + 0.5);
            vec4 p00 = bytes(texelFetch(uTex, i0, 0)), p01 = bytes(texelFetch(uTex, ivec2(i1.x, i0.y), 0));
            vec4 p10 = bytes(texelFetch(uTex, ivec2(i0.x, i1.y), 0)), p11 = bytes(texelFetch(uTex, i1, 0));
            vec4 top = floor((p00 * (256.0 - w.x) + p01 * w.x + 128.0) / 256.0);
            vec4 bottom = floor((p10 * (256.0 - w.x) + p11 * w.x + 128.0) / 256.0);
            fragColor = floor((top * (256.0 - w.y) + bottom * w.y + 128.0) / 256.0) / 255.0;
        } else {
            fragColor = source(c);
        }
    }
    """

    /// A group composited by a compositingFilter other than source-over:
    /// its pixels (tinted, times opacity and mask, in 8-bit steps as the CPU
    /// compositor scales them) and a copy of the destination's pixels under
    /// it, combined by Render/Kernels/Filters.swift's blendPixel and written
    /// with blending off (W3C Compositing and Blending Level 1 on
    /// premultiplied values; Porter-Duff operators; plus-lighter/-darker).
    package static let blend = common + """

    uniform sampler2D uTex;
    uniform sampler2D uMask;
    uniform sampler2D uDst;
    uniform vec2 uTexOrigin;   // the group's corner in target pixels
    uniform vec2 uDstOrigin;   // the destination copy's corner
    uniform int uHasMask;
    uniform float uOpacity;    // 8-bit value
    uniform vec4 uColor;       // the tint (white: none)
    uniform int uMode;         // CompositingMode's raw value

    vec4 q8(vec4 c) { return floor(clamp(c, 0.0, 1.0) * 255.0 + 0.5) / 255.0; }

    float hardLight(float cs, float cd) { return cs <= 0.5 ? cd * 2.0 * cs : cd + (2.0 * cs - 1.0) - cd * (2.0 * cs - 1.0); }

    float separable(float cd, float cs) {
        if (uMode == 1) return cd * cs;
        if (uMode == 2) return cd + cs - cd * cs;
        if (uMode == 3) return hardLight(cd, cs);
        if (uMode == 4) return min(cd, cs);
        if (uMode == 5) return max(cd, cs);
        if (uMode == 6) return cd <= 0.0 ? 0.0 : (cs >= 1.0 ? 1.0 : min(1.0, cd / (1.0 - cs)));
        if (uMode == 7) return cd >= 1.0 ? 1.0 : (cs <= 0.0 ? 0.0 : 1.0 - min(1.0, (1.0 - cd) / cs));
        if (uMode == 8) {
            if (cs <= 0.5) return cd - (1.0 - 2.0 * cs) * cd * (1.0 - cd);
            float d = cd <= 0.25 ? ((16.0 * cd - 12.0) * cd + 4.0) * cd : sqrt(cd);
            return cd + (2.0 * cs - 1.0) * (d - cd);
        }
        if (uMode == 9) return hardLight(cs, cd);
        if (uMode == 10) return abs(cd - cs);
        return cd + cs - 2.0 * cd * cs;   // exclusion
    }

    float lum(vec3 c) { return 0.3 * c.r + 0.59 * c.g + 0.11 * c.b; }
    vec3 clipColor(vec3 c) {
        float l = lum(c), n = min(c.r, min(c.g, c.b)), x = max(c.r, max(c.g, c.b));
        if (n < 0.0) c = vec3(l) + (c - vec3(l)) * (l / (l - n));
        if (x > 1.0) c = vec3(l) + (c - vec3(l)) * ((1.0 - l) / (x - l));
        return c;
    }
    vec3 setLum(vec3 c, float l) { return clipColor(c + vec3(l - lum(c))); }
    float sat(vec3 c) { return max(c.r, max(c.g, c.b)) - min(c.r, min(c.g, c.b)); }
    vec3 setSat(vec3 c, float s) {
        float n = min(c.r, min(c.g, c.b)), x = max(c.r, max(c.g, c.b));
        return x > n ? (c - vec3(n)) * (s / (x - n)) : vec3(0.0);
    }

    vec4 blended(vec4 S, vec4 D) {
        float sa = S.a, da = D.a;
        if (uMode == 16) return vec4(0.0);
        if (uMode == 17) return S;
        if (uMode == 18) return S * da;
        if (uMode == 19) return S * (1.0 - da);
        if (uMode == 20) return S * da + D * (1.0 - sa);
        if (uMode == 21) return S * (1.0 - da) + D;
        if (uMode == 22) return D * sa;
        if (uMode == 23) return D * (1.0 - sa);
        if (uMode == 24) return S * (1.0 - da) + D * sa;
        if (uMode == 25) return S * (1.0 - da) + D * (1.0 - sa);
        if (uMode == 26) return S + D;
        if (uMode == 27) {
            float a = min(1.0, sa + da);
            return vec4(vec3(a) - ((vec3(sa) - S.rgb) + (vec3(da) - D.rgb)), a);
        }
        if (sa <= 0.0) return D;
        if (da <= 0.0) return S;
        vec3 Cs = S.rgb / sa, Cd = D.rgb / da, B;
        if (uMode <= 11) B = vec3(separable(Cd.r, Cs.r), separable(Cd.g, Cs.g), separable(Cd.b, Cs.b));
        else if (uMode == 12) B = setLum(setSat(Cs, sat(Cd)), lum(Cd));
        else if (uMode == 13) B = setLum(setSat(Cd, sat(Cs)), lum(Cd));
        else if (uMode == 14) B = setLum(Cs, lum(Cd));
        else B = setLum(Cd, lum(Cs));
        return vec4(S.rgb * (1.0 - da) + D.rgb * (1.0 - sa) + B * (sa * da), sa + da - sa * da);
    }

    void main() {
        vec2 p = targetPixel();
        ivec2 c = ivec2(floor(p - uTexOrigin));
        vec4 src = q8(texelFetch(uTex, c, 0) * uColor);
        float m = uHasMask == 1 ? texelFetch(uMask, c, 0).a : 1.0;
        float f = uHasMask == 1 ? floor(m * uOpacity * 255.0 + 0.5) / 255.0 : uOpacity;
        vec4 S = q8(src * f);
        vec4 D = texelFetch(uDst, ivec2(floor(p - uDstOrigin)), 0);
        vec4 o = clamp(blended(S, D), 0.0, 1.0);
        fragColor = vec4(min(o.rgb, vec3(o.a)), o.a);
    }
    """

    /// backgroundFilters: the filtered copy of what lies behind the layer
    /// put back through its rounded rect's coverage times the clips' and
    /// its opacity (a mix with the pixels there, blending off).
    package static let backdrop = common + """

    uniform mat3 uInv;
    uniform mat3 uFwd;
    uniform vec4 uRect;
    uniform float uRadius;
    uniform int uEdges;
    uniform float uOpacity;
    uniform sampler2D uTex;      // the filtered pixels
    uniform vec2 uTexOrigin;     // their corner in target pixels
    uniform sampler2D uDst;      // the pixels there before
    uniform vec2 uDstOrigin;
    void main() {
        vec2 p = targetPixel();
        vec2 q, s;
        if (!localPoint(uInv, uFwd, p, q, s)) discard;
        float cov = coverage(uRect, uRadius, uEdges, q, s);
        if (cov <= 0.0) discard;
        if (uClipCount > 0) cov *= clipCoverage(p);
        float k = unit8(cov * uOpacity);
        if (k == 0.0) discard;
        vec4 f = texelFetch(uTex, ivec2(floor(p - uTexOrigin)), 0);
        vec4 d = texelFetch(uDst, ivec2(floor(p - uDstOrigin)), 0);
        fragColor = f * k + d * (1.0 - k);
    }
    """
}
