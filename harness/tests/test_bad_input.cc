// Bad input: every error names the file and the byte offset or line, and nothing crashes.
#include <gtest/gtest.h>
#include <zlib.h>

#include "helpers.h"
#include "trace/filters.h"

using namespace vramlab;

namespace {

std::string gzip(const std::string &raw)
{
	const std::string path = test::temp_path("g.gz");
	ByteSink s(path, Compression::Gzip);
	s.write(raw.data(), raw.size());
	s.close();
	return test::read_bytes(path);
}

// Reads a whole trace from bytes; returns the error message ("" if it parsed).
std::string error_of(const std::string &bytes, const std::string &name = "bad.bin")
{
	const std::string path = test::temp_path(name);
	test::write_bytes(path, bytes);
	try {
		auto r = open_trace(path);
		Event e;
		while (r->next(e)) {
		}
	} catch (const TraceError &e) {
		return e.what();
	}
	return "";
}

std::string header(uint32_t n)
{
	std::string h = "bostats1";
	for (int i = 0; i < 4; i++)
		h.push_back(char(n >> (8 * i)));
	return h;
}

std::string create(uint8_t index, uint32_t size)
{
	std::string s = {char(0 << 5), char(index)};
	for (int i = 0; i < 4; i++)
		s.push_back(char(size >> (8 * i)));
	return s;
}

} // namespace

TEST(BadInput, TruncatedGzip)
{
	const std::string whole = test::read_bytes(test::repo_trace("nederland1.bin"));
	const std::string msg = error_of(whole.substr(0, whole.size() / 2));
	EXPECT_NE(msg.find("bad.bin"), std::string::npos) << msg;
	EXPECT_NE(msg.find("truncated gzip"), std::string::npos) << msg;
	EXPECT_NE(msg.find("byte"), std::string::npos) << msg;
}

TEST(BadInput, TruncatedZstd)
{
	const std::string path = test::temp_path("z.vrl");
	auto w = make_writer(Format::V2, path, TraceInfo{});
	Event e;
	for (uint32_t i = 0; i < 5000; i++) {
		e.type = EventType::Create;
		e.id = i;
		e.size = i * 4096;
		w->write(e);
	}
	w->close();
	const std::string whole = test::read_bytes(path);
	const std::string msg = error_of(whole.substr(0, whole.size() - 7), "cut.vrl");
	EXPECT_NE(msg.find("cut.vrl"), std::string::npos) << msg;
	EXPECT_NE(msg.find("truncated zstd"), std::string::npos) << msg;
}

TEST(BadInput, V2WithoutEndRecordIsTruncated)
{
	const std::string path = test::temp_path("noend.vrl");
	{
		ByteSink s(path, Compression::Zstd);
		const std::string raw = std::string("vrltrace") + std::string("\x02\x00\x00\x00\x00\x00", 6) +
		                        std::string("\x00\x00\x00\x10\x00", 5); // one create, no END
		s.write(raw.data(), raw.size());
		s.close();
	}
	const std::string msg = error_of(test::read_bytes(path), "noend.vrl");
	EXPECT_NE(msg.find("byte 19: truncated trace"), std::string::npos) << msg;
}

TEST(BadInput, BadMagic)
{
	const std::string msg = error_of(gzip("notmagic\x01\x00\x00\x00"));
	EXPECT_NE(msg.find("bad.bin: byte 0: bad magic"), std::string::npos) << msg;
}

TEST(BadInput, UnknownEventId)
{
	std::string raw = header(2) + create(0, 100) + std::string{char(6 << 5), 0};
	const std::string msg = error_of(gzip(raw));
	EXPECT_NE(msg.find("byte 18: unknown event id 6"), std::string::npos) << msg;
}

TEST(BadInput, IndexBeyondBufferCount)
{
	std::string raw = header(1) + create(0, 100) + std::string{char(1 << 5), 3};
	const std::string msg = error_of(gzip(raw));
	EXPECT_NE(msg.find("byte 18: buffer index 3 >= buffer count 1"), std::string::npos) << msg;
}

TEST(BadInput, CreateOutOfOrder)
{
	std::string raw = header(3) + create(0, 100) + create(2, 100);
	const std::string msg = error_of(gzip(raw));
	EXPECT_NE(msg.find("byte 18: create of buffer 2 out of order (expected 1)"), std::string::npos)
	    << msg;
}

TEST(BadInput, TruncatedEntry)
{
	// 300 buffers: 2-byte indices; the stream ends after the first of them.
	std::string raw = header(300) + std::string(2, '\0');
	const std::string msg = error_of(gzip(raw));
	EXPECT_NE(msg.find("byte 12: truncated entry"), std::string::npos) << msg;
}

TEST(BadInput, TextLineThatDoesNotParse)
{
	const std::string t = "started @0\n0x1 created, size 10, prio 0, @1\n0x1 teleported @2\n";
	const std::string msg = error_of(t, "bad.txt");
	EXPECT_NE(msg.find("bad.txt: line 3: unknown event"), std::string::npos) << msg;
}

TEST(BadInput, TextEventOnUnknownBuffer)
{
	const std::string msg = error_of("0x5 read @2\n", "bad.txt");
	EXPECT_NE(msg.find("bad.txt: line 1: event on buffer 0x5 that was never created"),
	          std::string::npos)
	    << msg;
}

TEST(BadInput, EmptyAndGarbageFiles)
{
	EXPECT_NE(error_of("", "empty.txt").find("empty.txt: byte 0: empty file"), std::string::npos)
	    << error_of("", "empty.txt");
	EXPECT_NE(error_of(std::string("\x01\x02\x03garbage", 10)).find("bad magic"),
	          std::string::npos);
}

TEST(BadInput, MissingFile)
{
	try {
		open_trace("/nonexistent/trace.bin");
		FAIL();
	} catch (const TraceError &e) {
		EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.bin: cannot open"),
		          std::string::npos);
	}
}

namespace {
// A v2 stream (uncompressed, as the reader also accepts) of version 2.minor with `body`.
std::string v2(uint8_t minor, const std::string &body)
{
	std::string s = "vrltrace";
	s += char(2);
	s += char(minor);
	s += std::string(4, '\0');
	return s + body;
}
} // namespace

TEST(BadInput, V21CsRecords)
{
	// create buffer 0 (4096 bytes), then a CS record, then END with count 2
	const std::string create0 = std::string("\x10\x00\x00\x80\x20\x00", 6);
	auto with_cs = [&](const std::string &cs) {
		return v2(1, create0 + cs + std::string("\x0f\x00\x02", 3));
	};
	// ring 0, no scores, 1 buffer: id 0, read VRAM, prio 0
	EXPECT_EQ(error_of(with_cs(std::string("\x08\x00\x00\x00\x01\x00\x01\x00", 8))), "");
	EXPECT_NE(error_of(v2(0, create0 + std::string("\x08\x00\x00\x00\x01\x00\x01\x00\x0f\x00\x02", 11)))
	                  .find("CS records need version 2.1"),
	          std::string::npos);
	EXPECT_NE(error_of(with_cs(std::string("\x08\x00\x00\x00\x01\x00\x01\x10", 8)))
	                  .find("priority 16 above 15"),
	          std::string::npos);
	EXPECT_NE(error_of(with_cs(std::string("\x08\x00\x00\x00\x01\x01\x01\x00", 8)))
	                  .find("byte 20: a CS names buffer 1 that was not created"),
	          std::string::npos)
	    << error_of(with_cs(std::string("\x08\x00\x00\x00\x01\x01\x01\x00", 8)));
	// a score (bit 6) in a CS that sent no score chunk
	EXPECT_NE(error_of(with_cs(std::string("\x08\x00\x00\x00\x01\x00\x41\x00\x05", 9)))
	                  .find("without a score chunk"),
	          std::string::npos);
	EXPECT_NE(error_of(v2(4, "")).find("unsupported version 2.4"), std::string::npos);
}

// v2.3's codes (trace-v2.md, "Version 2.3"), each misused once.
TEST(BadInput, V23Codes)
{
	auto uleb = [](uint64_t v) {
		std::string s;
		do {
			s += char((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			v >>= 7;
		} while (v);
		return s;
	};
	// create buffer 0 (VRAM, no time field, one page) at byte 14, a CS record at byte 16
	const std::string create0("\x90\x06", 2);
	auto cs = [&](const std::string &relocs, unsigned n) {
		return std::string("\x08\x00\x00\x00", 4) + char(n) + relocs;
	};
	auto end = [](unsigned count) { return std::string("\x0f\x00", 2) + char(count); };
	// buffer 0 read from VRAM at priority 3, then the same use again (code 2: id 0, repeat)
	const std::string good = v2(3, create0 + cs(std::string("\x00\x01\x03\x02", 4), 2) + end(2));
	ASSERT_EQ(error_of(good), "");
	{
		auto r = open_trace_memory(reinterpret_cast<const uint8_t *>(good.data()), good.size(), "v23");
		Event e;
		ASSERT_TRUE(r->next(e));
		EXPECT_EQ(e.type, EventType::Create);
		EXPECT_EQ(e.size, 4096u);
		EXPECT_EQ(e.domain, DomainVram);
		ASSERT_TRUE(r->next(e));
		ASSERT_EQ(e.nrelocs, 2u);
		EXPECT_EQ(e.relocs[1].prio, 3); // repeated from the first
		EXPECT_EQ(e.relocs[1].read_domains, DomainVram);
	}
	// code 5: one back from the newest, of one buffer
	EXPECT_NE(error_of(v2(3, create0 + cs(std::string("\x05\x01\x00", 3), 1) + end(2)))
	                  .find("byte 16: a CS names the buffer created 1 before the newest, but only "
	                        "1 were created"),
	          std::string::npos);
	EXPECT_NE(error_of(v2(3, create0 + cs(std::string("\x02", 1), 1) + end(2)))
	                  .find("byte 16: a CS repeats the last use of buffer 0, which has none"),
	          std::string::npos);
	EXPECT_NE(error_of(v2(3, create0 + std::string("\x83\x00\x83\x00", 4) + end(3)))
	                  .find("byte 18: destroy of buffer 0 after its destroy"),
	          std::string::npos);
	EXPECT_NE(error_of(v2(3, std::string("\x84\x01", 2) + end(1)))
	                  .find("byte 14: cpu op of the buffer created 0 before the newest, but only 0 "
	                        "were created"),
	          std::string::npos);
	// scores are differences from the previous one (0 before the first): -1 is no u32, nor
	// 2^32 (zigzag 2^33)
	auto scored = [&](const std::string &score) {
		return v2(3, create0 + std::string("\x08\x00\x00\x01\x01\x00\x41\x00", 8) + score + end(2));
	};
	EXPECT_EQ(error_of(scored(uleb(14))), "");
	EXPECT_NE(error_of(scored(uleb(1))).find("byte 16: score -1 out of range (0 and the difference -1)"),
	          std::string::npos);
	EXPECT_NE(error_of(scored(uleb(uint64_t(1) << 33))).find("byte 16: score difference code 8589934592 out of range"),
	          std::string::npos);
	// 2^53 pages is more bytes than 64 bits hold
	EXPECT_NE(error_of(v2(3, std::string(1, char(0x90)) + uleb(uint64_t(1) << 55 | 2) + end(1)))
	                  .find("byte 14: size of 9007199254740992 pages overflows 64 bits"),
	          std::string::npos);
	// flags follow when the size code says so, and are checked as before
	EXPECT_EQ(error_of(v2(3, std::string("\x90\x07\x02", 3) + end(1))), "");
	EXPECT_NE(error_of(v2(3, std::string("\x90\x07\x04", 3) + end(1))).find("byte 14: unknown create flags 4"),
	          std::string::npos);
	// before 2.3, bit 7 of a tag means nothing
	EXPECT_NE(error_of(v2(2, std::string("\x90\x00\x00\x80\x20\x00", 6) + end(1)))
	                  .find("byte 14: domain bits 9 out of range"),
	          std::string::npos);
}

TEST(BadInput, V22HighPriorityUseBit)
{
	// create buffer 0 (4096 bytes), then a CS record at byte 20 with one relocation of buffer 0
	// (read VRAM) and priority byte p, then END with count 2
	const std::string create0 = std::string("\x10\x00\x00\x80\x20\x00", 6);
	auto with_prio = [&](uint8_t minor, uint8_t p) {
		return v2(minor, create0 + std::string("\x08\x00\x00\x00\x01\x00\x01", 7) + char(p) +
		                         std::string("\x0f\x00\x02", 3));
	};
	for (uint8_t p : {0x10, 0x13, 0x1f}) {
		EXPECT_EQ(error_of(with_prio(2, p)), "") << int(p);
		const std::string bytes = with_prio(2, p);
		auto r = open_trace_memory(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
		                           "v22");
		EXPECT_EQ(r->info().v2_minor, 2);
		Event e;
		while (r->next(e) && e.type != EventType::Cs) {
		}
		ASSERT_EQ(e.type, EventType::Cs);
		ASSERT_EQ(e.nrelocs, 1u);
		EXPECT_TRUE(e.relocs[0].high_prio_use);
		EXPECT_EQ(e.relocs[0].prio, p & 15); // the kernel's priority, without the bit
	}
	EXPECT_EQ(error_of(with_prio(2, 15)), "");
	EXPECT_EQ(error_of(with_prio(1, 15)), "");
	// bit 4 in a 2.1 file: the error says where and that it needs 2.2
	for (uint8_t p : {0x10, 0x1f}) {
		const std::string msg = error_of(with_prio(1, p), "v21.vrl");
		EXPECT_NE(msg.find("v21.vrl"), std::string::npos) << msg;
		EXPECT_NE(msg.find("byte 20: relocation priority " + std::to_string(p) +
		                   " above 15 (bit 4, high-priority use, needs version 2.2)"),
		          std::string::npos)
		    << msg;
	}
	EXPECT_NE(error_of(with_prio(1, 0x20)).find("byte 20: relocation priority 32 above 15"),
	          std::string::npos);
	// bits 7..5 in a 2.2 file
	for (uint8_t p : {0x20, 0x30, 0x40, 0x80, 0xff}) {
		const std::string msg = error_of(with_prio(2, p), "v22.vrl");
		EXPECT_NE(msg.find("v22.vrl"), std::string::npos) << msg;
		EXPECT_NE(msg.find("byte 20: relocation priority byte " + std::to_string(p) +
		                   ": unknown bits (bits 7..5 must be 0)"),
		          std::string::npos)
		    << msg;
	}
	// CREATE flag bit 0 (high priority at create) stays legal in 2.2; bit 2 stays unknown
	auto with_flags = [](char f) {
		return v2(2, std::string("\x10\x00\x00\x80\x20", 5) + f + std::string("\x0f\x00\x01", 3));
	};
	EXPECT_EQ(error_of(with_flags(1)), "");
	EXPECT_EQ(error_of(with_flags(3)), "");
	EXPECT_NE(error_of(with_flags(4)).find("byte 14: unknown create flags 4"), std::string::npos);
}

TEST(BadInput, CreateFlagsImportedNeedsV21)
{
	// create buffer 0 with flags f, then END (count 1)
	auto with_flags = [](uint8_t minor, char f) {
		return v2(minor, std::string("\x10\x00\x00\x80\x20", 5) + f + std::string("\x0f\x00\x01", 3));
	};
	EXPECT_EQ(error_of(with_flags(1, 3)), "");
	EXPECT_EQ(error_of(with_flags(0, 1)), "");
	EXPECT_NE(error_of(with_flags(0, 2)).find("byte 14: unknown create flags 2 (the imported flag needs "
	                                          "version 2.1)"),
	          std::string::npos)
	    << error_of(with_flags(0, 2));
	EXPECT_NE(error_of(with_flags(1, 4)).find("byte 14: unknown create flags 4"), std::string::npos)
	    << error_of(with_flags(1, 4));
}

TEST(BadInput, ZstdCorruptionIsReportedWhereItIs)
{
	// A v2 trace of some size with four bytes overwritten deep inside: the error names a
	// compressed offset close before the damage, not byte 0.
	const std::string good = test::temp_path("z.vrl");
	{
		auto r = open_trace(test::repo_trace("nexuiz1.bin"));
		auto w = make_writer(Format::V2, good, TraceInfo{});
		SkipDestroyed s(*r);
		Event e;
		while (s.next(e))
			w->write(e);
		w->close();
	}
	std::string bytes = test::read_bytes(good);
	ASSERT_GT(bytes.size(), 450000u);
	for (int i = 0; i < 4; i++)
		bytes[400000 + i] = char(0xff);
	const std::string msg = error_of(bytes, "z.vrl");
	const auto at = msg.find("corrupt zstd data near compressed byte ");
	ASSERT_NE(at, std::string::npos) << msg;
	const uint64_t off = std::stoull(msg.substr(at + 39));
	EXPECT_GT(off, 400000u - (256u << 10)) << msg;
	EXPECT_LE(off, 400004u) << msg;
}
