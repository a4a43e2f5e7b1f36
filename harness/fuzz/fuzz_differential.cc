// libFuzzer target: a random small trace from the input bytes, replayed by every policy of both
// models and by the naive references (src/reference); any difference aborts.
#include <cstdio>
#include <cstdlib>

#include "reference/compare.h"
#include "reference/naive.h"

using namespace vramlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static const Mlp mlp = [] {
		Mlp m;
		for (size_t i = 0; i < m.p.size(); i++)
			m.p[i] = float(int(i * 37 % 19) - 9) / 9.0f;
		return m;
	}();
	const uint64_t vram = (uint64_t(data[0]) + 1) << 12;
	const uint32_t window = 1 + data[1] % 16;
	const RandomTraces rt = random_traces(data + 2, size - 2);
	for (const char *p : {"lru", "minmax", "score", "score-age", "gdsf", "minmax+score", "minmax+gdsf"}) {
		SimConfig c;
		c.vram = vram;
		c.threshold = 16384;
		c.mlp = &mlp;
		const std::string d = differ(find_policy(p).run(rt.thesis, c), naive_thesis(rt.thesis, c, p));
		if (!d.empty()) {
			std::fprintf(stderr, "thesis model, %s: %s\n", p, d.c_str());
			std::abort();
		}
	}
	// the series' mechanisms: mode 0 stock (flush for impossible BOs), 1 the walk with the
	// fit rule, 2 window eviction, 3 window + move budget, 4 window (bound 2, cold rule) +
	// budget; the byte after the window picks the budget and cold parameters
	const uint8_t knob = size > 2 ? data[1] >> 4 : 0;
	for (uint32_t topdown : {0u, 16u})
		for (int order = 0; order < 3; order++) // LRU, key, bo->priority
			for (int mode = 0; mode < 5; mode++)
			for (Stock stock : {Stock::V6_12, Stock::V6_14, Stock::V6_14_Fixed}) {
				if (order && stock == Stock::V6_14)
					continue; // refused: key and priority need the tail moves
				const bool key = order == 1;
				KernelConfig c;
				c.stock = stock;
				c.vram = vram;
				c.topdown_kib = topdown;
				c.bo_score = key;
				c.bo_priority = order == 2;
				c.window = window;
				c.flush_for_impossible = mode == 0;
				c.scan = mode >= 2;
				c.scan_max = mode == 4 ? 2 : 1024;
				c.cold_ms = mode == 4 ? knob % 4 : UINT32_MAX;
				c.budget = mode >= 3;
				c.budget_mbps = 1 + knob * 3;
				c.budget_cap_ms = 1 + knob % 5;
				const std::string d =
				        differ(simulate_kernel(rt.kernel, c), naive_kernel(rt.kernel, c));
				if (!d.empty()) {
					std::fprintf(stderr, "kernel model %s, topdown %u order %d mode %d: %s\n",
					             stock_name(stock), topdown, order, mode, d.c_str());
					std::abort();
				}
			}
	return 0;
}
