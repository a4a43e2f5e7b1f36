#include "trace/stats.h"

#include <algorithm>
#include <vector>

#include "trace/filters.h"

namespace vramlab {

std::string base_name(const std::string &path)
{
	auto slash = path.find_last_of('/');
	return slash == std::string::npos ? path : path.substr(slash + 1);
}

TraceStats compute_stats(TraceReader &in, const std::string &name, std::vector<bool> *never_used)
{
	CsExpander r(in);
	enum : uint8_t { Used = 1, Dead = 2 };
	TraceStats s;
	s.name = name;
	std::vector<uint8_t> state;
	Event e;
	uint64_t last_us = 0;
	while (r.next(e)) {
		if (e.time_us > last_us)
			last_us = e.time_us;
		switch (e.type) {
		case EventType::Create:
			s.creates++;
			s.largest_create = std::max(s.largest_create, e.size);
			if (impossible_size(e.size)) {
				s.impossible++;
				s.impossible_gib_plus += e.size >= (1ull << 30);
			}
			if (state.size() <= e.id)
				state.resize(e.id + 1, 0);
			continue;
		case EventType::Read: s.reads++; break;
		case EventType::Write: s.writes++; break;
		case EventType::Cpu: s.cpu_ops++; break;
		case EventType::Destroy: s.destroys++; break;
		case EventType::Frame: s.frames++; continue;
		default: continue;
		}
		uint8_t &st = state[e.id]; // readers guarantee the id was created
		st |= Used;
		if (st & Dead) {
			s.events_on_destroyed++;
			if (e.type == EventType::Destroy)
				s.repeated_destroys++;
		}
		if (e.type == EventType::Destroy)
			st |= Dead;
	}
	s.cs = r.cs_records();
	s.runtime_ms = last_us / 1000;
	s.buffers = r.info().declared_buffers ? r.info().declared_buffers : s.creates;
	for (uint8_t st : state)
		s.never_used += !(st & Used);
	if (never_used) {
		never_used->resize(state.size());
		for (size_t i = 0; i < state.size(); i++)
			(*never_used)[i] = !(state[i] & Used);
	}
	return s;
}

} // namespace vramlab
