// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * vramlab lab tool, not part of the mailed series: what one failed VRAM
 * allocation costs in time, with TTM's walk and with window eviction.
 *
 * `make -C kernel evict-cost` copies this file into two x86_64 trees, the
 * unpatched base (built with -DTTM_EVICT_COST_NO_WINDOW) and the series,
 * and runs it under qemu-system-x86_64 with a production-like config (no
 * lockdep, no KASAN).  It asserts only that the runs did what they were set
 * up to do; the times are printed for kernel/lab/evict-cost.py.
 *
 * Each round lays out fillers of random sizes bottom-up in a VRAM range
 * manager until it is full, orders its LRU list randomly (every filler is
 * moved to the tail in a random permutation), and times one
 * ttm_bo_validate() of a BO that does not fit.  Evicted fillers go to a TT
 * mock manager, copied by ttm_bo_move_memcpy() as the KUnit device does.
 * In the "pinned" layouts every fourth filler is pinned, so that no window
 * can ever hold the BO: the walk evicts everything in vain and the scan
 * considers every candidate, its worst case.
 */
#include <linux/dma-resv.h>
#include <linux/prandom.h>
#include <linux/sort.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_range_manager.h>
#include <drm/ttm/ttm_resource.h>

#include "ttm_kunit_helpers.h"
#include "ttm_mock_manager.h"

#define COST_ROUNDS	21

struct ttm_evict_cost_case {
	const char *name;
	/* VRAM in pages, filler sizes 1..max_pages, the BO's pages */
	u32 vram, max_pages, pages;
	/* Every fourth filler pinned: no window exists */
	bool pinned;
	/* Window scan bound; 0 = the walk */
	unsigned int window;
	int err;
};

static const struct ttm_evict_cost_case ttm_evict_cost_cases[] = {
	{ "fit-16",	 8192, 15, 16,  false, 0,     0 },
	{ "fit-16",	 8192, 15, 16,  false, 1024,  0 },
	{ "fit-256",	 8192, 15, 256, false, 0,     0 },
	{ "fit-256",	 8192, 15, 256, false, 64,    0 },
	{ "fit-256",	 8192, 15, 256, false, 1024,  0 },
	{ "fit-256",	 8192, 15, 256, false, 65536, 0 },
	{ "nofit-64",	 8192, 8,  64,  true,  0,     -ENOMEM },
	{ "nofit-64",	 8192, 8,  64,  true,  64,    -ENOMEM },
	{ "nofit-64",	 8192, 8,  64,  true,  1024,  -ENOMEM },
	{ "nofit-64",	 8192, 8,  64,  true,  65536, -ENOMEM },
	{ "nofit-64",	 32768, 8, 64,  true,  65536, -ENOMEM },
};

static void ttm_evict_cost_desc(const struct ttm_evict_cost_case *t,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s vram=%u window=%u",
		 t->name, t->vram, t->window);
}

KUNIT_ARRAY_PARAM(ttm_evict_cost, ttm_evict_cost_cases, ttm_evict_cost_desc);

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static struct ttm_buffer_object *
cost_bo(struct kunit *test, u32 pages, struct ttm_placement *placement)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;
	int err;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	drm_gem_private_object_init(priv->drm, &bo->base,
				    (size_t)pages * PAGE_SIZE);
	err = ttm_bo_init_reserved(priv->ttm_dev, bo, ttm_bo_type_device,
				   placement, 1, &ctx, NULL, NULL,
				   &dummy_ttm_bo_destroy);
	KUNIT_ASSERT_EQ(test, err, 0);
	return bo;
}

/* One round: lay out, shuffle the LRU, time the validate; returns ns */
static u64 cost_round(struct kunit *test, const struct ttm_evict_cost_case *c,
		      struct rnd_state *rnd, u64 *evicted, u32 *fillers_out)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object **fillers, *bo;
	struct ttm_placement *placement;
	struct ttm_place *place;
	u32 used = 0, n = 0, i, *perm;
	u64 t0, ns;
	int err;

	err = ttm_range_man_init(priv->ttm_dev, TTM_PL_VRAM, true, c->vram);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = ttm_mock_manager_init(priv->ttm_dev, TTM_PL_TT,
				    (u64)2 * c->vram * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, err, 0);
#ifndef TTM_EVICT_COST_NO_WINDOW
	KUNIT_ASSERT_EQ(test, ttm_range_man_set_evict_window(priv->ttm_dev,
							     TTM_PL_VRAM,
							     c->window), 0);
#endif

	place = ttm_place_kunit_init(test, TTM_PL_VRAM, 0);
	placement = kunit_kzalloc(test, sizeof(*placement), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, placement);
	placement->num_placement = 1;
	placement->placement = place;

	fillers = kvcalloc(c->vram, sizeof(*fillers), GFP_KERNEL);
	perm = kvcalloc(c->vram, sizeof(*perm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fillers);
	KUNIT_ASSERT_NOT_NULL(test, perm);

	while (used < c->vram) {
		u32 pages = 1 + prandom_u32_state(rnd) % c->max_pages;

		pages = min(pages, c->vram - used);
		fillers[n] = cost_bo(test, pages, placement);
		KUNIT_ASSERT_EQ(test, fillers[n]->resource->start, (u64)used);
		if (c->pinned && n % 4 == 3)
			ttm_bo_pin(fillers[n]);
		ttm_bo_unreserve(fillers[n]);
		used += pages;
		n++;
	}
	/* Fisher-Yates, then each unpinned filler to the LRU tail in turn */
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--)
		swap(perm[i], perm[prandom_u32_state(rnd) % (i + 1)]);
	for (i = 0; i < n; i++) {
		struct ttm_buffer_object *f = fillers[perm[i]];

		dma_resv_lock(f->base.resv, NULL);
		ttm_bo_unreserve(f);
	}

	bo = ttm_bo_kunit_init(test, priv, (size_t)c->pages * PAGE_SIZE, NULL);
	dma_resv_lock(bo->base.resv, NULL);
	t0 = ktime_get_ns();
	err = ttm_bo_validate(bo, placement, &ctx);
	ns = ktime_get_ns() - t0;
	dma_resv_unlock(bo->base.resv);
	KUNIT_EXPECT_EQ(test, err, c->err);

	*evicted = 0;
	for (i = 0; i < n; i++)
		if (fillers[i]->resource->mem_type != TTM_PL_VRAM)
			(*evicted)++;
	*fillers_out = n;

	ttm_bo_put(bo);
	for (i = 0; i < n; i++) {
		if (fillers[i]->pin_count) {
			dma_resv_lock(fillers[i]->base.resv, NULL);
			ttm_bo_unpin(fillers[i]);
			dma_resv_unlock(fillers[i]->base.resv);
		}
		ttm_bo_put(fillers[i]);
	}
	kvfree(perm);
	kvfree(fillers);
	ttm_range_man_fini(priv->ttm_dev, TTM_PL_VRAM);
	ttm_mock_manager_fini(priv->ttm_dev, TTM_PL_TT);
	return ns;
}

static void ttm_evict_cost(struct kunit *test)
{
	const struct ttm_evict_cost_case *c = test->param_value;
	u64 ns[COST_ROUNDS];
	u64 evicted[COST_ROUNDS];
	u32 fillers = 0;
	struct rnd_state rnd;
	unsigned int r;

#ifdef TTM_EVICT_COST_NO_WINDOW
	if (c->window)
		kunit_skip(test, "no window eviction in this kernel");
#endif
	/* The same layouts for every mode: one seed per case */
	prandom_seed_state(&rnd, 0x7672616dULL + c->vram + c->pages);
	for (r = 0; r < COST_ROUNDS; r++)
		ns[r] = cost_round(test, c, &rnd, &evicted[r], &fillers);

	/* A window never evicts what no window can use */
	if (c->pinned && c->window >= fillers)
		for (r = 0; r < COST_ROUNDS; r++)
			KUNIT_EXPECT_EQ(test, evicted[r], 0);
	sort(ns, COST_ROUNDS, sizeof(ns[0]), cmp_u64, NULL);
	sort(evicted, COST_ROUNDS, sizeof(evicted[0]), cmp_u64, NULL);
	kunit_info(test,
		   "evict-cost case=%s vram=%u window=%u fillers=%u evicted=%llu ns_min=%llu ns_median=%llu ns_max=%llu\n",
		   c->name, c->vram, c->window, fillers,
		   evicted[COST_ROUNDS / 2], ns[0], ns[COST_ROUNDS / 2],
		   ns[COST_ROUNDS - 1]);
}

static struct kunit_case ttm_evict_cost_test_cases[] = {
	KUNIT_CASE_PARAM_ATTR(ttm_evict_cost, ttm_evict_cost_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite ttm_evict_cost_test_suite = {
	.name = "ttm_evict_cost",
	.init = ttm_test_devices_all_init,
	.exit = ttm_test_devices_fini,
	.test_cases = ttm_evict_cost_test_cases,
};

kunit_test_suites(&ttm_evict_cost_test_suite);

MODULE_DESCRIPTION("vramlab lab: the time of one failed VRAM allocation");
MODULE_LICENSE("GPL and additional rights");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
