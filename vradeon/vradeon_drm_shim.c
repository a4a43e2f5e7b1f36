/*
 * SPDX-License-Identifier: MIT
 *
 * The virtual radeon: a DRM shim (LD_PRELOAD, on Mesa's drm-shim library) that answers the
 * radeon ioctls r600g and libdrm_radeon use and sends every buffer create, command
 * submission, CPU map and destroy into vramlab's kernel model (harness/include/
 * vramlab_kmodel.h): what radeon on Linux 6.12 with vramlab's series would do with the
 * program's buffers under a VRAM limit, live. See vradeon/README.md.
 *
 * Environment (the series' module parameters by their names):
 *   VRADEON_VRAM_MB=256              radeon.vramlimit
 *   VRADEON_TOPDOWN_THRESHOLD=0      radeon.topdown_threshold (KiB; 0 = off, the default)
 *   VRADEON_BO_SCORE=0               radeon.bo_score (1: evict by key)
 *   VRADEON_BO_SCORE_WINDOW=256      radeon.bo_score_window
 *   VRADEON_EVICT_WINDOW=0           radeon.evict_window (window eviction: LRU entries a scan visits, 0..1024; 0 = off)
 *   VRADEON_EVICT_PREDICT=0          radeon.evict_predict (7.2 series: the window scan in the
 *                                    order of each BO's predicted next use; needs the window)
 *   VRADEON_EVICT_ADMIT=0            radeon.evict_admit (predicted admission: a GTT read's
 *                                    cost against a move, per mille; 0 = off)
 *   VRADEON_EVICT_UNUSED=0           radeon.evict_unused (with the prediction: a BO no
 *                                    submission has named in this many since its creation
 *                                    is evicted first; 0 = off)
 *   VRADEON_EVICT_REPACK=0           radeon.evict_repack (with the prediction: the submission's
 *                                    own BOs as candidates where they alone block every
 *                                    window and its VRAM BOs fit; 1 = on)
 *   VRADEON_MOVE_BUDGET_MBPS=0       radeon.move_budget_mbps (time-based move budget; 0 = off)
 *   VRADEON_MOVE_BUDGET_MS=200       radeon.move_budget_ms (the budget's cap)
 *   VRADEON_LAB_CS_END=0             radeon.lab_cs_end (the submission path: 0 Linux 6.12's,
 *                                    1 6.14+'s without LRU moves, 2 6.14+'s with the fix)
 *   VRADEON_BO_SCORES=1              the kernel takes the BO score chunk, as the series' does
 *                                    (RADEON_INFO_BO_SCORES answers 1); 0: a stock kernel
 *                                    (the request fails with -EINVAL, a score chunk is ignored)
 *   VRADEON_KMS_MINOR=50             the KMS minor reported (6.12's; the series keeps it): it
 *                                    does not say whether scores are taken (Linux 7.2: 51, no)
 *   VRADEON_COUNTERS=FILE            the model's figures as JSON, at exit and on SIGUSR1
 *                                    ("%p" = the process id)
 *   VRADEON_TRACE=FILE               the kernel's view as a vramlab v2.1 trace ("%p" too)
 *   VRADEON_COST=FILE                a cost file for the transfer and frame times (the
 *                                    built-in costs without; harness/docs/cost-file.md)
 *   RADEON_GPU_ID=BARTS              the GPU (a chip name of r600_pci_ids.h, or 0xNNNN)
 */

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "drm-shim/drm_shim.h"
#include <radeon_drm.h>
#include "util/u_debug.h"

#include "vramlab_kmodel.h"

#ifndef RADEON_CHUNK_ID_BO_SCORES /* vramlab's kernel series */
#define RADEON_CHUNK_ID_BO_SCORES 0x05
#endif
#ifndef RADEON_INFO_BO_SCORES /* 1 from a kernel that takes RADEON_CHUNK_ID_BO_SCORES */
#define RADEON_INFO_BO_SCORES 0x27
#endif

/* The first render node (renderD128) is ours. */
bool drm_shim_driver_prefers_first_render_node = true;

/* A GEM object and its id in the model: unique, in creation order, never reused. */
struct vradeon_bo {
   struct shim_bo base; /* first: drm-shim frees the BO through it */
   uint32_t id;
};

static struct {
   mtx_t lock; /* the model and everything below */
   struct vramlab_kmodel *model;
   uint32_t next_id;
   uint16_t device_id;
   char *counters_path;
   struct vramlab_kmodel_reloc *relocs;
   uint32_t max_relocs;
   uint64_t cs, cs_scores, cs_scores_ignored, cs_rejected;
   bool bo_scores; /* VRADEON_BO_SCORES: the kernel takes the score chunk */
   double frame_start_us;
   uint64_t frames, exit_frames; /* VRADEON_EXIT_FRAMES: end the program after this many */
   uint64_t signal_at_frame;     /* VRADEON_TEST_SIGNAL_AT_FRAME */
   volatile sig_atomic_t dump_requested;
} vr = { .device_id = 0x6738 /* BARTS */ };

static void
vradeon_die(const char *fmt, ...)
{
   va_list ap;

   va_start(ap, fmt);
   fputs("vradeon: ", stderr);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
   abort();
}

/* v2 domain bits of the model (1 VRAM, 2 GTT, 4 CPU) from radeon's (1 CPU, 2 GTT, 4 VRAM). */
static uint8_t
vradeon_domain(uint32_t d)
{
   return (d & RADEON_GEM_DOMAIN_VRAM ? 1 : 0) | (d & RADEON_GEM_DOMAIN_GTT ? 2 : 0) |
          (d & RADEON_GEM_DOMAIN_CPU ? 4 : 0);
}

static double
vradeon_cpu_us(void)
{
   struct timespec ts;

   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Lock held. */
static void
vradeon_write_counters(void)
{
   char err[256];

   if (vr.counters_path && vr.model &&
       vramlab_kmodel_write_json(vr.model, vr.counters_path, err,
                                                     sizeof(err)))
      fprintf(stderr, "vradeon: %s\n", err);
   vr.dump_requested = 0;
}

static void
vradeon_sigusr1(int sig)
{
   (void)sig;
   vr.dump_requested = 1; /* written at the next ioctl: JSON is not async-signal-safe */
}

/* A SIGTERM or SIGINT (vradeon_fatal_signal()) must not wait for the lock that the thread it
 * interrupted holds: a thread is marked from before it asks for the lock until after it has
 * let go of it, a signal that lands on a marked thread is left pending, and that thread
 * acts on it once the lock is free (vradeon_unlock()). Any thread that unlocks may act on
 * it: the process ends either way.
 */
static _Thread_local volatile sig_atomic_t vr_in_lock;
static _Thread_local bool vr_ending;
static volatile sig_atomic_t vr_pending_signal;

static void vradeon_exit(void);

static void
vradeon_lock_bare(void)
{
   vr_in_lock = 1;
   atomic_signal_fence(memory_order_seq_cst);
   mtx_lock(&vr.lock);
}

static void
vradeon_lock(void)
{
   vradeon_lock_bare();
   if (vr.dump_requested)
      vradeon_write_counters();
}

static void
vradeon_unlock(void)
{
   mtx_unlock(&vr.lock);
   atomic_signal_fence(memory_order_seq_cst);
   vr_in_lock = 0;
   atomic_signal_fence(memory_order_seq_cst);
   if (vr_pending_signal && !vr_ending) {
      int sig = vr_pending_signal;

      vr_ending = true; /* vradeon_exit() unlocks too */
      vradeon_exit();
      signal(sig, SIG_DFL);
      raise(sig);
   }
}

static void
vradeon_bo_free(struct shim_bo *bo)
{
   struct vradeon_bo *vbo = (struct vradeon_bo *)bo;

   vradeon_lock();
   if (vr.model)
      vramlab_kmodel_destroy(vr.model, vbo->id);
   vradeon_unlock();
}

static int
vradeon_ioctl_noop(int fd, unsigned long request, void *arg)
{
   return 0;
}

static int
vradeon_ioctl_gem_info(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_gem_info *info = arg;

   info->vram_size = debug_get_num_option("VRADEON_VRAM_MB", 256) << 20;
   info->vram_visible = info->vram_size;
   info->gart_size = 1024ull << 20;
   return 0;
}

static int
vradeon_ioctl_gem_create(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_gem_create *create = arg;
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   uint64_t size = (create->size + 4095) & ~4095ull;
   struct vradeon_bo *bo;
   int ret;

   vradeon_lock();
   uint32_t id = vr.next_id++;
   ret = vr.model ? vramlab_kmodel_create(vr.model, id, size,
                                          vradeon_domain(create->initial_domain)) : 0;
   vradeon_unlock();
   if (ret)
      return -ENOMEM; /* refused in VRAM and in GTT, or of size 0 */

   bo = calloc(1, sizeof(*bo));
   if (!bo || drm_shim_bo_init(&bo->base, size)) {
      free(bo);
      vradeon_lock();
      if (vr.model)
         vramlab_kmodel_destroy(vr.model, id);
      vradeon_unlock();
      return -ENOMEM;
   }
   bo->id = id;
   create->handle = drm_shim_bo_get_handle(shim_fd, &bo->base);
   drm_shim_bo_put(&bo->base);
   return 0;
}

static int
vradeon_ioctl_gem_mmap(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_gem_mmap *mmap_bo = arg;
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, mmap_bo->handle);

   if (!bo)
      return -ENOENT;
   mmap_bo->addr_ptr = drm_shim_bo_get_mmap_offset(shim_fd, bo);
   vradeon_lock();
   if (vr.model)
      vramlab_kmodel_cpu_map(vr.model, ((struct vradeon_bo *)bo)->id);
   vradeon_unlock();
   drm_shim_bo_put(bo);
   return 0;
}

static int
vradeon_ioctl_gem_busy(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_gem_busy *busy = arg;
   struct shim_bo *bo = drm_shim_bo_lookup(drm_shim_fd_lookup(fd), busy->handle);

   if (!bo)
      return -ENOENT;
   busy->domain = RADEON_GEM_DOMAIN_GTT; /* nothing ever runs: idle */
   drm_shim_bo_put(bo);
   return 0;
}

static int
vradeon_ioctl_einval(int fd, unsigned long request, void *arg)
{
   return -EINVAL; /* user pointers: the winsys probes, and goes without */
}

/* radeon_cs_register_chunk() and radeon_cs_check_scores() of the series, as
 * radeon_cs_parser_init() applies them: empty IB, CONST_IB and FLAGS chunks are malformed;
 * unknown ids are ignored, and so is a score chunk on a stock kernel (VRADEON_BO_SCORES=0:
 * it does not know the id, whatever its KMS version); on the series' kernel a second score
 * chunk is malformed, and a score chunk must hold one dword per whole four-dword
 * relocation. Without scores, a trailing partial relocation is
 * ignored as it always was. An empty score chunk counts as none. The kernel's KUnit table
 * (radeon_cs_test.c) runs through this function in vradeon/tests.
 */
static int
vradeon_check_chunks(const struct drm_radeon_cs *cs, const struct drm_radeon_cs_chunk **relocs,
                     const struct drm_radeon_cs_chunk **scores, bool *ignored_scores)
{
   const uint64_t *chunks = (const uint64_t *)(uintptr_t)cs->chunks;

   *relocs = *scores = NULL;
   *ignored_scores = false;
   for (uint32_t i = 0; i < cs->num_chunks; i++) {
      const struct drm_radeon_cs_chunk *c = (const void *)(uintptr_t)chunks[i];

      switch (c->chunk_id) {
      case RADEON_CHUNK_ID_RELOCS:
         *relocs = c;
         break;
      case RADEON_CHUNK_ID_IB:
      case RADEON_CHUNK_ID_CONST_IB:
      case RADEON_CHUNK_ID_FLAGS:
         if (!c->length_dw)
            return -EINVAL;
         break;
      case RADEON_CHUNK_ID_BO_SCORES:
         if (!vr.bo_scores) {
            *ignored_scores = true;
            break;
         }
         if (*scores)
            return -EINVAL;
         *scores = c;
         break;
      default:
         break;
      }
   }
   if (*scores) {
      uint32_t dw = *relocs ? (*relocs)->length_dw : 0;

      if (dw % 4 || (*scores)->length_dw != dw / 4)
         return -EINVAL;
      if (!(*scores)->length_dw)
         *scores = NULL;
   }
   return 0;
}

/* radeon_cs_ioctl() with the series: the chunks are checked as above, every relocation's
 * handle must exist (-ENOENT), then the model validates the buffers.
 */
static int
vradeon_ioctl_cs(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_cs *cs = arg;
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   const struct drm_radeon_cs_chunk *relocs, *scores;
   bool ignored_scores;
   int ret = vradeon_check_chunks(cs, &relocs, &scores, &ignored_scores);
   /* whole relocations: radeon_cs_parser_relocs() */
   uint32_t n = !ret && relocs ? relocs->length_dw / (sizeof(struct drm_radeon_cs_reloc) / 4) : 0;

   /* The buffers are looked up, and their references dropped, outside the lock: dropping the
    * last one frees the buffer, which takes the lock (vradeon_bo_free()). While the CS holds
    * them no buffer of it can be destroyed, so the model never sees a CS on a dead id.
    */
   struct shim_bo **bos = ret || !n ? NULL : calloc(n, sizeof(*bos));

   if (!ret && n && !bos)
      ret = -ENOMEM;
   for (uint32_t i = 0; i < n && !ret; i++) {
      const struct drm_radeon_cs_reloc *r =
         (const struct drm_radeon_cs_reloc *)(uintptr_t)relocs->chunk_data + i;

      bos[i] = drm_shim_bo_lookup(shim_fd, r->handle);
      if (!bos[i])
         ret = -ENOENT;
   }

   vradeon_lock();
   if (!ret && n > vr.max_relocs) {
      void *p = realloc(vr.relocs, n * sizeof(*vr.relocs));

      if (p) {
         vr.relocs = p;
         vr.max_relocs = n;
      } else {
         ret = -ENOMEM;
      }
   }
   if (!ret) {
      for (uint32_t i = 0; i < n; i++) {
         const struct drm_radeon_cs_reloc *r =
            (const struct drm_radeon_cs_reloc *)(uintptr_t)relocs->chunk_data + i;

         vr.relocs[i] = (struct vramlab_kmodel_reloc){
            .id = ((struct vradeon_bo *)bos[i])->id,
            .read_domains = vradeon_domain(r->read_domains),
            .write_domain = vradeon_domain(r->write_domain),
            .prio = r->flags & RADEON_RELOC_PRIO_MASK,
            .score = scores ? ((const uint32_t *)(uintptr_t)scores->chunk_data)[i]
                            : VRAMLAB_KMODEL_SCORE_NEUTRAL,
         };
      }
      if (vr.model)
         vramlab_kmodel_submit(vr.model, vr.relocs, n, scores != NULL);
      vr.cs++;
      vr.cs_scores += scores != NULL;
      vr.cs_scores_ignored += ignored_scores;
   } else {
      vr.cs_rejected++;
   }
   vradeon_unlock();

   for (uint32_t i = 0; bos && i < n && bos[i]; i++)
      drm_shim_bo_put(bos[i]);
   free(bos);
   return ret;
}

static int
vradeon_ioctl_info(int fd, unsigned long request, void *arg)
{
   struct drm_radeon_info *info = arg;
   uint32_t *value = (uint32_t *)(uintptr_t)info->value;

   switch (info->request) {
   case RADEON_INFO_DEVICE_ID:
      *value = vr.device_id;
      return 0;
   case RADEON_INFO_RING_WORKING:
   case RADEON_INFO_ACCEL_WORKING2:
   case RADEON_INFO_VA_UNMAP_WORKING:
      *value = 1;
      return 0;
   case RADEON_INFO_GPU_RESET_COUNTER:
   case RADEON_INFO_VCE_FW_VERSION:
   case RADEON_INFO_TILING_CONFIG:
   case RADEON_INFO_BACKEND_MAP:
      *value = 0;
      return 0;
   case RADEON_INFO_BO_SCORES:
      if (!vr.bo_scores)
         return -EINVAL; /* a stock kernel: an unknown request */
      *value = 1;
      return 0;
   case RADEON_INFO_IB_VM_MAX_SIZE:
      return -EINVAL; /* no GPUVM: r600g uses relocations, as on r600-r700 */
   case RADEON_INFO_VA_START:
      return -EINVAL;
   case RADEON_INFO_MAX_SCLK:
   case RADEON_INFO_CLOCK_CRYSTAL_FREQ:
   case RADEON_INFO_NUM_GB_PIPES:
   case RADEON_INFO_NUM_Z_PIPES:
   case RADEON_INFO_MAX_PIPES:
   case RADEON_INFO_MAX_SE:
   case RADEON_INFO_MAX_SH_PER_SE:
   case RADEON_INFO_ACTIVE_CU_COUNT:
   case RADEON_INFO_NUM_BACKENDS:
   case RADEON_INFO_NUM_TILE_PIPES:
      *value = 1;
      return 0;
   default:
      return -EINVAL;
   }
}

/* drm-shim returns a handler's value as ioctl()'s: an error must be -1 with errno set, as
 * the kernel's are (libdrm's drmCommandWriteRead() returns -errno).
 */
#define VRADEON_IOCTL(name)                                                \
   static int name##_errno(int fd, unsigned long request, void *arg)       \
   {                                                                       \
      int r = name(fd, request, arg);                                      \
      if (r < 0) {                                                         \
         errno = -r;                                                       \
         return -1;                                                        \
      }                                                                    \
      return r;                                                            \
   }
VRADEON_IOCTL(vradeon_ioctl_cs)
VRADEON_IOCTL(vradeon_ioctl_info)
VRADEON_IOCTL(vradeon_ioctl_gem_create)
VRADEON_IOCTL(vradeon_ioctl_gem_mmap)
VRADEON_IOCTL(vradeon_ioctl_gem_busy)
VRADEON_IOCTL(vradeon_ioctl_einval)

static ioctl_fn_t vradeon_ioctls[] = {
   [DRM_RADEON_CS] = vradeon_ioctl_cs_errno,
   [DRM_RADEON_INFO] = vradeon_ioctl_info_errno,
   [DRM_RADEON_GEM_SET_DOMAIN] = vradeon_ioctl_noop,
   [DRM_RADEON_GEM_SET_TILING] = vradeon_ioctl_noop,
   [DRM_RADEON_GEM_WAIT_IDLE] = vradeon_ioctl_noop,
   [DRM_RADEON_GEM_INFO] = vradeon_ioctl_gem_info,
   [DRM_RADEON_GEM_CREATE] = vradeon_ioctl_gem_create_errno,
   [DRM_RADEON_GEM_MMAP] = vradeon_ioctl_gem_mmap_errno,
   [DRM_RADEON_GEM_BUSY] = vradeon_ioctl_gem_busy_errno,
   [DRM_RADEON_GEM_USERPTR] = vradeon_ioctl_einval_errno,
};

/* The chips r600g drives, by name, from Mesa's PCI id list. */
struct vradeon_chip {
   uint16_t id;
   const char *name, *family;
};
#define CHIPSET(d, n, f) { (d), #n, #f },
static const struct vradeon_chip vradeon_chips[] = {
#include "pci_ids/r600_pci_ids.h"
};
#undef CHIPSET

static void
vradeon_pick_gpu(void)
{
   const char *gpu = getenv("RADEON_GPU_ID");

   if (!gpu)
      return;
   if (!strncmp(gpu, "0x", 2)) {
      vr.device_id = strtoul(gpu + 2, NULL, 16);
      return;
   }
   for (size_t i = 0; i < sizeof(vradeon_chips) / sizeof(vradeon_chips[0]); i++) {
      if (!strcasecmp(gpu, vradeon_chips[i].name) || !strcasecmp(gpu, vradeon_chips[i].family)) {
         vr.device_id = vradeon_chips[i].id;
         return;
      }
   }
   vradeon_die("RADEON_GPU_ID=%s is no r600-class chip", gpu);
}

/* libdrm's device enumeration (EGL's device and surfaceless platforms) reads these. */
static void
vradeon_fake_sysfs(void)
{
   char text[256];
   static const char *const files[][2] = {
      { "vendor", "0x1002\n" }, { "subsystem_vendor", "0x1002\n" }, { "revision", "0x00\n" },
   };

   snprintf(text, sizeof(text),
            "DRIVER=radeon\nPCI_CLASS=30000\nPCI_ID=1002:%04X\nPCI_SUBSYS_ID=1002:%04X\n"
            "PCI_SLOT_NAME=0000:01:00.0\n"
            "MODALIAS=pci:v00001002d0000%04Xsv00001002sd0000%04Xbc03sc00i00\n",
            vr.device_id, vr.device_id, vr.device_id, vr.device_id);
   drm_shim_override_file(text, "/sys/dev/char/%d:%d/device/uevent", DRM_MAJOR,
                          render_node_minor);
   for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
      drm_shim_override_file(files[i][1], "/sys/dev/char/%d:%d/device/%s", DRM_MAJOR,
                             render_node_minor, files[i][0]);
   snprintf(text, sizeof(text), "0x%04x\n", vr.device_id);
   drm_shim_override_file(text, "/sys/dev/char/%d:%d/device/device", DRM_MAJOR,
                          render_node_minor);
   drm_shim_override_file(text, "/sys/dev/char/%d:%d/device/subsystem_device", DRM_MAJOR,
                          render_node_minor);
}

/* "%p" in the file name: the process id. */
static char *
vradeon_path(const char *var)
{
   const char *pattern = getenv(var);
   char *path, *p;

   if (!pattern || !*pattern)
      return NULL;
   path = malloc(strlen(pattern) + 16);
   if (!path)
      vradeon_die("out of memory");
   p = strstr(pattern, "%p");
   if (p)
      sprintf(path, "%.*s%d%s", (int)(p - pattern), pattern, (int)getpid(), p + 2);
   else
      strcpy(path, pattern);
   return path;
}

static void
vradeon_exit(void)
{
   vradeon_lock_bare();
   if (vr.model) {
      vradeon_write_counters();
      fprintf(stderr, "vradeon: KMS 2.%d, %s, %llu CS (%llu with scores, %llu rejected, "
              "%llu with an ignored score chunk)%s%s\n",
              shim_device.version_minor, vr.bo_scores ? "takes BO scores" : "stock",
              (unsigned long long)vr.cs,
              (unsigned long long)vr.cs_scores, (unsigned long long)vr.cs_rejected,
              (unsigned long long)vr.cs_scores_ignored,
              vr.counters_path ? ", counters in " : "",
              vr.counters_path ? vr.counters_path : "");
      vramlab_kmodel_free(vr.model); /* ends the trace */
      vr.model = NULL;
   }
   vradeon_unlock();
}

/* SIGTERM and SIGINT, when the program leaves them at their default (a program that handles
 * them and exits runs vradeon_exit() anyway): the counters and the trace are finished by a
 * thread, since neither is async-signal-safe, then the signal does what it would have done.
 * A signal that interrupts a thread in the lock waits for it to unlock instead (above):
 * the thread would wait for a lock its own handler holds. The thread blocks both signals,
 * so that the handler never runs on it; the handler waits at most 10 s for it.
 */
static int vr_sig_pipe[2] = { -1, -1 }, vr_ack_pipe[2] = { -1, -1 };

static void *
vradeon_signal_thread(void *arg)
{
   char c;

   while (read(vr_sig_pipe[0], &c, 1) != 1)
      ;
   vradeon_exit();
   if (write(vr_ack_pipe[1], &c, 1) != 1)
      return NULL;
   return NULL;
}

static void
vradeon_fatal_signal(int sig)
{
   struct pollfd p = { .fd = vr_ack_pipe[0], .events = POLLIN };
   char c = sig;
   int saved = errno;

   if (vr_in_lock) {
      vr_pending_signal = sig;
      return;
   }
   if (write(vr_sig_pipe[1], &c, 1) == 1)
      poll(&p, 1, 10000);
   signal(sig, SIG_DFL);
   errno = saved;
   raise(sig);
}

static void
vradeon_catch_fatal_signals(void)
{
   static const int sigs[] = { SIGTERM, SIGINT };
   sigset_t block, saved;
   pthread_t thread;
   int err;

   sigemptyset(&block);
   for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
      sigaddset(&block, sigs[i]);
   if (pipe2(vr_sig_pipe, O_CLOEXEC) || pipe2(vr_ack_pipe, O_CLOEXEC) ||
       pthread_sigmask(SIG_BLOCK, &block, &saved))
      return;
   err = pthread_create(&thread, NULL, vradeon_signal_thread, NULL);
   pthread_sigmask(SIG_SETMASK, &saved, NULL);
   if (err)
      return;
   pthread_detach(thread);
   for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
      /* SA_RESTART: a deferred signal returns into the locked code, whose writes go on */
      struct sigaction old, sa = { .sa_handler = vradeon_fatal_signal, .sa_flags = SA_RESTART };

      if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
         sigaction(sigs[i], &sa, NULL);
   }
}

/* fork(): the lock is taken around it, so that the child does not inherit it held by a
 * thread it does not have. The child neither counts nor records: the model and its trace are
 * the parent's (the trace writer leaves nothing buffered in stdio, and the child never frees
 * its copy, so its exit() writes nothing into the parent's trace or counters).
 */
static void
vradeon_fork_prepare(void)
{
   vradeon_lock_bare();
}

static void
vradeon_fork_parent(void)
{
   vradeon_unlock();
}

static void
vradeon_fork_child(void)
{
   vr.model = NULL;
   vr.counters_path = NULL;
   vr.exit_frames = 0;
   vr_pending_signal = 0; /* the parent's, not this process's */
   vradeon_unlock();
}

/* VRADEON_TOO_BIG: what a BO larger than VRAM asked for in VRAM does (vramlab_kmodel.h). */
static uint32_t
vradeon_too_big(void)
{
   const char *v = getenv("VRADEON_TOO_BIG");

   if (!v || !*v || !strcmp(v, "auto"))
      return 0;
   if (!strcmp(v, "refuse"))
      return 1;
   if (!strcmp(v, "evict"))
      return 2;
   vradeon_die("VRADEON_TOO_BIG: \"%s\" is not auto, refuse or evict", v);
   return 0;
}

void
drm_shim_driver_init(void)
{
   struct vramlab_kmodel_config c = {
      .vram_bytes = (uint64_t)debug_get_num_option("VRADEON_VRAM_MB", 256) << 20,
      .topdown_kib = debug_get_num_option("VRADEON_TOPDOWN_THRESHOLD", 0),
      .bo_score = debug_get_num_option("VRADEON_BO_SCORE", 0) != 0,
      .window = debug_get_num_option("VRADEON_BO_SCORE_WINDOW", 256),
      .evict_window = debug_get_num_option("VRADEON_EVICT_WINDOW", 0),
      .move_budget_mbps = debug_get_num_option("VRADEON_MOVE_BUDGET_MBPS", 0),
      .move_budget_ms = debug_get_num_option("VRADEON_MOVE_BUDGET_MS", 200),
      .cost_file = getenv("VRADEON_COST"),
      .lab_cs_end = debug_get_num_option("VRADEON_LAB_CS_END", 0),
      .too_big = vradeon_too_big(),
      .evict_predict = debug_get_num_option("VRADEON_EVICT_PREDICT", 0),
      .evict_admit = debug_get_num_option("VRADEON_EVICT_ADMIT", 0),
      .evict_unused = debug_get_num_option("VRADEON_EVICT_UNUSED", 0),
      .evict_repack = debug_get_num_option("VRADEON_EVICT_REPACK", 0),
   };
   char err[512], meta[256];
   char *trace = vradeon_path("VRADEON_TRACE");

   mtx_init(&vr.lock, mtx_plain);
   vradeon_pick_gpu();
   vradeon_fake_sysfs();

   shim_device.bus_type = DRM_BUS_PCI;
   shim_device.driver_name = "radeon";
   shim_device.driver_ioctls = vradeon_ioctls;
   shim_device.driver_ioctl_count = sizeof(vradeon_ioctls) / sizeof(vradeon_ioctls[0]);
   shim_device.driver_bo_free = vradeon_bo_free;
   shim_device.version_major = 2;
   shim_device.version_minor = debug_get_num_option("VRADEON_KMS_MINOR", 50);
   shim_device.version_patchlevel = 0;
   vr.bo_scores = debug_get_bool_option("VRADEON_BO_SCORES", true);

   /* VRADEON_PROGRAM: only the process of that name counts and records; others that
    * inherit the preload (a compositor's helper clients, a launcher script) run on the
    * shim without a model, and so cannot truncate the recording process's trace.
    */
   const char *only = getenv("VRADEON_PROGRAM");
   if (only && *only && strcmp(only, program_invocation_short_name)) {
      free(trace);
      return;
   }
   vr.model = vramlab_kmodel_new(&c, err, sizeof(err));
   if (!vr.model)
      vradeon_die("%s%s", c.cost_file && *c.cost_file ? "VRADEON_COST: " : "", err);
   if (trace) {
      snprintf(meta, sizeof(meta),
               "source=vradeon (the kernel's view)\nvram_bytes=%llu\ngpu=radeon (PCI 1002:%04x)\n"
               "kms=2.%d\n",
               (unsigned long long)c.vram_bytes, vr.device_id, shim_device.version_minor);
      if (vramlab_kmodel_record(vr.model, trace, meta, err, sizeof(err)))
         vradeon_die("%s", err);
      free(trace);
   }
   vr.counters_path = vradeon_path("VRADEON_COUNTERS");
   vr.exit_frames = debug_get_num_option("VRADEON_EXIT_FRAMES", 0);
   vr.signal_at_frame = debug_get_num_option("VRADEON_TEST_SIGNAL_AT_FRAME", 0);
   vr.frame_start_us = vradeon_cpu_us();
   signal(SIGUSR1, vradeon_sigusr1);
   atexit(vradeon_exit);
   pthread_atfork(vradeon_fork_prepare, vradeon_fork_parent, vradeon_fork_child);
   vradeon_catch_fatal_signals();
}

/* Frames: the program's buffer swaps, caught where the program calls them through its own
 * dynamic links, so that each is counted once: eglSwapBuffers() (EGL programs that link
 * libEGL), SDL_GL_SwapWindow() (SDL programs: SDL finds eglSwapBuffers with dlsym() on a
 * libEGL it opened itself), SDL_RenderPresent() (SDL's 2D renderer) and
 * waffle_window_swap_buffers() (piglit, apitrace's eglretrace).
 * Interposing dlsym() instead would break every library that resolves symbols relative to
 * itself (RTLD_DEFAULT and RTLD_NEXT depend on the caller). The CPU time since the previous
 * swap is the frame's CPU time.
 */
static void
vradeon_frame(void)
{
   double now = vradeon_cpu_us();

   vradeon_lock();
   if (vr.model)
      vramlab_kmodel_frame(vr.model, now - vr.frame_start_us);
   vr.frame_start_us = now;
   vr.frames++;
   bool last = vr.frames == vr.exit_frames;
   /* the program's thread, in the lock: as if the user's SIGTERM came now */
   if (vr.frames == vr.signal_at_frame)
      raise(SIGTERM);
   vradeon_unlock();
   /* VRADEON_EXIT_FRAMES: a program that renders until it is told to stop (a compositor, a
    * demo) ends after exactly that many frames, the counters and the trace finished first;
    * _exit() skips the program's own teardown, whose submissions would follow the last frame.
    */
   if (last) {
      vradeon_exit();
      fflush(NULL);
      _exit(0);
   }
}

/* The next definition of name after ours; when the library that has it was loaded only for
 * a module dlopen()ed without RTLD_GLOBAL (weston's gl-renderer.so links libEGL), it is not
 * in the global scope RTLD_NEXT searches, so it is asked for by its library's name: lib, if
 * given, already loaded. */
static void *
vradeon_next_in(const char *name, const char *lib)
{
   void *p = dlsym(RTLD_NEXT, name);

   if (!p && lib) {
      void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);

      p = h ? dlsym(h, name) : NULL;
   }
   if (!p)
      vradeon_die("no %s to call", name);
   return p;
}

static void *
vradeon_next(const char *name)
{
   return vradeon_next_in(name, NULL);
}

PUBLIC unsigned int
eglSwapBuffers(void *dpy, void *surface)
{
   static unsigned int (*real)(void *, void *);

   if (!real)
      real = (unsigned int (*)(void *, void *))vradeon_next_in("eglSwapBuffers", "libEGL.so.1");
   unsigned int ret = real(dpy, surface);
   vradeon_frame();
   return ret;
}

PUBLIC void
SDL_GL_SwapWindow(void *window)
{
   static void (*real)(void *);

   if (!real)
      real = (void (*)(void *))vradeon_next("SDL_GL_SwapWindow");
   real(window);
   vradeon_frame();
}

/* SDL's 2D renderer presents with SDL_GL_SwapWindow() inside SDL, not through the program's
 * links: its frames are the program's SDL_RenderPresent() calls (once each, the inner swap
 * being invisible to us). */
PUBLIC void
SDL_RenderPresent(void *renderer)
{
   static void (*real)(void *);

   if (!real)
      real = (void (*)(void *))vradeon_next("SDL_RenderPresent");
   real(renderer);
   vradeon_frame();
}

PUBLIC bool
waffle_window_swap_buffers(void *window)
{
   static bool (*real)(void *);

   if (!real)
      real = (bool (*)(void *))vradeon_next("waffle_window_swap_buffers");
   bool ret = real(window);
   vradeon_frame();
   return ret;
}
