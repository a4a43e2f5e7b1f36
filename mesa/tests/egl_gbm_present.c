// SPDX-License-Identifier: MIT
/*
 * An EGL library for SDL's offscreen video driver (SDL_VIDEO_EGL_DRIVER)
 * that presents for real: the program's pbuffer becomes a window surface on
 * the EGL GBM platform, so its eglSwapBuffers is a window swap and the
 * driver sees the end of each frame (PIPE_FLUSH_END_OF_FRAME) as on a
 * desktop.  Without it, a pbuffer swap has no effect (EGL 1.5, 3.10.1) and
 * r600 never learns that a frame ended.  vramlab tooling, not Mesa: Mesa
 * itself is unchanged.
 *
 * What changes, everything else going to the real libEGL.so.1:
 *   eglGetPlatformDisplay[EXT](EGL_PLATFORM_DEVICE_EXT, ...)
 *       a GBM display on EGL_GBM_PRESENT_NODE (default /dev/dri/renderD128)
 *   eglChooseConfig    a pbuffer request asks for a window config
 *   eglCreatePbufferSurface  a gbm_surface of the pbuffer's size and the
 *                      config's format, as a window surface
 *   eglSwapBuffers     the real swap, then the front buffer locked and
 *                      released (nothing scans it out)
 *   eglDestroySurface  also destroys the gbm_surface
 *   eglGetProcAddress  hands out these for their names
 * On the first swap it says once on stderr that it presents through GBM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <gbm.h>

#define ME "egl_gbm_present"
#define MAX_SURFACES 16

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *real_egl;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gbm_device *gbm;
static struct {
   EGLSurface egl;
   struct gbm_surface *gbm;
} surfaces[MAX_SURFACES];
static int said_presenting;

static void
load_real(void)
{
   const char *lib = getenv("EGL_GBM_PRESENT_LIB");

   real_egl = dlopen(lib ? lib : "libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
   if (!real_egl) {
      fprintf(stderr, ME ": cannot load %s: %s\n", lib ? lib : "libEGL.so.1",
              dlerror());
      abort();
   }
}

static void *
real(const char *name)
{
   void *f;

   pthread_once(&once, load_real);
   f = dlsym(real_egl, name);
   if (!f) {
      /* extensions are reached through eglGetProcAddress */
      __eglMustCastToProperFunctionPointerType (*gpa)(const char *) =
         (__eglMustCastToProperFunctionPointerType (*)(const char *))
            dlsym(real_egl, "eglGetProcAddress");
      f = gpa ? (void *)gpa(name) : NULL;
   }
   if (!f) {
      fprintf(stderr, ME ": the real EGL has no %s\n", name);
      abort();
   }
   return f;
}

/* The plain forwards: what SDL 2 loads by name besides the ones below. */
#define FORWARD(ret, name, params, args)                                    \
   EGLAPI ret EGLAPIENTRY name params                                      \
   {                                                                       \
      static ret(EGLAPIENTRY * f) params;                                  \
      if (!f)                                                              \
         f = (ret(EGLAPIENTRY *) params)real(#name);                       \
      return f args;                                                       \
   }

FORWARD(EGLDisplay, eglGetDisplay, (EGLNativeDisplayType d), (d))
FORWARD(EGLBoolean, eglInitialize, (EGLDisplay d, EGLint *ma, EGLint *mi),
        (d, ma, mi))
FORWARD(EGLBoolean, eglTerminate, (EGLDisplay d), (d))
FORWARD(EGLBoolean, eglGetConfigAttrib,
        (EGLDisplay d, EGLConfig c, EGLint a, EGLint *v), (d, c, a, v))
FORWARD(EGLContext, eglCreateContext,
        (EGLDisplay d, EGLConfig c, EGLContext s, const EGLint *a),
        (d, c, s, a))
FORWARD(EGLBoolean, eglDestroyContext, (EGLDisplay d, EGLContext c), (d, c))
FORWARD(EGLSurface, eglCreateWindowSurface,
        (EGLDisplay d, EGLConfig c, EGLNativeWindowType w, const EGLint *a),
        (d, c, w, a))
FORWARD(EGLBoolean, eglMakeCurrent,
        (EGLDisplay d, EGLSurface dr, EGLSurface rd, EGLContext c),
        (d, dr, rd, c))
FORWARD(EGLBoolean, eglSwapInterval, (EGLDisplay d, EGLint i), (d, i))
FORWARD(EGLBoolean, eglWaitNative, (EGLint e), (e))
FORWARD(EGLBoolean, eglWaitGL, (void), ())
FORWARD(EGLBoolean, eglBindAPI, (EGLenum a), (a))
FORWARD(EGLenum, eglQueryAPI, (void), ())
FORWARD(const char *, eglQueryString, (EGLDisplay d, EGLint n), (d, n))
FORWARD(EGLint, eglGetError, (void), ())
FORWARD(EGLBoolean, eglQuerySurface,
        (EGLDisplay d, EGLSurface s, EGLint a, EGLint *v), (d, s, a, v))
FORWARD(EGLContext, eglGetCurrentContext, (void), ())
FORWARD(EGLSurface, eglGetCurrentSurface, (EGLint w), (w))
FORWARD(EGLDisplay, eglGetCurrentDisplay, (void), ())

static EGLDisplay
gbm_display(EGLenum platform, void *native, const void *attribs, int ext)
{
   EGLDisplay (*get)(EGLenum, void *, const void *) =
      (EGLDisplay(*)(EGLenum, void *, const void *))
         real(ext ? "eglGetPlatformDisplayEXT" : "eglGetPlatformDisplay");

   if (platform != EGL_PLATFORM_DEVICE_EXT)
      return get(platform, native, attribs);

   pthread_mutex_lock(&lock);
   if (!gbm) {
      const char *node = getenv("EGL_GBM_PRESENT_NODE");
      int fd;

      node = node ? node : "/dev/dri/renderD128";
      fd = open(node, O_RDWR | O_CLOEXEC);
      gbm = fd >= 0 ? gbm_create_device(fd) : NULL;
      if (!gbm)
         fprintf(stderr, ME ": no GBM device on %s\n", node);
   }
   pthread_mutex_unlock(&lock);
   /* EGL_PLATFORM_GBM_KHR takes no attributes SDL would pass */
   return gbm ? get(EGL_PLATFORM_GBM_KHR, gbm, NULL) : EGL_NO_DISPLAY;
}

EGLAPI EGLDisplay EGLAPIENTRY
eglGetPlatformDisplay(EGLenum platform, void *native,
                      const EGLAttrib *attribs)
{
   return gbm_display(platform, native, attribs, 0);
}

EGLAPI EGLDisplay EGLAPIENTRY
eglGetPlatformDisplayEXT(EGLenum platform, void *native,
                         const EGLint *attribs)
{
   return gbm_display(platform, native, attribs, 1);
}

/* GBM's configs are window configs: ask for one where a pbuffer was asked. */
EGLAPI EGLBoolean EGLAPIENTRY
eglChooseConfig(EGLDisplay d, const EGLint *attribs, EGLConfig *configs,
                EGLint size, EGLint *num)
{
   EGLBoolean (*f)(EGLDisplay, const EGLint *, EGLConfig *, EGLint,
                   EGLint *) =
      (EGLBoolean(*)(EGLDisplay, const EGLint *, EGLConfig *, EGLint,
                     EGLint *))real("eglChooseConfig");
   EGLint copy[128];
   int n = 0;

   if (!gbm || !attribs)
      return f(d, attribs, configs, size, num);
   while (attribs[n] != EGL_NONE && n + 2 < 128)
      n += 2;
   if (attribs[n] != EGL_NONE) {
      fprintf(stderr, ME ": more than 63 config attributes\n");
      return EGL_FALSE;
   }
   memcpy(copy, attribs, (n + 1) * sizeof(*copy));
   for (int i = 0; i < n; i += 2) {
      if (copy[i] == EGL_SURFACE_TYPE && (copy[i + 1] & EGL_PBUFFER_BIT))
         copy[i + 1] = (copy[i + 1] & ~EGL_PBUFFER_BIT) | EGL_WINDOW_BIT;
   }
   return f(d, copy, configs, size, num);
}

EGLAPI EGLSurface EGLAPIENTRY
eglCreatePbufferSurface(EGLDisplay d, EGLConfig c, const EGLint *attribs)
{
   EGLSurface (*create)(EGLDisplay, EGLConfig, void *, const EGLAttrib *) =
      (EGLSurface(*)(EGLDisplay, EGLConfig, void *, const EGLAttrib *))
         real("eglCreatePlatformWindowSurface");
   EGLint w = 0, h = 0, format = 0;
   struct gbm_surface *gs;
   EGLSurface s;
   int slot = -1;

   if (!gbm) {
      return ((EGLSurface(*)(EGLDisplay, EGLConfig, const EGLint *))
                 real("eglCreatePbufferSurface"))(d, c, attribs);
   }
   for (int i = 0; attribs && attribs[i] != EGL_NONE; i += 2) {
      if (attribs[i] == EGL_WIDTH)
         w = attribs[i + 1];
      else if (attribs[i] == EGL_HEIGHT)
         h = attribs[i + 1];
   }
   if (w <= 0 || h <= 0 ||
       !eglGetConfigAttrib(d, c, EGL_NATIVE_VISUAL_ID, &format)) {
      fprintf(stderr, ME ": pbuffer %dx%d or its config's format unusable\n",
              w, h);
      return EGL_NO_SURFACE;
   }
   pthread_mutex_lock(&lock);
   for (int i = 0; i < MAX_SURFACES && slot < 0; i++) {
      if (!surfaces[i].gbm)
         slot = i;
   }
   pthread_mutex_unlock(&lock);
   if (slot < 0) {
      fprintf(stderr, ME ": more than %d surfaces\n", MAX_SURFACES);
      return EGL_NO_SURFACE;
   }
   gs = gbm_surface_create(gbm, w, h, format, GBM_BO_USE_RENDERING);
   if (!gs) {
      fprintf(stderr, ME ": gbm_surface_create %dx%d failed\n", w, h);
      return EGL_NO_SURFACE;
   }
   s = create(d, c, gs, NULL);
   if (s == EGL_NO_SURFACE) {
      gbm_surface_destroy(gs);
      return s;
   }
   pthread_mutex_lock(&lock);
   surfaces[slot].egl = s;
   surfaces[slot].gbm = gs;
   pthread_mutex_unlock(&lock);
   return s;
}

static struct gbm_surface *
gbm_surface_of(EGLSurface s, int forget)
{
   struct gbm_surface *gs = NULL;

   pthread_mutex_lock(&lock);
   for (int i = 0; i < MAX_SURFACES && !gs; i++) {
      if (surfaces[i].gbm && surfaces[i].egl == s) {
         gs = surfaces[i].gbm;
         if (forget)
            surfaces[i].gbm = NULL;
      }
   }
   pthread_mutex_unlock(&lock);
   return gs;
}

/* The real eglSwapBuffers or eglDestroySurface, on surface s of d,
 * looked up once into *slot (a swap is made every frame).
 */
static EGLBoolean
real_on_surface(void **slot, const char *name, EGLDisplay d, EGLSurface s)
{
   void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);

   if (!f) {
      f = real(name);
      __atomic_store_n(slot, f, __ATOMIC_RELAXED);
   }
   return ((EGLBoolean(*)(EGLDisplay, EGLSurface))f)(d, s);
}

EGLAPI EGLBoolean EGLAPIENTRY
eglSwapBuffers(EGLDisplay d, EGLSurface s)
{
   static void *swap;
   struct gbm_surface *gs = gbm_surface_of(s, 0);
   EGLBoolean ok = real_on_surface(&swap, "eglSwapBuffers", d, s);
   struct gbm_bo *bo;

   if (!ok || !gs)
      return ok;
   /* Nothing scans the buffer out: give it back at once. */
   bo = gbm_surface_lock_front_buffer(gs);
   if (bo)
      gbm_surface_release_buffer(gs, bo);
   if (!__atomic_exchange_n(&said_presenting, 1, __ATOMIC_RELAXED))
      fprintf(stderr, ME ": presenting the pbuffer through GBM\n");
   return ok;
}

EGLAPI EGLBoolean EGLAPIENTRY
eglDestroySurface(EGLDisplay d, EGLSurface s)
{
   static void *destroy;
   struct gbm_surface *gs = gbm_surface_of(s, 1);
   EGLBoolean ok = real_on_surface(&destroy, "eglDestroySurface", d, s);

   if (gs)
      gbm_surface_destroy(gs);
   return ok;
}

EGLAPI __eglMustCastToProperFunctionPointerType EGLAPIENTRY
eglGetProcAddress(const char *name)
{
   static const struct {
      const char *name;
      void *f;
   } mine[] = {
      { "eglGetPlatformDisplay", (void *)eglGetPlatformDisplay },
      { "eglGetPlatformDisplayEXT", (void *)eglGetPlatformDisplayEXT },
      { "eglChooseConfig", (void *)eglChooseConfig },
      { "eglCreatePbufferSurface", (void *)eglCreatePbufferSurface },
      { "eglSwapBuffers", (void *)eglSwapBuffers },
      { "eglDestroySurface", (void *)eglDestroySurface },
      { "eglGetProcAddress", (void *)eglGetProcAddress },
   };
   __eglMustCastToProperFunctionPointerType (*gpa)(const char *) =
      (__eglMustCastToProperFunctionPointerType(*)(const char *))
         real("eglGetProcAddress");

   for (size_t i = 0; name && i < sizeof(mine) / sizeof(mine[0]); i++) {
      if (!strcmp(name, mine[i].name))
         return (__eglMustCastToProperFunctionPointerType)mine[i].f;
   }
   return gpa(name);
}
