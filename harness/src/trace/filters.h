// Reader wrappers for the thesis corpus defect (trace-format.md: events on destroyed ids): the
// one implementation of dropping those events and of repairing them, used by `trace convert`,
// `trace repair`, both simulators and the tests.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "trace/format.h"
#include "trace/repair.h"

namespace vramlab {

enum class OnDestroyed { Skip, Repair };

// Drops every event on an id already destroyed (repeated destroys included) and counts them.
// created_before(k) is how many were dropped before the k-th create was read (a run cut at
// that create skipped only those).
class SkipDestroyed : public TraceReader {
public:
	explicit SkipDestroyed(TraceReader &inner) : in_(inner) { info_ = inner.info(); }
	bool next(Event &e) override;
	uint64_t events_hint() const override { return in_.events_hint(); }
	uint64_t skipped() const { return skipped_; }
	const std::vector<uint64_t> &skipped_at_create() const { return at_create_; }

private:
	TraceReader &in_;
	std::vector<bool> dead_;
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

// A trace as the simulators replay it: repaired (two passes over the source) or not, then with
// what still falls on a destroyed id dropped and counted.
class ReplayReader : public TraceReader {
public:
	using Opener = std::function<std::unique_ptr<TraceReader>()>;
	ReplayReader(const Opener &open, OnDestroyed mode);
	explicit ReplayReader(const std::string &path, OnDestroyed mode);
	bool next(Event &e) override { return skip_->next(e); }
	uint64_t events_hint() const override { return skip_->events_hint(); }
	uint64_t skipped() const { return skip_->skipped(); }
	const std::vector<uint64_t> &skipped_at_create() const { return skip_->skipped_at_create(); }
	RepairReport repair() const { return repair_ ? repair_->report() : RepairReport{}; }
	// The file stops early and was read up to its last FRAME (known at its end).
	bool truncated() const { return src_->info().truncated; }

private:
	std::unique_ptr<TraceReader> src_;
	std::unique_ptr<RepairIds> repair_;
	std::unique_ptr<SkipDestroyed> skip_;
};

} // namespace vramlab
