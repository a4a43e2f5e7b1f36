// Round trips between the three formats, on a real trace and on hand-made v2 records.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "helpers.h"
#include "trace/stats.h"
#include "sim/trace_cache.h"

using namespace vramlab;

namespace {

bool same(const Event &a, const Event &b, bool times = true)
{
	return a.type == b.type && a.id == b.id && a.size == b.size && a.high_prio == b.high_prio &&
	       a.imported == b.imported &&
	       a.domain == b.domain && a.score == b.score && (!times || a.time_us == b.time_us);
}

// IN as format f in OUT (v2: as version 2.v2_minor when given, else IN's).
void convert(const std::string &in, const std::string &out, Format f, int v2_minor = -1)
{
	auto r = open_trace(in);
	TraceInfo info = r->info();
	if (v2_minor >= 0)
		info.v2_minor = uint8_t(v2_minor);
	if (!info.declared_buffers) {
		auto r2 = open_trace(in);
		Event e;
		while (r2->next(e))
			info.declared_buffers += e.type == EventType::Create;
	}
	auto w = make_writer(f, out, info);
	Event e;
	while (r->next(e))
		w->write(e);
	w->close();
}

// CREATE records of buffers 0, 1, 2 (4, 8 and 16 KiB, VRAM); high_prio(id) sets the flag.
template <class HighPrio>
void write_three_creates(TraceWriter &w, HighPrio high_prio)
{
	for (uint32_t id = 0; id < 3; id++) {
		Event c;
		c.type = EventType::Create;
		c.id = id;
		c.size = 4096 << id;
		c.domain = DomainVram;
		c.high_prio = high_prio(id);
		w.write(c);
	}
}

} // namespace

TEST(Formats, Bostats1ToTextToBostats1IsExact)
{
	const std::string src = test::repo_trace("nederland1.bin");
	const std::string txt = test::temp_path("n.txt"), bin = test::temp_path("n.bin");
	convert(src, txt, Format::Text);
	convert(txt, bin, Format::Bostats1);
	auto a = test::read_all(src), b = test::read_all(bin);
	ASSERT_EQ(a.size(), b.size());
	for (size_t i = 0; i < a.size(); i++)
		ASSERT_TRUE(same(a[i], b[i])) << "entry " << i;
	// The text form read back gives the same events too (ids from the synthetic addresses).
	auto t = test::read_all(txt);
	ASSERT_EQ(a.size(), t.size());
	for (size_t i = 0; i < a.size(); i++)
		ASSERT_TRUE(same(a[i], t[i])) << "entry " << i;
}

TEST(Formats, V2KeepsEverythingBostats1Has)
{
	// v2 cannot hold events on destroyed ids: repair-free round trip on the live events only.
	const std::string src = test::repo_trace("nederland1.bin");
	auto all = test::read_all(src);
	std::vector<Event> live;
	std::vector<bool> dead;
	for (auto &e : all) {
		if (e.type == EventType::Create)
			dead.resize(e.id + 1);
		else if (dead[e.id])
			continue;
		if (e.type == EventType::Destroy)
			dead[e.id] = true;
		live.push_back(e);
	}
	const std::string v2 = test::temp_path("n.vrl"), back = test::temp_path("n2.bin");
	{
		TraceInfo info;
		info.meta["application"] = "Nederland";
		auto w = make_writer(Format::V2, v2, info);
		for (auto &e : live)
			w->write(e);
		w->close();
	}
	auto r = open_trace(v2);
	EXPECT_EQ(r->info().format, Format::V2);
	EXPECT_EQ(r->info().meta.at("application"), "Nederland");
	Event e;
	size_t i = 0;
	while (r->next(e)) {
		ASSERT_LT(i, live.size());
		ASSERT_TRUE(same(e, live[i])) << "record " << i;
		i++;
	}
	EXPECT_EQ(i, live.size());
	convert(v2, back, Format::Bostats1);
	auto b = test::read_all(back);
	ASSERT_EQ(b.size(), live.size());
	// Back in bostats1 the gaps left by the dropped events may exceed 31 ms and are clipped.
	for (size_t k = 0; k < b.size(); k++)
		ASSERT_TRUE(same(b[k], live[k], false)) << "entry " << k;
}

TEST(Formats, V2HoldsFramesScoresContextsDomainsAndMicroseconds)
{
	std::vector<Event> ev;
	auto add = [&](EventType t, uint32_t id, uint64_t us) {
		Event e;
		e.type = t;
		e.id = id;
		e.time_us = us;
		ev.push_back(e);
		return &ev.back();
	};
	add(EventType::Context, 7, 0);
	auto *c = add(EventType::Create, 0, 5);
	c->size = 5ull << 32; // larger than bostats1 can hold
	c->high_prio = true;
	c->domain = DomainVram;
	add(EventType::Score, 0, 6)->score = 0xfffffffe;
	add(EventType::Write, 0, 1000007)->domain = DomainVram | DomainGtt;
	auto *imp = add(EventType::Create, 1, 1000007); // a dma-buf import (v2.1 flag bit 1)
	imp->size = 8192;
	imp->imported = true;
	imp->domain = DomainGtt;
	add(EventType::Frame, 0, 1000008);
	add(EventType::Cpu, 0, 1000009)->domain = DomainCpu;
	add(EventType::Destroy, 0, 2000000);
	const std::string path = test::temp_path("h.vrl");
	auto w = make_writer(Format::V2, path, TraceInfo{});
	for (auto &e : ev)
		w->write(e);
	w->close();
	auto got = test::read_all(path);
	ASSERT_EQ(got.size(), ev.size());
	for (size_t i = 0; i < ev.size(); i++)
		EXPECT_TRUE(same(got[i], ev[i])) << "record " << i;
}

TEST(Formats, V2ReadsConcatenatedZstdFrames)
{
	// A live writer may end a frame at any time: two files joined must read as one stream
	// only if the first lacks END, so build the stream by hand from two compressed halves.
	const std::string path = test::temp_path("one.vrl");
	auto w = make_writer(Format::V2, path, TraceInfo{});
	Event e;
	e.type = EventType::Create;
	e.size = 4096;
	w->write(e);
	w->close();
	// Re-compress the same decompressed bytes as two frames.
	std::string raw;
	{
		ByteSource s(path);
		uint8_t b;
		while (s.get(b))
			raw.push_back(char(b));
	}
	const std::string two = test::temp_path("two.vrl");
	{
		const std::string p1 = test::temp_path("p1"), p2 = test::temp_path("p2");
		ByteSink a(p1, Compression::Zstd), b(p2, Compression::Zstd);
		a.write(raw.data(), 10);
		b.write(raw.data() + 10, raw.size() - 10);
		a.close();
		b.close();
		test::write_bytes(two, test::read_bytes(p1) + test::read_bytes(p2));
	}
	auto got = test::read_all(two);
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].size, 4096u);
}

TEST(Formats, TextReaderTracksAddressReuse)
{
	const std::string t = "started @100\n"
	                      "0x10 created, size 64, prio 1, @100\n"
	                      "0x10 read @101\n"
	                      "0x10 destroyed @102\n"
	                      "0x10 created, size 32, prio 0, @103\n"
	                      "0x10 write @140\n";
	auto r = open_trace_memory(reinterpret_cast<const uint8_t *>(t.data()), t.size(), "t.txt");
	Event e;
	std::vector<Event> got;
	while (r->next(e))
		got.push_back(e);
	ASSERT_EQ(got.size(), 5u);
	EXPECT_TRUE(got[0].high_prio);
	EXPECT_EQ(got[3].id, 1u); // a new create at a recycled address is a new buffer
	EXPECT_EQ(got[4].id, 1u);
	EXPECT_EQ(got[4].time_us, 40000u);
}

TEST(Formats, StatsOfAConvertedTraceAreUnchanged)
{
	const std::string src = test::repo_trace("nederland1.bin"), txt = test::temp_path("s.txt");
	convert(src, txt, Format::Text);
	auto a = open_trace(src), b = open_trace(txt);
	const TraceStats sa = compute_stats(*a, "x"), sb = compute_stats(*b, "x");
	EXPECT_EQ(sa.reads, sb.reads);
	EXPECT_EQ(sa.events_on_destroyed, sb.events_on_destroyed);
	EXPECT_EQ(sa.runtime_ms, sb.runtime_ms);
	EXPECT_EQ(sa.never_used, sb.never_used);
}

TEST(Formats, V21CsRecordsRoundTripWithChangedScoresOnly)
{
	const std::string path = test::temp_path("cs.vrl");
	TraceInfo info;
	auto w = make_writer(Format::V2, path, info);
	write_three_creates(*w, [](uint32_t) { return false; });
	std::vector<CsReloc> relocs = {{0, DomainVram, 0, 3, false, 7},
	                               {2, 0, DomainGtt, 15, false, kScoreNeutral},
	                               {1, DomainVram | DomainGtt, 0, 0, false, 123}};
	for (int k = 0; k < 3; k++) {
		Event cs;
		cs.type = EventType::Cs;
		cs.time_us = 1000 * (k + 1);
		cs.ring = k == 2 ? RingDma : RingGfx;
		cs.cs_scores = k != 1;
		cs.nrelocs = uint32_t(relocs.size());
		cs.relocs = relocs.data();
		w->write(cs);
		relocs[0].score += 1; // only buffer 0's score changes from one CS to the next
	}
	w->close();

	auto r = open_trace(path);
	Event e;
	int n = 0;
	while (r->next(e)) {
		if (e.type != EventType::Cs)
			continue;
		ASSERT_EQ(e.nrelocs, 3u);
		EXPECT_EQ(e.ring, n == 2 ? RingDma : RingGfx);
		EXPECT_EQ(e.cs_scores, n != 1);
		EXPECT_EQ(e.relocs[1].write_domain, DomainGtt);
		EXPECT_EQ(e.relocs[1].prio, 15);
		EXPECT_EQ(e.relocs[2].read_domains, DomainVram | DomainGtt);
		if (n != 1) {
			EXPECT_EQ(e.relocs[0].score, 7u + n);
			EXPECT_EQ(e.relocs[2].score, 123u); // not written again, still known
		} else {
			EXPECT_EQ(e.relocs[0].score, kScoreNeutral); // no chunk: neutral
		}
		n++;
	}
	EXPECT_EQ(n, 3);

	// The thesis model and stats see each buffer of a CS as a read or a write.
	auto r2 = open_trace(path);
	TraceStats s = compute_stats(*r2, "cs.vrl");
	EXPECT_EQ(s.cs, 3u);
	EXPECT_EQ(s.reads, 6u);
	EXPECT_EQ(s.writes, 3u);
}

namespace {

// Three buffers (1 with the CREATE flag), then CS 0 [0 with the high-priority use (prio 3),
// 1 (prio 0), 2 with it (prio 15)] and CS 1 [0 without it, written].
void write_v22(const std::string &path, const TraceInfo &info)
{
	auto w = make_writer(Format::V2, path, info);
	write_three_creates(*w, [](uint32_t id) { return id == 1; });
	const std::vector<CsReloc> cs0 = {{0, DomainVram, 0, 3, true, kScoreNeutral},
	                                  {1, DomainVram, 0, 0, false, kScoreNeutral},
	                                  {2, 0, DomainVram, 15, true, kScoreNeutral}};
	const std::vector<CsReloc> cs1 = {{0, 0, DomainVram, 0, false, kScoreNeutral}};
	for (auto *relocs : {&cs0, &cs1}) {
		Event cs;
		cs.type = EventType::Cs;
		cs.time_us = 1000 * (relocs == &cs0 ? 1 : 2);
		cs.nrelocs = uint32_t(relocs->size());
		cs.relocs = relocs->data();
		w->write(cs);
	}
	w->close();
}

} // namespace

TEST(Formats, V22HighPriorityUseRoundTrips)
{
	const std::string path = test::temp_path("hp.vrl"), copy = test::temp_path("hp2.vrl");
	TraceInfo info;
	info.v2_minor = 2;
	write_v22(path, info);
	// The bit comes back apart from the kernel's priority, in a 2.2 file.
	auto check = [](const std::string &file) {
		auto r = open_trace(file);
		EXPECT_EQ(r->info().v2_minor, 2);
		std::vector<CsReloc> got;
		Event e;
		while (r->next(e))
			if (e.type == EventType::Cs)
				got.insert(got.end(), e.relocs, e.relocs + e.nrelocs);
		ASSERT_EQ(got.size(), 4u);
		const bool use[] = {true, false, true, false};
		const uint8_t prio[] = {3, 0, 15, 0};
		for (size_t i = 0; i < 4; i++) {
			EXPECT_EQ(got[i].high_prio_use, use[i]) << i;
			EXPECT_EQ(got[i].prio, prio[i]) << i;
		}
	};
	check(path);
	// A copy made with the reader's TraceInfo (what convert and repair do) stays 2.2.
	{
		auto r = open_trace(path);
		auto w = make_writer(Format::V2, copy, r->info());
		Event e;
		while (r->next(e))
			w->write(e);
		w->close();
	}
	check(copy);
	auto a = test::read_all(path), b = test::read_all(copy);
	ASSERT_EQ(a.size(), b.size());
	for (size_t i = 0; i < a.size(); i++)
		EXPECT_TRUE(same(a[i], b[i])) << i;
	// Readers that count the thesis's way see the use on each expanded read or write.
	auto r = open_trace(path);
	CsExpander x(*r);
	std::vector<std::pair<uint32_t, bool>> uses;
	Event e;
	while (x.next(e))
		if (e.type == EventType::Read || e.type == EventType::Write)
			uses.emplace_back(e.id, e.high_prio);
	EXPECT_EQ(uses, (std::vector<std::pair<uint32_t, bool>>{{0, true}, {1, false}, {2, true},
	                                                        {0, false}}));
}

TEST(Formats, TheV2WriterWrites21UnlessTold22)
{
	// Without v2_minor = 2 the writer writes 2.1 (older readers know it) and refuses the bit
	// rather than drop it.
	const std::string path = test::temp_path("hp21.vrl");
	try {
		write_v22(path, TraceInfo{});
		ADD_FAILURE() << "a 2.1 writer took a high-priority use";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("relocation of buffer 0 has the high-priority-use "
		                                     "bit, which needs version 2.2"),
		          std::string::npos)
		    << e.what();
	}
	{
		auto w = make_writer(Format::V2, path, TraceInfo{});
		Event c;
		c.type = EventType::Create;
		c.size = 4096;
		w->write(c);
		w->close();
	}
	EXPECT_EQ(open_trace(path)->info().v2_minor, 1);
	// The version bytes themselves, decompressed: "vrltrace", 2, 1.
	ByteSource src(path);
	uint8_t head[10];
	ASSERT_TRUE(src.read(head, 10));
	EXPECT_EQ(head[8], 2);
	EXPECT_EQ(head[9], 1);
	TraceInfo two;
	two.v2_minor = 2;
	write_v22(path, two);
	ByteSource src2(path);
	ASSERT_TRUE(src2.read(head, 10));
	EXPECT_EQ(head[9], 2);
}

TEST(TraceCache, ASecondLoadComesFromTheCacheAndADamagedFileIsIgnored)
{
	const std::string dir = test::temp_path("cache");
	std::filesystem::remove_all(dir);
	setenv("VRAMLAB_CACHE", dir.c_str(), 1);
	const std::string trace = test::repo_trace("nederland1.bin");
	int decodes = 0;
	auto decode = [&] {
		decodes++;
		return load_kernel_trace(trace);
	};
	const KernelTrace a = cached_kernel(trace, OnDestroyed::Skip, decode);
	const KernelTrace b = cached_kernel(trace, OnDestroyed::Skip, decode);
	EXPECT_EQ(decodes, 1);
	EXPECT_EQ(a.ops, b.ops);
	EXPECT_EQ(a.relocs.size(), b.relocs.size());
	EXPECT_EQ(a.skipped, b.skipped);
	// Damage every cache file: the next load decodes again and gives the same trace.
	for (auto &f : std::filesystem::directory_iterator(std::filesystem::path(dir) / "decoded"))
		std::filesystem::resize_file(f.path(), std::filesystem::file_size(f.path()) / 2);
	const KernelTrace c = cached_kernel(trace, OnDestroyed::Skip, decode);
	EXPECT_EQ(decodes, 2);
	EXPECT_EQ(a.ops, c.ops);
	// Another defect mode is another entry.
	int compact_decodes = 0;
	auto cd = [&] {
		compact_decodes++;
		return load_compact(trace, OnDestroyed::Repair);
	};
	const CompactTrace x = cached_compact(trace, OnDestroyed::Repair, cd);
	const CompactTrace y = cached_compact(trace, OnDestroyed::Repair, cd);
	EXPECT_EQ(compact_decodes, 1);
	EXPECT_EQ(x.ops, y.ops);
	EXPECT_EQ(x.repair.moved, y.repair.moved);
	unsetenv("VRAMLAB_CACHE");
	std::filesystem::remove_all(dir);
}

namespace {

namespace fs = std::filesystem;

// The cache's entries now, by name (file_of()'s names; nothing else counts)
std::set<std::string> cache_entries(const std::string &dir)
{
	std::set<std::string> e;
	for (auto &f : fs::directory_iterator(fs::path(dir) / "decoded"))
		if (f.path().extension() == ".bin")
			e.insert(f.path().filename().string());
	return e;
}

// The one entry in `after` that is not in `before`
std::string new_entry(const std::set<std::string> &before, const std::set<std::string> &after)
{
	std::vector<std::string> d;
	std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
	                    std::back_inserter(d));
	return d.size() == 1 ? d[0] : "";
}

} // namespace

// A clean clone, or a corpus copied afresh, has new paths and mtimes: the same bytes under the
// same name are the same entry; other bytes under that name are not.
TEST(TraceCache, ACopyOfATraceElsewhereIsTheSameEntry)
{
	const std::string dir = test::temp_path("cache-copy");
	fs::remove_all(dir);
	setenv("VRAMLAB_CACHE", dir.c_str(), 1);
	for (const char *d : {"a", "b", "c"})
		fs::create_directories(fs::path(dir) / d);
	const fs::path a = fs::path(dir) / "a" / "nederland1.bin", b = fs::path(dir) / "b" / "nederland1.bin",
	               c = fs::path(dir) / "c" / "nederland1.bin";
	fs::copy_file(test::repo_trace("nederland1.bin"), a);
	fs::copy_file(test::repo_trace("nederland1.bin"), b);
	fs::copy_file(test::repo_trace("nexuiz1.bin"), c);
	fs::last_write_time(b, fs::last_write_time(a) - std::chrono::hours(5));
	int decodes = 0;
	auto load = [&](const fs::path &p) {
		return cached_kernel(p.string(), OnDestroyed::Skip, [&] {
			decodes++;
			return load_kernel_trace(p.string());
		});
	};
	const KernelTrace x = load(a), y = load(b);
	EXPECT_EQ(decodes, 1);
	EXPECT_EQ(x.ops, y.ops);
	EXPECT_EQ(cache_entries(dir).size(), 1u);
	const KernelTrace z = load(c); // nexuiz1's bytes named nederland1.bin
	EXPECT_EQ(decodes, 2);
	EXPECT_EQ(z.ops, load_kernel_trace(test::repo_trace("nexuiz1.bin")).ops);
	EXPECT_EQ(cache_entries(dir).size(), 2u);
	unsetenv("VRAMLAB_CACHE");
	fs::remove_all(dir);
}

// Past VRAMLAB_TRACE_CACHE_MAX_MIB the least recently used entries go (a hit counts as a
// use), the entry just written stays, and nothing else in the directory is touched.
TEST(TraceCache, TheLeastRecentlyUsedEntriesGoPastTheBound)
{
	const std::string dir = test::temp_path("cache-bound");
	fs::remove_all(dir);
	setenv("VRAMLAB_CACHE", dir.c_str(), 1);
	const fs::path decoded = fs::path(dir) / "decoded";
	fs::create_directories(decoded);
	std::vector<fs::path> t; // one trace under three names: three entries of one size
	for (const char *n : {"x1.bin", "x2.bin", "x3.bin"}) {
		t.push_back(fs::path(dir) / n);
		fs::copy_file(test::repo_trace("nederland1.bin"), t.back());
	}
	const fs::path notes = decoded / "notes.txt", tmp = decoded / "0123456789abcdef.bin.tmp";
	std::ofstream(notes) << "not an entry";
	std::ofstream(tmp) << "a writer's temporary file";
	int decodes = 0;
	auto load = [&](const fs::path &p) {
		const auto before = cache_entries(dir);
		cached_kernel(p.string(), OnDestroyed::Skip, [&] {
			decodes++;
			return load_kernel_trace(p.string());
		});
		return new_entry(before, cache_entries(dir));
	};
	const std::string e1 = load(t[0]), e2 = load(t[1]);
	ASSERT_FALSE(e1.empty());
	ASSERT_FALSE(e2.empty());
	const auto size = fs::file_size(decoded / e1);
	ASSERT_EQ(fs::file_size(decoded / e2), size);
	const auto now = fs::file_time_type::clock::now();
	fs::last_write_time(decoded / e1, now - std::chrono::hours(2));
	fs::last_write_time(decoded / e2, now - std::chrono::hours(1));
	fs::last_write_time(notes, now - std::chrono::hours(9));
	fs::last_write_time(tmp, now - std::chrono::hours(9));
	EXPECT_EQ(load(t[0]), ""); // a hit: x1 is now the most recently used
	EXPECT_EQ(decodes, 2);
	// room for two entries, not three: writing x3's removes x2's, the least recently used
	const uint64_t cap_mib = ((2 * size) >> 20) + 1;
	ASSERT_LT(cap_mib << 20, 3 * size) << "no MiB bound between two entries and three";
	setenv("VRAMLAB_TRACE_CACHE_MAX_MIB", std::to_string(cap_mib).c_str(), 1);
	const std::string e3 = load(t[2]);
	EXPECT_EQ(cache_entries(dir), (std::set<std::string>{e1, e3}));
	EXPECT_TRUE(fs::exists(notes));
	EXPECT_TRUE(fs::exists(tmp));
	// room for one entry: the one just written stays, and only it
	ASSERT_LT(1u << 20, 2 * size);
	setenv("VRAMLAB_TRACE_CACHE_MAX_MIB", "1", 1);
	EXPECT_EQ(load(t[1]), e2);
	EXPECT_EQ(cache_entries(dir), (std::set<std::string>{e2}));
	EXPECT_EQ(decodes, 4);
	unsetenv("VRAMLAB_TRACE_CACHE_MAX_MIB");
	unsetenv("VRAMLAB_CACHE");
	fs::remove_all(dir);
}

namespace {

// Every record of a trace, CS relocations included, as comparable values.
struct Flat {
	std::vector<Event> events;
	std::vector<std::vector<CsReloc>> relocs;
};

void keep(Flat &f, Event e)
{
	f.relocs.emplace_back(e.relocs, e.relocs + (e.type == EventType::Cs ? e.nrelocs : 0));
	e.relocs = nullptr;
	f.events.push_back(e);
}

// R's records by next() (batch 0) or by next_batch(.., batch), where a CS ends its batch.
Flat read_flat(TraceReader &r, size_t batch = 0)
{
	Flat f;
	if (!batch) {
		for (Event e; r.next(e);)
			keep(f, e);
		return f;
	}
	std::vector<Event> buf(batch);
	for (size_t got; (got = r.next_batch(buf.data(), batch));) {
		EXPECT_LE(got, batch);
		for (size_t i = 0; i < got; i++) {
			if (buf[i].type == EventType::Cs) {
				EXPECT_EQ(i, got - 1) << "a CS record must end its batch";
			}
			keep(f, buf[i]);
		}
	}
	return f;
}

Flat read_flat(const std::string &path, uint8_t *minor = nullptr)
{
	auto r = open_trace(path);
	Flat f = read_flat(*r);
	if (minor)
		*minor = r->info().v2_minor;
	return f;
}

void expect_same(const Flat &a, const Flat &b)
{
	ASSERT_EQ(a.events.size(), b.events.size());
	for (size_t i = 0; i < a.events.size(); i++) {
		const Event &x = a.events[i], &y = b.events[i];
		ASSERT_TRUE(same(x, y) && x.ring == y.ring && x.cs_scores == y.cs_scores &&
		            x.cs_untracked == y.cs_untracked && x.nrelocs == y.nrelocs)
		    << "record " << i;
		for (size_t k = 0; k < a.relocs[i].size(); k++) {
			const CsReloc &p = a.relocs[i][k], &q = b.relocs[i][k];
			ASSERT_TRUE(p.id == q.id && p.read_domains == q.read_domains &&
			            p.write_domain == q.write_domain && p.prio == q.prio &&
			            p.high_prio_use == q.high_prio_use && p.score == q.score)
			    << "record " << i << " relocation " << k;
		}
	}
}


} // namespace

// v2.3 codes the same records as 2.2 in fewer bytes: every event and relocation of Mesa's own
// traces comes back unchanged from a 2.3 copy, and a 2.3 copy of that reads as the same 2.3.
TEST(Formats, V23HoldsEveryRecordOfTheLiveTracesInFewerBytes)
{
	int n = 0;
	for (auto &entry : std::filesystem::directory_iterator(test::repo_trace("live"))) {
		if (entry.path().extension() != ".vrl")
			continue;
		const std::string src = entry.path().string();
		const std::string v23 = test::temp_path("live23.vrl"), again = test::temp_path("live23b.vrl");
		uint8_t minor = 0, minor23 = 0;
		const Flat a = read_flat(src, &minor);
		ASSERT_GE(minor, 1) << src;
		convert(src, v23, Format::V2, 3);
		const Flat b = read_flat(v23, &minor23);
		EXPECT_EQ(minor23, 3) << src;
		expect_same(a, b);
		convert(v23, again, Format::V2, 3);
		expect_same(a, read_flat(again));
		const uint64_t old_bytes = test::decompressed(src).size(),
		               new_bytes = test::decompressed(v23).size();
		EXPECT_LT(new_bytes, old_bytes * 3 / 4) << src << ": " << old_bytes << " -> " << new_bytes;
		std::printf("%s: %llu -> %llu bytes\n", entry.path().filename().c_str(),
		            (unsigned long long)old_bytes, (unsigned long long)new_bytes);
		n++;
	}
	EXPECT_GE(n, 8);
}

// What 2.3 codes differently, at its edges: a dt of 0 (no time field), sizes in pages and in
// bytes (0, 1, 4096 × 2^40), flags, ids counted back from the newest buffer or not, relocations
// that repeat their buffer's last use and ones that do not (a new priority, a new score).
TEST(Formats, V23CodesItsEdgesExactly)
{
	std::vector<Event> ev;
	auto add = [&](EventType t, uint32_t id, uint64_t us) -> Event & {
		Event e;
		e.type = t;
		e.id = id;
		e.time_us = us;
		ev.push_back(e);
		return ev.back();
	};
	const uint64_t sizes[] = {4096, 0, 1, 4097, 4096ull << 40, 65536, 3 << 20};
	for (uint32_t id = 0; id < 7; id++) {
		Event &c = add(EventType::Create, id, id < 3 ? 0 : 10 * id);
		c.size = sizes[id];
		c.domain = id % 2 ? DomainGtt : DomainVram;
		c.high_prio = id == 2;
		c.imported = id == 5;
	}
	add(EventType::Cpu, 6, 70).domain = DomainCpu;
	add(EventType::Cpu, 0, 70).domain = DomainCpu;
	add(EventType::Score, 3, 71).score = 0xffffffff;
	add(EventType::Context, 3, 72);
	std::vector<CsReloc> r1 = {{6, DomainVram, 0, 3, false, 9},
	                           {0, 0, DomainGtt, 3, false, 9},
	                           {3, DomainVram, 0, 3, true, 10},
	                           {4, DomainVram, 0, 0, false, kScoreNeutral}};
	std::vector<CsReloc> r2 = {{4, DomainVram, 0, 0, false, 11}, {5, DomainGtt, 0, 0, false, 11}};
	// buffer 0's score falls (a negative difference), the others as in r1
	std::vector<CsReloc> r3 = r1;
	r3[1].score = 3;
	for (auto *r : {&r1, &r2, &r1, &r3}) {
		Event &cs = add(EventType::Cs, 0, 200);
		cs.cs_scores = true;
		cs.nrelocs = uint32_t(r->size());
		cs.relocs = r->data();
	}
	add(EventType::Frame, 0, 1u << 31);
	add(EventType::Destroy, 0, 1u << 31);
	add(EventType::Destroy, 6, 1u << 31);
	const std::string p22 = test::temp_path("e22.vrl"), p23 = test::temp_path("e23.vrl");
	test::write_v2(p22, ev, 2);
	test::write_v2(p23, ev, 3);
	uint8_t minor = 0;
	const Flat a = read_flat(p22), b = read_flat(p23, &minor);
	EXPECT_EQ(minor, 3);
	expect_same(a, b);
	ASSERT_EQ(b.events.size(), ev.size());
	EXPECT_EQ(b.events[4].size, 4096ull << 40);
	EXPECT_EQ(b.events[1].size, 0u);
	EXPECT_TRUE(b.relocs[11][2].high_prio_use);
	EXPECT_EQ(b.relocs[11][3].prio, 0);
	EXPECT_EQ(b.relocs[12][0].score, 11u);
	EXPECT_EQ(b.relocs[12][1].id, 5u);
	EXPECT_EQ(b.relocs[13][3].score, kScoreNeutral);
	EXPECT_EQ(b.relocs[13][1].write_domain, DomainGtt);
	EXPECT_EQ(b.relocs[14][1].score, 3u);
	EXPECT_EQ(b.relocs[14][0].score, 9u);
	EXPECT_LT(test::decompressed(p23).size(), test::decompressed(p22).size());

	// Sizes of 2^62 bytes and more fit 2.3 only in whole pages.
	try {
		Event big = test::create_event(0, (uint64_t(1) << 62) + 1);
		test::write_v2(p23, {big}, 3);
		ADD_FAILURE() << "a 2.3 writer took a size of 2^62 + 1 bytes";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("is too large for version 2.3"), std::string::npos)
		    << e.what();
	}
	// 2.3 cannot name a buffer that does not exist yet: the writer says so.
	try {
		test::write_v2(p23, {add(EventType::Destroy, 0, 0)}, 3);
		ADD_FAILURE() << "a 2.3 writer took a destroy before any create";
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("destroy of buffer 0 that was not created"),
		          std::string::npos)
		    << e.what();
	}
}


// The batched reads on the thesis model's hot path give what next() gives, record for
// record: the raw readers (bostats1; v2 with CS records), the replay's filters (SkipDestroyed
// drops events inside a batch) and CsExpander over them (load_compact(): a CS becomes events).
TEST(Formats, ReadingInBatchesGivesWhatNextGives)
{
	// A reader and the one it reads from, if any (owned together).
	struct Chain {
		std::unique_ptr<TraceReader> inner, outer;
	};
	const std::string data = std::string(VRAMLAB_SOURCE_DIR) + "/tests/data/";
	size_t cs_raw = 0, cs_expanded = 0;
	for (const std::string &path :
	     {data + "glsmoke-barts-2.51.vrl", data + "edge-cases.vrl", data + "duplicates.vrl",
	      test::repo_trace("live/glsmoke-barts-6mib.vrl"), test::repo_trace("nederland1.bin")}) {
		for (int how = 0; how < 3; how++) {
			auto open = [&] {
				Chain c;
				if (how == 0)
					c.outer = open_trace(path);
				else
					c.outer = std::make_unique<ReplayReader>(path, ReplayOptions{});
				if (how == 2) {
					c.inner = std::move(c.outer);
					c.outer = std::make_unique<CsExpander>(*c.inner);
				}
				return c;
			};
			const Flat ref = read_flat(*open().outer);
			ASSERT_FALSE(ref.events.empty()) << path;
			for (const Event &e : ref.events)
				(how == 2 ? cs_expanded : cs_raw) += e.type == EventType::Cs;
			for (size_t batch : {1, 2, 7, 256}) {
				SCOPED_TRACE(path + " read " + std::to_string(how) + ", batches of " +
				             std::to_string(batch));
				expect_same(read_flat(*open().outer, batch), ref);
			}
		}
	}
	EXPECT_GT(cs_raw, 0u) << "no CS record read: the test lost its v2 input";
	EXPECT_EQ(cs_expanded, 0u) << "CsExpander leaves no CS record";
}

// An error in the middle of a batch: the events before it come first, as by next(), and the
// next call throws it (a v2 trace whose third CS names a buffer never created; found by
// fuzz_trace_reader).
TEST(Formats, AnErrorInABatchComesAfterTheEventsBeforeIt)
{
	const std::string path =
	        std::string(VRAMLAB_SOURCE_DIR) + "/fuzz/corpus/trace_reader/error-after-events.v21";
	std::vector<EventType> by_next, batched;
	std::string next_error, batch_error;
	try {
		auto r = open_trace(path);
		for (Event e; r->next(e);)
			by_next.push_back(e.type);
	} catch (const TraceError &err) {
		next_error = err.what();
	}
	try {
		auto r = open_trace(path);
		Event buf[64];
		for (size_t got; (got = r->next_batch(buf, 64));)
			for (size_t i = 0; i < got; i++)
				batched.push_back(buf[i].type);
	} catch (const TraceError &err) {
		batch_error = err.what();
	}
	EXPECT_NE(next_error.find("byte 68: a CS names buffer 2 that was not created"), std::string::npos)
	        << next_error;
	EXPECT_EQ(batch_error, next_error);
	EXPECT_EQ(batched, by_next);
	EXPECT_EQ(by_next.size(), 4u); // two creates, a CS, a destroy
}

namespace {

// `raw` gzip'd as one member by the harness's own writer.
std::string gzip_member(const std::string &raw)
{
	const std::string path = test::temp_path("member.gz");
	ByteSink s(path, Compression::Gzip);
	s.write(raw.data(), raw.size());
	s.close();
	return test::read_bytes(path);
}

// Everything a source gives, or the text of the error it throws ("error: ..."), and whether
// it was inflated whole.
std::pair<std::string, bool> drain(ByteSource &s)
{
	std::string out;
	try {
		char chunk[4096];
		for (;;) {
			const size_t before = size_t(s.offset());
			if (!s.read(chunk, sizeof chunk)) {
				out.append(chunk, size_t(s.offset()) - before);
				break;
			}
			out.append(chunk, sizeof chunk);
		}
	} catch (const TraceError &e) {
		return {std::string("error: ") + e.what(), s.whole()};
	}
	return {out, s.whole()};
}

// The same bytes read from a file and from memory.
std::pair<std::string, bool> drain_both(const std::string &bytes)
{
	const std::string path = test::temp_path("drain.gz");
	test::write_bytes(path, bytes);
	ByteSource f(path), m(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), path);
	auto a = drain(f), b = drain(m);
	EXPECT_EQ(a, b) << "a file and the same bytes in memory read differently";
	return a;
}

std::string some_bytes(size_t n)
{
	std::string s(n, '\0');
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		s[i] = char((x >> 16) % 7 == 0 ? x >> 24 : i / 97);
	}
	return s;
}

} // namespace

// A small gzip file (one member, under 64 MiB) is inflated in one call with libdeflate: the
// same bytes as zlib's stream, from a file and from memory, across the 256 KiB refills.
TEST(ByteSource, ASmallGzipStreamIsInflatedWholeToTheSameBytes)
{
	const std::string raw = some_bytes(700'000);
	const auto [got, whole] = drain_both(gzip_member(raw));
	EXPECT_TRUE(whole);
	EXPECT_EQ(got, raw);
	const std::string trace = test::repo_trace("nederland1.bin");
	ByteSource s(trace);
	EXPECT_TRUE(s.whole());
	EXPECT_EQ(s.compression(), Compression::Gzip);
}

// What is not one clean member streams through zlib as before: its bytes, its messages and
// their offsets.
TEST(ByteSource, WhatIsNotOneCleanGzipMemberStreamsThroughZlib)
{
	const std::string a = some_bytes(50'000), b = some_bytes(30'001);
	const std::string ga = gzip_member(a), gb = gzip_member(b);
	// two members: both, in order
	EXPECT_EQ(drain_both(ga + gb), std::make_pair(a + b, false));
	// bytes after the member: zlib's message at the first of them
	auto [junk, whole] = drain_both(ga + "junk");
	EXPECT_FALSE(whole);
	EXPECT_NE(junk.find("corrupt gzip data near compressed byte " + std::to_string(ga.size())),
	          std::string::npos)
	    << junk;
	// a trailer whose size or CRC is wrong: zlib's check fails, at the end
	std::string bad_size = ga, bad_crc = ga;
	bad_size[bad_size.size() - 4] ^= 1;
	bad_crc[bad_crc.size() - 8] ^= 1;
	auto [size_msg, w1] = drain_both(bad_size);
	auto [crc_msg, w2] = drain_both(bad_crc);
	EXPECT_FALSE(w1 || w2);
	EXPECT_NE(size_msg.find("incorrect length check"), std::string::npos) << size_msg;
	EXPECT_NE(crc_msg.find("incorrect data check"), std::string::npos) << crc_msg;
	// cut short: truncated, as before
	auto [cut, w3] = drain_both(ga.substr(0, ga.size() / 2));
	EXPECT_FALSE(w3);
	EXPECT_NE(cut.find("truncated gzip stream"), std::string::npos) << cut;
	// larger than 64 MiB decompressed: streamed, every byte
	const std::string big(size_t(64 << 20) + 1, 'x');
	const auto [big_got, big_whole] = drain_both(gzip_member(big));
	EXPECT_FALSE(big_whole);
	EXPECT_EQ(big_got.size(), big.size());
	EXPECT_EQ(big_got, big);
}
