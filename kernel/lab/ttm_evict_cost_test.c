// SPDX-License-Identifier: GPL-2.0 AND MIT
/*
 * vramlab lab tool, not part of the mailed series: what one failed VRAM
 * allocation costs in time, with TTM's walk and with window eviction, and
 * (on 7.2) what a driver-side window costs to read from TTM's LRU.
 *
 * `make -C kernel evict-cost` (6.12) and `evict-cost-7.2` copy this file
 * into two trees, the base (built with -DTTM_EVICT_COST_NO_WINDOW) and the
 * series, and run it under UML and as an x86_64 kernel under
 * qemu-system-x86_64 with a production-like config (no lockdep, no KASAN).
 * It asserts only that the runs did what they were set up to do; the times
 * are printed for kernel/lab/evict-cost.py.  The script defines
 * TTM_EVICT_COST_BO_FINI where TTM has ttm_bo_fini() (7.2) and
 * TTM_EVICT_COST_LRU_CURSOR where it exports the drivers' LRU cursor (7.2),
 * and TTM_EVICT_COST_ORDER where the range manager takes a driver's order
 * (ttm_range_man_set_evict_order(), 7.2's radeon.evict_predict), and
 * TTM_EVICT_COST_ESCALATE where that order may escalate a bounded scan,
 * and TTM_EVICT_COST_REPACK where it may let the evictor's own BOs in
 * (ttm_range_evict_order.repack, 7.2's radeon.evict_repack).
 *
 * Each round lays out fillers of random sizes bottom-up in a VRAM range
 * manager until it is full, orders its LRU list randomly (every filler is
 * moved to the tail in a random permutation), and times one
 * ttm_bo_validate() of a BO that does not fit.  Evicted fillers go to a TT
 * mock manager, copied by ttm_bo_move_memcpy() as the KUnit device does.
 * In the "pinned" layouts every fourth filler is pinned, so that no window
 * can ever hold the BO: the walk evicts everything in vain and the scan
 * visits every LRU entry, its worst case.
 *
 * The "ordered" cases scan in a driver's order: a key per candidate that
 * does what radeon's does (radeon_evict_key() with radeon.evict_unused: an
 * out-of-line type check, the device's clock read through a pointer, the
 * BO's 40-byte reuse record read field by field, the never-named test, the
 * predicted distance's branches and a 64-bit division by the size's root),
 * on records drawn at random per filler, every entry up to the bound
 * visited before the drm_mm scan, and the candidates sorted.  An
 * "escalating" case goes on to 4096 entries where its bound found no
 * window, as radeon's order does: in the pinned layouts every scan does,
 * its worst case.
 *
 * The "own" cases hold some fillers with the evictor's ww ticket, as a
 * submission holds its other BOs while it validates one: no scan may take
 * them.  With "repack" the order lets each of them in (the tests
 * radeon_evict_repack_own() makes), so a scan that saw every entry and
 * found no window runs once more over the same entries: in a pinned layout
 * that second pass finds nothing either, the most a repack adds under the
 * locks; in the "own-256" layout (every other filler held) only the second
 * pass finds a window, and the held fillers in it are evicted.
 *
 * The second family (ttm_evict_cost_a1, 7.2 only) lays out the same rounds
 * and times design A1's first half: a driver walking VRAM's LRU through
 * TTM's exported ttm_bo_lru_cursor, trylock only and without a ticket,
 * copying each BO's resource->start and ->size into a preallocated array,
 * which is what a driver needs to compute a window itself.
 */
#include <linux/atomic.h>
#include <linux/dma-resv.h>
#include <linux/math.h>
#include <linux/math64.h>
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
	/* The scan in a driver's order (ttm_range_man_set_evict_order()) */
	bool ordered;
	/* With it, escalating to TTM_RANGE_EVICT_ORDER_MAX entries */
	bool escalating;
	/* Every own-th filler (index % own == 1) held with the evictor's ticket */
	u8 own;
	/* The order's repack callback, letting every held filler in */
	bool repack;
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
	{ "nofit-64",	 32768, 8, 64,  true,  0,     -ENOMEM },
	{ "nofit-64",	 32768, 8, 64,  true,  65536, -ENOMEM },
	{ "fit-256",	 8192, 15, 256, false, 1024,  0,       true },
	{ "nofit-64",	 8192, 8,  64,  true,  1024,  -ENOMEM, true },
	/* TTM_RANGE_EVICT_ORDER_MAX: an ordered scan visits at most 4096 entries */
	{ "nofit-64",	 8192, 8,  64,  true,  4096,  -ENOMEM, true },
	/*
	 * radeon's bound, escalating to 4096 where it holds no window: in the
	 * 94 MiB layout (about 4000 LRU entries) the escalated scan visits
	 * nearly all of its bound, the most an ordered decision holds the
	 * locks; in the 128 MiB one it reaches the bound, and TTM walks
	 */
	{ "fit-256",	 8192, 15, 256, false, 1024,  0,       true, true },
	{ "nofit-64",	 8192, 8,  64,  true,  1024,  -ENOMEM, true, true },
	{ "nofit-64",	 24000, 8, 64,  true,  1024,  -ENOMEM, true, true },
	{ "nofit-64",	 32768, 8, 64,  true,  1024,  -ENOMEM, true, true },
	/*
	 * radeon.evict_repack: a quarter of the fillers held by the evictor's
	 * submission beside the pinned quarter.  Without the callback one
	 * escalated scan; with it a second pass over every entry, which the
	 * pinned fillers still keep from a window
	 */
	{ "nofit-64",	 8192, 8,  64,  true,  1024,  -ENOMEM, true, true, 4 },
	{ "nofit-64",	 8192, 8,  64,  true,  1024,  -ENOMEM, true, true, 4, true },
	{ "nofit-64",	 24000, 8, 64,  true,  1024,  -ENOMEM, true, true, 4 },
	{ "nofit-64",	 24000, 8, 64,  true,  1024,  -ENOMEM, true, true, 4, true },
	/* Every other filler held: only the repack's pass finds a window */
	{ "own-256",	 8192, 15, 256, false, 1024,  -ENOMEM, true, true, 2 },
	{ "own-256",	 8192, 15, 256, false, 1024,  0,       true, true, 2, true },
};

/*
 * A filler with what radeon keeps per BO for radeon.evict_predict (struct
 * radeon_bo's reuse record, after its TTM object as there) and the device
 * whose clock the key reads
 */
struct cost_reuse {
	u64 last;
	u32 period, recent, uses, root, brief, gap;
	u16 run, burst;
	u8 gaps, trust;
};

struct cost_bo {
	struct ttm_buffer_object tbo;
	atomic64_t *clock;
	/* radeon_bo.evict_repack, and the copy ring's ready flag */
	bool repack;
	const bool *copy_ready;
	struct cost_reuse reuse;
};

static atomic64_t cost_clock = ATOMIC64_INIT(1 << 20);
static bool cost_copy_ready = true;

static void cost_bo_destroy(struct ttm_buffer_object *bo)
{
	dummy_ttm_bo_destroy(bo);
}

/*
 * A plausible record for a filler of @pages: a tenth never named (some
 * past radeon.evict_unused), the rest named 1-15 times, intervals up to
 * 512 submissions, bursts and gaps in every state, so that the key's
 * branches go every way
 */
static void cost_reuse_draw(struct cost_reuse *r, u32 pages,
			    struct rnd_state *rnd)
{
	u64 now = atomic64_read(&cost_clock);
	u32 brief = 1 + prandom_u32_state(rnd) % 64;

	r->uses = prandom_u32_state(rnd) % 10 ? 1 + prandom_u32_state(rnd) % 15 : 0;
	r->last = now - prandom_u32_state(rnd) % 4096;
	r->period = r->uses > 1 ? 1 + prandom_u32_state(rnd) % 512 : 0;
	r->recent = r->period ? 1 + prandom_u32_state(rnd) % 512 : 0;
	r->brief = r->uses > 1 ? brief : 0;
	r->gap = r->uses > 3 ? 4 * brief + prandom_u32_state(rnd) % 1024 : 0;
	r->run = r->uses ? 1 + prandom_u32_state(rnd) % 8 : 0;
	r->burst = prandom_u32_state(rnd) % 128;
	r->gaps = r->gap ? prandom_u32_state(rnd) % 3 : 0;
	r->trust = prandom_u32_state(rnd) % 4;
	r->root = int_sqrt64((u64)pages << 16);
}

#ifdef TTM_EVICT_COST_ORDER
/* radeon.evict_unused (rdev->evict_unused) as docs/window-predict.md measures it */
static u32 cost_unused = 1024;

/* radeon_ttm_bo_is_radeon_bo() is out of line, in another file */
static noinline bool cost_is_filler(struct ttm_buffer_object *bo)
{
	return bo->destroy == &cost_bo_destroy;
}

/*
 * radeon_evict_key() of patch 7, with its helpers' tests and arithmetic:
 * what the ordered scan pays per candidate.  The constants are patch 6's
 * RADEON_REUSE_REGIME (64), _GAPS (2), _GAP_TRUST (1), _TRUSTED (3) and
 * _GAP_RATIO (4); radeon.h is private to radeon, so the record is copied.
 */
static u64 cost_key(struct ttm_buffer_object *tbo)
{
	const struct cost_bo *bo = container_of(tbo, struct cost_bo, tbo);
	const struct cost_reuse *p = &bo->reuse;
	struct cost_reuse r;
	u64 now, idle, per, d;
	bool burst_over;

	if (!cost_is_filler(tbo) || tbo->deleted)
		return U64_MAX;
	now = atomic64_read(bo->clock);
	r.last = READ_ONCE(p->last);
	r.period = READ_ONCE(p->period);
	r.recent = READ_ONCE(p->recent);
	r.uses = READ_ONCE(p->uses);
	r.root = p->root;
	r.brief = READ_ONCE(p->brief);
	r.gap = READ_ONCE(p->gap);
	r.run = READ_ONCE(p->run);
	r.burst = READ_ONCE(p->burst);
	r.gaps = READ_ONCE(p->gaps);
	r.trust = READ_ONCE(p->trust);
	if (!r.uses && now >= r.last + READ_ONCE(cost_unused))
		return U64_MAX;
	idle = now > r.last ? now - r.last : 0;
	per = (u64)r.recent * 64 < r.period ? r.recent : r.period;
	burst_over = r.gaps >= 2 && r.run * 16 + 8 >= r.burst;
	if (r.trust >= 1 && burst_over && idle <= r.gap)
		d = r.last + r.gap - now;
	else if (r.uses < 3 || !per)
		d = idle;
	else if (idle > per)
		d = r.gaps >= 2 && idle > 4ULL * r.brief && idle <= r.gap ?
		    r.last + r.gap - now : idle;
	else
		d = r.last + per - now;
	return now + div64_u64(d * 4096, max_t(u32, r.root, 1));
}

static const struct ttm_range_evict_order cost_order = { .key = cost_key };
#ifdef TTM_EVICT_COST_ESCALATE
static const struct ttm_range_evict_order cost_order_escalating = {
	.key = cost_key,
	.escalate = TTM_RANGE_EVICT_ORDER_MAX,
};
#endif
#ifdef TTM_EVICT_COST_REPACK
/*
 * radeon_evict_repack_own(): both BOs radeon's and marked, and the copy
 * ring ready.  The evictor here is not a filler, so its half is a pointer
 * test; the held filler's type, mark and device are read as radeon's are.
 */
static bool cost_repack(struct ttm_buffer_object *tbo,
			struct ttm_buffer_object *own)
{
	const struct cost_bo *o = container_of(own, struct cost_bo, tbo);

	return tbo && cost_is_filler(own) && READ_ONCE(o->repack) &&
	       READ_ONCE(*o->copy_ready);
}

static const struct ttm_range_evict_order cost_order_repacking = {
	.key = cost_key,
	.escalate = TTM_RANGE_EVICT_ORDER_MAX,
	.repack = cost_repack,
};
#endif
#endif

static void ttm_evict_cost_desc(const struct ttm_evict_cost_case *t,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s vram=%u window=%u%s%s%s%s",
		 t->name, t->vram, t->window, t->ordered ? " ordered" : "",
		 t->escalating ? " escalating" : "", t->own ? " own" : "",
		 t->repack ? " repack" : "");
}

KUNIT_ARRAY_PARAM(ttm_evict_cost, ttm_evict_cost_cases, ttm_evict_cost_desc);

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void cost_bo_fini(struct ttm_buffer_object *bo)
{
#ifdef TTM_EVICT_COST_BO_FINI
	ttm_bo_fini(bo);
#else
	ttm_bo_put(bo);
#endif
}

static struct ttm_buffer_object *
cost_bo(struct kunit *test, u32 pages, struct ttm_placement *placement,
	struct rnd_state *reuse_rnd)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct cost_bo *bo;
	int err;

	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	bo->clock = &cost_clock;
	bo->copy_ready = &cost_copy_ready;
	cost_reuse_draw(&bo->reuse, pages, reuse_rnd);
	drm_gem_private_object_init(priv->drm, &bo->tbo.base,
				    (size_t)pages * PAGE_SIZE);
	err = ttm_bo_init_reserved(priv->ttm_dev, &bo->tbo, ttm_bo_type_device,
				   placement, 1, &ctx, NULL, NULL,
				   &cost_bo_destroy);
	KUNIT_ASSERT_EQ(test, err, 0);
	return &bo->tbo;
}

/* A full VRAM manager in random LRU order */
struct cost_layout {
	struct ttm_placement *placement;
	struct ttm_buffer_object **fillers;
	/* Fillers, and those on VRAM's LRU (the unpinned ones) */
	u32 n, lru;
	/* Their pages on the LRU */
	u64 lru_pages;
};

static void cost_layout_init(struct kunit *test,
			     const struct ttm_evict_cost_case *c,
			     struct rnd_state *rnd, struct cost_layout *l)
{
	struct ttm_test_devices *priv = test->priv;
	struct rnd_state reuse_rnd;
	struct ttm_place *place;
	u32 used = 0, i, *perm;
	int err;

	memset(l, 0, sizeof(*l));
	/* Apart from @rnd: the layouts stay those of the runs before the records */
	prandom_seed_state(&reuse_rnd, 0x72657573ULL + c->vram);
	err = ttm_range_man_init(priv->ttm_dev, TTM_PL_VRAM, true, c->vram);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = ttm_mock_manager_init(priv->ttm_dev, TTM_PL_TT,
				    (u64)2 * c->vram * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, err, 0);
#ifdef TTM_EVICT_COST_ORDER
	if (c->ordered)
		KUNIT_ASSERT_EQ(test,
				ttm_range_man_set_evict_order(priv->ttm_dev,
							      TTM_PL_VRAM,
							      c->window,
#ifdef TTM_EVICT_COST_REPACK
							      c->repack ?
							      &cost_order_repacking :
#endif
#ifdef TTM_EVICT_COST_ESCALATE
							      c->escalating ?
							      &cost_order_escalating :
#endif
							      &cost_order), 0);
	else
#endif
#ifndef TTM_EVICT_COST_NO_WINDOW
	KUNIT_ASSERT_EQ(test, ttm_range_man_set_evict_window(priv->ttm_dev,
							     TTM_PL_VRAM,
							     c->window), 0);
#endif

	place = ttm_place_kunit_init(test, TTM_PL_VRAM, 0);
	l->placement = kunit_kzalloc(test, sizeof(*l->placement), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l->placement);
	l->placement->num_placement = 1;
	l->placement->placement = place;

	l->fillers = kvcalloc(c->vram, sizeof(*l->fillers), GFP_KERNEL);
	perm = kvcalloc(c->vram, sizeof(*perm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l->fillers);
	KUNIT_ASSERT_NOT_NULL(test, perm);

	while (used < c->vram) {
		u32 pages = 1 + prandom_u32_state(rnd) % c->max_pages;
		struct ttm_buffer_object *f;

		pages = min(pages, c->vram - used);
		f = cost_bo(test, pages, l->placement, &reuse_rnd);
		KUNIT_ASSERT_EQ(test, f->resource->start, (u64)used);
		if (c->pinned && l->n % 4 == 3) {
			ttm_bo_pin(f);
		} else {
			container_of(f, struct cost_bo, tbo)->repack =
				c->own && l->n % c->own == 1;
			l->lru++;
			l->lru_pages += pages;
		}
		ttm_bo_unreserve(f);
		l->fillers[l->n++] = f;
		used += pages;
	}
	/* Fisher-Yates, then each unpinned filler to the LRU tail in turn */
	for (i = 0; i < l->n; i++)
		perm[i] = i;
	for (i = l->n - 1; i > 0; i--)
		swap(perm[i], perm[prandom_u32_state(rnd) % (i + 1)]);
	for (i = 0; i < l->n; i++) {
		struct ttm_buffer_object *f = l->fillers[perm[i]];

		dma_resv_lock(f->base.resv, NULL);
		ttm_bo_unreserve(f);
	}
	kvfree(perm);
}

static void cost_layout_fini(struct kunit *test, struct cost_layout *l)
{
	struct ttm_test_devices *priv = test->priv;
	u32 i;

	for (i = 0; i < l->n; i++) {
		struct ttm_buffer_object *f = l->fillers[i];

		if (f->pin_count) {
			dma_resv_lock(f->base.resv, NULL);
			ttm_bo_unpin(f);
			dma_resv_unlock(f->base.resv);
		}
		cost_bo_fini(f);
	}
	kvfree(l->fillers);
	ttm_range_man_fini(priv->ttm_dev, TTM_PL_VRAM);
	ttm_mock_manager_fini(priv->ttm_dev, TTM_PL_TT);
}

static bool cost_held(const struct ttm_evict_cost_case *c,
		      struct ttm_buffer_object *f)
{
	return c->own && container_of(f, struct cost_bo, tbo)->repack;
}

/*
 * One round: lay out, shuffle the LRU, time the validate; returns ns.  In
 * the "own" cases the evictor and the held fillers are reserved with one
 * ticket before the clock starts, as radeon_bo_list_validate() holds a
 * submission's list
 */
static u64 cost_round(struct kunit *test, const struct ttm_evict_cost_case *c,
		      struct rnd_state *rnd, u64 *evicted, u32 *fillers,
		      u32 *entries)
{
	struct ttm_test_devices *priv = test->priv;
	struct ttm_operation_ctx ctx = { };
	struct ttm_buffer_object *bo;
	struct ww_acquire_ctx ticket;
	struct cost_layout l;
	u32 i, own_evicted = 0;
	u64 t0, ns;
	int err;

	cost_layout_init(test, c, rnd, &l);

	bo = ttm_bo_kunit_init(test, priv, (size_t)c->pages * PAGE_SIZE, NULL);
	ww_acquire_init(&ticket, &reservation_ww_class);
	/* Nobody else locks: no -EDEADLK; no ASSERT while the ticket holds locks */
	KUNIT_EXPECT_EQ(test, dma_resv_lock(bo->base.resv, c->own ? &ticket : NULL), 0);
	for (i = 0; i < l.n; i++)
		if (cost_held(c, l.fillers[i]))
			KUNIT_EXPECT_EQ(test,
					dma_resv_lock(l.fillers[i]->base.resv, &ticket), 0);
	ww_acquire_done(&ticket);
	t0 = ktime_get_ns();
	err = ttm_bo_validate(bo, l.placement, &ctx);
	ns = ktime_get_ns() - t0;
	for (i = l.n; i--;)
		if (cost_held(c, l.fillers[i]))
			dma_resv_unlock(l.fillers[i]->base.resv);
	dma_resv_unlock(bo->base.resv);
	ww_acquire_fini(&ticket);
	KUNIT_EXPECT_EQ(test, err, c->err);

	*evicted = 0;
	for (i = 0; i < l.n; i++)
		if (l.fillers[i]->resource->mem_type != TTM_PL_VRAM) {
			(*evicted)++;
			own_evicted += cost_held(c, l.fillers[i]);
		}
	*fillers = l.n;
	*entries = l.lru;
#ifdef TTM_EVICT_COST_REPACK
	if (c->own) {
		struct ttm_range_evict_window_stats stats;

		/* One repack per round with the callback, and only then held fillers go */
		KUNIT_EXPECT_EQ(test,
				ttm_range_man_evict_window_stats(priv->ttm_dev,
								 TTM_PL_VRAM,
								 &stats), 0);
		KUNIT_EXPECT_EQ(test, stats.repacked, c->repack ? 1 : 0);
		if (c->repack && !c->err)
			KUNIT_EXPECT_GT(test, own_evicted, 0U);
		else
			KUNIT_EXPECT_EQ(test, *evicted, 0);
	}
#endif

	cost_bo_fini(bo);
	cost_layout_fini(test, &l);
	return ns;
}

static void ttm_evict_cost(struct kunit *test)
{
	const struct ttm_evict_cost_case *c = test->param_value;
	u64 ns[COST_ROUNDS], ps[COST_ROUNDS], evicted[COST_ROUNDS];
	u64 entries[COST_ROUNDS];
	u32 fillers = 0, lru = 0;
	struct rnd_state rnd;
	unsigned int r;

#ifdef TTM_EVICT_COST_NO_WINDOW
	if (c->window)
		kunit_skip(test, "no window eviction in this kernel");
#endif
#ifndef TTM_EVICT_COST_ORDER
	if (c->ordered)
		kunit_skip(test, "no driver order for the scan in this kernel");
#endif
#ifndef TTM_EVICT_COST_ESCALATE
	if (c->escalating)
		kunit_skip(test, "no escalation of an ordered scan in this kernel");
#endif
#ifndef TTM_EVICT_COST_REPACK
	if (c->own)
		kunit_skip(test, "no repack of an ordered scan in this kernel");
#endif
	/* The same layouts for every mode: one seed per case */
	prandom_seed_state(&rnd, 0x7672616dULL + c->vram + c->pages);
	for (r = 0; r < COST_ROUNDS; r++) {
		ns[r] = cost_round(test, c, &rnd, &evicted[r], &fillers, &lru);
		entries[r] = lru;
		ps[r] = lru ? div_u64(ns[r] * 1000, lru) : 0;
	}

	/* A window never evicts what no window can use */
	if (c->pinned && c->window >= fillers)
		for (r = 0; r < COST_ROUNDS; r++)
			KUNIT_EXPECT_EQ(test, evicted[r], 0);
	sort(ns, COST_ROUNDS, sizeof(ns[0]), cmp_u64, NULL);
	sort(ps, COST_ROUNDS, sizeof(ps[0]), cmp_u64, NULL);
	sort(evicted, COST_ROUNDS, sizeof(evicted[0]), cmp_u64, NULL);
	sort(entries, COST_ROUNDS, sizeof(entries[0]), cmp_u64, NULL);
	kunit_info(test,
		   "evict-cost case=%s vram=%u window=%u%s%s%s%s fillers=%u evicted=%llu ns_min=%llu ns_median=%llu ns_max=%llu entries=%llu ps_per_entry=%llu\n",
		   c->name, c->vram, c->window, c->ordered ? " ordered" : "",
		   c->escalating ? " escalating" : "", c->own ? " own" : "",
		   c->repack ? " repack" : "", fillers,
		   evicted[COST_ROUNDS / 2], ns[0], ns[COST_ROUNDS / 2],
		   ns[COST_ROUNDS - 1], entries[COST_ROUNDS / 2],
		   ps[COST_ROUNDS / 2]);
}

#ifdef TTM_EVICT_COST_LRU_CURSOR
/* The layouts of the validate cases of the same name, VRAM and BO size */
static const struct ttm_evict_cost_case ttm_evict_cost_a1_cases[] = {
	{ "fit-256",	 8192, 15, 256, false, 0, 0 },
	{ "nofit-64",	 8192, 8,  64,  true,  0, 0 },
	{ "nofit-64",	 32768, 8, 64,  true,  0, 0 },
};

static void ttm_evict_cost_a1_desc(const struct ttm_evict_cost_case *t,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s vram=%u lru cursor",
		 t->name, t->vram);
}

KUNIT_ARRAY_PARAM(ttm_evict_cost_a1, ttm_evict_cost_a1_cases,
		  ttm_evict_cost_a1_desc);

/* What a driver reads to compute a window: each LRU entry's span */
struct cost_span {
	u64 start;
	u64 size;
};

/*
 * Each step of the cursor takes lru_lock, trylocks and references the next
 * BO and drops lru_lock; the body runs with the BO reserved and no TTM
 * lock held; the next step unlocks and puts it.  Returns ns, or 0 with
 * *err set when the cursor ended on an error.
 */
static u64 cost_a1_walk(struct ttm_resource_manager *man,
			struct cost_span *spans, u32 max, u32 *entries,
			int *err)
{
	struct ttm_operation_ctx ctx = { };
	struct ttm_lru_walk_arg arg = {
		.ctx = &ctx,
		.ticket = NULL,
		.trylock_only = true,
	};
	struct ttm_bo_lru_cursor curs;
	struct ttm_buffer_object *bo;
	u64 t0, ns;
	u32 n = 0;

	t0 = ktime_get_ns();
	ttm_bo_lru_for_each_reserved_guarded(&curs, man, &arg, bo) {
		if (n < max) {
			spans[n].start = bo->resource->start;
			spans[n].size = bo->resource->size;
		}
		n++;
	}
	ns = ktime_get_ns() - t0;
	*entries = n;
	*err = IS_ERR(bo) ? PTR_ERR(bo) : 0;
	return *err ? 0 : ns;
}

static void ttm_evict_cost_a1(struct kunit *test)
{
	const struct ttm_evict_cost_case *c = test->param_value;
	struct ttm_test_devices *priv = test->priv;
	u64 ns[COST_ROUNDS], ps[COST_ROUNDS], entries[COST_ROUNDS];
	struct ttm_resource_manager *man;
	struct cost_span *spans;
	struct cost_layout l;
	struct rnd_state rnd;
	unsigned int r;
	u32 fillers = 0;

	spans = kvcalloc(c->vram, sizeof(*spans), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spans);
	prandom_seed_state(&rnd, 0x7672616dULL + c->vram + c->pages);
	for (r = 0; r < COST_ROUNDS; r++) {
		u64 bytes = 0;
		u32 n, i;
		int err;

		cost_layout_init(test, c, &rnd, &l);
		man = ttm_manager_type(priv->ttm_dev, TTM_PL_VRAM);
		ns[r] = cost_a1_walk(man, spans, c->vram, &n, &err);
		KUNIT_EXPECT_EQ(test, err, 0);
		/* Every unpinned filler seen once, each with its span */
		KUNIT_EXPECT_EQ(test, n, l.lru);
		for (i = 0; i < min(n, c->vram); i++)
			bytes += spans[i].size;
		KUNIT_EXPECT_EQ(test, bytes, l.lru_pages * PAGE_SIZE);
		entries[r] = n;
		ps[r] = n ? div_u64(ns[r] * 1000, n) : 0;
		fillers = l.n;
		cost_layout_fini(test, &l);
	}
	kvfree(spans);

	sort(ns, COST_ROUNDS, sizeof(ns[0]), cmp_u64, NULL);
	sort(ps, COST_ROUNDS, sizeof(ps[0]), cmp_u64, NULL);
	sort(entries, COST_ROUNDS, sizeof(entries[0]), cmp_u64, NULL);
	kunit_info(test,
		   "evict-cost-a1 case=%s vram=%u fillers=%u entries=%llu ns_min=%llu ns_median=%llu ns_max=%llu ps_per_entry=%llu\n",
		   c->name, c->vram, fillers, entries[COST_ROUNDS / 2],
		   ns[0], ns[COST_ROUNDS / 2], ns[COST_ROUNDS - 1],
		   ps[COST_ROUNDS / 2]);
}
#endif

static struct kunit_case ttm_evict_cost_test_cases[] = {
	KUNIT_CASE_PARAM_ATTR(ttm_evict_cost, ttm_evict_cost_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
#ifdef TTM_EVICT_COST_LRU_CURSOR
	KUNIT_CASE_PARAM_ATTR(ttm_evict_cost_a1, ttm_evict_cost_a1_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
#endif
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
