// One buffer event, the common currency of every trace reader and writer.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vramlab {

enum class EventType : uint8_t {
	Create = 0,
	Read = 1,
	Write = 2,
	Destroy = 3,
	Cpu = 4,
	Frame = 5,   // v2 only: end of a frame
	Score = 6,   // v2 only: score sent for a buffer
	Context = 7, // v2 only: following events belong to this context
	Cs = 8,      // v2.1 only: one command submission and its buffer list
};

// The radeon uapi's "no score": the kernel's key is its submission stamp (LRU).
inline constexpr uint32_t kScoreNeutral = 0xffffffffu;

// One relocation of a command submission, as the kernel receives it.
struct CsReloc {
	uint32_t id = 0;            // buffer id
	uint8_t read_domains = 0;   // domain bits (below)
	uint8_t write_domain = 0;
	uint8_t prio = 0;           // the relocation's priority flags, 0..15
	// v2.2: in this submission the buffer is a depth/stencil or MSAA surface (prio byte bit 4;
	// Mesa's RADEON_PRIO_DEPTH_BUFFER*, RADEON_PRIO_COLOR_BUFFER_MSAA). Not the kernel's: it
	// gets prio only. Here, in the padding before score, so that a relocation stays 12 bytes.
	bool high_prio_use = false;
	uint32_t score = kScoreNeutral; // score sent for it (kScoreNeutral when none)
};
static_assert(sizeof(CsReloc) == 12, "the kernel model holds every relocation of a trace");

// Domain bits, as radeon's uapi uses them.
enum : uint8_t { DomainVram = 1, DomainGtt = 2, DomainCpu = 4 };

struct Event {
	EventType type = EventType::Create;
	uint8_t domain = 0;   // 0 = unknown
	// Create: high priority at create (the CREATE flag). Read/Write made from a CS relocation
	// (CsExpander): the relocation's high-priority use (CsReloc::high_prio_use).
	bool high_prio = false;
	bool imported = false; // Create only (v2.1): a dma-buf/flink import or a user pointer
	uint32_t id = 0;      // buffer id: creation order index (also the context id for Context)
	uint64_t size = 0;    // Create only
	uint64_t time_us = 0; // absolute, from the trace's origin
	uint32_t score = 0;   // Score only
	// Cs only: the ring, whether a score chunk was sent, and the buffer list (owned by the
	// reader or writer's caller; valid until the next event is read).
	uint8_t ring = 0;
	bool cs_scores = false;
	// CS: the kernel also got relocations this record leaves out (fence buffers; their score
	// in the chunk is neutral). Readers and the models ignore them.
	bool cs_untracked = false;
	uint32_t nrelocs = 0;
	const CsReloc *relocs = nullptr;
};

// Radeon's ring ids (RADEON_CS_RING_*) as CS records carry them.
enum : uint8_t { RingGfx = 0, RingCompute = 1, RingDma = 2, RingUvd = 3, RingVce = 4 };

std::string_view event_name(EventType t);

// Thrown by every parser: says what went wrong and where (file, byte offset or line).
struct TraceError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// The input stops early: a cut gzip or zstd stream, a cut record, no END record. An error like
// any other, except that the v2 reader recovers from it by ending at the last complete FRAME
// (docs/trace-v2.md, "Truncated files").
struct TruncatedInput : TraceError {
	using TraceError::TraceError;
};

} // namespace vramlab
