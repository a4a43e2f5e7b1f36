/*
 * SPDX-License-Identifier: MIT
 *
 * glsmoke: a small GLES program that exercises the buffer paths of a
 * driver without a window: vertex and index buffers (static and
 * streamed), texture uploads, an FBO with a depth/stencil attachment, an
 * MSAA FBO resolved by a blit (ES 3.0), CPU readbacks, and one
 * eglSwapBuffers per frame.  With --gbm it renders to a GBM surface on
 * /dev/dri/renderD128 (EGL GBM platform), whose swaps are the driver's
 * end-of-frame flushes; otherwise to a pbuffer on the EGL surfaceless
 * platform, whose swaps have no effect and end no frame in the driver.
 * Used to run r600g over the radeon no-op drm shim and to record
 * RADEON_BO_TRACE traces.  Pixel values are not checked: without a GPU
 * they are meaningless.  Exit status 0 if no GL error was raised.
 *
 * Usage: glsmoke [--frames N] [--gbm] [--exit thread|handler|render-handler MS]
 *                [--fork-at F] [--ready FILE]
 *
 * --ready FILE: FILE is created (exclusively: never an existing one) once
 * ten frames are swapped, so that a test which stops the program from
 * outside does so after its setup, however loaded the machine is.
 *
 * The last two test that a buffer trace never hangs or corrupts a program.
 * --exit ... MS: after MS ms, exit(0) is called while the main thread
 * renders, from another thread ("thread"), from a SIGUSR1 handler on
 * another thread ("handler"), or from a SIGUSR1 handler on the rendering
 * thread itself ("render-handler": wherever the signal interrupted the
 * driver, locks held or not; run it with RADEON_THREAD=0, since Mesa's own
 * u_queue exit handler deadlocks when the signal lands in
 * util_queue_add_job).  Give --frames a large N: the program ends at the
 * exit.  --fork-at F forks before frame F; the child calls exit(0) (its
 * destructors run) while the parent waits, then goes on.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <gbm.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#define W 256
#define H 256

static const char *vs_src =
   "attribute vec2 pos;\n"
   "varying vec2 uv;\n"
   "void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs_src =
   "precision mediump float;\n"
   "varying vec2 uv;\n"
   "uniform sampler2D tex;\n"
   "void main() { gl_FragColor = texture2D(tex, uv); }\n";

static GLuint
compile(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   GLint ok;

   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[1024];
      glGetShaderInfoLog(s, sizeof(log), NULL, log);
      fprintf(stderr, "glsmoke: shader: %s\n", log);
      exit(1);
   }
   return s;
}

static pthread_t render_thread;
static int exit_ms = -1;
static const char *exit_mode;

static void
exit_handler(int sig)
{
   (void)sig;
   /* Not async-signal-safe, on purpose: programs do it. */
   exit(0);
}

static void *
exit_thread(void *arg)
{
   struct timespec ts = { exit_ms / 1000, (exit_ms % 1000) * 1000000L };

   (void)arg;
   nanosleep(&ts, NULL);
   if (!strcmp(exit_mode, "render-handler"))
      pthread_kill(render_thread, SIGUSR1);
   else if (!strcmp(exit_mode, "handler"))
      pthread_kill(pthread_self(), SIGUSR1);
   else
      exit(0);
   for (;;)
      pause();
   return NULL;
}

int
main(int argc, char **argv)
{
   int frames = 10, use_gbm = 0, fork_at = -1;
   const char *ready = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--frames") && i + 1 < argc)
         frames = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--gbm"))
         use_gbm = 1;
      else if (!strcmp(argv[i], "--exit") && i + 2 < argc &&
               (!strcmp(argv[i + 1], "thread") || !strcmp(argv[i + 1], "handler") ||
                !strcmp(argv[i + 1], "render-handler"))) {
         exit_mode = argv[++i];
         exit_ms = atoi(argv[++i]);
      } else if (!strcmp(argv[i], "--fork-at") && i + 1 < argc)
         fork_at = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
         ready = argv[++i];
      else {
         fprintf(stderr, "glsmoke: unknown argument %s\n", argv[i]);
         return 2;
      }
   }
   struct gbm_device *gbm = NULL;
   struct gbm_surface *gsurf = NULL;
   if (use_gbm) {
      int fd = open("/dev/dri/renderD128", O_RDWR);
      gbm = fd >= 0 ? gbm_create_device(fd) : NULL;
      if (!gbm) {
         fprintf(stderr, "glsmoke: no GBM device\n");
         return 1;
      }
   }

   PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy = !get_platform_display ? EGL_NO_DISPLAY :
      gbm ? get_platform_display(EGL_PLATFORM_GBM_MESA, gbm, NULL) :
      get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   EGLint major, minor;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      fprintf(stderr, "glsmoke: no EGL surfaceless display (0x%x)\n", eglGetError());
      return 1;
   }

   EGLint cfg_attribs[] = {
      EGL_SURFACE_TYPE, gbm ? EGL_WINDOW_BIT : EGL_PBUFFER_BIT,
      EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
      EGL_NONE,
   };
   EGLConfig cfgs[64], cfg = NULL;
   EGLint n = 0;
   eglBindAPI(EGL_OPENGL_ES_API);
   eglChooseConfig(dpy, cfg_attribs, cfgs, 64, &n);
   for (int i = 0; i < n && !cfg; i++) {
      EGLint visual = 0;
      eglGetConfigAttrib(dpy, cfgs[i], EGL_NATIVE_VISUAL_ID, &visual);
      if (!gbm || visual == GBM_FORMAT_XRGB8888)
         cfg = cfgs[i];
   }
   if (!cfg) {
      fprintf(stderr, "glsmoke: no config\n");
      return 1;
   }

   static const EGLint es3[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
   static const EGLint es2[] = { EGL_CONTEXT_MAJOR_VERSION, 2, EGL_NONE };
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, es3);
   int is_es3 = ctx != EGL_NO_CONTEXT;
   if (!is_es3)
      ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, es2);
   static const EGLint pb_attribs[] = { EGL_WIDTH, W, EGL_HEIGHT, H, EGL_NONE };
   EGLSurface surf;
   if (gbm) {
      gsurf = gbm_surface_create(gbm, W, H, GBM_FORMAT_XRGB8888,
                                 GBM_BO_USE_RENDERING);
      surf = eglCreateWindowSurface(dpy, cfg, (EGLNativeWindowType)gsurf, NULL);
   } else {
      surf = eglCreatePbufferSurface(dpy, cfg, pb_attribs);
   }
   if (ctx == EGL_NO_CONTEXT || surf == EGL_NO_SURFACE ||
       !eglMakeCurrent(dpy, surf, surf, ctx)) {
      fprintf(stderr, "glsmoke: no context (0x%x)\n", eglGetError());
      return 1;
   }
   printf("%s, %s, ES %d\n", glGetString(GL_RENDERER), glGetString(GL_VERSION),
          is_es3 ? 3 : 2);

   GLuint prog = glCreateProgram();
   glAttachShader(prog, compile(GL_VERTEX_SHADER, vs_src));
   glAttachShader(prog, compile(GL_FRAGMENT_SHADER, fs_src));
   glBindAttribLocation(prog, 0, "pos");
   glLinkProgram(prog);
   glUseProgram(prog);

   /* Static geometry. */
   static const GLfloat quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
   static const GLushort idx[] = { 0, 1, 2, 2, 1, 3 };
   GLuint vbo, ibo, stream;
   glGenBuffers(1, &vbo);
   glBindBuffer(GL_ARRAY_BUFFER, vbo);
   glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
   glGenBuffers(1, &ibo);
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(idx), idx, GL_STATIC_DRAW);
   glGenBuffers(1, &stream);

   /* Textures: one updated every frame, a few large static ones. */
   GLuint tex[4];
   glGenTextures(4, tex);
   unsigned char *pixels = malloc(512 * 512 * 4);
   for (int i = 0; i < 4; i++) {
      int size = i == 0 ? 64 : 512;
      memset(pixels, 40 * i, size * size * 4);
      glBindTexture(GL_TEXTURE_2D, tex[i]);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, size, size, 0, GL_RGBA,
                   GL_UNSIGNED_BYTE, pixels);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   }

   /* FBO with a colour texture and a depth/stencil renderbuffer. */
   GLuint fbo, color, depth;
   glGenTextures(1, &color);
   glBindTexture(GL_TEXTURE_2D, color);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glGenRenderbuffers(1, &depth);
   glBindRenderbuffer(GL_RENDERBUFFER, depth);
   glRenderbufferStorage(GL_RENDERBUFFER,
                         is_es3 ? GL_DEPTH24_STENCIL8 : GL_DEPTH_COMPONENT16, W, H);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color, 0);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);

   /* MSAA FBO (ES 3.0). */
   GLuint msfbo = 0, msrb[2];
   if (is_es3) {
      glGenRenderbuffers(2, msrb);
      glBindRenderbuffer(GL_RENDERBUFFER, msrb[0]);
      glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, W, H);
      glBindRenderbuffer(GL_RENDERBUFFER, msrb[1]);
      glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_DEPTH24_STENCIL8, W, H);
      glGenFramebuffers(1, &msfbo);
      glBindFramebuffer(GL_FRAMEBUFFER, msfbo);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, msrb[0]);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, msrb[1]);
   }

   glEnable(GL_DEPTH_TEST);
   glEnableVertexAttribArray(0);
   unsigned char readback[16 * 16 * 4];
   GLfloat verts[6 * 2 * 64];

   if (exit_ms >= 0) {
      pthread_t t;

      render_thread = pthread_self();
      signal(SIGUSR1, exit_handler);
      if (pthread_create(&t, NULL, exit_thread, NULL)) {
         fprintf(stderr, "glsmoke: no thread\n");
         return 1;
      }
   }
   for (int f = 0; f < frames; f++) {
      if (ready && f == 10) {
         int fd = open(ready, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

         if (fd < 0) {
            perror(ready);
            return 1;
         }
         close(fd);
      }
      if (f == fork_at) {
         int status;
         pid_t child = fork();

         if (child == 0)
            exit(0);
         if (child < 0 || waitpid(child, &status, 0) != child ||
             !WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "glsmoke: the forked child failed\n");
            return 1;
         }
      }
      /* Streamed vertices, re-specified every frame. */
      for (int i = 0; i < 6 * 64; i++) {
         verts[2 * i] = ((i * 7 + f) % 13) / 6.5f - 1.0f;
         verts[2 * i + 1] = ((i * 5 + f) % 11) / 5.5f - 1.0f;
      }
      glBindBuffer(GL_ARRAY_BUFFER, stream);
      glBufferData(GL_ARRAY_BUFFER, sizeof(verts), verts, GL_STREAM_DRAW);

      /* A texture upload per frame. */
      memset(pixels, f & 0xff, 64 * 64 * 4);
      glBindTexture(GL_TEXTURE_2D, tex[0]);
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 64, 64, GL_RGBA, GL_UNSIGNED_BYTE, pixels);

      GLuint targets[2] = { fbo, msfbo };
      for (int t = 0; t < (is_es3 ? 2 : 1); t++) {
         glBindFramebuffer(GL_FRAMEBUFFER, targets[t]);
         glViewport(0, 0, W, H);
         glClearColor(0.1f * (f % 10), 0.2f, 0.3f, 1.0f);
         glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
         for (int i = 0; i < 4; i++) {
            glBindTexture(GL_TEXTURE_2D, tex[(i + f) % 4]);
            glBindBuffer(GL_ARRAY_BUFFER, i & 1 ? stream : vbo);
            glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
            if (i & 1)
               glDrawArrays(GL_TRIANGLES, 0, 6 * 64);
            else
               glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, 0);
         }
      }
      if (is_es3) {
         glBindFramebuffer(GL_READ_FRAMEBUFFER, msfbo);
         glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
         glBlitFramebuffer(0, 0, W, H, 0, 0, W, H, GL_COLOR_BUFFER_BIT, GL_NEAREST);
      }

      /* Draw the result to the pbuffer and read a corner back. */
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      glBindTexture(GL_TEXTURE_2D, color);
      glBindBuffer(GL_ARRAY_BUFFER, vbo);
      glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
      glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, 0);
      if (f % 10 == 0)
         glReadPixels(0, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, readback);
      eglSwapBuffers(dpy, surf);
      if (gsurf) {
         struct gbm_bo *bo = gbm_surface_lock_front_buffer(gsurf);
         if (bo)
            gbm_surface_release_buffer(gsurf, bo);
      }
   }
   glFinish();

   GLenum err = glGetError();
   printf("%d frames, GL error 0x%x\n", frames, err);

   free(pixels);
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroySurface(dpy, surf);
   eglDestroyContext(dpy, ctx);
   eglTerminate(dpy);
   if (gsurf)
      gbm_surface_destroy(gsurf);
   if (gbm)
      gbm_device_destroy(gbm);
   return err == GL_NO_ERROR ? 0 : 1;
}
