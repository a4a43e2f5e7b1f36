#include "trace/filters.h"

#include "trace/stats.h"

namespace vramlab {

bool SkipDestroyed::next(Event &e)
{
	while (in_.next(e)) {
		switch (e.type) {
		case EventType::Create:
			if (dead_.size() <= e.id)
				dead_.resize(e.id + 1, false);
			if (at_create_.size() <= e.id)
				at_create_.resize(e.id + 1, skipped_);
			return true;
		case EventType::Read:
		case EventType::Write:
		case EventType::Cpu:
		case EventType::Destroy:
		case EventType::Score:
			if (e.id < dead_.size() && dead_[e.id]) {
				skipped_++;
				continue;
			}
			if (e.type == EventType::Destroy)
				dead_[e.id] = true;
			return true;
		default: return true; // v2 CS records name live buffers only (the reader checks)
		}
	}
	return false;
}

bool RepairIds::next(Event &e)
{
	if (!in_.next(e))
		return false;
	if (e.type <= EventType::Cpu)
		e.id = rep_.map(e.type, e.id);
	return true;
}

std::vector<bool> never_used_buffers(TraceReader &r)
{
	std::vector<bool> never_used;
	compute_stats(r, "", &never_used);
	return never_used;
}

ReplayReader::ReplayReader(const Opener &open, OnDestroyed mode)
{
	src_ = open();
	info_ = src_->info();
	TraceReader *top = src_.get();
	if (mode == OnDestroyed::Repair) {
		auto first = open();
		repair_ = std::make_unique<RepairIds>(*src_, never_used_buffers(*first));
		top = repair_.get();
	}
	skip_ = std::make_unique<SkipDestroyed>(*top);
}

ReplayReader::ReplayReader(const std::string &path, OnDestroyed mode)
    : ReplayReader([&path] { return open_trace(path); }, mode)
{
}

} // namespace vramlab
