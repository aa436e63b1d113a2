import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// The GL renderer's textures: layer contents uploaded once per content
// change (keyed like the CPU compositor's TextureCache: the buffer, the part
// of it shown, its modification seed) and kept while frames use them;
// CAEAGLLayer images textured straight from their EGLImage; offscreen
// framebuffers for groups, masks and shadows, pooled by size.

/// A texture ready for the quad program.
package struct GLTexture {
    package let name: GLuint
    package let width: Int
    package let height: Int
    /// Mip levels present (1: the base only).
    package let levels: Int
    /// Rows stored bottom-up (GL-rendered content sampled in place).
    package let flipV: Bool
}

package final class GLTextureCache {
    private struct Key: Hashable { let buffer: ObjectIdentifier; let x0: Int, y0: Int, x1: Int, y1: Int; let mips: Bool }
    private struct Entry {
        package let buffer: PixelBuffer
        package var seed: UInt32
        package var texture: GLTexture
        package var used: Bool
        /// The EAGL image sampled in place (nil for uploaded textures).
        package let eagl: EAGLImage?
    }
    private var entries: [Key: Entry] = [:]
    package let display: UnsafeMutableRawPointer
    /// Largest texture side the context takes.
    package var maxSize = 2048

    package init(display: UnsafeMutableRawPointer) { self.display = display }

    /// The texture of `box` (texels) of `pb` at modification `seed`, with a
    /// mip chain when `mips`; nil when it cannot be made. The texture is
    /// bound to GL_TEXTURE_2D of the active unit afterwards.
    package func texture(_ pb: PixelBuffer, seed: UInt32, box: PixelBox, mips: Bool) -> GLTexture? {
        let key = Key(buffer: ObjectIdentifier(pb), x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1, mips: mips)
        let full = box == PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height)
        if var e = entries[key], e.buffer === pb {
            if let img = e.eagl {
                // The EGLImage is the content: nothing to upload, only the
                // host's last present to wait for.
                img.waitForPresent()
                img.usage.noteGPU()
                e.used = true
                entries[key] = e
                qz_glBindTexture(GL_TEXTURE_2D, e.texture.name)
                return e.texture
            }
            if e.seed == seed {
                e.used = true
                entries[key] = e
                qz_glBindTexture(GL_TEXTURE_2D, e.texture.name)
                return e.texture
            }
            // New pixels: refill the same texture object.
            if let t = fill(e.texture.name, pb, box: box, mips: mips, into: e.texture) {
                e.texture = t
                e.seed = seed
                e.used = true
                entries[key] = e
                return t
            }
            qz_glDeleteTextures(1, [e.texture.name])
            entries[key] = nil
            return nil
        }
        guard box.width <= maxSize, box.height <= maxSize else { return nil }
        if let img = EAGLRegistry.image(for: pb), img.display == display, full, !mips {
            // A CAEAGLLayer's image of this display: sampled in place.
            var name: GLuint = 0
            qz_glGenTextures(1, &name)
            qz_glBindTexture(GL_TEXTURE_2D, name)
            qz_glEGLImageTargetTexture2DOES(GL_TEXTURE_2D, img.image)
            setBaseOnly()
            img.waitForPresent()
            img.usage.noteGPU()
            let t = GLTexture(name: name, width: img.width, height: img.height, levels: 1, flipV: true)
            entries[key] = Entry(buffer: pb, seed: seed, texture: t, used: true, eagl: img)
            return t
        }
        var name: GLuint = 0
        qz_glGenTextures(1, &name)
        guard let t = fill(name, pb, box: box, mips: mips, into: nil) else {
            qz_glDeleteTextures(1, [name])
            return nil
        }
        entries[key] = Entry(buffer: pb, seed: seed, texture: t, used: true, eagl: nil)
        return t
    }

    /// Stores `box` of `pb` in texture `name` (premultiplied BGRA bytes in an
    /// RGBA8 texture whose red and blue are swizzled back).
    private func fill(_ name: GLuint, _ pb: PixelBuffer, box: PixelBox, mips: Bool, into old: GLTexture?) -> GLTexture? {
        let w = box.width, h = box.height
        guard w > 0, h > 0 else { return nil }
        qz_glBindTexture(GL_TEXTURE_2D, name)
        if let img = EAGLRegistry.image(for: pb), img.display == display {
            // Part of a CAEAGLLayer image, or with mips: copied on the GPU,
            // upright, from the EGLImage.
            guard copyEAGL(img, box: box, into: name) else { return nil }
            img.usage.noteGPU()
        } else {
            // (A CAEAGLLayer image of another display is read from its
            // pixels, like a CPU renderer reads it.)
            EAGLRegistry.noteCPURead(pb)
            pb.lock(readOnly: true)
            defer { try? pb.unlock(readOnly: true) }
            if pb.format.layout == .bgra32, let base = pb.baseAddress, pb.bytesPerRow % 4 == 0 {
                qz_glPixelStorei(GL_UNPACK_ROW_LENGTH, GLint(pb.bytesPerRow / 4))
                qz_glPixelStorei(GL_UNPACK_SKIP_PIXELS, GLint(box.x0))
                qz_glPixelStorei(GL_UNPACK_SKIP_ROWS, GLint(box.y0))
                qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA8), GLsizei(w), GLsizei(h), 0, GL_RGBA, GL_UNSIGNED_BYTE, base)
                qz_glPixelStorei(GL_UNPACK_ROW_LENGTH, 0)
                qz_glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0)
                qz_glPixelStorei(GL_UNPACK_SKIP_ROWS, 0)
            } else {
                // Other formats: decoded to premultiplied BGRA first, as the
                // CPU compositor decodes them.
                guard let decode = pb.decoder() else { return nil }
                let row = UnsafeMutablePointer<UInt32>.allocate(capacity: pb.width)
                let tight = UnsafeMutablePointer<UInt32>.allocate(capacity: w * h)
                defer { row.deallocate(); tight.deallocate() }
                for y in 0..<h {
                    decode(box.y0 + y, UnsafeMutableRawPointer(row))
                    (tight + y * w).update(from: row + box.x0, count: w)
                }
                qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA8), GLsizei(w), GLsizei(h), 0, GL_RGBA, GL_UNSIGNED_BYTE, tight)
            }
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_R, GLint(GL_BLUE))
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_B, GLint(GL_RED))
        }
        var levels = 1
        if mips {
            var n = 1, side = max(w, h)
            while side > 1 { side /= 2; n += 1 }
            levels = n
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, 0)
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, GLint(levels - 1))
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST_MIPMAP_NEAREST))
            qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
            qz_glGenerateMipmap(GL_TEXTURE_2D)
        } else {
            setBaseOnly()
        }
        return GLTexture(name: name, width: w, height: h, levels: levels, flipV: false)
    }

    /// Texel fetches only: a complete texture of one level.
    private func setBaseOnly() {
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, 0)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST))
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
    }

    /// Copies `box` of an EAGL image (rows bottom-up) into texture `name`,
    /// top row first, through two framebuffers and a blit.
    private func copyEAGL(_ img: EAGLImage, box: PixelBox, into name: GLuint) -> Bool {
        let w = box.width, h = box.height
        qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA8), GLsizei(w), GLsizei(h), 0, GL_RGBA, GL_UNSIGNED_BYTE, nil)
        var source: GLuint = 0
        qz_glGenTextures(1, &source)
        qz_glBindTexture(GL_TEXTURE_2D, source)
        qz_glEGLImageTargetTexture2DOES(GL_TEXTURE_2D, img.image)
        setBaseOnly()
        img.waitForPresent()
        // (The renderer's framebuffers stay bound around the copy.)
        let draw = GLuint(bitPattern: GLRuntime.integer(GL_DRAW_FRAMEBUFFER_BINDING))
        let read = GLuint(bitPattern: GLRuntime.integer(GL_READ_FRAMEBUFFER_BINDING))
        var fbos: [GLuint] = [0, 0]
        qz_glGenFramebuffers(2, &fbos)
        qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, fbos[0])
        qz_glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, source, 0)
        qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbos[1])
        qz_glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, name, 0)
        let ok = qz_glCheckFramebufferStatus(GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE
            && qz_glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE
        if ok {
            // Image row y (top-down) is GL row height - 1 - y: the blit flips.
            let sy0 = GLint(img.height - box.y1), sy1 = GLint(img.height - box.y0)
            qz_glDisable(GL_SCISSOR_TEST)
            qz_glBlitFramebuffer(GLint(box.x0), sy0, GLint(box.x1), sy1, 0, GLint(h), GLint(w), 0,
                                 GLbitfield(GL_COLOR_BUFFER_BIT), GL_NEAREST)
            qz_glEnable(GL_SCISSOR_TEST)
        }
        qz_glBindFramebuffer(GL_READ_FRAMEBUFFER, read)
        qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, draw)
        qz_glDeleteFramebuffers(2, fbos)
        qz_glDeleteTextures(1, [source])
        qz_glBindTexture(GL_TEXTURE_2D, name)
        return ok
    }

    /// Deletes the textures no frame used since the last sweep.
    package func sweep() {
        var dead: [GLuint] = []
        for (k, e) in entries {
            if e.used { entries[k]!.used = false } else { dead.append(e.texture.name); entries[k] = nil }
        }
        if !dead.isEmpty { qz_glDeleteTextures(GLsizei(dead.count), dead) }
    }

    /// Deletes every texture (the context is current).
    package func deleteAll() {
        let names = entries.values.map { $0.texture.name }
        if !names.isEmpty { qz_glDeleteTextures(GLsizei(names.count), names) }
        entries = [:]
    }

    /// Forgets every texture without GL calls (the context is gone).
    package func forget() { entries = [:] }

    package var count: Int { entries.count }
}

/// An offscreen framebuffer: an RGBA8 texture of `width` x `height`.
package final class GLOffscreen {
    package let texture: GLuint
    package let framebuffer: GLuint
    package let width: Int
    package let height: Int
    package var inUse = false
    package var usedThisFrame = false

    package init?(width: Int, height: Int) {
        var t: GLuint = 0, f: GLuint = 0
        qz_glGenTextures(1, &t)
        qz_glBindTexture(GL_TEXTURE_2D, t)
        qz_glTexImage2D(GL_TEXTURE_2D, 0, GLint(GL_RGBA8), GLsizei(width), GLsizei(height), 0, GL_RGBA, GL_UNSIGNED_BYTE, nil)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0)
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GLint(GL_NEAREST))
        qz_glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GLint(GL_NEAREST))
        qz_glGenFramebuffers(1, &f)
        qz_glBindFramebuffer(GL_DRAW_FRAMEBUFFER, f)
        qz_glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0)
        guard qz_glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE else {
            qz_glDeleteFramebuffers(1, [f])
            qz_glDeleteTextures(1, [t])
            return nil
        }
        texture = t
        framebuffer = f
        self.width = width
        self.height = height
    }

    package func delete() {
        qz_glDeleteFramebuffers(1, [framebuffer])
        qz_glDeleteTextures(1, [texture])
    }
}
