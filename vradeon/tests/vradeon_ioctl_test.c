/*
 * SPDX-License-Identifier: MIT
 *
 * The virtual radeon's ioctl handlers, called directly (run with LD_PRELOAD of the shim,
 * VRADEON_VRAM_MB=1): GEM_INFO reports the VRAM size, GEM_CREATE fails where the kernel
 * refuses, GEM_MMAP and CS look their handles up, and CS checks its chunks as the series'
 * radeon_cs_parser_init() does. As the series' kernel (VRADEON_BO_SCORES=1) it answers
 * RADEON_INFO_BO_SCORES with 1, and every case of the kernel's own KUnit table (cs_cases[] of
 * drivers/gpu/drm/radeon/tests/radeon_cs_test.c, extracted from the patch into
 * radeon_cs_cases.inc by vradeon/Makefile) gets the kernel's answer; as a stock kernel
 * (VRADEON_BO_SCORES=0) the request fails with -EINVAL and a score chunk of any shape is
 * ignored, as a kernel without the series ignores an unknown chunk, whatever the KMS minor
 * it reports (Linux 7.2's 51 included).
 * Usage: vradeon_ioctl_test MINOR 0|1 (the KMS minor the shim was told, and whether it takes
 * scores). Prints one line per check, then what the shim must have counted ("expect: ..."),
 * which the caller (vradeon/Makefile, tests/check_ioctl_counters.py) compares with the
 * shim's own summary and VRADEON_COUNTERS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <radeon_drm.h>

#ifndef RADEON_CHUNK_ID_BO_SCORES
#define RADEON_CHUNK_ID_BO_SCORES 0x05
#endif
#ifndef RADEON_INFO_BO_SCORES
#define RADEON_INFO_BO_SCORES 0x27
#endif

typedef uint32_t u32;
#include "radeon_cs_cases.inc"

static int fd, failures;
/* What the shim must count: CS accepted, accepted with scores, rejected, with a score chunk
 * ignored (a stock kernel).
 */
static unsigned n_cs, n_scores, n_rejected, n_ignored;

static void
tally(int r, int scored, int ignored)
{
   n_cs += !r;
   n_scores += !r && scored;
   n_ignored += !r && ignored;
   n_rejected += r != 0;
}

static void
check(int ok, const char *what)
{
   printf("%s: %s\n", ok ? "ok" : "FAIL", what);
   failures += !ok;
}

static int
create(uint64_t size, uint32_t domain, uint32_t *handle)
{
   struct drm_radeon_gem_create c = { .size = size, .alignment = 4096, .initial_domain = domain };
   int r = drmCommandWriteRead(fd, DRM_RADEON_GEM_CREATE, &c, sizeof(c));

   *handle = c.handle;
   return r;
}

/* One CS: an IB, the relocations, the ring, and nscore_chunks score chunks of nscores each. */
static int takes_scores;

static int
submit(const uint32_t *handles, unsigned n, int nscore_chunks, unsigned nscores, int reloc_dw_extra)
{
   struct drm_radeon_cs_reloc relocs[8] = { { 0 } };
   uint32_t ib[4] = { 0x80000000, 0x80000000, 0x80000000, 0x80000000 };
   uint32_t ring[2] = { 0, RADEON_CS_RING_GFX };
   uint32_t scores[8] = { 0, 1u << 31, 0xffffffffu, 7, 7, 7, 7, 7 };
   struct drm_radeon_cs_chunk chunks[5];
   uint64_t ptrs[5];
   unsigned k = 0;

   for (unsigned i = 0; i < n; i++) {
      relocs[i].handle = handles[i];
      relocs[i].read_domains = RADEON_GEM_DOMAIN_VRAM;
   }
   chunks[k++] = (struct drm_radeon_cs_chunk){ RADEON_CHUNK_ID_IB, 4, (uintptr_t)ib };
   chunks[k++] = (struct drm_radeon_cs_chunk){
      RADEON_CHUNK_ID_RELOCS, n * sizeof(relocs[0]) / 4 + reloc_dw_extra, (uintptr_t)relocs };
   chunks[k++] = (struct drm_radeon_cs_chunk){ RADEON_CHUNK_ID_FLAGS, 2, (uintptr_t)ring };
   for (int i = 0; i < nscore_chunks; i++)
      chunks[k++] = (struct drm_radeon_cs_chunk){ RADEON_CHUNK_ID_BO_SCORES, nscores,
                                                  (uintptr_t)scores };
   for (unsigned i = 0; i < k; i++)
      ptrs[i] = (uintptr_t)&chunks[i];
   struct drm_radeon_cs cs = { .num_chunks = k, .chunks = (uintptr_t)ptrs };

   int r = drmCommandWriteRead(fd, DRM_RADEON_CS, &cs, sizeof(cs));

   tally(r, nscore_chunks && nscores && takes_scores, nscore_chunks && !takes_scores);
   return r;
}

/* One case of the kernel's table through the CS ioctl, with real data behind each chunk:
 * relocations of the buffers in handles[] (in turn), NOP packets, the GFX ring, scores.
 */
static void
run_kunit_case(const struct cs_case *c, const uint32_t *handles, unsigned nhandles)
{
   uint32_t data[CS_MAX_CHUNKS][CS_MAX_DW];
   struct drm_radeon_cs_chunk chunks[CS_MAX_CHUNKS];
   uint64_t ptrs[CS_MAX_CHUNKS];
   char what[160];

   for (unsigned i = 0; i < c->nchunks; i++) {
      for (unsigned j = 0; j < CS_MAX_DW; j++) {
         switch (c->chunks[i].id) {
         case RADEON_CHUNK_ID_RELOCS: {
            unsigned field = j % 4, k = j / 4;
            data[i][j] = field == 0 ? handles[k % nhandles]
                       : field == 1 ? RADEON_GEM_DOMAIN_VRAM : 0;
            break;
         }
         case RADEON_CHUNK_ID_FLAGS:
            data[i][j] = j == 1 ? RADEON_CS_RING_GFX : 0;
            break;
         case RADEON_CHUNK_ID_BO_SCORES:
            data[i][j] = 0x10000u * j;
            break;
         default: /* IB, CONST_IB: type-2 NOP packets; unknown ids: anything */
            data[i][j] = 0x80000000;
         }
      }
      chunks[i] = (struct drm_radeon_cs_chunk){ c->chunks[i].id, c->chunks[i].length_dw,
                                                (uintptr_t)data[i] };
      ptrs[i] = (uintptr_t)&chunks[i];
   }
   struct drm_radeon_cs cs = { .num_chunks = c->nchunks, .chunks = (uintptr_t)ptrs };
   int r = drmCommandWriteRead(fd, DRM_RADEON_CS, &cs, sizeof(cs));

   tally(r, c->nscores > 0, 0);
   snprintf(what, sizeof(what), "KUnit case \"%s\": %d (the kernel: %d)", c->name, r, c->expect);
   check(r == c->expect, what);
}

int
main(int argc, char **argv)
{
   int minor = argc > 1 ? atoi(argv[1]) : 50;
   uint32_t a, b, c3, z, h[3], value = 0;

   takes_scores = argc > 2 ? atoi(argv[2]) : 1;

   fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
   if (fd < 0) {
      fprintf(stderr, "no render node: run with LD_PRELOAD of the virtual radeon\n");
      return 1;
   }

   drmVersionPtr v = drmGetVersion(fd);
   check(v && !strcmp(v->name, "radeon") && v->version_major == 2 &&
         v->version_minor == minor, "drmGetVersion: radeon 2.<the minor asked for>");
   drmFreeVersion(v);

   struct drm_radeon_info q = { .request = RADEON_INFO_BO_SCORES, .value = (uintptr_t)&value };
   int r = drmCommandWriteRead(fd, DRM_RADEON_INFO, &q, sizeof(q));
   if (takes_scores)
      check(!r && value == 1, "RADEON_INFO_BO_SCORES: 1 (the kernel takes scores)");
   else
      check(r == -EINVAL, "RADEON_INFO_BO_SCORES: -EINVAL (a stock kernel)");

   struct drm_radeon_gem_info info = { 0 };
   check(!drmCommandWriteRead(fd, DRM_RADEON_GEM_INFO, &info, sizeof(info)) &&
         info.vram_size == 1 << 20, "GEM_INFO: the VRAM size is VRADEON_VRAM_MB (1 MiB)");

   check(create(0, RADEON_GEM_DOMAIN_VRAM, &z) == -ENOMEM, "GEM_CREATE of 0 bytes: -ENOMEM");
   check(!create(512 << 10, RADEON_GEM_DOMAIN_VRAM, &a), "GEM_CREATE A, 512 KiB in VRAM");
   check(!create(768 << 10, RADEON_GEM_DOMAIN_VRAM, &b), "GEM_CREATE B, 768 KiB in VRAM (A evicted)");
   check(!create(64 << 10, RADEON_GEM_DOMAIN_GTT, &c3), "GEM_CREATE C, 64 KiB in GTT");

   struct drm_radeon_gem_mmap m = { .handle = 999, .size = 4096 };
   check(drmCommandWriteRead(fd, DRM_RADEON_GEM_MMAP, &m, sizeof(m)) == -ENOENT,
         "GEM_MMAP of an unknown handle: -ENOENT");
   m.handle = a;
   check(!drmCommandWriteRead(fd, DRM_RADEON_GEM_MMAP, &m, sizeof(m)), "GEM_MMAP of A");

   h[0] = a;
   h[1] = 999;
   check(submit(h, 2, 0, 0, 0) == -ENOENT, "CS naming an unknown handle: -ENOENT");
   h[1] = b;
   h[2] = c3;
   check(!submit(h, 2, 0, 0, 1), "CS with a partial relocation and no scores: whole ones kept");
   if (takes_scores) {
      check(submit(h, 2, 1, 1, 0) == -EINVAL, "CS with one score for two relocations: -EINVAL");
      check(submit(h, 2, 2, 2, 0) == -EINVAL, "CS with two score chunks: -EINVAL");
      check(!submit(h, 2, 1, 2, 0), "CS of A and B with their scores");
      for (unsigned i = 0; i < sizeof(cs_cases) / sizeof(cs_cases[0]); i++)
         run_kunit_case(&cs_cases[i], h, 3);
   } else {
      check(!submit(h, 2, 1, 2, 0), "CS with a score chunk to a stock kernel: ignored");
      check(!submit(h, 2, 1, 1, 0), "CS with a malformed score chunk to a stock kernel: ignored");
      check(!submit(h, 2, 2, 2, 0), "CS with two score chunks to a stock kernel: ignored");
      check(!submit(h, 2, 0, 0, 0), "CS of A and B without scores");
   }

   struct drm_gem_close c = { .handle = a };
   check(!drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c), "GEM_CLOSE A");
   c.handle = b;
   check(!drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c), "GEM_CLOSE B");
   c.handle = c3;
   check(!drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c), "GEM_CLOSE C");
   close(fd);
   printf("expect: %u CS (%u with scores, %u rejected, %u with an ignored score chunk)\n",
          n_cs, n_scores, n_rejected, n_ignored);
   return failures ? 1 : 0;
}
