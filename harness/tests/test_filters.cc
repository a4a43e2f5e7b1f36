// The corpus-defect filters (trace/filters.h) on events written by hand.
#include <gtest/gtest.h>

#include "trace/filters.h"

using namespace vramlab;

namespace {

class VectorReader : public TraceReader {
public:
	explicit VectorReader(std::vector<Event> ev) : ev_(std::move(ev)) {}
	bool next(Event &e) override
	{
		if (i_ == ev_.size())
			return false;
		e = ev_[i_++];
		return true;
	}

private:
	std::vector<Event> ev_;
	size_t i_ = 0;
};

Event ev(EventType t, uint32_t id)
{
	Event e;
	e.type = t;
	e.id = id;
	return e;
}

using T = EventType;

// The converter wrote every event of a buffer at a recycled address under the first buffer's
// index: here buffers 2 and 3 got no events of their own, and index 0 has events after its
// destroy.
const std::vector<Event> kDefect = {
        ev(T::Create, 0), ev(T::Create, 1), ev(T::Read, 1), ev(T::Destroy, 0),
        ev(T::Create, 2), ev(T::Create, 3), ev(T::Read, 0), ev(T::Write, 0),
        ev(T::Destroy, 0), ev(T::Read, 0), ev(T::Destroy, 1), ev(T::Cpu, 1),
};

std::vector<Event> drain(TraceReader &r)
{
	std::vector<Event> out;
	Event e;
	while (r.next(e))
		out.push_back(e);
	return out;
}

} // namespace

TEST(Filters, SkipDestroyedDropsAndCountsPerCreate)
{
	VectorReader in(kDefect);
	SkipDestroyed s(in);
	auto out = drain(s);
	EXPECT_EQ(s.skipped(), 5u); // read, write, destroy, read on 0; cpu on 1
	EXPECT_EQ(out.size(), kDefect.size() - 5);
	ASSERT_EQ(s.skipped_at_create().size(), 4u);
	EXPECT_EQ(s.skipped_at_create()[2], 0u); // nothing skipped before the 3rd create
}

TEST(Filters, RepairGivesEventsToTheEarliestBufferWithoutEntriesCreatedAfterTheDestroy)
{
	VectorReader first(kDefect);
	auto never_used = never_used_buffers(first);
	EXPECT_EQ(never_used, (std::vector<bool>{false, false, true, true}));
	VectorReader in(kDefect);
	RepairIds rep(in, never_used);
	auto out = drain(rep);
	ASSERT_EQ(out.size(), kDefect.size());
	// index 0 after its destroy: candidates 2 and 3 (both created after it), 2 is earlier
	EXPECT_EQ(out[6].id, 2u);
	EXPECT_EQ(out[7].id, 2u);
	EXPECT_EQ(out[8].id, 2u); // 2 is destroyed
	// index 0 again: 3 has no entries, but was created before this destroy: no candidate
	EXPECT_EQ(out[9].id, 0u);
	// index 1's cpu op after its destroy: nobody was created after it without entries
	EXPECT_EQ(out[11].id, 1u);
	EXPECT_EQ(rep.report().claimed, 1u);
	EXPECT_EQ(rep.report().ambiguous, 1u); // the claim had two candidates
	EXPECT_EQ(rep.report().unresolved, 2u);
	EXPECT_EQ(rep.report().moved, 3u);
}
