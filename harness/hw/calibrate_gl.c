/*
 * SPDX-License-Identifier: MIT
 *
 * calibrate_gl: times what the kernel model charges (harness/docs/cost-file.md) on the GPU
 * it runs on, with GL timer queries (GL_ARB_timer_query), headless (EGL surfaceless: Mesa
 * opens the first render node whose driver loads; no window, no surface). `vramlab-hw calibrate` runs it and turns its output into a cost file.
 *
 * Reads: a GPU use of a buffer placed in VRAM against the same use of a buffer placed in GTT,
 * for three kinds of access, over buffer sizes. r600g places a buffer by its GL usage
 * (Mesa 22.3, src/mesa/main/bufferobj.c buffer_usage() and
 * src/gallium/drivers/r600/r600_buffer_common.c r600_init_resource_fields()):
 * GL_STATIC_DRAW -> PIPE_USAGE_DEFAULT -> RADEON_DOMAIN_VRAM, GL_STREAM_DRAW ->
 * PIPE_USAGE_STREAM -> RADEON_DOMAIN_GTT (write-combined). The kernel may still put a VRAM
 * buffer in GTT under pressure (radeon_cs.c allows GTT beside VRAM), never a GTT one in VRAM.
 *   vertex   a vertex attribute (vec4) per 16 bytes, GL_POINTS, every point clipped
 *   texture  texelFetch() of a buffer texture (GL_RGBA32F) in a fragment shader, each texel
 *            once (r600g reads buffer textures with vertex-fetch instructions)
 *   rt       transform feedback writing a vec4 per 16 bytes into the buffer (the one GPU
 *            write into a buffer whose domain GL picks; renderbuffers are always in VRAM)
 * Each figure is the median, over --reps queries, of GL_TIME_ELAPSED over a batch of uses,
 * divided by the batch (the mean of the two middle queries at an even --reps). The VRAM and
 * the GTT buffer of a size are timed in alternation (VRAM, GTT, GTT, VRAM, ...), so that a
 * change of GPU clocks during the series hits both alike. With --mm-stats, radeon_mm_stats is
 * read before and after each such pair of series: if any buffer moved meanwhile (the vram
 * row's evictions or moves, the gtt row's evictions), the buffers were not where their usage
 * put them during the timing, and the program refuses.
 *
 * Moves (--moves): buffers used every frame, more of them than radeon.vramlimit holds, so
 * that the kernel moves them between VRAM and GTT; the series' debugfs counters
 * (radeon_mm_stats, --mm-stats FILE) before and after, and the frames' GPU time (GL_TIMESTAMP
 * queries) against the same frames with buffers that fit. vramlab-hw fits bytes/PCIe +
 * moves x latency to the extra time over the buffer sizes. A fitting run that moved a buffer
 * is refused (its time is no baseline). Each use is a draw and a glFlush(), and the GL_TIMESTAMP
 * span includes whatever time the GPU waited for the CPU between submissions: the fitted
 * figure is an effective move throughput, not the PCIe link's rate.
 *
 * Output: JSON lines on stdout ("record": "context", "read", "move", "done").
 * It refuses to print a timing it cannot trust, with a message on stderr and exit status 1:
 * no GL_ARB_timer_query, GL_QUERY_COUNTER_BITS of 0, a timer query that returns 0 (what a
 * driver that never runs the GPU work, like the virtual radeon, returns), a result not
 * available after glFinish, GL_TIMESTAMP results that do not advance, a GL error, move
 * counters that are unreadable, did not move in an over-committed run or moved in a fitting
 * run, or buffers that moved while their reads were timed. Usage errors (every argument is
 * checked before any GL work): exit status 2.
 *
 * Usage: calibrate_gl [--sizes 64K,1M,16M] [--kinds vertex,texture,rt] [--reps 5]
 *                     [--no-reads]
 *                     [--moves --mm-stats FILE --vram-mib N [--move-sizes 256K,1M,4M]
 *                      [--frames 20] [--over 2]]
 *                     [--test-timer-ns N] [--test-counter-bits N]   (tests only)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

#define MAX_SIZES 32
#define FB_W 256

enum kind { KIND_VERTEX, KIND_TEXTURE, KIND_RT, NUM_KINDS };
static const char *const kind_names[NUM_KINDS] = { "vertex", "texture", "rt" };

static struct {
   uint64_t sizes[MAX_SIZES];
   int nsizes;
   int kinds[NUM_KINDS];
   int reps;
   int reads;
   int moves;
   const char *mm_stats;
   uint64_t vram_mib;
   uint64_t move_sizes[MAX_SIZES];
   int nmove_sizes;
   int frames;
   double over;
   int64_t test_timer_ns;      /* >= 0: every timer result replaced by this (tests) */
   int test_counter_bits;      /* >= 0: GL_QUERY_COUNTER_BITS replaced by this (tests) */
} opt = {
   .sizes = { 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 32 << 20 },
   .nsizes = 6,
   .kinds = { 1, 1, 1 },
   .reps = 5,
   .reads = 1,
   .move_sizes = { 256 << 10, 1 << 20, 4 << 20 },
   .nmove_sizes = 3,
   .frames = 20,
   .over = 2.0,
   .test_timer_ns = -1,
   .test_counter_bits = -1,
};

/* One line on stderr, then exit with "status". */
static _Noreturn void
leave(int status, const char *tail, const char *fmt, va_list ap)
{
   fputs("calibrate_gl: ", stderr);
   vfprintf(stderr, fmt, ap);
   fprintf(stderr, "%s\n", tail);
   exit(status);
}

/* A timing that cannot be trusted, or a GL failure: status 1. */
static _Noreturn void
die(const char *fmt, ...)
{
   va_list ap;

   va_start(ap, fmt);
   leave(1, "", fmt, ap);
}

/* A bad argument: status 2. */
static _Noreturn void
usage(const char *fmt, ...)
{
   va_list ap;

   va_start(ap, fmt);
   leave(2, " (see the comment at the top of harness/hw/calibrate_gl.c)", fmt, ap);
}

/* "64K", "4M", "1G" or bytes; the option's name in errors. */
static uint64_t
parse_size(const char *text, const char *what)
{
   char *end;
   errno = 0;
   unsigned long long v = strtoull(text, &end, 10);
   uint64_t mul = 1;

   if (end == text || errno || text[0] == '-')
      usage("%s: '%s' is not a size (bytes, or a number with K, M or G)", what, text);
   if (*end == 'K' || *end == 'k')
      mul = 1 << 10, end++;
   else if (*end == 'M' || *end == 'm')
      mul = 1 << 20, end++;
   else if (*end == 'G' || *end == 'g')
      mul = 1 << 30, end++;
   if (*end)
      usage("%s: '%s' is not a size (bytes, or a number with K, M or G)", what, text);
   if (v > (4ull << 30) || v * mul < 4096 || v * mul > (4ull << 30) || (v * mul) % 16)
      usage("%s: %s is outside 4K..4G or not a multiple of 16 bytes", what, text);
   return v * mul;
}

static int
parse_sizes(const char *text, uint64_t *out, const char *what)
{
   char *copy = strdup(text), *save = NULL;
   int n = 0;

   for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      if (n == MAX_SIZES)
         usage("%s: more than %d sizes", what, MAX_SIZES);
      out[n++] = parse_size(t, what);
   }
   free(copy);
   if (!n)
      usage("%s: no size given", what);
   return n;
}

static long
parse_int(const char *text, const char *what, long lo, long hi)
{
   char *end;
   errno = 0;
   long v = strtol(text, &end, 10);

   if (end == text || *end || errno || v < lo || v > hi)
      usage("%s: '%s' is not an integer in %ld..%ld", what, text, lo, hi);
   return v;
}

/* JSON string: the GL strings are printable ASCII, but quote what needs it anyway. */
static void
json_str(const char *s)
{
   putchar('"');
   for (; s && *s; s++) {
      if (*s == '"' || *s == '\\')
         printf("\\%c", *s);
      else if ((unsigned char)*s < 0x20)
         printf("\\u%04x", *s);
      else
         putchar(*s);
   }
   putchar('"');
}

static void
check_gl(const char *where)
{
   GLenum e = glGetError();

   if (e != GL_NO_ERROR)
      die("GL error 0x%x in %s", e, where);
}

/* ---- timer queries: every result goes through here ---- */

static uint64_t
query_result(GLuint q, const char *what)
{
   GLint avail = 0;
   GLuint64 v = 0;

   glGetQueryObjectiv(q, GL_QUERY_RESULT_AVAILABLE, &avail);
   if (!avail)
      die("%s: timer query result not available after glFinish()", what);
   glGetQueryObjectui64v(q, GL_QUERY_RESULT, &v);
   check_gl(what);
   if (opt.test_timer_ns >= 0)
      v = (GLuint64)opt.test_timer_ns;
   if (v == 0)
      die("%s: the timer query returned 0 ns: the GPU did not run the work or its timer does "
          "not count (a driver without a GPU, such as the virtual radeon, returns 0); refusing "
          "to report a time", what);
   return v;
}

static void
check_timer_support(void)
{
   GLint n = 0, bits_elapsed = 0, bits_stamp = 0, have = 0;

   glGetIntegerv(GL_NUM_EXTENSIONS, &n);
   for (GLint i = 0; i < n; i++)
      if (!strcmp((const char *)glGetStringi(GL_EXTENSIONS, i), "GL_ARB_timer_query"))
         have = 1;
   if (!have)
      die("the driver (%s) does not offer GL_ARB_timer_query: no GPU times can be measured",
          glGetString(GL_RENDERER));
   glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits_elapsed);
   glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits_stamp);
   check_gl("glGetQueryiv(GL_QUERY_COUNTER_BITS)");
   if (opt.test_counter_bits >= 0)
      bits_elapsed = bits_stamp = opt.test_counter_bits;
   printf("{\"record\": \"context\", \"renderer\": ");
   json_str((const char *)glGetString(GL_RENDERER));
   printf(", \"vendor\": ");
   json_str((const char *)glGetString(GL_VENDOR));
   printf(", \"gl_version\": ");
   json_str((const char *)glGetString(GL_VERSION));
   printf(", \"time_elapsed_bits\": %d, \"timestamp_bits\": %d}\n", bits_elapsed, bits_stamp);
   fflush(stdout);
   if (opt.reads && bits_elapsed == 0)
      die("GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED is 0: the driver has no GPU timer");
   if (opt.moves && bits_stamp == 0)
      die("GL_QUERY_COUNTER_BITS of GL_TIMESTAMP is 0: the driver has no GPU clock");
}

/* ---- shaders ---- */

static GLuint
compile(GLenum type, const char *src, const char *name)
{
   GLuint s = glCreateShader(type);
   GLint ok = 0;

   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[2048];
      glGetShaderInfoLog(s, sizeof(log), NULL, log);
      die("shader %s does not compile: %s", name, log);
   }
   return s;
}

static GLuint
program(const char *vs, const char *fs, const char *xfb_varying, const char *name)
{
   GLuint p = glCreateProgram();
   GLint ok = 0;

   glAttachShader(p, compile(GL_VERTEX_SHADER, vs, name));
   if (fs)
      glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs, name));
   glBindAttribLocation(p, 0, "a");
   if (xfb_varying)
      glTransformFeedbackVaryings(p, 1, &xfb_varying, GL_INTERLEAVED_ATTRIBS);
   glLinkProgram(p);
   glGetProgramiv(p, GL_LINK_STATUS, &ok);
   if (!ok) {
      char log[2048];
      glGetProgramInfoLog(p, sizeof(log), NULL, log);
      die("program %s does not link: %s", name, log);
   }
   return p;
}

/* Vertex fetch: every component of the attribute feeds the position, which lies outside the
 * clip volume (the buffer holds zeros), so points are fetched and clipped, never drawn. */
static const char *vs_vertex =
   "#version 330 core\n"
   "in vec4 a;\n"
   "void main() { gl_Position = vec4(a.x + a.y + a.z + a.w + 4.0, 0.0, 0.0, 1.0); }\n";
/* Buffer texture: a full-width quad over `rows` rows; the fragment at index i reads texels
 * i, i + npix, i + 2 npix, ... below `texels`, so each texel is read once. */
static const char *vs_quad =
   "#version 330 core\n"
   "void main() {\n"
   "   vec2 p = vec2(gl_VertexID & 1, gl_VertexID >> 1) * 2.0 - 1.0;\n"
   "   gl_Position = vec4(p, 0.0, 1.0);\n"
   "}\n";
static const char *fs_texture =
   "#version 330 core\n"
   "uniform samplerBuffer tb;\n"
   "uniform int texels;\n"
   "uniform int npix;\n"
   "out vec4 color;\n"
   "void main() {\n"
   "   int i = int(gl_FragCoord.y) * " "256" " + int(gl_FragCoord.x);\n"
   "   vec4 sum = vec4(0.0);\n"
   "   for (int t = i; t < texels; t += npix)\n"
   "      sum += texelFetch(tb, t);\n"
   "   color = sum;\n"
   "}\n";
/* Transform feedback: a vec4 per vertex, no attribute read. */
static const char *vs_rt =
   "#version 330 core\n"
   "out vec4 v;\n"
   "void main() { v = vec4(float(gl_VertexID)); gl_Position = vec4(4.0, 0.0, 0.0, 1.0); }\n";

static GLuint prog[NUM_KINDS], vao, fbo, fb_tex, tbo_tex;
static GLint loc_texels, loc_npix;

static void
setup_gl(void)
{
   glGenVertexArrays(1, &vao);
   glBindVertexArray(vao);
   prog[KIND_VERTEX] = program(vs_vertex, NULL, NULL, "vertex");
   prog[KIND_TEXTURE] = program(vs_quad, fs_texture, NULL, "texture");
   prog[KIND_RT] = program(vs_rt, NULL, "v", "rt");
   loc_texels = glGetUniformLocation(prog[KIND_TEXTURE], "texels");
   loc_npix = glGetUniformLocation(prog[KIND_TEXTURE], "npix");
   glUseProgram(prog[KIND_TEXTURE]);
   glUniform1i(glGetUniformLocation(prog[KIND_TEXTURE], "tb"), 0);
   /* The render target of the texture kind: a texture (VRAM on r600g, whatever the run). */
   glGenTextures(1, &fb_tex);
   glBindTexture(GL_TEXTURE_2D, fb_tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, FB_W, FB_W, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, fb_tex, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      die("the %dx%d RGBA8 framebuffer is not complete", FB_W, FB_W);
   glGenTextures(1, &tbo_tex);
   if (opt.reads && opt.kinds[KIND_TEXTURE]) {
      GLint max_texels = 0;
      glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
      for (int s = 0; s < opt.nsizes; s++)
         if (opt.sizes[s] / 16 > (uint64_t)max_texels)
            die("--sizes: a buffer texture of %llu bytes has %llu texels, more than this "
                "driver's GL_MAX_TEXTURE_BUFFER_SIZE %d; give smaller sizes",
                (unsigned long long)opt.sizes[s], (unsigned long long)(opt.sizes[s] / 16),
                max_texels);
   }
   check_gl("setup");
}

/* One use of the buffer `buf` of `size` bytes by `kind`. */
static void
use_buffer(enum kind kind, GLuint buf, uint64_t size)
{
   GLsizei n16 = (GLsizei)(size / 16);

   glUseProgram(prog[kind]);
   switch (kind) {
   case KIND_VERTEX:
      glBindBuffer(GL_ARRAY_BUFFER, buf);
      glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, NULL);
      glEnableVertexAttribArray(0);
      glDrawArrays(GL_POINTS, 0, n16);
      glDisableVertexAttribArray(0);
      break;
   case KIND_TEXTURE: {
      GLsizei npix = n16 < FB_W * FB_W ? n16 : FB_W * FB_W;
      GLsizei rows = (npix + FB_W - 1) / FB_W;
      glBindTexture(GL_TEXTURE_BUFFER, tbo_tex);
      glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buf);
      glUniform1i(loc_texels, n16);
      glUniform1i(loc_npix, FB_W * FB_W);
      glBindFramebuffer(GL_FRAMEBUFFER, fbo);
      glViewport(0, 0, FB_W, rows);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      break;
   }
   case KIND_RT:
      glEnable(GL_RASTERIZER_DISCARD);
      glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf);
      glBeginTransformFeedback(GL_POINTS);
      glDrawArrays(GL_POINTS, 0, n16);
      glEndTransformFeedback();
      glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
      glDisable(GL_RASTERIZER_DISCARD);
      break;
   default:
      break;
   }
}

static GLuint
new_buffer(uint64_t size, GLenum usage)
{
   GLuint b;
   void *zeros = calloc(1, size);

   if (!zeros)
      die("out of memory for a %llu-byte buffer", (unsigned long long)size);
   glGenBuffers(1, &b);
   glBindBuffer(GL_ARRAY_BUFFER, b);
   glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)size, zeros, usage);
   glBindBuffer(GL_ARRAY_BUFFER, 0);
   free(zeros);
   check_gl("glBufferData");
   return b;
}

static int
cmp_u64(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* The median of n values (sorts them): the mean of the two middle ones when n is even. */
static double
median_u64(uint64_t *v, int n)
{
   qsort(v, n, sizeof(v[0]), cmp_u64);
   return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* ---- radeon_mm_stats (the series' debugfs file) ---- */

struct mm_stats {
   uint64_t vram[6], gtt[6]; /* evictions evicted_bytes moves_in bytes_in moves_out bytes_out */
   uint64_t threshold_kept;
};

static void
read_mm_stats(struct mm_stats *s, const char *when)
{
   FILE *f;
   char line[256];
   int have_vram = 0, have_gtt = 0;

   if (!opt.mm_stats)
      die("move counters unavailable: no radeon_mm_stats file given (--mm-stats); the move "
          "cost is measured only on the series' kernel with a radeon device");
   f = fopen(opt.mm_stats, "r");
   if (!f)
      die("move counters unavailable: %s: %s (%s; the series' kernel with debugfs mounted, "
          "as root)", opt.mm_stats, strerror(errno), when);
   memset(s, 0, sizeof(*s));
   while (fgets(line, sizeof(line), f)) {
      uint64_t *row = !strncmp(line, "vram ", 5) ? s->vram :
                      !strncmp(line, "gtt ", 4) ? s->gtt : NULL;
      if (row) {
         unsigned long long v[6];
         if (sscanf(strchr(line, ' '), "%llu %llu %llu %llu %llu %llu",
                    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
            die("%s: malformed line '%.*s' (%s)", opt.mm_stats, (int)strcspn(line, "\n"),
                line, when);
         for (int i = 0; i < 6; i++)
            row[i] = v[i];
         *(row == s->vram ? &have_vram : &have_gtt) = 1;
      } else if (!strncmp(line, "threshold_kept ", 15)) {
         s->threshold_kept = strtoull(line + 15, NULL, 10);
      }
   }
   fclose(f);
   if (!have_vram || !have_gtt)
      die("move counters unavailable: %s has no '%s' line (%s; is it the series' "
          "radeon_mm_stats?)", opt.mm_stats, have_vram ? "gtt" : "vram", when);
}

static double
now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- the measurements ---- */

/* Did any buffer move between two readings of radeon_mm_stats? The vram row's evictions,
 * moves in and moves out, and the gtt row's evictions (to system memory). */
static int
buffers_moved(const struct mm_stats *before, const struct mm_stats *after)
{
   return after->vram[0] != before->vram[0] || after->vram[2] != before->vram[2] ||
          after->vram[4] != before->vram[4] || after->gtt[0] != before->gtt[0];
}

static void
print_read(enum kind k, int d, uint64_t size, uint64_t batch, uint64_t *ns)
{
   static const char *const domains[2] = { "vram", "gtt" };
   static const char *const usage_names[2] = { "GL_STATIC_DRAW", "GL_STREAM_DRAW" };

   printf("{\"record\": \"read\", \"kind\": \"%s\", \"domain\": \"%s\", "
          "\"usage\": \"%s\", \"bytes\": %llu, \"uses_per_query\": %llu, "
          "\"placement_checked\": %s, \"query_ns\": [", kind_names[k], domains[d],
          usage_names[d], (unsigned long long)size, (unsigned long long)batch,
          opt.mm_stats ? "true" : "false");
   for (int r = 0; r < opt.reps; r++)
      printf("%s%llu", r ? ", " : "", (unsigned long long)ns[r]);
   printf("], \"ns_per_use\": %.1f}\n", median_u64(ns, opt.reps) / batch);
}

static void
measure_reads(void)
{
   GLuint q[2][64];
   uint64_t ns[2][64];
   static const GLenum usages[2] = { GL_STATIC_DRAW, GL_STREAM_DRAW };

   glGenQueries(opt.reps, q[0]);
   glGenQueries(opt.reps, q[1]);
   for (int k = 0; k < NUM_KINDS; k++) {
      if (!opt.kinds[k])
         continue;
      for (int s = 0; s < opt.nsizes; s++) {
         uint64_t size = opt.sizes[s];
         /* Enough uses per query that a small buffer's time is well above the timer's
          * resolution: 16 MiB of uses per query, 1 to 64 uses. */
         uint64_t batch = (16ull << 20) / size;
         batch = batch < 1 ? 1 : batch > 64 ? 64 : batch;
         char what[96];
         GLuint buf[2];
         struct mm_stats before, after;

         snprintf(what, sizeof(what), "%s reads of %llu bytes in vram and gtt", kind_names[k],
                  (unsigned long long)size);
         for (int d = 0; d < 2; d++) {
            buf[d] = new_buffer(size, usages[d]);
            use_buffer(k, buf[d], size); /* first use: placement, validation */
         }
         glFinish();
         if (opt.mm_stats)
            read_mm_stats(&before, what);
         /* VRAM then GTT, GTT then VRAM, ...: neither domain always goes first. */
         for (int r = 0; r < opt.reps; r++)
            for (int i = 0; i < 2; i++) {
               int d = (r + i) % 2;
               glBeginQuery(GL_TIME_ELAPSED, q[d][r]);
               for (uint64_t b = 0; b < batch; b++)
                  use_buffer(k, buf[d], size);
               glEndQuery(GL_TIME_ELAPSED);
            }
         glFinish();
         check_gl(what);
         if (opt.mm_stats) {
            read_mm_stats(&after, what);
            if (buffers_moved(&before, &after))
               die("%s: buffers moved while their reads were timed (%s: vram evictions %llu, "
                   "moves in %llu, moves out %llu, gtt evictions %llu): the buffers were not "
                   "where their usage put them; refusing to report these reads (VRAM too full? "
                   "give smaller --sizes or boot with a larger radeon.vramlimit)", what,
                   opt.mm_stats, (unsigned long long)(after.vram[0] - before.vram[0]),
                   (unsigned long long)(after.vram[2] - before.vram[2]),
                   (unsigned long long)(after.vram[4] - before.vram[4]),
                   (unsigned long long)(after.gtt[0] - before.gtt[0]));
         }
         for (int d = 0; d < 2; d++)
            for (int r = 0; r < opt.reps; r++)
               ns[d][r] = query_result(q[d][r], what);
         for (int d = 0; d < 2; d++)
            print_read(k, d, size, batch, ns[d]);
         fflush(stdout);
         glDeleteBuffers(2, buf);
      }
   }
   glDeleteQueries(opt.reps, q[0]);
   glDeleteQueries(opt.reps, q[1]);
}

/* `count` buffers of `size` bytes in VRAM (GL_STATIC_DRAW), each used once a frame (a
 * vertex fetch of the whole buffer, one submission each) for `frames` frames. */
static void
move_run(uint64_t size, uint64_t count, const char *phase)
{
   GLuint *bufs = calloc(count, sizeof(GLuint)), q[2];
   struct mm_stats before, after;
   char what[96];

   if (!bufs)
      die("out of memory");
   snprintf(what, sizeof(what), "%s run of %llu buffers of %llu bytes", phase,
            (unsigned long long)count, (unsigned long long)size);
   for (uint64_t i = 0; i < count; i++)
      bufs[i] = new_buffer(size, GL_STATIC_DRAW);
   for (uint64_t i = 0; i < count; i++) { /* a first frame: placement */
      use_buffer(KIND_VERTEX, bufs[i], size);
      glFlush();
   }
   glFinish();
   read_mm_stats(&before, what);
   glGenQueries(2, q);
   double t0 = now_ns();
   glQueryCounter(q[0], GL_TIMESTAMP);
   for (int f = 0; f < opt.frames; f++)
      for (uint64_t i = 0; i < count; i++) {
         use_buffer(KIND_VERTEX, bufs[i], size);
         glFlush(); /* one submission per use: each must find its buffer in VRAM */
      }
   glQueryCounter(q[1], GL_TIMESTAMP);
   glFinish();
   double t1 = now_ns();
   check_gl(what);
   read_mm_stats(&after, what);
   uint64_t start = query_result(q[0], what), end = query_result(q[1], what);
   if (end <= start)
      die("%s: the GPU timestamps did not advance (%llu then %llu)", what,
          (unsigned long long)start, (unsigned long long)end);
   uint64_t moves = after.vram[2] - before.vram[2] + after.vram[4] - before.vram[4];
   uint64_t bytes = after.vram[3] - before.vram[3] + after.vram[5] - before.vram[5];
   if (!strcmp(phase, "over") && (moves == 0 || bytes == 0))
      die("%s: the move counters of %s did not move (%d frames using %.1fx radeon.vramlimit): "
          "is the kernel booted with radeon.vramlimit=%llu? Refusing to report a move cost",
          what, opt.mm_stats, opt.frames, opt.over, (unsigned long long)opt.vram_mib);
   if (!strcmp(phase, "fit") && (moves || after.vram[0] != before.vram[0]))
      die("%s: the fitting run moved buffers (%llu moves, %llu VRAM evictions in %s) with "
          "only 0.4x radeon.vramlimit=%llu in use: it is no baseline (something else holds "
          "VRAM?); refusing to report a move cost", what, (unsigned long long)moves,
          (unsigned long long)(after.vram[0] - before.vram[0]), opt.mm_stats,
          (unsigned long long)opt.vram_mib);
   printf("{\"record\": \"move\", \"phase\": \"%s\", \"buffer_bytes\": %llu, \"buffers\": %llu, "
          "\"frames\": %d, \"uses\": %llu, \"gpu_ns\": %llu, \"cpu_ns\": %.0f, "
          "\"moves\": %llu, \"bytes_moved\": %llu, \"evictions\": %llu, "
          "\"gtt_evictions\": %llu, \"threshold_kept\": %llu}\n", phase, (unsigned long long)size,
          (unsigned long long)count, opt.frames, (unsigned long long)count * opt.frames,
          (unsigned long long)(end - start), t1 - t0, (unsigned long long)moves,
          (unsigned long long)bytes, (unsigned long long)(after.vram[0] - before.vram[0]),
          (unsigned long long)(after.gtt[0] - before.gtt[0]),
          (unsigned long long)(after.threshold_kept - before.threshold_kept));
   fflush(stdout);
   glDeleteQueries(2, q);
   glDeleteBuffers((GLsizei)count, bufs);
   glFinish();
   free(bufs);
}

/* The move runs' buffer counts: checked for every size before any GL work. */
static void
move_counts(uint64_t size, uint64_t *fit, uint64_t *over)
{
   uint64_t vram = opt.vram_mib << 20;

   *fit = (uint64_t)(0.4 * vram) / size;
   *over = (uint64_t)(opt.over * vram) / size;
   if (*fit < 1 || *over < 2)
      usage("--move-sizes: %llu bytes is too large for %llu MiB of VRAM",
            (unsigned long long)size, (unsigned long long)opt.vram_mib);
}

static void
measure_moves(void)
{
   for (int s = 0; s < opt.nmove_sizes; s++) {
      uint64_t size = opt.move_sizes[s], fit, over;
      move_counts(size, &fit, &over);
      move_run(size, fit, "fit");
      move_run(size, over, "over");
   }
}

/* ---- EGL ---- */

static void
open_context(void)
{
   PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   EGLDisplay dpy;
   EGLint major, minor, n = 0;
   EGLConfig cfg;

   if (!get_display)
      die("EGL has no eglGetPlatformDisplayEXT");
   dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor))
      die("no EGL surfaceless display (EGL error 0x%x)", eglGetError());
   const EGLint cfg_attribs[] = {
      EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE,
   };
   if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cfg_attribs, &cfg, 1, &n) || !n)
      die("no EGL config for desktop OpenGL (EGL error 0x%x)", eglGetError());
   const EGLint ctx_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
   };
   EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attribs);
   if (ctx == EGL_NO_CONTEXT)
      die("no OpenGL 3.3 core context (EGL error 0x%x)", eglGetError());
   /* No surface: everything renders into our own objects (EGL_KHR_surfaceless_context). */
   if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx))
      die("eglMakeCurrent without a surface failed (EGL error 0x%x)", eglGetError());
}

int
main(int argc, char **argv)
{
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!v) usage("%s needs a value", a); i++; } while (0)
      if (!strcmp(a, "--sizes")) {
         NEED_VALUE();
         opt.nsizes = parse_sizes(v, opt.sizes, a);
      } else if (!strcmp(a, "--kinds")) {
         NEED_VALUE();
         char *copy = strdup(v), *save = NULL;
         memset(opt.kinds, 0, sizeof(opt.kinds));
         for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < NUM_KINDS && strcmp(t, kind_names[k]))
               k++;
            if (k == NUM_KINDS)
               usage("--kinds: unknown kind '%s' (vertex, texture, rt)", t);
            opt.kinds[k] = 1;
         }
         free(copy);
      } else if (!strcmp(a, "--reps")) {
         NEED_VALUE();
         opt.reps = (int)parse_int(v, a, 1, 64);
      } else if (!strcmp(a, "--no-reads")) {
         opt.reads = 0;
      } else if (!strcmp(a, "--moves")) {
         opt.moves = 1;
      } else if (!strcmp(a, "--mm-stats")) {
         NEED_VALUE();
         opt.mm_stats = v;
      } else if (!strcmp(a, "--vram-mib")) {
         NEED_VALUE();
         opt.vram_mib = (uint64_t)parse_int(v, a, 1, 1 << 20);
      } else if (!strcmp(a, "--move-sizes")) {
         NEED_VALUE();
         opt.nmove_sizes = parse_sizes(v, opt.move_sizes, a);
      } else if (!strcmp(a, "--frames")) {
         NEED_VALUE();
         opt.frames = (int)parse_int(v, a, 1, 100000);
      } else if (!strcmp(a, "--over")) {
         NEED_VALUE();
         char *end;
         opt.over = strtod(v, &end);
         if (end == v || *end || !(opt.over >= 1.2 && opt.over <= 8))
            usage("--over: '%s' is not a factor in 1.2..8", v);
      } else if (!strcmp(a, "--test-timer-ns")) {
         NEED_VALUE();
         opt.test_timer_ns = parse_int(v, a, 0, 1L << 40);
      } else if (!strcmp(a, "--test-counter-bits")) {
         NEED_VALUE();
         opt.test_counter_bits = (int)parse_int(v, a, 0, 64);
      } else {
         usage("unknown argument '%s'", a);
      }
   }
   if (!opt.reads && !opt.moves)
      usage("--no-reads without --moves: nothing to measure");
   if (opt.moves) { /* every argument, and the counters, before any GL work */
      uint64_t fit, over;
      struct mm_stats probe;
      if (!opt.vram_mib)
         usage("--moves needs --vram-mib N (radeon.vramlimit of the booted kernel)");
      for (int s = 0; s < opt.nmove_sizes; s++)
         move_counts(opt.move_sizes[s], &fit, &over);
      read_mm_stats(&probe, "before any GL work");
   } else if (opt.mm_stats) {
      struct mm_stats probe;
      read_mm_stats(&probe, "before any GL work");
   }
   open_context();
   check_timer_support();
   setup_gl();
   if (opt.reads)
      measure_reads();
   if (opt.moves)
      measure_moves();
   printf("{\"record\": \"done\"}\n");
   return 0;
}
