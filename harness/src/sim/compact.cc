#include "sim/compact.h"

#include "trace/format.h"
#include "trace/stats.h"

namespace vramlab {

CompactTrace load_compact(const std::string &path, ReplayOptions opt)
{
	return load_compact([&path] { return open_trace(path); }, base_name(path), opt);
}

CompactTrace load_compact(const ReplayReader::Opener &open, const std::string &name,
                          ReplayOptions opt)
{
	CompactTrace t;
	t.name = name;
	ReplayReader rr(open, opt, name);
	CsExpander r(rr); // the thesis model sees each buffer of a CS as a read or write
	// Growing a vector of hundreds of MB by doubling copies it and faults in pages twice.
	if (const uint64_t hint = r.events_hint(); hint && hint < (uint64_t(1) << 32))
		t.ops.reserve(hint + hint / 16);
	constexpr size_t kBatch = 256; // events a call (TraceReader::next_batch())
	std::vector<Event> batch(kBatch);
	for (size_t got; (got = r.next_batch(batch.data(), kBatch));) {
		for (size_t i = 0; i < got; i++) {
			const Event &e = batch[i];
			if (e.type > EventType::Cpu)
				continue;
			if (e.id > CompactTrace::kIdMask)
				throw TraceError(name + ": buffer id " + std::to_string(e.id) + " too large");
			if (e.type == EventType::Create) {
				t.size.push_back(e.size);
				t.prio.push_back(e.high_prio);
				t.impossible += impossible_size(e.size);
			} else if (e.high_prio && e.id < t.prio.size()) {
				// A v2.2 relocation's high-priority use (CsExpander): the model keeps one
				// priority per buffer, so it holds for the buffer's whole life, create included.
				t.prio[e.id] = 1;
			}
			t.ops.push_back(CompactTrace::pack(e.type, e.id));
		}
	}
	if (t.ops.capacity() > t.ops.size() + t.ops.size() / 8)
		t.ops.shrink_to_fit(); // only when the hint was far off
	t.skipped = rr.skipped();
	t.skipped_at_create = rr.skipped_at_create();
	t.repair = rr.repair();
	t.impossible += rr.impossible_skipped();
	t.impossible_events = rr.impossible_events();
	t.truncated = rr.truncated();
	return t;
}

} // namespace vramlab
