/* Quartzite in a GL engine: the host makes a surfaceless EGL display and an
 * OpenGL ES 3 context (Mesa's llvmpipe when there is no GPU), draws a
 * spinning triangle with GLES into a CAEAGLLayer's renderbuffer each frame,
 * composites it with ordinary layers (a title bar, a card with a shadow, an
 * animated badge) with the GPU renderer into its own framebuffer object, and
 * writes the 60 frames as PNG files under argv[1] ("out/gl" by default).
 *
 *     make gl-demo
 *
 * The steps an engine takes each frame are marked ENGINE below. */
#define _POSIX_C_SOURCE 200809L
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <quartzite/quartzite.h>

enum { WIDTH = 320, HEIGHT = 240, FRAMES = 60 };
static const double PI = 3.14159265358979323846;

static double media_now = 0;
static CFTimeInterval clock_source(void *info) { return *(const double *)info; }

static int fail(const char *what) {
    fprintf(stderr, "gl_engine: %s (%s)\n", what, QZGetLastError() ? QZGetLastErrorMessage() : "no Quartzite error");
    return 1;
}

static CALayerRef make_layer(CALayerRef parent, double x, double y, double w, double h,
                             double r, double g, double b, double a) {
    CALayerRef l = CALayerCreate();
    CALayerSetFrame(l, CGRectMake(x, y, w, h));
    CGColorRef c = CGColorCreateSRGB(r, g, b, a);
    CALayerSetBackgroundColor(l, c);
    CGColorRelease(c);
    if (parent) CALayerAddSublayer(parent, l);
    return l;
}

/* The engine's own drawing: a triangle spun by `angle`, one colour per corner. */
static GLuint triangle_program(void) {
    const char *vs =
        "#version 300 es\n"
        "uniform float angle;\n"
        "out vec3 color;\n"
        "void main() {\n"
        "    float a = angle + float(gl_VertexID) * 2.0943951;\n"
        "    gl_Position = vec4(0.8 * cos(a) * 0.75, 0.8 * sin(a), 0.0, 1.0);\n"
        "    color = vec3(gl_VertexID == 0, gl_VertexID == 1, gl_VertexID == 2);\n"
        "}\n";
    const char *fs =
        "#version 300 es\nprecision mediump float;\nin vec3 color;\nout vec4 o;\n"
        "void main() { o = vec4(color, 1.0); }\n";
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
    return p;
}

/* Writes the framebuffer `fbo` (w x h, GL rows bottom-up) as a PNG, through
 * a premultiplied 32BGRA pixel buffer (top row first). */
static int write_png(GLuint fbo, int w, int h, const char *path) {
    CVPixelBufferRef pb = NULL;
    if (CVPixelBufferCreate(NULL, (size_t)w, (size_t)h, kCVPixelFormatType_32BGRA, NULL, &pb) != kCVReturnSuccess) return -1;
    uint8_t *rgba = malloc((size_t)w * h * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    uint8_t *base = CVPixelBufferGetBaseAddress(pb);
    size_t bpr = CVPixelBufferGetBytesPerRow(pb);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *s = rgba + ((size_t)(h - 1 - y) * w + x) * 4;
            uint8_t *d = base + (size_t)y * bpr + 4 * (size_t)x;
            d[0] = s[2]; d[1] = s[1]; d[2] = s[0]; d[3] = s[3];
        }
    free(rgba);
    int r = QZPixelBufferWritePNG(pb, path);
    CVPixelBufferRelease(pb);
    return r;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "out/gl";
    mkdir(dir, 0755);

    /* The engine's context: EGL's surfaceless platform, OpenGL ES 3. */
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay display = get_display ? get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : EGL_NO_DISPLAY;
    EGLint major, minor;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) return fail("no surfaceless EGL display");
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
        return fail("no OpenGL ES 3 context");
    printf("gl_engine: %s, %s\n", (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));

    /* The engine's render target: a texture with a framebuffer object. */
    GLuint target_texture, target_fbo;
    glGenTextures(1, &target_texture);
    glBindTexture(GL_TEXTURE_2D, target_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, WIDTH, HEIGHT, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &target_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, target_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target_texture, 0);
    glViewport(0, 0, WIDTH, HEIGHT);

    /* A deterministic media clock: frame i is at i / 60 s. */
    QZSetMediaTimeSource(clock_source, &media_now);

    /* The scene. */
    CALayerRef root = make_layer(NULL, 0, 0, WIDTH, HEIGHT, 0.12, 0.13, 0.16, 1);
    CALayerRef viewport = CAEAGLLayerCreate();            /* the engine's 3D view */
    CALayerSetFrame(viewport, CGRectMake(16, 44, 192, 144));
    CALayerSetCornerRadius(viewport, 12);
    CALayerSetMasksToBounds(viewport, true);
    CALayerSetBorderWidth(viewport, 2);
    CGColorRef edge = CGColorCreateSRGB(0.9, 0.9, 0.95, 1);
    CALayerSetBorderColor(viewport, edge);
    CGColorRelease(edge);
    CALayerSetOpaque(viewport, true);                      /* Apple's advice for GL content */
    CALayerAddSublayer(root, viewport);
    CALayerRef title = make_layer(root, 0, 0, WIDTH, 32, 0.2, 0.45, 0.85, 0.9);
    CALayerRef card = make_layer(root, 224, 44, 80, 144, 0.96, 0.96, 0.98, 1);
    CALayerSetCornerRadius(card, 10);
    CALayerSetShadowOpacity(card, 0.6f);
    CALayerSetShadowRadius(card, 6);
    CALayerSetShadowOffset(card, CGSizeMake(0, 4));
    for (int i = 0; i < 4; i++) {
        CALayerRef bar = make_layer(card, 12, 16 + i * 30, 56 - i * 10, 12, 0.2 + 0.2 * i, 0.6, 0.9 - 0.2 * i, 1);
        CALayerSetCornerRadius(bar, 6);
        CARelease(bar);
    }
    CALayerRef badge = make_layer(root, 180, 168, 40, 40, 0.95, 0.3, 0.25, 0.85);
    CALayerSetCornerRadius(badge, 20);
    CAAnimationRef spin = CABasicAnimationCreate("transform.rotation.z");
    CAValueRef from = CAValueCreateNumber(0), to = CAValueCreateNumber(2 * PI);
    CABasicAnimationSetFromValue(spin, from);
    CABasicAnimationSetToValue(spin, to);
    CARelease(from);
    CARelease(to);
    CAAnimationSetDuration(spin, 1);
    CAAnimationSetRepeatCount(spin, INFINITY);
    CALayerAddAnimation(badge, spin, "spin");
    CARelease(spin);
    CALayerAddSublayer(badge, make_layer(NULL, 16, 2, 8, 12, 1, 1, 1, 1));   /* shows the rotation */
    CARelease(CALayerGetSublayerAtIndex(badge, 0));
    CATransactionFlush();

    /* The layer's storage: a renderbuffer in the engine's context, sized to
     * the layer's bounds x contentsScale (192 x 144 pixels). */
    GLuint rb, rb_fbo;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    if (!QZEAGLContextRenderbufferStorageFromDrawable(display, context, GL_RENDERBUFFER, viewport))
        return fail("renderbufferStorage:fromDrawable: failed");
    glGenFramebuffers(1, &rb_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, rb_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    GLuint program = triangle_program(), vao;
    glGenVertexArrays(1, &vao);

    CARendererRef renderer = CARendererCreateWithEGLContext(display, context, NULL);
    if (!renderer) return fail("CARendererCreateWithEGLContext failed");
    CARendererSetLayer(renderer, root);

    char path[512];
    for (int i = 0; i < FRAMES; i++) {
        media_now = i / 60.0;
        /* ENGINE 1: draw the 3D view into the layer's renderbuffer, present it. */
        glBindFramebuffer(GL_FRAMEBUFFER, rb_fbo);
        glViewport(0, 0, 192, 144);
        glClearColor(0.05f, 0.07f + 0.1f * (float)i / FRAMES, 0.15f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(program);
        glUniform1f(glGetUniformLocation(program, "angle"), (float)(2 * PI * i / FRAMES));
        glBindVertexArray(vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        if (!QZEAGLContextPresentRenderbuffer(display, context, GL_RENDERBUFFER)) return fail("presentRenderbuffer: failed");
        /* ENGINE 2: composite the layer tree into the engine's framebuffer. */
        glBindFramebuffer(GL_FRAMEBUFFER, target_fbo);
        glViewport(0, 0, WIDTH, HEIGHT);
        CARendererBeginFrameAtTime(renderer, media_now, NULL);
        CARendererRender(renderer);
        CARendererEndFrame(renderer);
        if (QZGetLastError()) return fail("rendering failed");
        /* ENGINE 3: use the texture (here: save it). */
        snprintf(path, sizeof path, "%s/frame_%03d.png", dir, i);
        if (write_png(target_fbo, WIDTH, HEIGHT, path) != 0) return fail("writing a PNG failed");
    }
    printf("gl_engine: wrote %d frames to %s/frame_000.png ... frame_%03d.png\n", FRAMES, dir, FRAMES - 1);

    CARelease(renderer);
    CARelease(badge);
    CARelease(card);
    CARelease(title);
    CARelease(viewport);
    CARelease(root);
    QZSetMediaTimeSource(NULL, NULL);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(program);
    glDeleteFramebuffers(1, &rb_fbo);
    glDeleteRenderbuffers(1, &rb);
    glDeleteFramebuffers(1, &target_fbo);
    glDeleteTextures(1, &target_texture);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
    eglTerminate(display);
    return 0;
}
