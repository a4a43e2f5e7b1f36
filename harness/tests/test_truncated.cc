// v2 files that stop early (a program killed while tracing) are read up to their last complete
// FRAME with a warning; without a complete FRAME, or with corrupt data, they stay errors.
#include <gtest/gtest.h>

#include "helpers.h"
#include "kmodel/kernel_trace.h"
#include "sim/compact.h"
#include "sim/trace_cache.h"

using namespace vramlab;

namespace {

// Collects the readers' warnings for the life of the object.
struct Warnings {
	std::vector<std::string> got;
	Warnings()
	{
		set_warning_handler([this](const std::string &w) { got.push_back(w); });
	}
	~Warnings() { set_warning_handler(nullptr); }
};

struct Read {
	std::vector<Event> events;
	std::vector<std::vector<CsReloc>> relocs; // per event (CS records)
	std::string error;
	bool truncated = false;
};

Read read_bytes(const std::string &bytes, const std::string &name)
{
	Read out;
	try {
		auto r = open_trace_memory(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
		                           name);
		Event e;
		while (r->next(e)) {
			out.events.push_back(e);
			out.relocs.emplace_back(e.relocs, e.relocs + (e.type == EventType::Cs ? e.nrelocs : 0));
		}
		out.truncated = r->info().truncated;
	} catch (const TraceError &e) {
		out.error = e.what();
	}
	return out;
}

bool same(const Event &a, const Event &b)
{
	return a.type == b.type && a.id == b.id && a.size == b.size && a.high_prio == b.high_prio &&
	       a.imported == b.imported && a.domain == b.domain && a.score == b.score &&
	       a.time_us == b.time_us && a.ring == b.ring && a.cs_scores == b.cs_scores &&
	       a.nrelocs == b.nrelocs;
}

// A real trace (the Mesa capture, 54 frames) written by the harness's v2 writer, which flushes
// the zstd stream at every FRAME as Mesa does.
std::string real_trace()
{
	const std::string out = test::temp_path("glsmoke.vrl");
	auto r = open_trace(std::string(VRAMLAB_SOURCE_DIR) + "/tests/data/glsmoke-barts-2.51.vrl");
	auto w = make_writer(Format::V2, out, r->info());
	Event e;
	while (r->next(e))
		w->write(e);
	w->close();
	return out;
}

// Every cut of `bytes` either fails as a truncated file with no FRAME to end at, or reads a
// prefix of the whole trace that ends with a FRAME, with a warning. Returns the warnings.
std::vector<std::string> check_cuts(const std::string &bytes, const Read &whole,
                                    const std::vector<size_t> &cuts)
{
	Warnings w;
	for (size_t n : cuts) {
		const Read got = read_bytes(bytes.substr(0, n), "cut.vrl");
		if (!got.error.empty()) {
			EXPECT_TRUE(got.error.find("no complete FRAME record to end at") != std::string::npos ||
			            got.error.find("truncated header") != std::string::npos ||
			            got.error.find("empty file") != std::string::npos ||
			            got.error.find("truncated zstd") != std::string::npos ||
			            (n < 8 && got.error.find("bad magic") != std::string::npos))
			    << "cut at " << n << ": " << got.error;
			continue;
		}
		EXPECT_TRUE(got.truncated) << "cut at " << n;
		EXPECT_FALSE(got.events.empty()) << "cut at " << n;
		EXPECT_LE(got.events.size(), whole.events.size());
		if (got.events.empty() || got.events.size() > whole.events.size())
			continue;
		EXPECT_EQ(got.events.back().type, EventType::Frame) << "cut at " << n;
		size_t differ = 0;
		while (differ < got.events.size() && same(got.events[differ], whole.events[differ]) &&
		       got.relocs[differ].size() == whole.relocs[differ].size())
			differ++;
		EXPECT_EQ(differ, got.events.size()) << "cut at " << n << ": record " << differ << " differs";
	}
	return w.got;
}

} // namespace

TEST(Truncated, EveryCutOfTheCompressedFileEndsAtAFrameOrFails)
{
	const std::string path = real_trace();
	const std::string bytes = test::read_bytes(path);
	const Read whole = read_bytes(bytes, "whole.vrl");
	ASSERT_EQ(whole.error, "");
	ASSERT_FALSE(whole.truncated);
	std::vector<size_t> cuts;
	for (size_t n = 0; n < bytes.size(); n++)
		cuts.push_back(n);
	const auto warnings = check_cuts(bytes, whole, cuts);
	EXPECT_GT(warnings.size(), bytes.size() / 2); // most cuts leave frames to use
	// Mid-zstd-frame: the stream is cut, the records up to the last flushed FRAME remain.
	EXPECT_NE(warnings.back().find("cut.vrl: truncated at decompressed byte "), std::string::npos);
	EXPECT_NE(warnings.back().find("the zstd stream is cut at compressed byte"), std::string::npos)
	    << warnings.back();
}

TEST(Truncated, EveryCutOfTheDecompressedStreamEndsAtAFrameOrFails)
{
	const std::string raw = test::decompressed(real_trace());
	const Read whole = read_bytes(raw, "whole.vrl");
	ASSERT_EQ(whole.error, "");
	std::vector<size_t> cuts;
	for (size_t n = 0; n < raw.size(); n += 3)
		cuts.push_back(n);
	const auto warnings = check_cuts(raw, whole, cuts);
	bool mid_record = false, mid_frame = false;
	for (auto &w : warnings) {
		mid_record |= w.find("the last record is incomplete") != std::string::npos;
		mid_frame |= w.find(", dropping 0 records") == std::string::npos;
	}
	EXPECT_TRUE(mid_record);
	EXPECT_TRUE(mid_frame);
}

TEST(Truncated, TheWarningSaysWhatIsUsedAndWhatIsDropped)
{
	// create 0, FRAME, create 1, CPU 1, then a READ of buffer 1 cut after its tag and dt.
	const std::string head = std::string("vrltrace\x02\x01\x00\x00\x00\x00", 14);
	const std::string body = std::string("\x00\x00\x00\x10\x00", 5) + std::string("\x05\x01", 2) +
	                         std::string("\x00\x02\x01\x10\x00", 5) + std::string("\x04\x01\x01", 3);
	Warnings w;
	Read got = read_bytes(head + body + std::string("\x01\x05", 2), "x.vrl");
	ASSERT_EQ(got.error, "");
	ASSERT_EQ(got.events.size(), 2u);
	ASSERT_EQ(w.got.size(), 1u);
	EXPECT_EQ(w.got[0], "x.vrl: truncated at decompressed byte 31 (no END record; the last record "
	                    "is incomplete): using the 2 records up to frame 1, dropping 2 records "
	                    "after it");
	// Stopping cleanly after a record: no incomplete record.
	got = read_bytes(head + body, "y.vrl");
	ASSERT_EQ(w.got.size(), 2u);
	EXPECT_EQ(w.got[1], "y.vrl: truncated at decompressed byte 29 (no END record): using the 2 "
	                    "records up to frame 1, dropping 2 records after it");
	// Right after the FRAME: nothing dropped.
	got = read_bytes(head + body.substr(0, 7), "z.vrl");
	EXPECT_EQ(got.events.size(), 2u);
	EXPECT_NE(w.got.back().find("dropping 0 records after it"), std::string::npos);
	// No FRAME yet: an error, as a file without END always was.
	got = read_bytes(head + body.substr(0, 5), "n.vrl");
	EXPECT_EQ(got.error, "n.vrl: byte 19: truncated trace: the stream stops without an END "
	                     "record (no complete FRAME record to end at)");
	// Corrupt data after the last FRAME stays an error (here: unknown record type 9).
	got = read_bytes(head + body + std::string("\x09\x00", 2), "c.vrl");
	EXPECT_NE(got.error.find("c.vrl: byte 29: unknown record type 9"), std::string::npos)
	    << got.error;
}

TEST(Truncated, AStreamCutRightAfterEndLosesNothing)
{
	const std::string raw = test::decompressed(real_trace());
	const std::string path = test::temp_path("epilogue.vrl");
	std::string flushed;
	{
		ByteSink s(path, Compression::Zstd, 0, Output::Live);
		s.write(raw.data(), raw.size());
		s.flush(); // every byte is out, the zstd frame is not ended
		flushed = test::read_bytes(path);
	}
	Warnings w;
	const Read whole = read_bytes(raw, "whole.vrl");
	const Read got = read_bytes(flushed, "e.vrl");
	EXPECT_EQ(got.error, "");
	EXPECT_FALSE(got.truncated);
	EXPECT_EQ(got.events.size(), whole.events.size());
	ASSERT_EQ(w.got.size(), 1u);
	EXPECT_EQ(w.got[0], "e.vrl: the compressed stream is cut after the END record (all " +
	                            std::to_string(whole.events.size()) + " records are there)");
}

TEST(Truncated, TooFarBehindTheLastFrameIsAnError)
{
	// create 0, FRAME, then 70,000 CPU maps (more than the reader keeps back), cut.
	std::string s = std::string("vrltrace\x02\x01\x00\x00\x00\x00", 14) +
	                std::string("\x00\x00\x00\x10\x00", 5) + std::string("\x05\x01", 2);
	for (int i = 0; i < 70000; i++)
		s += std::string("\x04\x00\x00", 3);
	Warnings w;
	Read got = read_bytes(s, "far.vrl");
	EXPECT_NE(got.error.find("its last FRAME is more than 65536 records back"), std::string::npos)
	    << got.error;
	// A FRAME after them gives a new place to end at.
	s += std::string("\x05\x00", 2) + std::string("\x04\x00\x00", 3);
	got = read_bytes(s, "far.vrl");
	EXPECT_EQ(got.error, "");
	EXPECT_EQ(got.events.size(), 70003u);
	EXPECT_EQ(got.events.back().type, EventType::Frame);
}

TEST(Truncated, TheSimulatorsReadTheSamePrefixAndDoNotCacheIt)
{
	const std::string path = real_trace();
	const std::string bytes = test::read_bytes(path);
	const std::string cut = test::temp_path("cut-sim.vrl");
	test::write_bytes(cut, bytes.substr(0, bytes.size() * 2 / 3));
	const std::string dir = test::temp_path("cache-cut");
	std::filesystem::remove_all(dir);
	setenv("VRAMLAB_CACHE", dir.c_str(), 1);
	Warnings w;
	int decodes = 0;
	for (int i = 0; i < 2; i++) {
		const CompactTrace t = cached_compact(cut, OnDestroyed::Repair, [&] {
			decodes++;
			return load_compact(cut, OnDestroyed::Repair);
		});
		EXPECT_TRUE(t.truncated);
		EXPECT_GT(t.ops.size(), 100u);
		const KernelTrace k = load_kernel_trace(cut);
		EXPECT_TRUE(k.truncated);
		EXPECT_GT(k.cs.size(), 10u);
	}
	EXPECT_EQ(decodes, 2); // a cut file is not cached: its warning shows every run
	EXPECT_FALSE(w.got.empty());
	unsetenv("VRAMLAB_CACHE");
	std::filesystem::remove_all(dir);
}
