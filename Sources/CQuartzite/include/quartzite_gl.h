/* EGL and OpenGL ES 3 for the engine's GL code (Sources/Quartzite/GL),
 * loaded at run time: libquartzite.so does not link libEGL or libGLESv2, so
 * hosts that never call a GL function need neither. Not installed; not
 * exported from the .so.
 *
 * qz_internal_gl_load() opens libEGL.so.1 and libGLESv2.so.2 (or the files
 * named by QUARTZITE_EGL_LIBRARY and QUARTZITE_GLES_LIBRARY) once per process
 * and fills qz_internal_gl with their entry points. The inline qz_gl* and
 * qz_egl* wrappers below call through that table; call them only after a
 * successful load.
 *
 * The types and constants are written out here (their values are the
 * Khronos registry's) rather than taken from <EGL/egl.h> and <GLES3/gl3.h>,
 * which declare prototypes a Swift caller could link against by mistake. */
#ifndef QUARTZITE_GL_H
#define QUARTZITE_GL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
typedef int GLsizei;
typedef float GLfloat;
typedef unsigned char GLboolean;
typedef unsigned int GLbitfield;
typedef char GLchar;
typedef intptr_t GLsizeiptr;
typedef intptr_t GLintptr;

typedef unsigned int EGLBoolean;
typedef int32_t EGLint;
typedef unsigned int EGLenum;
typedef void *QZEGLDisplay;
typedef void *QZEGLContext;
typedef void *QZEGLSurface;
typedef void *QZEGLImage;
typedef void *QZEGLSync;

/* MARK: - OpenGL ES 3.0 constants */

static const GLenum GL_NO_ERROR = 0;
static const GLenum GL_NONE = 0;
static const GLenum GL_ZERO = 0;
static const GLenum GL_ONE = 1;
static const GLenum GL_TRIANGLES = 0x0004;
static const GLenum GL_TRIANGLE_STRIP = 0x0005;
static const GLenum GL_ONE_MINUS_SRC_ALPHA = 0x0303;
static const GLenum GL_BACK = 0x0405;
static const GLenum GL_CULL_FACE = 0x0B44;
static const GLenum GL_DEPTH_TEST = 0x0B71;
static const GLenum GL_STENCIL_TEST = 0x0B90;
static const GLenum GL_VIEWPORT = 0x0BA2;
static const GLenum GL_DITHER = 0x0BD0;
static const GLenum GL_BLEND = 0x0BE2;
static const GLenum GL_READ_BUFFER = 0x0C02;
static const GLenum GL_SCISSOR_BOX = 0x0C10;
static const GLenum GL_SCISSOR_TEST = 0x0C11;
static const GLenum GL_COLOR_CLEAR_VALUE = 0x0C22;
static const GLenum GL_COLOR_WRITEMASK = 0x0C23;
static const GLenum GL_UNPACK_ROW_LENGTH = 0x0CF2;
static const GLenum GL_UNPACK_SKIP_ROWS = 0x0CF3;
static const GLenum GL_UNPACK_SKIP_PIXELS = 0x0CF4;
static const GLenum GL_UNPACK_ALIGNMENT = 0x0CF5;
static const GLenum GL_PACK_ROW_LENGTH = 0x0D02;
static const GLenum GL_PACK_SKIP_ROWS = 0x0D03;
static const GLenum GL_PACK_SKIP_PIXELS = 0x0D04;
static const GLenum GL_PACK_ALIGNMENT = 0x0D05;
static const GLenum GL_MAX_TEXTURE_SIZE = 0x0D33;
static const GLenum GL_TEXTURE_2D = 0x0DE1;
static const GLenum GL_UNSIGNED_BYTE = 0x1401;
static const GLenum GL_FLOAT = 0x1406;
static const GLenum GL_COLOR = 0x1800;
static const GLenum GL_RED = 0x1903;
static const GLenum GL_GREEN = 0x1904;
static const GLenum GL_BLUE = 0x1905;
static const GLenum GL_ALPHA = 0x1906;
static const GLenum GL_RGB = 0x1907;
static const GLenum GL_RGBA = 0x1908;
static const GLenum GL_VENDOR = 0x1F00;
static const GLenum GL_RENDERER = 0x1F01;
static const GLenum GL_VERSION = 0x1F02;
static const GLenum GL_NEAREST = 0x2600;
static const GLenum GL_LINEAR = 0x2601;
static const GLenum GL_NEAREST_MIPMAP_NEAREST = 0x2700;
static const GLenum GL_LINEAR_MIPMAP_LINEAR = 0x2703;
static const GLenum GL_TEXTURE_MAG_FILTER = 0x2800;
static const GLenum GL_TEXTURE_MIN_FILTER = 0x2801;
static const GLenum GL_TEXTURE_WRAP_S = 0x2802;
static const GLenum GL_TEXTURE_WRAP_T = 0x2803;
static const GLenum GL_COLOR_BUFFER_BIT = 0x4000;
static const GLenum GL_FUNC_ADD = 0x8006;
static const GLenum GL_BLEND_EQUATION_RGB = 0x8009;
static const GLenum GL_POLYGON_OFFSET_FILL = 0x8037;
static const GLenum GL_RGBA8 = 0x8058;
static const GLenum GL_TEXTURE_BINDING_2D = 0x8069;
static const GLenum GL_UNPACK_SKIP_IMAGES = 0x806D;
static const GLenum GL_UNPACK_IMAGE_HEIGHT = 0x806E;
static const GLenum GL_SAMPLE_ALPHA_TO_COVERAGE = 0x809E;
static const GLenum GL_SAMPLE_COVERAGE = 0x80A0;
static const GLenum GL_BLEND_DST_RGB = 0x80C8;
static const GLenum GL_BLEND_SRC_RGB = 0x80C9;
static const GLenum GL_BLEND_DST_ALPHA = 0x80CA;
static const GLenum GL_BLEND_SRC_ALPHA = 0x80CB;
static const GLenum GL_CLAMP_TO_EDGE = 0x812F;
static const GLenum GL_TEXTURE_BASE_LEVEL = 0x813C;
static const GLenum GL_TEXTURE_MAX_LEVEL = 0x813D;
static const GLenum GL_R8 = 0x8229;
static const GLenum GL_R32F = 0x822E;
static const GLenum GL_MAJOR_VERSION = 0x821B;
static const GLenum GL_MINOR_VERSION = 0x821C;
static const GLenum GL_TEXTURE0 = 0x84C0;
static const GLenum GL_ACTIVE_TEXTURE = 0x84E0;
static const GLenum GL_MAX_RENDERBUFFER_SIZE = 0x84E8;
static const GLenum GL_VERTEX_ARRAY_BINDING = 0x85B5;
static const GLenum GL_RGBA32F = 0x8814;
static const GLenum GL_DRAW_BUFFER0 = 0x8825;
static const GLenum GL_BLEND_EQUATION_ALPHA = 0x883D;
static const GLenum GL_ARRAY_BUFFER = 0x8892;
static const GLenum GL_ARRAY_BUFFER_BINDING = 0x8894;
static const GLenum GL_PIXEL_PACK_BUFFER = 0x88EB;
static const GLenum GL_PIXEL_UNPACK_BUFFER = 0x88EC;
static const GLenum GL_PIXEL_PACK_BUFFER_BINDING = 0x88ED;
static const GLenum GL_PIXEL_UNPACK_BUFFER_BINDING = 0x88EF;
static const GLenum GL_SAMPLER_BINDING = 0x8919;
static const GLenum GL_FRAGMENT_SHADER = 0x8B30;
static const GLenum GL_VERTEX_SHADER = 0x8B31;
static const GLenum GL_COMPILE_STATUS = 0x8B81;
static const GLenum GL_LINK_STATUS = 0x8B82;
static const GLenum GL_INFO_LOG_LENGTH = 0x8B84;
static const GLenum GL_CURRENT_PROGRAM = 0x8B8D;
static const GLenum GL_RASTERIZER_DISCARD = 0x8C89;
static const GLenum GL_DRAW_FRAMEBUFFER_BINDING = 0x8CA6;
static const GLenum GL_RENDERBUFFER_BINDING = 0x8CA7;
static const GLenum GL_READ_FRAMEBUFFER = 0x8CA8;
static const GLenum GL_DRAW_FRAMEBUFFER = 0x8CA9;
static const GLenum GL_READ_FRAMEBUFFER_BINDING = 0x8CAA;
static const GLenum GL_FRAMEBUFFER_COMPLETE = 0x8CD5;
static const GLenum GL_COLOR_ATTACHMENT0 = 0x8CE0;
static const GLenum GL_FRAMEBUFFER = 0x8D40;
static const GLenum GL_RENDERBUFFER = 0x8D41;
static const GLenum GL_RENDERBUFFER_WIDTH = 0x8D42;
static const GLenum GL_RENDERBUFFER_HEIGHT = 0x8D43;
static const GLenum GL_RENDERBUFFER_INTERNAL_FORMAT = 0x8D44;
static const GLenum GL_RGB565 = 0x8D62;
static const GLenum GL_TEXTURE_SWIZZLE_R = 0x8E42;
static const GLenum GL_TEXTURE_SWIZZLE_G = 0x8E43;
static const GLenum GL_TEXTURE_SWIZZLE_B = 0x8E44;
static const GLenum GL_TEXTURE_SWIZZLE_A = 0x8E45;

/* MARK: - EGL constants */

static const EGLint EGL_SUCCESS = 0x3000;
static const EGLint EGL_BAD_ACCESS = 0x3002;
static const EGLint EGL_BAD_CONTEXT = 0x3006;
static const EGLint EGL_BAD_DISPLAY = 0x3008;
static const EGLint EGL_NONE = 0x3038;
static const EGLint EGL_VERSION = 0x3054;
static const EGLint EGL_EXTENSIONS = 0x3055;
static const EGLint EGL_DRAW = 0x3059;
static const EGLint EGL_READ = 0x305A;
static const EGLint EGL_CONTEXT_CLIENT_TYPE = 0x3097;
static const EGLint EGL_CONTEXT_CLIENT_VERSION = 0x3098;
static const EGLint EGL_OPENGL_ES_API = 0x30A0;
static const EGLint EGL_GL_RENDERBUFFER = 0x30B9;

/* MARK: - The entry points */

/* X(return type, name, (parameters), (arguments)); V for void functions. */
#define QZ_EGL_FUNCTIONS(X, V) \
    X(void *, eglGetProcAddress, (const char *name), (name)) \
    X(EGLint, eglGetError, (void), ()) \
    X(QZEGLDisplay, eglGetCurrentDisplay, (void), ()) \
    X(QZEGLContext, eglGetCurrentContext, (void), ()) \
    X(QZEGLSurface, eglGetCurrentSurface, (EGLint which), (which)) \
    X(EGLBoolean, eglQueryContext, (QZEGLDisplay d, QZEGLContext c, EGLint attribute, EGLint *value), (d, c, attribute, value)) \
    X(EGLBoolean, eglMakeCurrent, (QZEGLDisplay d, QZEGLSurface draw, QZEGLSurface read, QZEGLContext c), (d, draw, read, c)) \
    X(const char *, eglQueryString, (QZEGLDisplay d, EGLint name), (d, name))

#define QZ_GL_FUNCTIONS(X, V) \
    X(GLenum, glGetError, (void), ()) \
    X(const unsigned char *, glGetString, (GLenum name), (name)) \
    V(glGetIntegerv, (GLenum name, GLint *data), (name, data)) \
    V(glGetFloatv, (GLenum name, GLfloat *data), (name, data)) \
    V(glGetBooleanv, (GLenum name, GLboolean *data), (name, data)) \
    X(GLboolean, glIsEnabled, (GLenum cap), (cap)) \
    V(glEnable, (GLenum cap), (cap)) \
    V(glDisable, (GLenum cap), (cap)) \
    V(glBlendFuncSeparate, (GLenum sr, GLenum dr, GLenum sa, GLenum da), (sr, dr, sa, da)) \
    V(glBlendEquationSeparate, (GLenum rgb, GLenum a), (rgb, a)) \
    V(glColorMask, (GLboolean r, GLboolean g, GLboolean b, GLboolean a), (r, g, b, a)) \
    V(glViewport, (GLint x, GLint y, GLsizei w, GLsizei h), (x, y, w, h)) \
    V(glScissor, (GLint x, GLint y, GLsizei w, GLsizei h), (x, y, w, h)) \
    V(glClearColor, (GLfloat r, GLfloat g, GLfloat b, GLfloat a), (r, g, b, a)) \
    V(glClear, (GLbitfield mask), (mask)) \
    V(glFlush, (void), ()) \
    V(glFinish, (void), ()) \
    X(GLuint, glCreateShader, (GLenum type), (type)) \
    V(glShaderSource, (GLuint s, GLsizei n, const GLchar *const *src, const GLint *len), (s, n, src, len)) \
    V(glCompileShader, (GLuint s), (s)) \
    V(glGetShaderiv, (GLuint s, GLenum name, GLint *v), (s, name, v)) \
    V(glGetShaderInfoLog, (GLuint s, GLsizei n, GLsizei *len, GLchar *log), (s, n, len, log)) \
    V(glDeleteShader, (GLuint s), (s)) \
    X(GLuint, glCreateProgram, (void), ()) \
    V(glAttachShader, (GLuint p, GLuint s), (p, s)) \
    V(glLinkProgram, (GLuint p), (p)) \
    V(glGetProgramiv, (GLuint p, GLenum name, GLint *v), (p, name, v)) \
    V(glGetProgramInfoLog, (GLuint p, GLsizei n, GLsizei *len, GLchar *log), (p, n, len, log)) \
    V(glDeleteProgram, (GLuint p), (p)) \
    X(GLboolean, glIsProgram, (GLuint p), (p)) \
    V(glUseProgram, (GLuint p), (p)) \
    X(GLint, glGetUniformLocation, (GLuint p, const GLchar *name), (p, name)) \
    V(glUniform1i, (GLint l, GLint v), (l, v)) \
    V(glUniform1f, (GLint l, GLfloat v), (l, v)) \
    V(glUniform2f, (GLint l, GLfloat a, GLfloat b), (l, a, b)) \
    V(glUniform4f, (GLint l, GLfloat a, GLfloat b, GLfloat c, GLfloat d), (l, a, b, c, d)) \
    V(glUniform1fv, (GLint l, GLsizei n, const GLfloat *v), (l, n, v)) \
    V(glUniform4fv, (GLint l, GLsizei n, const GLfloat *v), (l, n, v)) \
    V(glUniformMatrix3fv, (GLint l, GLsizei n, GLboolean t, const GLfloat *v), (l, n, t, v)) \
    V(glUniformMatrix4fv, (GLint l, GLsizei n, GLboolean t, const GLfloat *v), (l, n, t, v)) \
    V(glGenVertexArrays, (GLsizei n, GLuint *a), (n, a)) \
    V(glBindVertexArray, (GLuint a), (a)) \
    V(glDeleteVertexArrays, (GLsizei n, const GLuint *a), (n, a)) \
    V(glBindBuffer, (GLenum target, GLuint b), (target, b)) \
    V(glDrawArrays, (GLenum mode, GLint first, GLsizei count), (mode, first, count)) \
    V(glGenTextures, (GLsizei n, GLuint *t), (n, t)) \
    V(glDeleteTextures, (GLsizei n, const GLuint *t), (n, t)) \
    V(glBindTexture, (GLenum target, GLuint t), (target, t)) \
    V(glActiveTexture, (GLenum unit), (unit)) \
    V(glTexImage2D, (GLenum target, GLint level, GLint internal, GLsizei w, GLsizei h, GLint border, GLenum format, GLenum type, const void *pixels), (target, level, internal, w, h, border, format, type, pixels)) \
    V(glTexSubImage2D, (GLenum target, GLint level, GLint x, GLint y, GLsizei w, GLsizei h, GLenum format, GLenum type, const void *pixels), (target, level, x, y, w, h, format, type, pixels)) \
    V(glTexStorage2D, (GLenum target, GLsizei levels, GLenum internal, GLsizei w, GLsizei h), (target, levels, internal, w, h)) \
    V(glTexParameteri, (GLenum target, GLenum name, GLint v), (target, name, v)) \
    V(glGenerateMipmap, (GLenum target), (target)) \
    V(glPixelStorei, (GLenum name, GLint v), (name, v)) \
    V(glGenSamplers, (GLsizei n, GLuint *s), (n, s)) \
    V(glDeleteSamplers, (GLsizei n, const GLuint *s), (n, s)) \
    V(glBindSampler, (GLuint unit, GLuint s), (unit, s)) \
    V(glSamplerParameteri, (GLuint s, GLenum name, GLint v), (s, name, v)) \
    V(glGenFramebuffers, (GLsizei n, GLuint *f), (n, f)) \
    V(glDeleteFramebuffers, (GLsizei n, const GLuint *f), (n, f)) \
    V(glBindFramebuffer, (GLenum target, GLuint f), (target, f)) \
    V(glFramebufferTexture2D, (GLenum target, GLenum att, GLenum textarget, GLuint t, GLint level), (target, att, textarget, t, level)) \
    V(glFramebufferRenderbuffer, (GLenum target, GLenum att, GLenum rbtarget, GLuint rb), (target, att, rbtarget, rb)) \
    X(GLenum, glCheckFramebufferStatus, (GLenum target), (target)) \
    V(glGenRenderbuffers, (GLsizei n, GLuint *r), (n, r)) \
    V(glDeleteRenderbuffers, (GLsizei n, const GLuint *r), (n, r)) \
    V(glBindRenderbuffer, (GLenum target, GLuint r), (target, r)) \
    V(glRenderbufferStorage, (GLenum target, GLenum internal, GLsizei w, GLsizei h), (target, internal, w, h)) \
    V(glGetRenderbufferParameteriv, (GLenum target, GLenum name, GLint *v), (target, name, v)) \
    V(glBlitFramebuffer, (GLint sx0, GLint sy0, GLint sx1, GLint sy1, GLint dx0, GLint dy0, GLint dx1, GLint dy1, GLbitfield mask, GLenum filter), (sx0, sy0, sx1, sy1, dx0, dy0, dx1, dy1, mask, filter)) \
    V(glReadBuffer, (GLenum src), (src)) \
    V(glReadPixels, (GLint x, GLint y, GLsizei w, GLsizei h, GLenum format, GLenum type, void *pixels), (x, y, w, h, format, type, pixels))

/* GL_OES_EGL_image: textures and renderbuffers over an EGLImage (the
 * zero-copy path of CAEAGLLayer content). Found through eglGetProcAddress. */
#define QZ_GL_IMAGE_FUNCTIONS(X, V) \
    V(glEGLImageTargetTexture2DOES, (GLenum target, QZEGLImage image), (target, image)) \
    V(glEGLImageTargetRenderbufferStorageOES, (GLenum target, QZEGLImage image), (target, image))

#define QZ_GL_FIELD(ret, name, params, args) ret (*name) params;
#define QZ_GL_VFIELD(name, params, args) void (*name) params;

typedef struct qz_gl_api {
    QZ_EGL_FUNCTIONS(QZ_GL_FIELD, QZ_GL_VFIELD)
    QZ_GL_FUNCTIONS(QZ_GL_FIELD, QZ_GL_VFIELD)
    QZ_GL_IMAGE_FUNCTIONS(QZ_GL_FIELD, QZ_GL_VFIELD)
    /* EGLImage and fence entry points: EGL 1.5 core or the KHR extensions,
     * whichever the library has (NULL when neither). */
    void *create_image_core, *create_image_khr, *destroy_image_core, *destroy_image_khr;
    void *create_sync_core, *create_sync_khr, *wait_sync_core, *wait_sync_khr;
    void *client_wait_sync_core, *client_wait_sync_khr, *destroy_sync_core, *destroy_sync_khr;
} qz_gl_api;

extern qz_gl_api qz_internal_gl;

/* Loads EGL and GLES once per process. true when every required entry point
 * was found; otherwise false with a message for QZGetLastErrorMessage. */
bool qz_internal_gl_load(const char **message);

/* An EGLImage over a renderbuffer of `context` (EGL_GL_RENDERBUFFER), or
 * NULL (see eglGetError). */
QZEGLImage qz_internal_egl_create_renderbuffer_image(QZEGLDisplay d, QZEGLContext c, GLuint renderbuffer);
bool qz_internal_egl_destroy_image(QZEGLDisplay d, QZEGLImage image);
/* A fence after the commands issued so far in the current context (NULL
 * when the library has no fences: then the caller finishes instead). */
QZEGLSync qz_internal_egl_fence(QZEGLDisplay d);
/* Makes the current context's later commands wait for `sync` (on the GPU
 * when EGL can, else on the CPU). */
void qz_internal_egl_wait(QZEGLDisplay d, QZEGLSync sync);
void qz_internal_egl_destroy_sync(QZEGLDisplay d, QZEGLSync sync);

#define QZ_GL_WRAPPER(ret, name, params, args) \
    static inline ret qz_##name params { return qz_internal_gl.name args; }
#define QZ_GL_VWRAPPER(name, params, args) \
    static inline void qz_##name params { qz_internal_gl.name args; }

QZ_EGL_FUNCTIONS(QZ_GL_WRAPPER, QZ_GL_VWRAPPER)
QZ_GL_FUNCTIONS(QZ_GL_WRAPPER, QZ_GL_VWRAPPER)
QZ_GL_IMAGE_FUNCTIONS(QZ_GL_WRAPPER, QZ_GL_VWRAPPER)

#endif
