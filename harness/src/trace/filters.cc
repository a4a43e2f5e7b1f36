#include "trace/filters.h"

#include "trace/stats.h"

namespace vramlab {

inline bool SkipDestroyed::keep(const Event &e)
{
	switch (e.type) {
	case EventType::Create:
		if (dead_.size() <= e.id)
			dead_.resize(e.id + 1, 0);
		if (at_create_.size() <= e.id)
			at_create_.resize(e.id + 1, skipped_);
		return true;
	case EventType::Read:
	case EventType::Write:
	case EventType::Cpu:
	case EventType::Destroy:
	case EventType::Score: {
		const bool dead = e.id < dead_.size() && dead_[e.id];
		skipped_ += dead;
		if (e.type == EventType::Destroy)
			dead_[e.id] = 1;
		return !dead;
	}
	default: return true; // v2 CS records name live buffers only (the reader checks)
	}
}

bool SkipDestroyed::next(Event &e)
{
	while (in_.next(e))
		if (keep(e))
			return true;
	return false;
}

size_t SkipDestroyed::next_batch(Event *out, size_t n)
{
	for (;;) {
		const size_t got = in_.next_batch(out, n);
		if (!got)
			return 0;
		size_t kept = 0;
		for (size_t i = 0; i < got; i++)
			if (keep(out[i])) {
				if (kept != i)
					out[kept] = out[i];
				kept++;
			}
		if (kept)
			return kept;
	}
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

bool SkipImpossible::map(uint32_t &id) const
{
	if (id >= new_id_.size()) // the readers guarantee a create first; keep what they pass on
		return true;
	if (new_id_[id] == kDropped)
		return false;
	id = new_id_[id];
	return true;
}

bool SkipImpossible::next(Event &e)
{
	while (in_.next(e)) {
		switch (e.type) {
		case EventType::Create:
			if (new_id_.size() <= e.id)
				new_id_.resize(e.id + 1, kDropped);
			if (impossible_size(e.size)) {
				new_id_[e.id] = kDropped;
				creates_++;
				continue;
			}
			new_id_[e.id] = next_;
			e.id = next_++;
			return true;
		case EventType::Read:
		case EventType::Write:
		case EventType::Cpu:
		case EventType::Destroy:
		case EventType::Score:
			if (!map(e.id)) {
				events_++;
				continue;
			}
			return true;
		case EventType::Cs: {
			relocs_.clear();
			for (uint32_t i = 0; i < e.nrelocs; i++) {
				CsReloc r = e.relocs[i];
				if (map(r.id))
					relocs_.push_back(r);
			}
			if (relocs_.size() != e.nrelocs)
				events_++; // a submission that named a dropped buffer
			if (relocs_.empty())
				continue;
			e.relocs = relocs_.data();
			e.nrelocs = uint32_t(relocs_.size());
			return true;
		}
		default: return true; // FRAME and CONTEXT name no buffer
		}
	}
	if (creates_ && !next_)
		throw TraceError(name_ + ": every create (" + std::to_string(creates_) +
		                 ") is impossible (over " + std::to_string(kImpossibleAbove >> 20) +
		                 " MiB): nothing is left to replay");
	return false;
}

ReplayReader::ReplayReader(const Opener &open, ReplayOptions opt, const std::string &name)
{
	src_ = open();
	info_ = src_->info();
	TraceReader *top = src_.get();
	if (opt.destroyed == OnDestroyed::Repair) {
		auto first = open();
		repair_ = std::make_unique<RepairIds>(*src_, never_used_buffers(*first));
		top = repair_.get();
	}
	if (opt.skips_impossible()) {
		impossible_ = std::make_unique<SkipImpossible>(*top, name);
		top = impossible_.get();
	}
	skip_ = std::make_unique<SkipDestroyed>(*top);
}

ReplayReader::ReplayReader(const std::string &path, ReplayOptions opt)
    : ReplayReader([&path] { return open_trace(path); }, opt, base_name(path))
{
}

} // namespace vramlab
