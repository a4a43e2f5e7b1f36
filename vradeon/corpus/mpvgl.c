/* SPDX-License-Identifier: MIT
 *
 * mpvgl: plays a video file with libmpv's OpenGL render API into an EGL pbuffer on the
 * surfaceless platform (no display), one eglSwapBuffers() per video frame mpv draws, and
 * exits when the file ends. mpv decodes in software and uploads every frame's planes as
 * textures; its scalers draw through intermediate framebuffers: a video player's buffers.
 *
 * usage: mpvgl FILE WIDTHxHEIGHT [MPV-OPTION=VALUE...]
 * Prints "mpvgl: N frames" and exits 0; 1 with a one-line message on any failure.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <mpv/client.h>
#include <mpv/render_gl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int pending; /* mpv has news: events or a frame (set from mpv's threads) */

static void
die(const char *what)
{
   fprintf(stderr, "mpvgl: %s\n", what);
   exit(1);
}

/* mpv's callbacks run on its threads and may not call mpv: they only wake the main loop. */
static void
poke(void *ctx)
{
   (void)ctx;
   pthread_mutex_lock(&lock);
   pending = 1;
   pthread_cond_signal(&wake);
   pthread_mutex_unlock(&lock);
}

static void *
proc_address(void *ctx, const char *name)
{
   (void)ctx;
   return (void *)eglGetProcAddress(name);
}

int
main(int argc, char **argv)
{
   int w, h;

   if (argc < 3 || sscanf(argv[2], "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0)
      die("usage: mpvgl FILE WIDTHxHEIGHT [MPV-OPTION=VALUE...]");

   /* A desktop GL context on a pbuffer of the surfaceless platform. */
   EGLDisplay dpy = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL))
      die("no surfaceless EGL display");
   const EGLint cattr[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE };
   const EGLint sattr[] = { EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE };
   EGLConfig cfg;
   EGLint n;
   if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cattr, &cfg, 1, &n) || n < 1)
      die("no pbuffer config for desktop GL");
   EGLSurface surf = eglCreatePbufferSurface(dpy, cfg, sattr);
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, NULL);
   if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx))
      die("no GL context");

   /* untimed + no frame dropping: every decoded frame is drawn once, as fast as we go, so
    * a run's work follows the file, not the clock; no audio, no terminal, no config files. */
   mpv_handle *mpv = mpv_create();
   if (!mpv)
      die("mpv_create failed");
   const char *opts[][2] = { { "vo", "libmpv" }, { "hwdec", "no" }, { "audio", "no" },
                             { "untimed", "yes" }, { "framedrop", "no" }, { "terminal", "no" },
                             { "config", "no" }, { "idle", "no" }, { "keep-open", "no" } };
   for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
      if (mpv_set_option_string(mpv, opts[i][0], opts[i][1]) < 0)
         die("an mpv option was refused");
   for (int i = 3; i < argc; i++) {
      char *eq = strchr(argv[i], '=');
      if (!eq)
         die("mpv options are NAME=VALUE");
      *eq = 0;
      if (mpv_set_option_string(mpv, argv[i], eq + 1) < 0) {
         fprintf(stderr, "mpvgl: mpv refused option %s\n", argv[i]);
         return 1;
      }
   }
   if (mpv_initialize(mpv) < 0)
      die("mpv_initialize failed");

   mpv_opengl_init_params gl = { .get_proc_address = proc_address };
   int no = 0;
   mpv_render_param params[] = { { MPV_RENDER_PARAM_API_TYPE, MPV_RENDER_API_TYPE_OPENGL },
                                 { MPV_RENDER_PARAM_OPENGL_INIT_PARAMS, &gl },
                                 { 0 } };
   mpv_render_context *rc;
   if (mpv_render_context_create(&rc, mpv, params) < 0)
      die("mpv has no OpenGL renderer on this context");
   mpv_set_wakeup_callback(mpv, poke, NULL);
   mpv_render_context_set_update_callback(rc, poke, NULL);
   const char *cmd[] = { "loadfile", argv[1], NULL };
   if (mpv_command(mpv, cmd) < 0)
      die("loadfile failed");

   /* The default framebuffer of the pbuffer, the right way up; never wait for a target time
    * (there is no display to wait for). */
   mpv_opengl_fbo fbo = { .fbo = 0, .w = w, .h = h };
   int flip = 1;
   mpv_render_param rparams[] = { { MPV_RENDER_PARAM_OPENGL_FBO, &fbo },
                                  { MPV_RENDER_PARAM_FLIP_Y, &flip },
                                  { MPV_RENDER_PARAM_BLOCK_FOR_TARGET_TIME, &no },
                                  { 0 } };
   long frames = 0;
   int done = 0, failed = 0;
   while (!done) {
      pthread_mutex_lock(&lock);
      if (!pending) {
         struct timespec t;
         clock_gettime(CLOCK_REALTIME, &t);
         t.tv_sec += 30; /* a stuck player is an error, not a hang */
         if (pthread_cond_timedwait(&wake, &lock, &t)) {
            pthread_mutex_unlock(&lock);
            die("mpv said nothing for 30 s");
         }
      }
      pending = 0;
      pthread_mutex_unlock(&lock);

      for (mpv_event *e = mpv_wait_event(mpv, 0); e->event_id != MPV_EVENT_NONE;
           e = mpv_wait_event(mpv, 0)) {
         if (e->event_id == MPV_EVENT_END_FILE) {
            mpv_event_end_file *end = e->data;
            failed = end->reason == MPV_END_FILE_REASON_ERROR;
            done = 1;
         } else if (e->event_id == MPV_EVENT_SHUTDOWN) {
            done = 1;
         }
      }
      if (!done && (mpv_render_context_update(rc) & MPV_RENDER_UPDATE_FRAME)) {
         mpv_render_context_render(rc, rparams);
         eglSwapBuffers(dpy, surf);
         mpv_render_context_report_swap(rc);
         frames++;
      }
   }
   mpv_render_context_free(rc);
   mpv_terminate_destroy(mpv);
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglTerminate(dpy);
   if (failed || !frames)
      die(failed ? "mpv could not play the file" : "no frame drawn");
   printf("mpvgl: %ld frames\n", frames);
   return 0;
}
