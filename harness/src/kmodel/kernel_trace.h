// A trace as the kernel model replays it: buffer creates, command submissions (each with its
// buffer list in the order the kernel receives it), CPU maps, destroys and frame ends.
//
// v2.1 traces carry CS records. Traces without them (bostats1, the thesis's text, v2.0) get
// synthetic ones (docs/kernel-model.md, "Traces without command streams"): consecutive GPU
// accesses in the same millisecond are one submission, in trace order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/filters.h"
#include "trace/format.h"

namespace vramlab {

struct KernelCs {
	uint32_t first = 0, n = 0; // relocs[first .. first + n)
	uint8_t ring = RingGfx;
	bool scores = false; // a score chunk was sent
};

struct KernelTrace {
	enum Op : uint32_t { Create = 0, Cs = 1, Cpu = 2, Destroy = 3, Frame = 4 };
	static constexpr unsigned kShift = 29;
	static constexpr uint32_t kMask = (1u << kShift) - 1;
	static uint32_t pack(Op o, uint32_t arg) { return uint32_t(o) << kShift | arg; }

	std::string name;
	std::vector<uint32_t> ops;     // op << 29 | buffer id (or CS index for Cs, 0 for Frame)
	std::vector<KernelCs> cs;
	std::vector<CsReloc> relocs;   // v2 domain bits (event.h)
	std::vector<uint64_t> size;    // per buffer, bytes as the trace has them
	std::vector<uint8_t> domain;   // per buffer: the domain asked for at create (v2 bits)
	std::vector<uint8_t> prio;     // per buffer: high priority (thesis traces)
	bool synthesized = false;      // CS records made from READ/WRITE events
	uint64_t skipped = 0;          // events on destroyed ids left out (thesis corpus defect)
	RepairReport repair;           // what repair did (OnDestroyed::Repair)
	uint64_t accesses = 0;         // buffer uses in all CS (relocations)
	bool truncated = false;        // a v2 file cut short, read up to its last FRAME
};

// Events on destroyed ids (the thesis corpus defect) are skipped or repaired (filters.h).
KernelTrace load_kernel_trace(const std::string &path, OnDestroyed mode = OnDestroyed::Skip);
KernelTrace load_kernel_trace(const ReplayReader::Opener &open, const std::string &name,
                              OnDestroyed mode = OnDestroyed::Skip);

} // namespace vramlab
