// libFuzzer target: every trace parser (text, bostats1, v2; plain, gzip or zstd), then the
// whole pipeline behind it: stats, the score contract, repair, compaction, a thesis-model replay
// and the kernel model (which reads CS records). v2 files cut short are read up to their last
// FRAME. Bad input must end in a TraceError, never in a crash, a sanitizer report or a hang.
#include <cstdint>

#include "kmodel/ensemble.h"
#include "kmodel/kernel_model.h"
#include "mlp/score_contract.h"
#include "sim/compact.h"
#include "sim/sim.h"
#include "trace/stats.h"

using namespace vramlab;

// Truncated v2 inputs are read up to their last FRAME with a warning: keep stderr quiet (and the
// default handler's memory of what it printed from growing).
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	set_warning_handler([](const std::string &) {});
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try {
		auto r = open_trace_memory(data, size, "fuzz");
		compute_stats(*r, "fuzz");
	} catch (const TraceError &) {
		return 0;
	}
	try { // the score contract over whatever the trace holds
		static const Mlp mlp = [] {
			Mlp m;
			for (size_t i = 0; i < m.p.size(); i++)
				m.p[i] = float(int(i * 29 % 17) - 8) / 8.0f;
			return m;
		}();
		auto r = open_trace_memory(data, size, "fuzz");
		ScoreTracker t(mlp, 1 << 28, size % 2 ? Refresh::Age : Refresh::Access);
		Event e;
		while (r->next(e))
			track_event(t, e);
	} catch (const TraceError &) {
	}
	try {
		const CompactTrace t = load_compact(
		        [=] { return open_trace_memory(data, size, "fuzz"); }, "fuzz", OnDestroyed::Repair);
		SimConfig c;
		c.vram = 1 << 16;
		c.check_every = 1;
		simulate_lru(t, c);
		simulate_belady(t, c);
	} catch (const TraceError &) {
	}
	try {
		const KernelTrace t = load_kernel_trace(
		        [=] { return open_trace_memory(data, size, "fuzz"); }, "fuzz", OnDestroyed::Repair);
		KernelConfig c;
		c.vram = 1 << 16;
		c.check_every = 1;
		simulate_kernel(t, c);
		c.topdown_kib = 8;
		c.bo_score = true;
		simulate_kernel(t, c);
	} catch (const TraceError &) {
	}
	try { // impossible creates dropped, a board with pinned BOs, a coarser submission period
		const KernelTrace t = with_period(
		        load_kernel_trace([=] { return open_trace_memory(data, size, "fuzz"); }, "fuzz",
		                          {OnDestroyed::Skip, OnImpossible::Skip}),
		        size % 3 + 2);
		KernelConfig c;
		c.vram = 4 << 20; // room for the VGA memory (a quarter at most is pinned)
		c.check_every = 1;
		c.pinned = pinned_for(variations()[size % kMaxEnsemble], c.vram);
		simulate_kernel(t, c);
	} catch (const TraceError &) {
	}
	return 0;
}
