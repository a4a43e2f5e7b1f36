/*
 * C interface of vramlab's kernel model (harness/src/kmodel, docs/kernel-model.md): what
 * radeon on Linux 6.12 with vramlab's series does with buffers under a VRAM limit, driven one
 * ioctl at a time. The virtual radeon (a DRM shim) links it to run real programs through
 * the model live; `vramlab sim --model kernel` replays a trace through the same code.
 *
 * Buffer ids are unique and never reused (a shim numbers GEM objects, not handles).
 * Domains are bits: 1 = VRAM, 2 = GTT, 4 = CPU (the trace format's, not radeon_drm.h's).
 * Functions that can fail return 0 on success and -1 with a message in err otherwise.
 */
#ifndef VRAMLAB_KMODEL_H
#define VRAMLAB_KMODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VRAMLAB_KMODEL_SCORE_NEUTRAL 0xffffffffu
#define VRAMLAB_KMODEL_API __attribute__((visibility("default")))

struct vramlab_kmodel_config {
   uint64_t vram_bytes;    /* radeon.vramlimit, in bytes (whole pages) */
   uint32_t topdown_kib;   /* radeon.topdown_threshold; 0 = off */
   int bo_score;           /* radeon.bo_score: evict by key */
   uint32_t window;        /* radeon.bo_score_window, 1..4096 */
   uint32_t evict_window;  /* radeon.evict_window: window eviction, LRU entries a scan visits (0..1024); 0 = off */
   uint32_t move_budget_mbps; /* radeon.move_budget_mbps: time-based move budget; 0 = off */
   uint32_t move_budget_ms;   /* radeon.move_budget_ms: its cap, 1..10000 (with a budget) */
   /* A cost file (harness/docs/cost-file.md) for the transfer times and so the frame times;
    * NULL or "": the built-in costs (those of harness/costs/default.json). A file that cannot
    * be read or is invalid fails vramlab_kmodel_new() with "FILE: FIELD: what is wrong". */
   const char *cost_file;
   /* radeon.lab_cs_end: the submission path, 0 = Linux 6.12's (LRU moves at the end of a
    * submission), 1 = 6.14+'s (drm_exec: none), 2 = 6.14+'s with vramlab's fix */
   uint32_t lab_cs_end;
   /* A BO larger than VRAM asked for in VRAM: 0 = as the model's policy of this configuration
    * (refused at once with window eviction or the move budget, which need the series' patch
    * 1; every evictable BO evicted first otherwise, as stock TTM does), 1 = refused at once
    * (-E2BIG, the series' patch 1), 2 = every evictable BO evicted first */
   uint32_t too_big;
   /* radeon.evict_predict (Linux 7.2 series): with evict_window, the window scan in the order
    * of each BO's predicted next use; 0 = off, 1 = on */
   uint32_t evict_predict;
   /* radeon.evict_admit: with evict_predict, predicted admission with this cost of a GPU read
    * from GTT against a move of the same bytes, per mille, 1..100000; 0 = off */
   uint32_t evict_admit;
   /* radeon.evict_unused: with evict_predict, a BO that no submission has named in this many
    * submissions since its creation is evicted first, 1..1048576; 0 = off */
   uint32_t evict_unused;
   /* radeon.evict_repack: with evict_predict, a scan that saw the whole LRU and found no window
    * because of the submission's own BOs takes them as candidates too, where the BOs the
    * submission wants in VRAM fit beside the pinned ones; 0 = off, 1 = on */
   uint32_t evict_repack;
};

struct vramlab_kmodel_reloc {
   uint32_t id;
   uint8_t read_domains, write_domain, prio; /* prio: RADEON_RELOC_PRIO_MASK bits, 0..15 */
   uint32_t score;                           /* VRAMLAB_KMODEL_SCORE_NEUTRAL if none */
};

struct vramlab_kmodel_counters {
   uint64_t evictions, evicted_bytes, bytes_to_vram, bytes_from_vram, moves;
   uint64_t cs, cs_rejected, creates, creates_refused, cpu_maps, destroys, frames;
   uint64_t gtt_accesses, threshold_cs;
   double transfer_ms;
};

struct vramlab_kmodel;

VRAMLAB_KMODEL_API struct vramlab_kmodel *
vramlab_kmodel_new(const struct vramlab_kmodel_config *config, char *err, size_t err_size);
VRAMLAB_KMODEL_API void vramlab_kmodel_free(struct vramlab_kmodel *m);

/* 0: created; -1: refused as the kernel would (zero size, no room), the ioctl fails. */
VRAMLAB_KMODEL_API int vramlab_kmodel_create(struct vramlab_kmodel *m, uint32_t id, uint64_t size,
                                             uint8_t domain);
VRAMLAB_KMODEL_API void vramlab_kmodel_submit(struct vramlab_kmodel *m, const struct vramlab_kmodel_reloc *relocs,
                           uint32_t n, int scores);
VRAMLAB_KMODEL_API void vramlab_kmodel_cpu_map(struct vramlab_kmodel *m, uint32_t id);
VRAMLAB_KMODEL_API void vramlab_kmodel_destroy(struct vramlab_kmodel *m, uint32_t id);
/* An end of frame; cpu_us is the CPU time the program spent on it (0 if not measured). */
VRAMLAB_KMODEL_API void vramlab_kmodel_frame(struct vramlab_kmodel *m, double cpu_us);

/* From now on, also write every operation to a vramlab v2.1 trace at path (the kernel's view:
 * one CREATE per GEM object, one CS record per submission with every relocation). meta is
 * "key=value" lines for its header, or NULL. `vramlab sim --model kernel` replays the trace
 * to exactly the figures of this model. The trace is ended by vramlab_kmodel_free().
 */
VRAMLAB_KMODEL_API int vramlab_kmodel_record(struct vramlab_kmodel *m, const char *path,
                                             const char *meta, char *err, size_t err_size);

VRAMLAB_KMODEL_API void vramlab_kmodel_get_counters(struct vramlab_kmodel *m, struct vramlab_kmodel_counters *out);
/* The figures as JSON (the keys of `vramlab sim --model kernel --json`, plus the config
 * and per-frame arrays), written atomically (a temporary file renamed over path).
 */
VRAMLAB_KMODEL_API int vramlab_kmodel_write_json(struct vramlab_kmodel *m, const char *path, char *err,
                              size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
