// Reader wrappers for the thesis corpus defect (trace-format.md: events on destroyed ids): the
// one implementation of dropping those events and of repairing them, used by `trace convert`,
// `trace repair`, both simulators and the tests.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trace/format.h"
#include "trace/repair.h"

namespace vramlab {

enum class OnDestroyed { Skip, Repair };

// The second corpus defect (trace-format.md, "impossible buffer sizes"): creates no program of
// the era made. No clean shared trace creates more than 28 MiB, the thesis's largest reported
// buffer is 78 MB (Planetary Annihilation) and a 4096x4096 RGBA8 texture with its mipmaps is
// 85 MiB; nothing in the corpus lies between 64 and 128 MiB, and every create above 128 MiB is
// in the six damaged traces (most of them 1-2 GiB, just under the format's 31-bit limit).
inline constexpr uint64_t kImpossibleAbove = 128ull << 20;
inline bool impossible_size(uint64_t bytes) { return bytes > kImpossibleAbove; }

// What a replay does with impossible creates: keep them (as recorded), skip them (the create
// and every event on that buffer dropped, counted), or exclude the whole trace (the caller's
// decision: the trace is decoded as with keep and its count says it is damaged).
enum class OnImpossible { Keep, Skip, Exclude };

// How a replay treats both corpus defects.
struct ReplayOptions {
	OnDestroyed destroyed = OnDestroyed::Skip;
	OnImpossible impossible = OnImpossible::Keep;
	ReplayOptions() = default;
	ReplayOptions(OnDestroyed d, OnImpossible i = OnImpossible::Keep) // NOLINT: implicit
	    : destroyed(d), impossible(i)
	{
	}
	bool skips_impossible() const { return impossible == OnImpossible::Skip; }
	// A trace with this many impossible creates is left out of the run.
	bool excludes(uint64_t impossible_creates) const
	{
		return impossible == OnImpossible::Exclude && impossible_creates;
	}
};

// Drops every impossible create and every later event on that buffer (relocations of CS
// records included), and renumbers the other buffers so that ids stay creation-order indices.
// Counts what it dropped.
class SkipImpossible : public TraceReader {
public:
	SkipImpossible(TraceReader &inner, std::string name) : in_(inner), name_(std::move(name))
	{
		info_ = inner.info();
	}
	bool next(Event &e) override;
	uint64_t events_hint() const override { return in_.events_hint(); }
	uint64_t creates() const { return creates_; } // impossible creates dropped
	uint64_t events() const { return events_; }   // later events on them dropped

private:
	static constexpr uint32_t kDropped = UINT32_MAX;
	bool map(uint32_t &id) const; // false: a dropped buffer
	TraceReader &in_;
	std::string name_;
	std::vector<uint32_t> new_id_;
	std::vector<CsReloc> relocs_;
	uint32_t next_ = 0;
	uint64_t creates_ = 0, events_ = 0;
};

// Drops every event on an id already destroyed (repeated destroys included) and counts them.
// created_before(k) is how many were dropped before the k-th create was read (a run cut at
// that create skipped only those).
class SkipDestroyed : public TraceReader {
public:
	explicit SkipDestroyed(TraceReader &inner) : in_(inner) { info_ = inner.info(); }
	bool next(Event &e) override;
	size_t next_batch(Event *out, size_t n) override;
	uint64_t events_hint() const override { return in_.events_hint(); }
	uint64_t skipped() const { return skipped_; }
	const std::vector<uint64_t> &skipped_at_create() const { return at_create_; }

private:
	bool keep(const Event &e); // false: an event on a destroyed id, counted
	TraceReader &in_;
	std::vector<uint8_t> dead_; // bytes, not bits: read for most events
	std::vector<uint64_t> at_create_;
	uint64_t skipped_ = 0;
};

// Gives each event the id Repairer assigns (repair.h). never_used comes from a first pass
// (never_used_buffers()).
class RepairIds : public TraceReader {
public:
	RepairIds(TraceReader &inner, std::vector<bool> never_used)
	    : in_(inner), rep_(std::move(never_used))
	{
		info_ = inner.info();
	}
	bool next(Event &e) override;
	uint64_t events_hint() const override { return in_.events_hint(); }
	const RepairReport &report() const { return rep_.report(); }

private:
	TraceReader &in_;
	Repairer rep_;
};

// First pass of a repair: per buffer, whether it gets no event of its own.
std::vector<bool> never_used_buffers(TraceReader &r);

// A trace as the simulators replay it: repaired (two passes over the source) or not, impossible
// creates kept or dropped (after repair, which needs every create to find owners), then with
// what still falls on a destroyed id dropped and counted.
class ReplayReader : public TraceReader {
public:
	using Opener = std::function<std::unique_ptr<TraceReader>()>;
	ReplayReader(const Opener &open, ReplayOptions opt, const std::string &name = "");
	explicit ReplayReader(const std::string &path, ReplayOptions opt);
	bool next(Event &e) override { return skip_->next(e); }
	size_t next_batch(Event *out, size_t n) override { return skip_->next_batch(out, n); }
	uint64_t events_hint() const override { return skip_->events_hint(); }
	uint64_t skipped() const { return skip_->skipped(); }
	const std::vector<uint64_t> &skipped_at_create() const { return skip_->skipped_at_create(); }
	RepairReport repair() const { return repair_ ? repair_->report() : RepairReport{}; }
	// Impossible creates (and later events on them) dropped with OnImpossible::Skip.
	uint64_t impossible_skipped() const { return impossible_ ? impossible_->creates() : 0; }
	uint64_t impossible_events() const { return impossible_ ? impossible_->events() : 0; }
	// The file stops early and was read up to its last FRAME (known at its end).
	bool truncated() const { return src_->info().truncated; }

private:
	std::unique_ptr<TraceReader> src_;
	std::unique_ptr<RepairIds> repair_;
	std::unique_ptr<SkipImpossible> impossible_;
	std::unique_ptr<SkipDestroyed> skip_;
};

} // namespace vramlab
