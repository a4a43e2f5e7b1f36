// The kernel model's figures as JSON: `vramlab sim --model kernel --json` and the virtual
// radeon's counters use the same keys.
#include "kmodel/kernel_json.h"

#include <algorithm>
#include <cmath>

namespace vramlab {

nlohmann::json kernel_result_json(const KernelResult &r)
{
	static const char *const names[] = {"system", "gtt", "vram"};
	nlohmann::json mem;
	for (int i = 0; i < 3; i++)
		mem[names[i]] = {{"evictions", r.mem[i].evictions},
		                 {"evicted_bytes", r.mem[i].evicted_bytes},
		                 {"moves_in", r.mem[i].moves_in},
		                 {"bytes_in", r.mem[i].bytes_in},
		                 {"moves_out", r.mem[i].moves_out},
		                 {"bytes_out", r.mem[i].bytes_out}};
	nlohmann::json j = {{"evictions", r.evictions()},
	                    {"evicted_bytes", r.mem[MemVram].evicted_bytes},
	                    {"bytes_to_vram", r.bytes_to_vram()},
	                    {"bytes_from_vram", r.bytes_from_vram()},
	                    {"moves", r.moves()},
	                    {"threshold_cs", r.threshold_cs},
	                    {"threshold_bos", r.threshold_bos},
	                    {"gtt_accesses", r.gtt_accesses},
	                    {"gtt_access_bytes", r.gtt_access_bytes},
	                    {"transfer_ms", r.transfer_us / 1000.0},
	                    {"cs", r.cs},
	                    {"cs_rejected", r.cs_rejected},
	                    {"creates", r.creates},
	                    {"creates_refused", r.creates_refused},
	                    {"cpu_maps", r.cpu_maps},
	                    {"destroys", r.destroys},
	                    {"frames", r.frames},
	                    {"stamp", r.stamp},
	                    {"digest", r.digest},
	                    {"mem", mem}};
	// what the eviction rules did (zero for stock): where a rule's figures come from
	j["rules"] = {{"evict_allocs", r.evict_allocs},
	              {"evict_allocs_too_big", r.evict_allocs_too_big},
	              {"impossible_noevict", r.impossible_noevict},
	              {"windows", r.windows},
	              {"window_fallbacks", r.window_fallbacks},
	              {"window_escalations", r.window_escalations},
	              {"window_repack_scans", r.window_repack_scans},
	              {"window_repacks", r.window_repacks},
	              {"window_nofit", r.window_nofit},
	              {"window_saved_pages", r.window_saved_pages},
	              {"window_cold", r.window_cold},
	              {"window_idle", r.window_idle},
	              {"admit_bypasses", r.admit_bypasses},
	              {"guards", r.guards},
	              {"guard_refusals", r.guard_refusals}};
	if (r.timeline.every)
		j["timeline"] = timeline_json(r.timeline);
	if (r.frames) { // per_frame has frames + 1 entries: the last is after the last FRAME
		uint64_t worst = 0, moves = 0;
		double worst_us = 0;
		for (size_t i = 0; i < r.frames && i < r.per_frame.size(); i++) {
			worst = std::max(worst, r.per_frame[i].bytes);
			worst_us = std::max(worst_us, r.per_frame[i].transfer_us);
			moves += r.per_frame[i].moves;
		}
		j["frame_max_bytes_moved"] = worst;
		j["frame_max_transfer_ms"] = worst_us / 1000.0;
		j["frame_mean_moves"] = double(moves) / double(r.frames);
	}
	return j;
}

nlohmann::json timeline_json(const Timeline &t)
{
	return {{"every", t.every},
	        {"operations", t.ops},
	        {"holes_min", t.holes_min},
	        {"holes_max", t.holes_max},
	        {"swaps", t.swaps}};
}

FrameTimes frame_times(std::vector<double> t)
{
	FrameTimes f;
	if (t.empty())
		return f;
	std::sort(t.begin(), t.end());
	auto rank = [&](double p) { // nearest rank: the smallest value with >= p of them at or below
		size_t k = size_t(std::ceil(p * double(t.size())));
		return t[std::min(t.size(), std::max<size_t>(k, 1)) - 1];
	};
	f.p50_us = rank(0.50);
	f.p95_us = rank(0.95);
	f.p99_us = rank(0.99);
	f.max_us = t.back();
	f.stutter = uint64_t(t.end() - std::upper_bound(t.begin(), t.end(), 2 * f.p50_us));
	return f;
}

uint64_t stutter_against(const std::vector<double> &times_us, double median_us)
{
	return uint64_t(std::count_if(times_us.begin(), times_us.end(),
	                              [&](double t) { return t > 2 * median_us; }));
}

} // namespace vramlab
