#include "sim/compact.h"

#include "trace/format.h"
#include "trace/stats.h"

namespace vramlab {

CompactTrace load_compact(const std::string &path, OnDestroyed mode)
{
	auto r = open_trace(path);
	return load_compact(*r, base_name(path), mode);
}

CompactTrace load_compact(TraceReader &in, const std::string &name, OnDestroyed mode)
{
	CsExpander r(in); // the thesis model sees each buffer of a CS as a read or write
	CompactTrace t;
	t.name = name;
	std::vector<uint32_t> raw;  // repair needs two passes; skip filters as it reads
	std::vector<bool> dead;     // per buffer: destroyed yet (skip mode)
	std::vector<uint32_t> &out = mode == OnDestroyed::Repair ? raw : t.ops;
	Event e;
	while (r.next(e)) {
		if (e.type > EventType::Cpu)
			continue;
		if (e.id > CompactTrace::kIdMask)
			throw TraceError(name + ": buffer id " + std::to_string(e.id) + " too large");
		if (e.type == EventType::Create) {
			t.size.push_back(e.size);
			t.prio.push_back(e.high_prio);
			dead.push_back(false);
		} else if (mode == OnDestroyed::Skip) {
			if (dead[e.id]) {
				t.skipped++;
				continue;
			}
			if (e.type == EventType::Destroy)
				dead[e.id] = true;
		}
		out.push_back(CompactTrace::pack(e.type, e.id));
	}
	if (mode == OnDestroyed::Skip) {
		t.ops.shrink_to_fit();
		return t;
	}
	const size_t n = t.size.size();
	std::vector<bool> never_used(n, true);
	for (uint32_t op : raw)
		if (op >> CompactTrace::kTypeShift != uint32_t(EventType::Create))
			never_used[op & CompactTrace::kIdMask] = false;
	Repairer rep(std::move(never_used));
	for (uint32_t &op : raw) {
		const auto type = EventType(op >> CompactTrace::kTypeShift);
		op = CompactTrace::pack(type, rep.map(type, op & CompactTrace::kIdMask));
	}
	t.repair = rep.report();
	// What repair could not place still falls on a destroyed id: skipped and counted.
	dead.assign(n, false);
	t.ops.reserve(raw.size());
	for (uint32_t op : raw) {
		const auto type = EventType(op >> CompactTrace::kTypeShift);
		const uint32_t id = op & CompactTrace::kIdMask;
		if (type != EventType::Create) {
			if (dead[id]) {
				t.skipped++;
				continue;
			}
			if (type == EventType::Destroy)
				dead[id] = true;
		}
		t.ops.push_back(op);
	}
	return t;
}

} // namespace vramlab
