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

// KernelTrace::prio bits. The model keeps one priority per buffer, for its whole life: either
// bit makes it high priority. Apart because the score contract's create score sees the CREATE
// flag only (score.md), which the trainer replays.
enum : uint8_t {
	kPrioAtCreate = 1, // the CREATE flag (thesis traces, converted ones)
	kPrioInUse = 2,    // a relocation of it has the high-priority-use bit (v2.2)
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
	std::vector<uint8_t> prio;     // per buffer: high priority when nonzero (kPrio* bits)
	bool synthesized = false;      // CS records made from READ/WRITE events
	uint64_t skipped = 0;          // events on destroyed ids left out (thesis corpus defect)
	RepairReport repair;           // what repair did (OnDestroyed::Repair)
	uint64_t impossible = 0;       // impossible creates in the source (filters.h), kept or skipped
	uint64_t impossible_events = 0; // with OnImpossible::Skip: later events on them dropped
	uint64_t accesses = 0;         // buffer uses in all CS (relocations)
	std::vector<uint64_t> cs_us;   // each CS's time (synthesized: its millisecond's start)
	std::vector<uint64_t> frame_us; // the time of each FRAME record (frame durations)
	bool truncated = false;        // a v2 file cut short, read up to its last FRAME
	bool kernel_view = false;      // the virtual radeon's (is_kernel_view): each CS ends with the fence
};

// Events on destroyed ids (the thesis corpus defect) are skipped or repaired, impossible creates
// kept or skipped (filters.h).
KernelTrace load_kernel_trace(const std::string &path, ReplayOptions opt = {});
KernelTrace load_kernel_trace(const ReplayReader::Opener &open, const std::string &name,
                              ReplayOptions opt = {});

// The trace with its synthesized submissions regrouped: one per `period_ms` milliseconds of
// GPU accesses instead of one per millisecond (consecutive submissions only: a create, map,
// destroy or frame between two still separates them). A trace with real CS records, or a
// period of 1, is returned as it is.
KernelTrace with_period(const KernelTrace &t, uint32_t period_ms);

} // namespace vramlab
