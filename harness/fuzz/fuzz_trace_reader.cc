// libFuzzer target: every trace parser (text, bostats1, v2; plain, gzip or zstd), then the
// whole pipeline behind it: stats, the score contract, repair, compaction, a thesis-model replay
// and the kernel model (which reads CS records). v2 files cut short are read up to their last
// FRAME. Bad input must end in a TraceError, never in a crash, a sanitizer report or a hang.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kmodel/ensemble.h"
#include "kmodel/kernel_model.h"
#include "mlp/score_contract.h"
#include "sim/compact.h"
#include "sim/sim.h"
#include "trace/filters.h"
#include "trace/stats.h"

using namespace vramlab;

// Truncated v2 inputs are read up to their last FRAME with a warning: keep stderr quiet (and the
// default handler's memory of what it printed from growing).
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	set_warning_handler([](const std::string &) {});
	return 0;
}

namespace {

// Every event (CS relocations as their ids) and the error that ended the read, if any.
std::string read_all(TraceReader &r, size_t batch)
{
	std::string out;
	auto add = [&](const Event &e) {
		out += std::to_string(int(e.type)) + ' ' + std::to_string(e.id) + ' ' +
		       std::to_string(e.size) + ' ' + std::to_string(e.time_us) + ' ' +
		       std::to_string(e.high_prio) + ' ' + std::to_string(e.domain) + ' ' +
		       std::to_string(e.score);
		for (uint32_t i = 0; i < (e.type == EventType::Cs ? e.nrelocs : 0); i++)
			out += ' ' + std::to_string(e.relocs[i].id);
		out += '\n';
	};
	try {
		if (!batch) {
			for (Event e; r.next(e);)
				add(e);
		} else {
			std::vector<Event> buf(batch);
			for (size_t got; (got = r.next_batch(buf.data(), batch));)
				for (size_t i = 0; i < got; i++)
					add(buf[i]);
		}
	} catch (const TraceError &err) {
		out += std::string("error: ") + err.what();
	}
	return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	try { // batched reads (the thesis model's load path) give what next() gives, errors included
		auto one = open_trace_memory(data, size, "fuzz");
		auto batched = open_trace_memory(data, size, "fuzz");
		if (read_all(*one, 0) != read_all(*batched, size % 300 + 1))
			abort();
		// and through the replay's filters and the CS expansion (load_compact())
		auto open = [=] { return open_trace_memory(data, size, "fuzz"); };
		ReplayReader r1(open, OnDestroyed::Skip, "fuzz"), r2(open, OnDestroyed::Skip, "fuzz");
		CsExpander x1(r1), x2(r2);
		if (read_all(x1, 0) != read_all(x2, size % 7 + 1))
			abort();
	} catch (const TraceError &) {
	}
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
