#include "trace/repair.h"

namespace vramlab {

Repairer::Repairer(std::vector<bool> never_used) : never_used_(std::move(never_used)) {}

uint32_t Repairer::map(EventType t, uint32_t id)
{
	if (t == EventType::Create) {
		if (slots_.size() <= id)
			slots_.resize(id + 1, Slot{0});
		slots_[id] = Slot{id};
		creates_ = id + 1;
		if (id < never_used_.size() && never_used_[id])
			pending_.insert(id);
		return id;
	}
	if (t != EventType::Read && t != EventType::Write && t != EventType::Cpu &&
	    t != EventType::Destroy)
		return id;
	Slot &s = slots_[id];
	if (s.dead) {
		auto it = pending_.lower_bound(s.freed_at);
		if (it == pending_.end()) {
			rep_.unresolved++;
			return id;
		}
		if (std::next(it) != pending_.end())
			rep_.ambiguous++;
		rep_.claimed++;
		s.owner = *it;
		s.dead = false;
		pending_.erase(it);
	}
	if (s.owner != id)
		rep_.moved++;
	if (t == EventType::Destroy) {
		s.dead = true;
		s.freed_at = creates_;
	}
	return s.owner;
}

} // namespace vramlab
