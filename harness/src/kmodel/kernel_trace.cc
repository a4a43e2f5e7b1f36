#include "kmodel/kernel_trace.h"

#include "trace/stats.h"

namespace vramlab {

KernelTrace load_kernel_trace(const std::string &path, ReplayOptions opt)
{
	return load_kernel_trace([&path] { return open_trace(path); }, base_name(path), opt);
}

namespace {

// Builds the synthetic submission of one millisecond from READ/WRITE events.
class CsBuilder {
public:
	explicit CsBuilder(KernelTrace &t) : t_(t) {}
	void add(const Event &e)
	{
		const uint64_t ms = e.time_us / 1000;
		if (open_ && ms != ms_)
			close();
		if (!open_) {
			open_ = true;
			ms_ = ms;
			first_ = t_.relocs.size();
		}
		if (slot_.size() <= e.id)
			slot_.resize(e.id + 1, UINT32_MAX);
		const bool w = e.type == EventType::Write;
		const uint8_t dom = e.domain ? e.domain : uint8_t(DomainVram);
		uint32_t &s = slot_[e.id];
		if (s != UINT32_MAX && s >= first_) { // used twice in one tick: one relocation
			CsReloc &r = t_.relocs[s];
			if (w)
				r.write_domain = dom;
			else
				r.read_domains |= dom;
			return;
		}
		s = uint32_t(t_.relocs.size());
		CsReloc r;
		r.id = e.id;
		r.read_domains = w ? 0 : dom;
		r.write_domain = w ? dom : 0;
		r.prio = t_.prio[e.id] ? 15 : 0;
		r.score = score_.size() > e.id ? score_[e.id] : kScoreNeutral;
		t_.relocs.push_back(r);
	}
	void score(const Event &e)
	{
		if (score_.size() <= e.id)
			score_.resize(e.id + 1, kScoreNeutral);
		score_[e.id] = e.score;
		scores_ = true;
	}
	void close()
	{
		if (!open_)
			return;
		open_ = false;
		KernelCs c;
		c.first = first_;
		c.n = uint32_t(t_.relocs.size() - first_);
		c.scores = scores_;
		t_.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(t_.cs.size())));
		t_.cs.push_back(c);
		t_.cs_us.push_back(ms_ * 1000);
		t_.synthesized = true;
	}

private:
	KernelTrace &t_;
	std::vector<uint32_t> slot_, score_;
	uint64_t ms_ = 0;
	uint32_t first_ = 0;
	bool open_ = false, scores_ = false;
};

} // namespace

KernelTrace load_kernel_trace(const ReplayReader::Opener &open, const std::string &name,
                              ReplayOptions opt)
{
	KernelTrace t;
	t.name = name;
	ReplayReader r(open, opt, name);
	t.kernel_view = is_kernel_view(r.info());
	CsBuilder synth(t);
	bool has_cs = false, has_access = false;
	Event e;
	while (r.next(e)) {
		switch (e.type) {
		case EventType::Create:
			if (e.id > KernelTrace::kMask)
				throw TraceError(name + ": buffer id " + std::to_string(e.id) + " too large");
			synth.close();
			if (e.domain && !(e.domain & (DomainVram | DomainGtt)))
				throw TraceError(name + ": buffer " + std::to_string(e.id) +
				                 " is created in system memory only (the kernel model "
				                 "places buffers in VRAM and GTT)");
			t.size.push_back(e.size);
			t.impossible += impossible_size(e.size);
			t.domain.push_back(e.domain ? e.domain : uint8_t(DomainVram));
			t.prio.push_back(e.high_prio ? kPrioAtCreate : 0);
			t.ops.push_back(KernelTrace::pack(KernelTrace::Create, e.id));
			break;
		case EventType::Read:
		case EventType::Write:
			has_access = true;
			synth.add(e);
			break;
		case EventType::Score: synth.score(e); break;
		case EventType::Cs: {
			has_cs = true;
			synth.close();
			KernelCs c;
			c.first = uint32_t(t.relocs.size());
			c.n = e.nrelocs;
			c.ring = e.ring;
			c.scores = e.cs_scores;
			for (uint32_t i = 0; i < e.nrelocs; i++) {
				const CsReloc &rl = e.relocs[i];
				if (!rl.read_domains && !rl.write_domain)
					throw TraceError(name + ": a CS names buffer " + std::to_string(rl.id) +
					                 " with no domain (the kernel would place it in system "
					                 "memory; the model does not)");
				// A depth/stencil or MSAA use makes the buffer high priority for its
				// whole life, as the CREATE flag does (trace-v2.md).
				if (rl.high_prio_use && rl.id < t.prio.size())
					t.prio[rl.id] |= kPrioInUse;
				t.relocs.push_back(rl);
			}
			t.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(t.cs.size())));
			t.cs.push_back(c);
			t.cs_us.push_back(e.time_us);
			break;
		}
		case EventType::Cpu:
		case EventType::Destroy:
			synth.close();
			t.ops.push_back(KernelTrace::pack(
			        e.type == EventType::Cpu ? KernelTrace::Cpu : KernelTrace::Destroy, e.id));
			break;
		case EventType::Frame:
			synth.close();
			t.ops.push_back(KernelTrace::pack(KernelTrace::Frame, 0));
			t.frame_us.push_back(e.time_us);
			break;
		default: break;
		}
	}
	synth.close();
	t.skipped = r.skipped();
	t.repair = r.repair();
	t.impossible += r.impossible_skipped();
	t.impossible_events = r.impossible_events();
	t.truncated = r.truncated();
	if (has_cs && has_access)
		throw TraceError(name + ": the trace mixes CS records with READ/WRITE records");
	t.accesses = t.relocs.size();
	return t;
}

KernelTrace with_period(const KernelTrace &t, uint32_t period_ms)
{
	if (!t.synthesized || period_ms <= 1 || t.cs_us.size() != t.cs.size())
		return t;
	KernelTrace o;
	o.name = t.name;
	o.size = t.size;
	o.domain = t.domain;
	o.prio = t.prio;
	o.synthesized = true;
	o.skipped = t.skipped;
	o.repair = t.repair;
	o.impossible = t.impossible;
	o.impossible_events = t.impossible_events;
	o.truncated = t.truncated;
	o.kernel_view = t.kernel_view;
	o.frame_us = t.frame_us;
	o.ops.reserve(t.ops.size());
	o.relocs.reserve(t.relocs.size());
	std::vector<uint32_t> slot; // per buffer: its relocation in the open submission
	bool open = false;
	uint64_t bucket = 0;
	for (uint32_t op : t.ops) {
		if (KernelTrace::Op(op >> KernelTrace::kShift) != KernelTrace::Cs) {
			open = false;
			o.ops.push_back(op);
			continue;
		}
		const uint32_t ci = op & KernelTrace::kMask;
		const KernelCs &c = t.cs[ci];
		if (!open || t.cs_us[ci] / 1000 / period_ms != bucket) {
			open = true;
			bucket = t.cs_us[ci] / 1000 / period_ms;
			KernelCs n;
			n.first = uint32_t(o.relocs.size());
			n.ring = c.ring;
			o.ops.push_back(KernelTrace::pack(KernelTrace::Cs, uint32_t(o.cs.size())));
			o.cs.push_back(n);
			o.cs_us.push_back(bucket * period_ms * 1000);
		}
		KernelCs &cur = o.cs.back();
		cur.scores |= c.scores;
		for (uint32_t i = c.first; i < c.first + c.n; i++) {
			const CsReloc &r = t.relocs[i];
			if (slot.size() <= r.id)
				slot.resize(r.id + 1, UINT32_MAX);
			uint32_t &s = slot[r.id];
			if (s != UINT32_MAX && s >= cur.first) { // in this submission already: one entry
				CsReloc &m = o.relocs[s];
				m.read_domains |= r.read_domains;
				if (r.write_domain)
					m.write_domain = r.write_domain;
				m.high_prio_use |= r.high_prio_use;
				m.score = r.score; // the latest score sent
				continue;
			}
			s = uint32_t(o.relocs.size());
			o.relocs.push_back(r);
			cur.n++;
		}
	}
	o.accesses = o.relocs.size();
	return o;
}

} // namespace vramlab
