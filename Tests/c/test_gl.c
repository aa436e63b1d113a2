/* OpenGL ES through EGL from C, on Mesa's software rasterizer (llvmpipe)
 * with EGL's surfaceless platform: CAEAGLLayer content drawn by the host
 * with GLES and shown by the CPU and the GPU renderer, in both colour
 * formats, retained and not; the GPU renderer against the CPU one; the
 * host's GL state kept; damage; layer filters (each compositing filter,
 * blurs, colour filters, backdrop blurs) against the CPU; bad input. With
 * the argument "no-gl" (run with QUARTZITE_EGL_LIBRARY pointing nowhere) it
 * checks that the library works without EGL and that the GL functions report it. This program links
 * libEGL and libGLESv2 itself; libquartzite.so does not. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <stdlib.h>
#include "qz_test.h"

static EGLDisplay display;
static EGLContext context;

static bool setup_egl(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) return false;
    display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint major, minor;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) return false;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
    context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    return context != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
}

/* MARK: - Helpers */

static CALayerRef layer_with(double x, double y, double w, double h, double r, double g, double b, double a) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    return l;
}

/* The BGRA word of a CPU frame at (x, y). */
static uint32_t cpu_pixel(CVPixelBufferRef pb, int x, int y) {
    const uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    uint32_t p;
    memcpy(&p, base + (size_t)y * CVPixelBufferGetBytesPerRow(pb) + 4 * (size_t)x, 4);
    return p;
}

/* An RGBA8 texture with a framebuffer over it (bound, viewport set). */
typedef struct { GLuint fbo, texture; int width, height; } target;

static target target_make(int w, int h) {
    target t = { 0, 0, w, h };
    glGenTextures(1, &t.texture);
    glBindTexture(GL_TEXTURE_2D, t.texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &t.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t.texture, 0);
    glViewport(0, 0, w, h);
    glBindTexture(GL_TEXTURE_2D, 0);
    return t;
}

static void target_free(target *t) {
    glDeleteFramebuffers(1, &t->fbo);
    glDeleteTextures(1, &t->texture);
}

/* The pixels of the framebuffer `fbo` as BGRA words, top row first (GL's
 * last): the CPU frame's layout. Caller frees. */
static uint32_t *read_frame(GLuint fbo, int w, int h) {
    GLint old;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &old);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    uint8_t *rgba = malloc((size_t)w * h * 4);
    uint32_t *out = malloc((size_t)w * h * 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgba + ((size_t)(h - 1 - y) * w + x) * 4;
            out[y * w + x] = (uint32_t)p[2] | (uint32_t)p[1] << 8 | (uint32_t)p[0] << 16 | (uint32_t)p[3] << 24;
        }
    free(rgba);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)old);
    return out;
}

static int channel_difference(uint32_t a, uint32_t b) {
    int worst = 0;
    for (int s = 0; s < 32; s += 8) {
        int d = abs((int)((a >> s) & 0xFF) - (int)((b >> s) & 0xFF));
        if (d > worst) worst = d;
    }
    return worst;
}

static int near_color(uint32_t p, uint32_t expected, int tolerance) { return channel_difference(p, expected) <= tolerance; }

/* A w x h CPU frame of `root` (+1). */
static CVPixelBufferRef cpu_frame(CALayerRef root, int w, int h, double t) {
    CVPixelBufferRef pb = NULL;
    CVPixelBufferCreate(NULL, (size_t)w, (size_t)h, kCVPixelFormatType_32BGRA, NULL, &pb);
    CARendererRef r = CARendererCreate(pb, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, t, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CARelease(r);
    return pb;
}

/* A w x h GPU frame of `root` (malloc'd BGRA words, top row first). */
static uint32_t *gpu_frame(CALayerRef root, int w, int h, double t) {
    target tg = target_make(w, h);
    CARendererRef r = CARendererCreateWithEGLContext(display, context, NULL);
    CHECK(r != NULL);
    uint32_t *out = NULL;
    if (r) {
        CHECK(CGRectEqualToRect(CARendererGetBounds(r), CGRectMake(0, 0, w, h)));
        CARendererSetLayer(r, root);
        CARendererBeginFrameAtTime(r, t, NULL);
        CARendererRender(r);
        CARendererEndFrame(r);
        CHECK_NO_ERROR();
        out = read_frame(tg.fbo, w, h);
        CARelease(r);
    }
    target_free(&tg);
    return out;
}

/* At least 99.9% of the pixels within 3/255, none beyond 24/255 (the
 * tolerance GLTestSupport.swift explains). */
static void check_frames_match(CVPixelBufferRef cpu, const uint32_t *gpu, int w, int h) {
    if (!gpu) return;
    int beyond = 0, worst = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int d = channel_difference(cpu_pixel(cpu, x, y), gpu[y * w + x]);
            if (d > worst) worst = d;
            if (d > 3) beyond++;
        }
    CHECK(beyond * 1000 <= w * h);
    CHECK(worst <= 24);
}

static GLuint compile_triangle_program(void) {
    const char *vs = "#version 300 es\n"
                     "const vec2 corners[3] = vec2[3](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0));\n"
                     "void main() { gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0); }\n";
    const char *fs = "#version 300 es\nprecision mediump float;\nuniform vec4 color;\nout vec4 o;\n"
                     "void main() { o = color; }\n";
    GLuint v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
    glShaderSource(v, 1, &vs, NULL);
    glCompileShader(v);
    glShaderSource(f, 1, &fs, NULL);
    glCompileShader(f);
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    CHECK(ok);
    return p;
}

/* The host's drawing: clear to `clear`, then the triangle with corners at the
 * renderbuffer's bottom-left, bottom-right and top-left in `color`. */
static void draw_scene(GLuint program, GLuint fbo, int w, int h, const float clear[4], const float color[4]) {
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, w, h);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(program);
    glUniform4fv(glGetUniformLocation(program, "color"), 1, color);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glUseProgram(0);
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
}

static CAValueRef drawable_properties(bool retained, const char *format) {
    const char *keys[] = { kEAGLDrawablePropertyRetainedBacking, kEAGLDrawablePropertyColorFormat };
    CAValueRef values[] = { CAValueCreateBool(retained), CAValueCreateString(format) };
    CAValueRef d = CAValueCreateDictionary(keys, values, 2);
    CARelease(values[0]);
    CARelease(values[1]);
    return d;
}

/* MARK: - drawableProperties */

static void test_drawable_properties(void) {
    CALayerRef l = CAEAGLLayerCreate();
    CHECK(l != NULL);
    CHECK(strcmp(QZGetTypeName(l), "CALayer") == 0);
    CHECK(strcmp(CALayerClassGetName(CALayerGetClass(l)), "CAEAGLLayer") == 0);
    CHECK(CALayerGetClass(l) == CALayerClassGetBuiltin("CAEAGLLayer"));
    CAValueRef p = CAEAGLLayerGetDrawableProperties(l);
    CHECK(p && CAValueGetType(p) == CAValueTypeDictionary && CAValueGetCount(p) == 2);
    CHECK(CAValueGetBool(CAValueGetDictionaryItem(p, kEAGLDrawablePropertyRetainedBacking)) == false);
    CHECK(strcmp(CAValueGetString(CAValueGetDictionaryItem(p, kEAGLDrawablePropertyColorFormat)), "EAGLColorFormatRGBA8") == 0);
    CHECK_NO_ERROR();

    CAValueRef d = drawable_properties(true, kEAGLColorFormatRGB565);
    CAEAGLLayerSetDrawableProperties(l, d);
    CHECK(CAValueEqual(CAEAGLLayerGetDrawableProperties(l), d));
    CAValueRef kvc = CALayerCopyValueForKey(l, "drawableProperties");
    CHECK(CAValueEqual(kvc, d));
    CARelease(kvc);
    CARelease(d);
    CAEAGLLayerSetDrawableProperties(l, NULL);
    CHECK(CAEAGLLayerGetDrawableProperties(l) == NULL);
    CHECK_NO_ERROR();

    /* Not a dictionary; not a CAEAGLLayer. */
    CAValueRef n = CAValueCreateNumber(1);
    CAEAGLLayerSetDrawableProperties(l, n);
    CHECK_ERROR(QZErrorWrongType);
    CARelease(n);
    CALayerRef plain = CALayerCreate();
    CHECK(CAEAGLLayerGetDrawableProperties(plain) == NULL);
    CHECK_ERROR(QZErrorWrongType);
    CAEAGLLayerSetDrawableProperties(plain, NULL);
    CHECK_ERROR(QZErrorWrongType);
    CHECK(CAEAGLLayerGetDrawableProperties(NULL) == NULL);
    CHECK_ERROR(QZErrorNullArgument);
    CARelease(plain);
    CARelease(l);
}

/* MARK: - CAEAGLLayer content in CPU and GPU frames */

static const float blue[4] = { 0, 0, 1, 1 }, red[4] = { 1, 0, 0, 1 }, green[4] = { 0, 1, 0, 1 }, white[4] = { 1, 1, 1, 1 };

/* A 100 x 80 scene: a grey root with the CAEAGLLayer at (10, 20), 40 x 30
 * points, contentsScale 2 (so 80 x 60 pixels of GL content, shown at half
 * size). The host clears it blue and draws a red triangle over its lower
 * left half; the frames must show it there, in both renderers. */
static void check_triangle(bool retained, const char *format) {
    GLuint program = compile_triangle_program();
    CALayerRef root = layer_with(0, 0, 100, 80, 0.5, 0.5, 0.5, 1);
    CALayerRef gl = CAEAGLLayerCreate();
    CALayerSetFrame(gl, CGRectMake(10, 20, 40, 30));
    CALayerSetContentsScale(gl, 2);
    CAValueRef props = drawable_properties(retained, format);
    CAEAGLLayerSetDrawableProperties(gl, props);
    CARelease(props);
    CALayerAddSublayer(root, gl);

    GLuint rb, fbo;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    CHECK(QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_NO_ERROR();
    GLint w = 0, h = 0, bits[4] = { 0, 0, 0, 0 };
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, &w);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, &h);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_RED_SIZE, &bits[0]);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_GREEN_SIZE, &bits[1]);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_BLUE_SIZE, &bits[2]);
    glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_ALPHA_SIZE, &bits[3]);
    CHECK(w == 80 && h == 60);
    if (strcmp(format, kEAGLColorFormatRGB565) == 0) CHECK(bits[0] == 5 && bits[1] == 6 && bits[2] == 5 && bits[3] == 0);
    else CHECK(bits[0] == 8 && bits[1] == 8 && bits[2] == 8 && bits[3] == 8);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    draw_scene(program, fbo, 80, 60, blue, red);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    CHECK(QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
    CHECK_NO_ERROR();
    CHECK(CALayerGetContents(gl) != NULL);

    /* Retained backing keeps the renderbuffer's pixels after the present. */
    if (retained) {
        uint32_t *rbp = read_frame(fbo, 80, 60);
        CHECK(near_color(rbp[59 * 80 + 2], 0xFFFF0000u, 0));    /* bottom-left: red */
        CHECK(near_color(rbp[0 * 80 + 77], 0xFF0000FFu, 0));    /* top-right: blue */
        free(rbp);
    }

    /* Drawn after the present, not presented: the layer keeps showing the
     * presented image. */
    draw_scene(program, fbo, 80, 60, green, white);

    const uint32_t grey = 0xFF808080u, redw = 0xFFFF0000u, bluew = 0xFF0000FFu;
    for (int pass = 0; pass < 2; pass++) {
        CVPixelBufferRef cpu = cpu_frame(root, 100, 80, 1);
        uint32_t *gpu = gpu_frame(root, 100, 80, 1);
        for (int k = 0; k < 2; k++) {
            /* (k 0: the CPU frame, 1: the GPU frame) */
#define PX(x, y) (k == 0 ? cpu_pixel(cpu, (x), (y)) : (gpu ? gpu[(y) * 100 + (x)] : 0))
            CHECK(near_color(PX(5, 5), grey, 1));              /* outside the layer */
            CHECK(near_color(PX(9, 30), grey, 1));             /* just left of it */
            CHECK(near_color(PX(50, 30), grey, 1));            /* just right of it */
            CHECK(near_color(PX(30, 19), grey, 1));            /* just above it */
            CHECK(near_color(PX(30, 50), grey, 1));            /* just below it */
            CHECK(near_color(PX(12, 47), redw, 2));            /* bottom-left corner: red */
            CHECK(near_color(PX(20, 40), redw, 2));
            CHECK(near_color(PX(47, 22), bluew, 2));           /* top-right corner: blue */
            CHECK(near_color(PX(40, 28), bluew, 2));
            CHECK(near_color(PX(11, 48), redw, 2));            /* the bottom-left pixels */
            CHECK(near_color(PX(48, 21), bluew, 2));           /* the top-right pixels */
#undef PX
        }
        check_frames_match(cpu, gpu, 100, 80);
        free(gpu);
        CVPixelBufferRelease(cpu);
        if (pass == 0) {
            /* A second present: the white-on-green image replaces it. */
            glBindRenderbuffer(GL_RENDERBUFFER, rb);
            draw_scene(program, fbo, 80, 60, green, white);
            CHECK(QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
            CVPixelBufferRef c2 = cpu_frame(root, 100, 80, 2);
            uint32_t *g2 = gpu_frame(root, 100, 80, 2);
            CHECK(near_color(cpu_pixel(c2, 12, 47), 0xFFFFFFFFu, 2));
            CHECK(near_color(cpu_pixel(c2, 47, 22), 0xFF00FF00u, 2));
            if (g2) {
                CHECK(near_color(g2[47 * 100 + 12], 0xFFFFFFFFu, 2));
                CHECK(near_color(g2[22 * 100 + 47], 0xFF00FF00u, 2));
            }
            check_frames_match(c2, g2, 100, 80);
            free(g2);
            CVPixelBufferRelease(c2);
            /* And back to the triangle for the second pass. */
            draw_scene(program, fbo, 80, 60, blue, red);
            CHECK(QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
        }
    }
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &rb);
    glDeleteProgram(program);
    CARelease(gl);
    CARelease(root);
    CHECK_NO_ERROR();
}

static void test_triangle_rgba8(void) { check_triangle(false, kEAGLColorFormatRGBA8); }
static void test_triangle_rgba8_retained(void) { check_triangle(true, kEAGLColorFormatRGBA8); }
static void test_triangle_rgb565(void) { check_triangle(false, kEAGLColorFormatRGB565); }
static void test_triangle_rgb565_retained(void) { check_triangle(true, kEAGLColorFormatRGB565); }

/* MARK: - The GPU renderer */

static void test_gpu_matches_cpu(void) {
    /* Rounded corners, a border, opacity groups, a clip, a shadow and a
     * rotation: within the stated tolerance of the CPU frame. */
    CALayerRef root = layer_with(0, 0, 120, 90, 0.9, 0.9, 0.9, 1);
    CALayerRef card = layer_with(15, 10, 60, 50, 1, 1, 1, 1);
    CALayerSetCornerRadius(card, 8);
    CALayerSetBorderWidth(card, 2);
    CALayerSetMasksToBounds(card, true);
    CALayerSetShadowOpacity(card, 0.6f);
    CALayerSetShadowRadius(card, 4);
    CALayerSetTransform(card, CATransform3DMakeRotation(0.2, 0, 0, 1));
    CALayerRef inner = layer_with(-10, 20, 50, 50, 0.2, 0.4, 0.9, 1);
    CALayerSetOpacity(inner, 0.5f);
    CALayerRef dot = layer_with(5, 5, 10, 10, 1, 0, 0, 1);
    CALayerAddSublayer(inner, dot);
    CALayerAddSublayer(card, inner);
    CALayerAddSublayer(root, card);
    CVPixelBufferRef cpu = cpu_frame(root, 120, 90, 1);
    uint32_t *gpu = gpu_frame(root, 120, 90, 1);
    check_frames_match(cpu, gpu, 120, 90);
    free(gpu);
    CVPixelBufferRelease(cpu);
    CARelease(dot);
    CARelease(inner);
    CARelease(card);
    CARelease(root);
}

/* The host's GL state is the same after a GPU frame and a present. */
static void test_host_state_kept(void) {
    CALayerRef root = layer_with(0, 0, 32, 32, 1, 0, 0, 1);
    CALayerRef gl = CAEAGLLayerCreate();
    CALayerSetFrame(gl, CGRectMake(4, 4, 16, 16));
    CALayerAddSublayer(root, gl);
    target tg = target_make(32, 32);
    GLuint program = compile_triangle_program();
    GLuint tex, vao, rb, rbfbo;
    glGenTextures(1, &tex);
    glGenVertexArrays(1, &vao);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    CHECK(QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    glGenFramebuffers(1, &rbfbo);
    glBindFramebuffer(GL_FRAMEBUFFER, rbfbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);

    /* A distinctive state. */
    glBindFramebuffer(GL_FRAMEBUFFER, tg.fbo);
    glUseProgram(program);
    glBindVertexArray(vao);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, tex);
    glViewport(0, 0, 32, 32);
    glScissor(3, 4, 5, 6);
    glEnable(GL_SCISSOR_TEST);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ZERO, GL_ONE, GL_DST_ALPHA);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
    glClearColor(0.25f, 0.5f, 0.75f, 1);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ALIGNMENT, 2);

    CARendererRef r = CARendererCreateWithEGLContext(display, context, NULL);
    CARendererSetLayer(r, root);
    for (int frame = 0; frame < 2; frame++) {
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        CHECK(QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
        CARendererBeginFrameAtTime(r, frame, NULL);
        CARendererAddUpdateRect(r, CGRectMake(0, 0, 32, 32));
        CARendererRender(r);
        CARendererEndFrame(r);
        CHECK_NO_ERROR();
        GLint v[4];
        GLfloat f[4];
        GLboolean b[4];
        glGetIntegerv(GL_CURRENT_PROGRAM, v);
        CHECK(v[0] == (GLint)program);
        glGetIntegerv(GL_VERTEX_ARRAY_BINDING, v);
        CHECK(v[0] == (GLint)vao);
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, v);
        CHECK(v[0] == (GLint)tg.fbo);
        glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, v);
        CHECK(v[0] == (GLint)tg.fbo);
        glGetIntegerv(GL_RENDERBUFFER_BINDING, v);
        CHECK(v[0] == (GLint)rb);
        glGetIntegerv(GL_ACTIVE_TEXTURE, v);
        CHECK(v[0] == GL_TEXTURE2);
        glGetIntegerv(GL_TEXTURE_BINDING_2D, v);
        CHECK(v[0] == (GLint)tex);
        glGetIntegerv(GL_SCISSOR_BOX, v);
        CHECK(v[0] == 3 && v[1] == 4 && v[2] == 5 && v[3] == 6);
        glGetIntegerv(GL_VIEWPORT, v);
        CHECK(v[0] == 0 && v[1] == 0 && v[2] == 32 && v[3] == 32);
        CHECK(glIsEnabled(GL_SCISSOR_TEST) && glIsEnabled(GL_DEPTH_TEST) && !glIsEnabled(GL_BLEND));
        glGetIntegerv(GL_BLEND_SRC_RGB, v);
        CHECK(v[0] == GL_SRC_ALPHA);
        glGetIntegerv(GL_BLEND_DST_ALPHA, v);
        CHECK(v[0] == GL_DST_ALPHA);
        glGetBooleanv(GL_COLOR_WRITEMASK, b);
        CHECK(b[0] && !b[1] && b[2] && b[3]);
        glGetFloatv(GL_COLOR_CLEAR_VALUE, f);
        CHECK(f[0] == 0.25f && f[1] == 0.5f && f[2] == 0.75f && f[3] == 1);
        glGetIntegerv(GL_UNPACK_ALIGNMENT, v);
        CHECK(v[0] == 1);
        glGetIntegerv(GL_PACK_ALIGNMENT, v);
        CHECK(v[0] == 2);
        CHECK(glGetError() == GL_NO_ERROR);
    }
    /* The frame was drawn despite the host's depth test, scissor and mask. */
    uint32_t *px = read_frame(tg.fbo, 32, 32);
    CHECK(near_color(px[30 * 32 + 30], 0xFFFF0000u, 0));
    free(px);
    CARelease(r);
    glActiveTexture(GL_TEXTURE0);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_ONE, GL_ZERO, GL_ONE, GL_ZERO);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glUseProgram(0);
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteTextures(1, &tex);
    glDeleteProgram(program);
    glDeleteFramebuffers(1, &rbfbo);
    glDeleteRenderbuffers(1, &rb);
    target_free(&tg);
    CARelease(gl);
    CARelease(root);
}

/* Only the update rectangle is redrawn; the rest of the framebuffer keeps
 * what it had. */
static void test_gpu_damage(void) {
    CALayerRef root = layer_with(0, 0, 64, 48, 1, 1, 1, 1);
    CALayerRef box = layer_with(8, 8, 16, 16, 1, 0, 0, 1);
    CALayerAddSublayer(root, box);
    target tg = target_make(64, 48);
    CARendererRef r = CARendererCreateWithEGLContext(display, context, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 0, NULL);
    CHECK(CGRectEqualToRect(CARendererUpdateBounds(r), CGRectMake(0, 0, 64, 48)));
    CARendererRender(r);
    CARendererEndFrame(r);
    /* A marker the next frames must not touch (GL row 2 = target row 45). */
    glBindFramebuffer(GL_FRAMEBUFFER, tg.fbo);
    glEnable(GL_SCISSOR_TEST);
    glScissor(60, 2, 2, 2);
    glClearColor(0, 1, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    CARendererBeginFrameAtTime(r, 1, NULL);
    CHECK(CGRectIsNull(CARendererUpdateBounds(r)));
    CARendererRender(r);
    CARendererEndFrame(r);
    CATransactionBegin();
    CATransactionSetDisableActions(true);
    CALayerSetPosition(box, CGPointMake(20, 16));
    CATransactionCommit();
    CARendererBeginFrameAtTime(r, 2, NULL);
    CHECK(CGRectEqualToRect(CARendererUpdateBounds(r), CGRectMake(8, 8, 20, 16)));
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    uint32_t *px = read_frame(tg.fbo, 64, 48);
    CHECK(px[45 * 64 + 60] == 0xFF00FF00u);     /* the marker survived */
    CHECK(px[9 * 64 + 9] == 0xFFFFFFFFu);       /* where the box was */
    CHECK(px[20 * 64 + 26] == 0xFFFF0000u);     /* where it is */
    free(px);
    CARelease(r);
    target_free(&tg);
    CARelease(box);
    CARelease(root);
}

/* MARK: - Layer filters on the GPU */

/* A filter dictionary {"name": name, key: x} (+1), releasing x; key NULL for none. */
static CAValueRef filter_with(const char *name, const char *key, CAValueRef x) {
    const char *keys[2] = { "name", key };
    CAValueRef values[2] = { CAValueCreateString(name), x };
    CAValueRef d = CAValueCreateDictionary(keys, values, key ? 2 : 1);
    CARelease(values[0]);
    if (x) CARelease(x);
    return d;
}

/* A one-item array (+1), releasing the item. */
static CAValueRef one_item(CAValueRef item) {
    CAValueRef a = CAValueCreateArray(&item, 1);
    CARelease(item);
    return a;
}

/* An array of 4 numbers (+1). */
static CAValueRef vector4(double a, double b, double c, double d) {
    CAValueRef n[4] = { CAValueCreateNumber(a), CAValueCreateNumber(b), CAValueCreateNumber(c), CAValueCreateNumber(d) };
    CAValueRef v = CAValueCreateArray(n, 4);
    for (int i = 0; i < 4; i++) CARelease(n[i]);
    return v;
}

/* One GL renderer draws every filter scene, so that its programs compile
 * once (under valgrind each compile costs seconds); released by main. */
static CARendererRef filter_renderer;
static CARendererRef shared_renderer(void) {
    if (!filter_renderer) filter_renderer = CARendererCreateWithEGLContext(display, context, NULL);
    CHECK(filter_renderer != NULL);
    return filter_renderer;
}

/* The frame of `root` drawn by the GL renderer `r` into a fresh target
 * (malloc'd BGRA words, top row first). */
static double filter_frame_time = 10;
static uint32_t *gpu_frame_with(CARendererRef r, CALayerRef root, int w, int h) {
    target tg = target_make(w, h);
    CARendererSetBounds(r, CGRectMake(0, 0, w, h));
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, filter_frame_time, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    uint32_t *out = read_frame(tg.fbo, w, h);
    target_free(&tg);
    filter_frame_time += 1;
    return out;
}

/* The GPU frame of `root` against the CPU's; the GPU frame is returned for
 * concrete checks (caller frees). */
static uint32_t *check_filter_scene(CARendererRef r, CALayerRef root, int w, int h) {
    CVPixelBufferRef cpu = cpu_frame(root, w, h, filter_frame_time);
    uint32_t *gpu = gpu_frame_with(r, root, w, h);
    /* The filters' passes mirror the CPU kernels' arithmetic: every pixel
     * within 3/255 (llvmpipe gives 0 to 2). */
    if (gpu) {
        int worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int d = channel_difference(cpu_pixel(cpu, x, y), gpu[y * w + x]);
                if (d > worst) worst = d;
            }
        CHECK(worst <= 3);
    }
    CVPixelBufferRelease(cpu);
    return gpu;
}

/* Each compositingFilter: a group of a translucent fill and a rounded
 * sublayer over an opaque and a translucent backdrop. */
/* (False under QZ_GL_QUICK: fewer scenes.) */
static bool all_scenes = true;

static void test_gpu_blend_modes(void) {
    bool all = all_scenes;
    static const char *const names[] = {
        "multiplyBlendMode", "screenBlendMode", "overlayBlendMode", "darkenBlendMode", "lightenBlendMode",
        "colorDodgeBlendMode", "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
        "differenceBlendMode", "exclusionBlendMode", "hueBlendMode", "saturationBlendMode", "colorBlendMode",
        "luminosityBlendMode", "clear", "copy", "sourceIn", "sourceOut", "sourceAtop", "destOver", "destIn",
        "destOut", "destAtop", "xor", "plusL", "plusD",
    };
    /* (Under valgrind, one of each family.) */
    static const char *const quick[] = { "multiplyBlendMode", "hueBlendMode", "sourceIn", "plusD", "clear" };
    CARendererRef r = shared_renderer();
    if (!r) return;
    size_t count = all ? sizeof names / sizeof *names : sizeof quick / sizeof *quick;
    for (size_t i = 0; i < count; i++) {
        const char *name = all ? names[i] : quick[i];
        CALayerRef root = layer_with(0, 0, 64, 40, 0, 0, 0, 0);
        CALayerRef left = layer_with(0, 0, 32, 40, 0.8, 0.4, 0.2, 1);
        CALayerRef right = layer_with(32, 0, 32, 40, 0.2, 0.6, 0.9, 0.5);
        CALayerRef blended = layer_with(8, 8, 48, 24, 0.5, 1, 0.25, 0.75);
        CALayerRef dot = layer_with(20, 4, 16, 16, 0.9, 0.1, 0.6, 1);
        CALayerSetCornerRadius(dot, 6);
        CALayerAddSublayer(blended, dot);
        CALayerAddSublayer(root, left);
        CALayerAddSublayer(root, right);
        CALayerAddSublayer(root, blended);
        CAValueRef mode = CAValueCreateString(name);
        CALayerSetCompositingFilter(blended, mode);
        CHECK_NO_ERROR();
        CARelease(mode);
        uint32_t *gpu = check_filter_scene(r, root, 64, 40);
        if (gpu && strcmp(name, "multiplyBlendMode") == 0) {
            /* Over opaque (0.8, 0.4, 0.2): D (1 - as) + as Cd Cs with as 0.75 and
             * Cs (0.5, 1, 0.25): (0.5, 0.4, 0.0875), in bytes ~(128, 102, 22). */
            CHECK(near_color(gpu[20 * 64 + 12], 0xFF806616u, 2));
        }
        if (gpu && strcmp(name, "clear") == 0) {
            CHECK(gpu[20 * 64 + 12] == 0);              /* inside the group: cleared */
            CHECK(near_color(gpu[2 * 64 + 12], 0xFFCC6633u, 1));   /* outside: the backdrop */
        }
        free(gpu);
        CARelease(dot);
        CARelease(blended);
        CARelease(right);
        CARelease(left);
        CARelease(root);
    }
}

/* filters on a group: blurs (direct and box-pass kernels), a colour matrix,
 * colour controls. */
static void test_gpu_layer_filters(void) {
    CARendererRef r = shared_renderer();
    if (!r) return;
    for (int k = 0; k < 4; k++) {
        CALayerRef root = layer_with(0, 0, 72, 48, 1, 1, 1, 1);
        CALayerRef group = layer_with(12, 8, 48, 32, 0.8, 0.4, 0.2, 1);
        CALayerRef dot = layer_with(24, 6, 16, 16, 0.1, 0.3, 0.9, 1);
        CALayerSetCornerRadius(dot, 5);
        CALayerAddSublayer(group, dot);
        CALayerAddSublayer(root, group);
        CAValueRef filters;
        if (k == 0) filters = one_item(filter_with("CIGaussianBlur", "inputRadius", CAValueCreateNumber(1.5)));
        else if (k == 1) filters = one_item(filter_with("CIGaussianBlur", "inputRadius", CAValueCreateNumber(5)));
        else if (k == 2) {
            /* Red and blue swapped, alpha halved. */
            const char *keys[5] = { "name", "inputRVector", "inputBVector", "inputAVector", "inputBiasVector" };
            CAValueRef values[5] = { CAValueCreateString("CIColorMatrix"), vector4(0, 0, 1, 0), vector4(1, 0, 0, 0),
                                     vector4(0, 0, 0, 0.5), vector4(0, 0, 0, 0) };
            filters = one_item(CAValueCreateDictionary(keys, values, 5));
            for (int i = 0; i < 5; i++) CARelease(values[i]);
        } else {
            filters = one_item(filter_with("CIColorControls", "inputSaturation", CAValueCreateNumber(0)));
        }
        CALayerSetFilters(group, filters);
        CHECK_NO_ERROR();
        CARelease(filters);
        uint32_t *gpu = check_filter_scene(r, root, 72, 48);
        if (gpu) {
            uint32_t p = gpu[12 * 72 + 16];   /* inside the group, away from the dot */
            if (k == 1) {
                /* Beside the group's left edge (x 12) the blur is ~half the
                 * fill over the white: red ~(255 + 204) / 2. */
                int red = (int)((gpu[24 * 72 + 12] >> 16) & 0xFF);
                CHECK(red >= 222 && red <= 236);
            }
            if (k == 2) {
                /* (0.2, 0.4, 0.8) at alpha 0.5 over white: ~(153, 179, 230). */
                CHECK(near_color(p, 0xFF99B3E6u, 2));
            }
            if (k == 3) {
                /* The Rec. 709 luminance of (0.8, 0.4, 0.2): 0.4706, 120. */
                CHECK(near_color(p, 0xFF787878u, 2));
            }
        }
        free(gpu);
        CARelease(dot);
        CARelease(group);
        CARelease(root);
    }
}

/* backgroundFilters: a frosted rounded card over stripes, at blur radii
 * drawn directly and reduced by 2 and 4 (the last card rotated). */
static void test_gpu_backdrop(void) {
    bool all = all_scenes;
    CARendererRef r = shared_renderer();
    if (!r) return;
    const double radii[3] = { 4, 10, 20 };
    for (int k = 0; k < (all ? 3 : 1); k++) {
        CALayerRef root = layer_with(0, 0, 96, 64, 0, 0, 0, 1);
        for (int i = 0; i < 12; i++) {
            CALayerRef stripe = layer_with(8 * i, 0, 4, 64, 1, 0, 0, 1);
            CALayerRef other = layer_with(8 * i + 4, 0, 4, 64, 0, 0, 1, 1);
            CALayerAddSublayer(root, stripe);
            CALayerAddSublayer(root, other);
            CARelease(stripe);
            CARelease(other);
        }
        CALayerRef card = layer_with(16, 12, 64, 40, 1, 1, 1, 0.3);
        CALayerSetCornerRadius(card, 12);
        if (k == 2) CALayerSetTransform(card, CATransform3DMakeRotation(0.3, 0, 0, 1));
        CALayerAddSublayer(root, card);
        CAValueRef filters = one_item(filter_with("CIGaussianBlur", "inputRadius", CAValueCreateNumber(radii[k])));
        CALayerSetBackgroundFilters(card, filters);
        CHECK_NO_ERROR();
        CARelease(filters);
        uint32_t *gpu = check_filter_scene(r, root, 96, 64);
        if (gpu && k == 0) {
            /* The card's middle: the stripes' mean (0.5, 0, 0.5) under 30% white:
             * (0.65, 0.3, 0.65), ~(166, 77, 166). */
            CHECK(near_color(gpu[32 * 96 + 48], 0xFFA64DA6u, 4));
            /* Just outside the rounded corner: a stripe, unfiltered (x 17 is red). */
            CHECK(gpu[13 * 96 + 17] == 0xFFFF0000u);
        }
        free(gpu);
        CARelease(card);
        CARelease(root);
    }
}

/* MARK: - Bad input */

static void test_bad_input(void) {
    CALayerRef gl = CAEAGLLayerCreate();
    CALayerSetFrame(gl, CGRectMake(0, 0, 8, 8));
    GLuint rb;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);

    /* NULLs, another target, not a CAEAGLLayer, a handle of another type. */
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(NULL, context, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, NULL, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, NULL));
    CHECK_ERROR(QZErrorNullArgument);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_TEXTURE_2D, gl));
    CHECK_ERROR(QZErrorInvalidArgument);
    CALayerRef plain = CALayerCreate();
    CALayerSetFrame(plain, CGRectMake(0, 0, 8, 8));
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, plain));
    CHECK_ERROR(QZErrorWrongType);
    CARelease(plain);
    CGColorRef color = CGColorCreateSRGB(1, 0, 0, 1);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, (CALayerRef)color));
    CHECK_ERROR(QZErrorWrongType);
    CGColorRelease(color);
    CHECK(!QZEAGLContextPresentRenderbuffer(display, context, 0));
    CHECK_ERROR(QZErrorInvalidArgument);

    /* Present without storage. */
    CHECK(!QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidState);
    /* No renderbuffer bound. */
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(!QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidState);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);

    /* A zero-sized layer, and one larger than GL allows. */
    CALayerRef empty = CAEAGLLayerCreate();
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, empty));
    CHECK_ERROR(QZErrorInvalidState);
    CALayerSetBounds(empty, CGRectMake(0, 0, 1e9, 10));
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, empty));
    CHECK_ERROR(QZErrorOutOfRange);
    CARelease(empty);

    /* Drawable properties storage cannot use. */
    CAValueRef odd = drawable_properties(false, "EAGLColorFormatSRGBA8");
    CAEAGLLayerSetDrawableProperties(gl, odd);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorUnknownConstant);
    CARelease(odd);
    const char *key = kEAGLDrawablePropertyRetainedBacking;
    CAValueRef s = CAValueCreateString("yes");
    CAValueRef bad = CAValueCreateDictionary(&key, &s, 1);
    CAEAGLLayerSetDrawableProperties(gl, bad);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(bad);
    CARelease(s);
    CAEAGLLayerSetDrawableProperties(gl, NULL);   /* the defaults */
    CHECK(QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_NO_ERROR();

    /* No current context. */
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(!QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(CARendererCreateWithEGLContext(display, context, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidState);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);

    /* A context of another display (EGL's device platform gives a second
     * display on the same software device). */
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT device;
    EGLint devices = 0;
    if (query_devices && query_devices(1, &device, &devices) && devices == 1) {
        EGLDisplay other = get_display(EGL_PLATFORM_DEVICE_EXT, device, NULL);
        EGLint major, minor;
        const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
        EGLContext foreign = EGL_NO_CONTEXT;
        if (other != EGL_NO_DISPLAY && other != display && eglInitialize(other, &major, &minor))
            foreign = eglCreateContext(other, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
        CHECK(foreign != EGL_NO_CONTEXT);
        if (foreign != EGL_NO_CONTEXT) {
            CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, foreign, GL_RENDERBUFFER, gl));
            CHECK_ERROR(QZErrorInvalidArgument);
            CHECK(!QZEAGLContextPresentRenderbuffer(display, foreign, GL_RENDERBUFFER));
            CHECK_ERROR(QZErrorInvalidArgument);
            CHECK(CARendererCreateWithEGLContext(display, foreign, NULL) == NULL);
            CHECK_ERROR(QZErrorInvalidArgument);
            eglDestroyContext(other, foreign);
        }
        if (other != EGL_NO_DISPLAY && other != display) eglTerminate(other);
    } else {
        CHECK(!"EGL_EXT_device_enumeration gave no device");
    }

    /* A destroyed context, current or not; a pointer that is no context. */
    const EGLint es3[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
    EGLContext doomed = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, es3);
    eglDestroyContext(display, doomed);
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, doomed, GL_RENDERBUFFER, gl));
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CARendererCreateWithEGLContext(display, doomed, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    doomed = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, es3);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, doomed);
    eglDestroyContext(display, doomed);
    CHECK(!QZEAGLContextPresentRenderbuffer(display, doomed, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CARendererCreateWithEGLContext(display, doomed, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
    int not_a_context = 0;
    CHECK(!QZEAGLContextPresentRenderbuffer(display, &not_a_context, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CARendererCreateWithEGLContext(&not_a_context, context, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);

    /* Contexts that cannot do GLES 3: an OpenGL ES 1 context, a desktop GL one. */
    const EGLint es1[] = { EGL_CONTEXT_CLIENT_VERSION, 1, EGL_NONE };
    EGLContext old = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, es1);
    CHECK(old != EGL_NO_CONTEXT);
    if (old != EGL_NO_CONTEXT) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, old);
        CHECK(CARendererCreateWithEGLContext(display, old, NULL) == NULL);
        CHECK_ERROR(QZErrorInvalidState);
        CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(display, old, GL_RENDERBUFFER, gl));
        CHECK_ERROR(QZErrorInvalidState);
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
        eglDestroyContext(display, old);
    }
    eglBindAPI(EGL_OPENGL_API);
    EGLContext desktop = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, NULL);
    eglBindAPI(EGL_OPENGL_ES_API);
    if (desktop != EGL_NO_CONTEXT) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, desktop);
        CHECK(CARendererCreateWithEGLContext(display, desktop, NULL) == NULL);
        CHECK_ERROR(QZErrorInvalidArgument);
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
        eglDestroyContext(display, desktop);
    }

    /* Options that are not a dictionary. */
    CAValueRef n = CAValueCreateNumber(1);
    CHECK(CARendererCreateWithEGLContext(display, context, n) == NULL);
    CHECK_ERROR(QZErrorInvalidArgument);
    CARelease(n);

    /* A renderer used without its context current: an error, no frame. Released
     * there, it deletes its objects with the context made current for the
     * moment, and leaves the thread's current context as it was. */
    CALayerRef root = layer_with(0, 0, 8, 8, 1, 0, 0, 1);
    CARendererRef r = CARendererCreateWithEGLContext(display, context, NULL);
    CARendererSetLayer(r, root);
    CARendererBeginFrameAtTime(r, 0, NULL);
    CARendererRender(r);
    CARendererEndFrame(r);
    CHECK_NO_ERROR();
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    CARendererBeginFrameAtTime(r, 1, NULL);
    CARendererAddUpdateRect(r, CGRectMake(0, 0, 8, 8));
    CARendererRender(r);
    CHECK_ERROR(QZErrorInvalidState);
    CARendererEndFrame(r);
    CARelease(r);
    CHECK(eglGetCurrentContext() == EGL_NO_CONTEXT);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
    CARelease(root);

    /* The layer freed: its storage goes with it. */
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    CARelease(gl);
    CHECK(!QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER));
    CHECK_ERROR(QZErrorInvalidState);
    glDeleteRenderbuffers(1, &rb);
}

/* MARK: - Without EGL */

static int run_without_gl(void) {
    /* QUARTZITE_EGL_LIBRARY points at no library: the GL functions report it,
     * everything else works. */
    CALayerRef gl = CAEAGLLayerCreate();
    CHECK(gl != NULL);
    CALayerSetFrame(gl, CGRectMake(0, 0, 8, 8));
    CHECK(CAEAGLLayerGetDrawableProperties(gl) != NULL);
    int fake = 0;
    CHECK(!QZEAGLContextRenderbufferStorageFromDrawable(&fake, &fake, 0x8D41, gl));
    CHECK(QZGetLastError() == QZErrorInvalidState && strstr(QZGetLastErrorMessage(), "EGL") != NULL);
    QZClearLastError();
    CHECK(!QZEAGLContextPresentRenderbuffer(&fake, &fake, 0x8D41));
    CHECK_ERROR(QZErrorInvalidState);
    CHECK(CARendererCreateWithEGLContext(&fake, &fake, NULL) == NULL);
    CHECK_ERROR(QZErrorInvalidState);
    CALayerRef root = layer_with(0, 0, 8, 8, 0, 0, 1, 1);
    CALayerAddSublayer(root, gl);
    CVPixelBufferRef pb = cpu_frame(root, 8, 8, 0);
    CHECK(cpu_pixel(pb, 4, 4) == 0xFF0000FFu);
    CHECK_NO_ERROR();
    CVPixelBufferRelease(pb);
    CARelease(gl);
    CARelease(root);
    printf("%s\n", qz_checks_failed ? "FAIL without_gl" : "ok   without_gl");
    qz_tests_run = 1;
    qz_tests_failed = qz_checks_failed ? 1 : 0;
    return qz_summary();
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "no-gl") == 0) return run_without_gl();
    if (!setup_egl()) {
        fprintf(stderr, "FAIL no surfaceless EGL display with an OpenGL ES 3 context (install Mesa: scripts/install-deps.sh)\n");
        return 1;
    }
    /* QZ_GL_QUICK=1 (the valgrind run, where every shader is compiled under
     * valgrind): the two triangle cases that cover both formats and both
     * backings. */
    const char *quick = getenv("QZ_GL_QUICK");
    bool all = !(quick && strcmp(quick, "1") == 0);
    RUN(test_drawable_properties);
    RUN(test_triangle_rgba8);
    if (all) RUN(test_triangle_rgba8_retained);
    if (all) RUN(test_triangle_rgb565);
    RUN(test_triangle_rgb565_retained);
    RUN(test_gpu_matches_cpu);
    RUN(test_host_state_kept);
    RUN(test_gpu_damage);
    all_scenes = all;
    RUN(test_gpu_blend_modes);
    RUN(test_gpu_layer_filters);
    RUN(test_gpu_backdrop);
    if (filter_renderer) CARelease(filter_renderer);
    RUN(test_bad_input);
    /* The context goes, the display stays initialised: eglTerminate unloads
     * Mesa's driver, whose remaining allocations valgrind could then no
     * longer attribute (mesa.supp matches them by the driver's name). */
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
    return qz_summary();
}
