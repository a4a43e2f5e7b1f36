// Kernel traces built by hand for the kernel model's tests (test_kernel_model.cc,
// test_kernel_rules.cc).
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "kmodel/kernel_model.h"
#include "trace/event.h"

namespace vramlab {

// A kernel trace built by hand: sizes in KiB, CS as lists of (id, write).
struct Builder {
	uint64_t ms = 0; // each submission's time: ms milliseconds after the last
	KernelTrace t;
	uint32_t create(uint64_t kib, uint8_t domain = DomainVram)
	{
		const uint32_t id = uint32_t(t.size.size());
		t.size.push_back(kib * 1024);
		t.domain.push_back(domain);
		t.prio.push_back(0);
		t.ops.push_back(KernelTrace::pack(KernelTrace::Create, id));
		return id;
	}
	void cs(std::initializer_list<std::pair<uint32_t, bool>> bos,
	        std::vector<uint32_t> scores = {}, uint8_t domain = DomainVram)
	{
		KernelCs c;
		c.first = uint32_t(t.relocs.size());
		c.n = uint32_t(bos.size());
		c.scores = !scores.empty();
		size_t i = 0;
		for (auto [id, w] : bos) {
			CsReloc r;
			r.id = id;
			r.read_domains = w ? 0 : domain;
			r.write_domain = w ? domain : 0;
			r.score = c.scores ? scores[i] : kScoreNeutral;
			t.relocs.push_back(r);
			i++;
		}
		t.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(t.cs.size())));
		t.cs.push_back(c);
		t.cs_us.push_back(now_us);
		now_us += ms * 1000;
	}
	uint64_t now_us = 0;
	// Four 256 KiB BOs, [a][b][c][d] from address 0 (in 1 MiB: VRAM full)
	std::array<uint32_t, 4> four() { return {create(256), create(256), create(256), create(256)}; }
	// Those four, each used by a submission in that order (LRU: a b c d)
	std::array<uint32_t, 4> four_used_in_order()
	{
		const std::array<uint32_t, 4> ids = four();
		for (uint32_t id : ids)
			cs({{id, false}});
		return ids;
	}
	// The clairvoyant window's example (test_kernel_rules.cc, test_labels.cc): those four, a
	// fifth BO e created, then a, b, d, c used in that order; returns {a, b, c, d, e}. In 1 MiB
	// the oracle evicts c (needed last) for e, then e (never used) for c.
	std::array<uint32_t, 5> oracle_example()
	{
		const auto [a, b, c, d] = four_used_in_order();
		const uint32_t e = create(256);
		for (uint32_t id : {a, b, d, c})
			cs({{id, false}});
		return {a, b, c, d, e};
	}
	void destroy(uint32_t id) { t.ops.push_back(KernelTrace::pack(KernelTrace::Destroy, id)); }
	KernelResult run(uint64_t vram_kib, uint32_t topdown = 0, bool key = false,
	                 Stock stock = Stock::V6_12)
	{
		KernelConfig c;
		c.stock = stock;
		c.vram = vram_kib * 1024;
		c.topdown_kib = topdown;
		c.bo_score = key;
		c.check_every = 1;
		return simulate_kernel(t, c);
	}
};

// A configuration of `vram_kib` KiB whose invariants are checked after every operation, with
// window eviction on or off
inline KernelConfig checked_config(uint64_t vram_kib, bool scan = false)
{
	KernelConfig k;
	k.vram = vram_kib * 1024;
	k.scan = scan;
	k.check_every = 1;
	return k;
}

} // namespace vramlab
