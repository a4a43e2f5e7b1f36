#include "kmodel/thrash_guard.h"

#include <algorithm>

namespace vramlab {

void ThrashGuard::returned(uint32_t id, uint64_t pages, uint64_t now_us)
{
	State &s = st_[id];
	if (!s.evicted_us || now_us + 1 - s.evicted_us > uint64_t(p_.within_ms) * 1000) {
		s.events = 0; // not a quick return: the run of events ends
		return;
	}
	if (++s.events < p_.count || s.until_us)
		return;
	if (pages_ + pages > cap_pages_) {
		cap_refusals++;
		return;
	}
	s.events = 0;
	s.until_us = now_us + uint64_t(p_.hold_ms) * 1000;
	s.pages = pages;
	pages_ += pages;
	list_.push_back(id);
	guards++;
}

void ThrashGuard::gone(uint32_t id)
{
	State &s = st_[id];
	s.evicted_us = 0;
	s.events = 0;
	if (!s.until_us)
		return;
	s.until_us = 0;
	pages_ -= s.pages;
	list_.erase(std::find(list_.begin(), list_.end(), id));
}

void ThrashGuard::expire(uint64_t now_us)
{
	for (size_t i = 0; i < list_.size();) {
		State &s = st_[list_[i]];
		if (now_us < s.until_us) {
			i++;
			continue;
		}
		s.until_us = 0;
		pages_ -= s.pages;
		list_[i] = list_.back();
		list_.pop_back();
	}
}

} // namespace vramlab
