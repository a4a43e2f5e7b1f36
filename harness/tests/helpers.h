// Small helpers shared by the tests.
#pragma once
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mlp/mlp.h"
#include "sim/compact.h"
#include "trace/format.h"

namespace vramlab::test {

// A network of small random weights (-1..1): scores spread over the range, keys differ.
inline Mlp random_mlp(uint32_t seed)
{
	Mlp m;
	std::mt19937 g(seed);
	std::uniform_real_distribution<float> d(-1, 1);
	for (auto &p : m.p)
		p = d(g);
	return m;
}

// A compact trace from the thesis's text form, written by hand in a test.
inline CompactTrace tiny(const std::string &text, OnDestroyed mode = OnDestroyed::Skip)
{
	return load_compact(
	        [&text] {
		        return open_trace_memory(reinterpret_cast<const uint8_t *>(text.data()),
		                                 text.size(), "tiny.txt");
	        },
	        "tiny.txt", mode);
}

inline std::vector<Event> read_all(const std::string &path)
{
	auto r = open_trace(path);
	std::vector<Event> out;
	Event e;
	while (r->next(e))
		out.push_back(e);
	return out;
}

inline std::string temp_path(const std::string &name)
{
	auto dir = std::filesystem::temp_directory_path() / "vramlab-tests";
	std::filesystem::create_directories(dir);
	return (dir / (std::to_string(::getpid()) + "-" + name)).string();
}

inline std::string read_bytes(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::string(std::istreambuf_iterator<char>(f), {});
}

// The decompressed bytes of a trace file (as they are when it is not compressed).
inline std::string decompressed(const std::string &path)
{
	ByteSource s(path);
	std::string raw;
	uint8_t b;
	while (s.get(b))
		raw.push_back(char(b));
	return raw;
}

inline void write_bytes(const std::string &path, const std::string &data)
{
	std::ofstream f(path, std::ios::binary);
	f << data;
}

inline std::string repo_trace(const std::string &name)
{
	return std::string(VRAMLAB_SOURCE_DIR) + "/../traces/" + name;
}

inline bool shared_corpus() { return std::filesystem::exists(VRAMLAB_SHARED_TRACES); }

// A hand-made trace in v2 of version 2.minor (a CS event's relocations belong to the caller).
inline void write_v2(const std::string &path, const std::vector<Event> &events, uint8_t minor = 2)
{
	TraceInfo info;
	info.v2_minor = minor;
	auto w = make_writer(Format::V2, path, info);
	for (const Event &e : events)
		w->write(e);
	w->close();
}

// Events for write_v2: a CREATE with its create-time flag, a CS record of relocations.
inline Event create_event(uint32_t id, uint64_t size, bool high_prio = false)
{
	Event e;
	e.type = EventType::Create;
	e.id = id;
	e.size = size;
	e.domain = DomainVram;
	e.high_prio = high_prio;
	return e;
}
inline Event cs_event(const std::vector<CsReloc> &relocs, uint64_t time_us = 0)
{
	Event e;
	e.type = EventType::Cs;
	e.time_us = time_us;
	e.nrelocs = uint32_t(relocs.size());
	e.relocs = relocs.data();
	return e;
}

} // namespace vramlab::test
