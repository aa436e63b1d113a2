/* Run-time loading of EGL and OpenGL ES (see quartzite_gl.h): dlopen once,
 * every entry point through dlsym or eglGetProcAddress. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quartzite_gl.h"

qz_gl_api qz_internal_gl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool load_ok;
static char load_message[512];

typedef void *(*get_proc_fn)(const char *);

/* The symbol from `lib`, else from eglGetProcAddress (EGL 1.5 and
 * EGL_KHR_get_all_proc_addresses hand out core GLES functions too). */
static void *find(void *lib, get_proc_fn get_proc, const char *name) {
    void *p = lib ? dlsym(lib, name) : NULL;
    if (!p && get_proc) p = get_proc(name);
    return p;
}

static void *open_library(const char *variable, const char *fallback) {
    const char *name = getenv(variable);
    if (!name || !*name) name = fallback;
    return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

static void load(void) {
    void *egl = open_library("QUARTZITE_EGL_LIBRARY", "libEGL.so.1");
    if (!egl) {
        snprintf(load_message, sizeof load_message,
                 "EGL is not available (%s); install libegl1 and a driver such as libegl-mesa0", dlerror());
        return;
    }
    void *gles = open_library("QUARTZITE_GLES_LIBRARY", "libGLESv2.so.2");
    if (!gles) {
        snprintf(load_message, sizeof load_message,
                 "OpenGL ES is not available (%s); install libgles2", dlerror());
        return;
    }
    qz_gl_api api;
    memset(&api, 0, sizeof api);
    get_proc_fn get_proc = (get_proc_fn)dlsym(egl, "eglGetProcAddress");
    const char *missing = NULL;
#define LOAD(lib, ret, name) \
    do { \
        *(void **)&api.name = find(lib, get_proc, #name); \
        if (!api.name && !missing) missing = #name; \
    } while (0);
#define LOAD_EGL(ret, name, params, args) LOAD(egl, ret, name)
#define LOAD_EGL_V(name, params, args) LOAD(egl, void, name)
#define LOAD_GL(ret, name, params, args) LOAD(gles, ret, name)
#define LOAD_GL_V(name, params, args) LOAD(gles, void, name)
    QZ_EGL_FUNCTIONS(LOAD_EGL, LOAD_EGL_V)
    QZ_GL_FUNCTIONS(LOAD_GL, LOAD_GL_V)
    QZ_GL_IMAGE_FUNCTIONS(LOAD_GL, LOAD_GL_V)
#undef LOAD
    api.create_image_core = find(egl, NULL, "eglCreateImage");
    api.create_image_khr = get_proc ? get_proc("eglCreateImageKHR") : NULL;
    api.destroy_image_core = find(egl, NULL, "eglDestroyImage");
    api.destroy_image_khr = get_proc ? get_proc("eglDestroyImageKHR") : NULL;
    api.create_sync_core = find(egl, NULL, "eglCreateSync");
    api.create_sync_khr = get_proc ? get_proc("eglCreateSyncKHR") : NULL;
    api.wait_sync_core = find(egl, NULL, "eglWaitSync");
    api.wait_sync_khr = get_proc ? get_proc("eglWaitSyncKHR") : NULL;
    api.client_wait_sync_core = find(egl, NULL, "eglClientWaitSync");
    api.client_wait_sync_khr = get_proc ? get_proc("eglClientWaitSyncKHR") : NULL;
    api.destroy_sync_core = find(egl, NULL, "eglDestroySync");
    api.destroy_sync_khr = get_proc ? get_proc("eglDestroySyncKHR") : NULL;
    if (!missing && !api.create_image_core && !api.create_image_khr) missing = "eglCreateImage";
    if (!missing && !api.destroy_image_core && !api.destroy_image_khr) missing = "eglDestroyImage";
    if (missing) {
        snprintf(load_message, sizeof load_message, "the EGL/GLES libraries lack %s", missing);
        return;
    }
    /* The libraries stay loaded for the life of the process: GL objects and
     * the table refer into them. */
    qz_internal_gl = api;
    load_ok = true;
}

bool qz_internal_gl_load(const char **message) {
    pthread_once(&load_once, load);
    if (message) *message = load_ok ? NULL : load_message;
    return load_ok;
}

/* MARK: - EGLImages and fences (EGL 1.5 core or the KHR extensions) */

typedef intptr_t egl_attrib;
typedef void *(*create_image_core_fn)(QZEGLDisplay, QZEGLContext, EGLenum, void *, const egl_attrib *);
typedef void *(*create_image_khr_fn)(QZEGLDisplay, QZEGLContext, EGLenum, void *, const EGLint *);
typedef EGLBoolean (*destroy_image_fn)(QZEGLDisplay, QZEGLImage);
typedef void *(*create_sync_core_fn)(QZEGLDisplay, EGLenum, const egl_attrib *);
typedef void *(*create_sync_khr_fn)(QZEGLDisplay, EGLenum, const EGLint *);
typedef EGLint (*wait_sync_fn)(QZEGLDisplay, QZEGLSync, EGLint);
typedef EGLint (*client_wait_sync_fn)(QZEGLDisplay, QZEGLSync, EGLint, uint64_t);
typedef EGLBoolean (*destroy_sync_fn)(QZEGLDisplay, QZEGLSync);

#define EGL_SYNC_FENCE_VALUE 0x30F9
#define EGL_SYNC_FLUSH_COMMANDS_BIT_VALUE 0x0001
#define EGL_FOREVER_VALUE 0xFFFFFFFFFFFFFFFFull

QZEGLImage qz_internal_egl_create_renderbuffer_image(QZEGLDisplay d, QZEGLContext c, GLuint renderbuffer) {
    void *buffer = (void *)(uintptr_t)renderbuffer;
    if (qz_internal_gl.create_image_khr) {
        const EGLint attributes[] = { EGL_NONE };
        return ((create_image_khr_fn)qz_internal_gl.create_image_khr)(d, c, (EGLenum)EGL_GL_RENDERBUFFER, buffer, attributes);
    }
    const egl_attrib attributes[] = { EGL_NONE };
    return ((create_image_core_fn)qz_internal_gl.create_image_core)(d, c, (EGLenum)EGL_GL_RENDERBUFFER, buffer, attributes);
}

bool qz_internal_egl_destroy_image(QZEGLDisplay d, QZEGLImage image) {
    void *fn = qz_internal_gl.destroy_image_khr ? qz_internal_gl.destroy_image_khr : qz_internal_gl.destroy_image_core;
    return fn && ((destroy_image_fn)fn)(d, image);
}

QZEGLSync qz_internal_egl_fence(QZEGLDisplay d) {
    if (qz_internal_gl.create_sync_core) {
        const egl_attrib attributes[] = { EGL_NONE };
        return ((create_sync_core_fn)qz_internal_gl.create_sync_core)(d, EGL_SYNC_FENCE_VALUE, attributes);
    }
    if (qz_internal_gl.create_sync_khr) {
        const EGLint attributes[] = { EGL_NONE };
        return ((create_sync_khr_fn)qz_internal_gl.create_sync_khr)(d, EGL_SYNC_FENCE_VALUE, attributes);
    }
    return NULL;
}

void qz_internal_egl_wait(QZEGLDisplay d, QZEGLSync sync) {
    if (!sync) return;
    void *wait = qz_internal_gl.wait_sync_core ? qz_internal_gl.wait_sync_core : qz_internal_gl.wait_sync_khr;
    if (wait && ((wait_sync_fn)wait)(d, sync, 0) == 1) return;
    void *client = qz_internal_gl.client_wait_sync_core ? qz_internal_gl.client_wait_sync_core
                                                       : qz_internal_gl.client_wait_sync_khr;
    if (client) ((client_wait_sync_fn)client)(d, sync, EGL_SYNC_FLUSH_COMMANDS_BIT_VALUE, EGL_FOREVER_VALUE);
}

void qz_internal_egl_destroy_sync(QZEGLDisplay d, QZEGLSync sync) {
    if (!sync) return;
    void *fn = qz_internal_gl.destroy_sync_core ? qz_internal_gl.destroy_sync_core : qz_internal_gl.destroy_sync_khr;
    if (fn) ((destroy_sync_fn)fn)(d, sync);
}
