/*
 * bench_render_gl.c — the GPU CARenderer (CARendererCreateWithEGLContext)
 * against the CPU CARenderer on bench_render.c's scenes, same layer trees,
 * same run. For context only: without a GPU the GL renderer runs on Mesa's
 * llvmpipe, a software rasterizer that spreads fragments over LP_NUM_THREADS
 * threads (by default one per CPU), while the CPU renderer draws on one
 * thread; the figures say what the GL path costs where no GPU is present,
 * not what it costs on one. The GL device is printed (GL_RENDERER).
 *
 * Each GL frame is timed to glFinish (GL runs asynchronously: without it
 * the time would be the submission only). Frames a-c redraw everything
 * (CARendererAddUpdateRect with the whole target), d is the idle frame.
 * Before timing, the GL frame is compared with the CPU frame (pixels whose
 * channels differ by more than 2, the largest difference).
 *
 * Usage: bench_render_gl [--reps R] [--frames F] [--scenes abcd]
 */
#define main bench_render_main
#include "bench_render.c"
#undef main

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

static EGLDisplay gl_display;
static EGLContext gl_context;
static GLuint gl_fbo, gl_texture;
static CARendererRef gl_renderer[3];

/* An OpenGL ES 3 context on `d` (EGL_NO_CONTEXT when it cannot be made). */
static EGLContext context_on(EGLDisplay d) {
    EGLint major, minor;
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor)) return EGL_NO_CONTEXT;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
    EGLContext c = eglCreateContext(d, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    if (c != EGL_NO_CONTEXT && eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) return c;
    return EGL_NO_CONTEXT;
}

/* Mesa's surfaceless platform, else the first EGL device that gives a
 * context (a GPU driver's headless path, EGL_EXT_platform_device);
 * BENCH_GL_DEVICE=1 tries the devices first. */
static int setup_gl(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    if (!get_display) return 0;
    const char *prefer = getenv("BENCH_GL_DEVICE");
    for (int pass = 0; pass < 2 && gl_context == EGL_NO_CONTEXT; pass++) {
        if ((pass == 0) == !(prefer && *prefer == '1')) {
            gl_display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
            gl_context = context_on(gl_display);
        } else if (query_devices) {
            EGLDeviceEXT devices[16];
            EGLint n = 0;
            query_devices(16, devices, &n);
            for (int i = 0; i < n && gl_context == EGL_NO_CONTEXT; i++) {
                gl_display = get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                gl_context = context_on(gl_display);
            }
        }
    }
    if (gl_context == EGL_NO_CONTEXT) return 0;
    glGenTextures(1, &gl_texture);
    glBindTexture(GL_TEXTURE_2D, gl_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glGenFramebuffers(1, &gl_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, gl_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, gl_texture, 0);
    glViewport(0, 0, W, H);
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

static void gl_frame(CARendererRef r, int full) {
    qz_time += 1.0 / 60;
    CARendererBeginFrameAtTime(r, qz_time, NULL);
    if (full) CARendererAddUpdateRect(r, (CGRect){ { 0, 0 }, { W, H } });
    (void)CARendererUpdateBounds(r);
    CARendererRender(r);
    CARendererEndFrame(r);
    glFinish();
}

static CARendererRef gl_renderer_for(char scene) {
    return gl_renderer[scene == 'b' ? 1 : scene == 'c' ? 2 : 0];
}

/* The GL frame against the CPU frame in qz_target. */
static void compare_gl(char scene) {
    uint8_t *rgba = malloc((size_t)W * H * 4);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    CVPixelBufferLockBaseAddress(qz_target, 1);
    const uint8_t *q = CVPixelBufferGetBaseAddress(qz_target);
    size_t bpr = CVPixelBufferGetBytesPerRow(qz_target);
    long differ = 0;
    int worst = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *c = q + (size_t)y * bpr + (size_t)x * 4;            /* BGRA, top row first */
            const uint8_t *g = rgba + ((size_t)(H - 1 - y) * W + x) * 4;       /* RGBA, bottom row first */
            int d[4] = { abs(c[0] - g[2]), abs(c[1] - g[1]), abs(c[2] - g[0]), abs(c[3] - g[3]) };
            int m = 0;
            for (int k = 0; k < 4; k++) if (d[k] > m) m = d[k];
            if (m > 2) differ++;
            if (m > worst) worst = m;
        }
    CVPixelBufferUnlockBaseAddress(qz_target, 1);
    free(rgba);
    printf("  scene %c: GL frame vs CPU frame: %.3f%% of pixels differ by more than 2 (largest difference %d)\n", scene,
           100.0 * (double)differ / ((double)W * H), worst);
}

int main(int argc, char **argv) {
    int reps = 5, frames = 3;
    const char *scenes = "abcd";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scenes") && i + 1 < argc) scenes = argv[++i];
        else {
            fprintf(stderr, "usage: bench_render_gl [--reps R] [--frames F] [--scenes abcd]\n");
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (frames < 1) frames = 1;
    if (!setup_gl()) {
        fprintf(stderr, "bench_render_gl: no EGL display with an OpenGL ES 3 context (install Mesa)\n");
        return 1;
    }
    const char *threads = getenv("LP_NUM_THREADS");
    printf("  GL device: %s, %s (llvmpipe threads: %s)\n", (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION), threads ? threads : "default, one per CPU");
    make_content();
    make_quartzite();
    for (int i = 0; i < 3; i++) {
        gl_renderer[i] = CARendererCreateWithEGLContext(gl_display, gl_context, NULL);
        CARendererSetLayer(gl_renderer[i], CARendererGetLayer(qz_renderer[i]));
    }
    fail_if_error("making the GL renderers");
    for (const char *s = scenes; *s; s++) {
        if (*s == 'd') continue;
        quartzite_frame(renderer_for(*s), 1);
        gl_frame(gl_renderer_for(*s), 1);
        fail_if_error("rendering");
        compare_gl(*s);
    }
    printf("  %-48s %12s %12s %9s\n", "scene (1920x1080)", "GL (above)", "CPU, 1 thread", "GL/CPU");
    for (const char *s = scenes; *s; s++) {
        double best_g = INFINITY, best_c = INFINITY;
        quartzite_frame(renderer_for(*s), 1);
        gl_frame(gl_renderer_for(*s), 1);
        for (int r = 0; r < reps; r++) {
            double t = now_ns();
            for (int f = 0; f < frames; f++) quartzite_frame(renderer_for(*s), *s != 'd');
            double c = (now_ns() - t) / frames;
            if (c < best_c) best_c = c;
            t = now_ns();
            for (int f = 0; f < frames; f++) gl_frame(gl_renderer_for(*s), *s != 'd');
            double g = (now_ns() - t) / frames;
            if (g < best_g) best_g = g;
        }
        fail_if_error("rendering");
        printf("  %c %-46s %9.3f ms %9.3f ms %8.2fx\n", *s, describe(*s), best_g / 1e6, best_c / 1e6, best_g / best_c);
        printf("SUMMARY render-gl %c: %s: GL renderer on %s %.3f ms, CPU renderer %.3f ms (%.2fx; context only)\n", *s,
               describe(*s), (const char *)glGetString(GL_RENDERER), best_g / 1e6, best_c / 1e6, best_g / best_c);
    }
    for (int i = 0; i < 3; i++) CARelease(gl_renderer[i]);
    eglMakeCurrent(gl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(gl_display, gl_context);
    return 0;
}
