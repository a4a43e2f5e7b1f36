#include "sim/trace_cache.h"
#include "util/output_file.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include <openssl/evp.h>

namespace vramlab {

namespace {

namespace fs = std::filesystem;
constexpr char kMagic[8] = {'v', 'r', 'l', 'c', 'a', 'c', 'h', 'e'};
constexpr uint32_t kVersion = 5; // bump when a cached structure changes (5: kernel_view)

fs::path cache_dir()
{
	if (const char *c = std::getenv("VRAMLAB_CACHE"); c && *c)
		return fs::path(c) / "decoded";
	if (const char *h = std::getenv("HOME"); h && *h)
		return fs::path(h) / ".cache" / "vramlab" / "decoded";
	return {};
}

bool enabled()
{
	const char *e = std::getenv("VRAMLAB_TRACE_CACHE");
	return !(e && std::strcmp(e, "0") == 0);
}

// The identity of a decoded trace: the bytes it was decoded from (SHA-256), its name (the
// decoded trace carries it) and what it was decoded for. Not its path or mtime: a clean clone,
// or a corpus copied afresh, would otherwise add a full set of entries every time.
std::string key_of(const std::string &path, const char *kind, ReplayOptions opt)
{
	std::error_code ec;
	if (!fs::is_regular_file(path, ec) || ec) // a pipe would be read here, not by the decoder
		return "";
	std::ifstream in(path, std::ios::binary);
	std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
	if (!in || !md || !EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr))
		return "";
	std::vector<char> buf(1 << 20);
	uint64_t size = 0;
	while (in) {
		in.read(buf.data(), std::streamsize(buf.size()));
		if (in.gcount() > 0 && !EVP_DigestUpdate(md.get(), buf.data(), size_t(in.gcount())))
			return "";
		size += uint64_t(in.gcount());
	}
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	if (in.bad() || !EVP_DigestFinal_ex(md.get(), d, &n))
		return "";
	std::string hex;
	for (unsigned i = 0; i < n; i++) {
		char h[3];
		std::snprintf(h, sizeof h, "%02x", d[i]);
		hex += h;
	}
	return hex + "\n" + std::to_string(size) + "\n" + fs::path(path).filename().string() + "\n" +
	       kind + "\n" + (opt.destroyed == OnDestroyed::Repair ? "repair" : "skip") + "\n" +
	       (opt.skips_impossible() ? "impossible-skip" : "impossible-keep") + "\n" +
	       std::to_string(sizeof(CsReloc)) + "/" + std::to_string(sizeof(KernelCs));
}

// The cache's bound: VRAMLAB_TRACE_CACHE_MAX_MIB, else 8 GiB (what `make decide` reads, the
// corpus and the live traces for the kernel model with dead ids skipped, takes 2.4 GB; the
// other defect mode and the thesis model's form add about as much again).
uint64_t max_bytes()
{
	if (const char *e = std::getenv("VRAMLAB_TRACE_CACHE_MAX_MIB"); e && *e) {
		char *end = nullptr;
		const unsigned long long v = std::strtoull(e, &end, 10);
		if (*end == 0 && v > 0 && v < (1ull << 44))
			return uint64_t(v) << 20;
		std::fprintf(stderr, "vramlab: VRAMLAB_TRACE_CACHE_MAX_MIB=\"%s\" is not a size in MiB "
		                     "(1..2^44): the default bound, 8192 MiB, applies\n", e);
	}
	return 8192ull << 20;
}

bool entry_name(const fs::path &p) // 16 hex digits and .bin: what file_of() names, nothing else
{
	const std::string n = p.filename().string();
	return n.size() == 20 && n.compare(16, 4, ".bin") == 0 &&
	       std::all_of(n.begin(), n.begin() + 16, [](char c) { return std::isxdigit(uint8_t(c)); });
}

// Least recently used entries go first until the cache fits its bound (a hit refreshes an
// entry's mtime); `keep`, just written, stays. Entries only: a writer's temporary file, or
// anything else in the directory, is never touched. Another process may prune at the same time;
// an entry it removed is simply gone (a reader that has it open keeps reading it).
void prune(const std::string &keep)
{
	struct E {
		fs::file_time_type t;
		uint64_t size;
		fs::path p;
	};
	std::vector<E> all;
	uint64_t total = 0;
	std::error_code ec;
	for (fs::directory_iterator it(cache_dir(), ec), end; !ec && it != end; it.increment(ec)) {
		std::error_code e2;
		if (!entry_name(it->path()) || !it->is_regular_file(e2))
			continue;
		const uint64_t size = it->file_size(e2);
		const auto t = it->last_write_time(e2);
		if (e2)
			continue;
		total += size;
		if (it->path() != fs::path(keep))
			all.push_back({t, size, it->path()});
	}
	const uint64_t cap = max_bytes();
	if (total <= cap)
		return;
	std::sort(all.begin(), all.end(), [](const E &a, const E &b) { return a.t < b.t; });
	for (const E &e : all) {
		if (total <= cap)
			break;
		std::error_code e2;
		fs::remove(e.p, e2);
		total -= e.size;
	}
}

std::string file_of(const std::string &key)
{
	const uint64_t h = std::hash<std::string>{}(key);
	char name[32];
	std::snprintf(name, sizeof name, "%016llx.bin", (unsigned long long)h);
	return (cache_dir() / name).string();
}

// An entry is written through OutputFile (util/output_file.h: an exclusive temporary file
// renamed whole, never a name another process could plant), in chunks of 1 MiB.
struct Out {
	OutputFile &file;
	std::string buf;
	void bytes(const void *p, size_t n)
	{
		if (buf.size() + n > (1u << 20)) {
			file.write(buf.data(), buf.size());
			buf.clear();
		}
		if (n > (1u << 20))
			file.write(p, n);
		else
			buf.append(static_cast<const char *>(p), n);
	}
	template <class T> void pod(const T &v) { bytes(&v, sizeof v); }
	template <class T> void vec(const std::vector<T> &v)
	{
		static_assert(std::is_trivially_copyable_v<T>);
		pod(uint64_t(v.size()));
		bytes(v.data(), v.size() * sizeof(T));
	}
	void str(const std::string &s)
	{
		pod(uint64_t(s.size()));
		bytes(s.data(), s.size());
	}
	void commit()
	{
		file.write(buf.data(), buf.size());
		file.commit();
	}
};

struct In {
	std::ifstream f;
	uint64_t left;
	template <class T> bool pod(T &v)
	{
		return bool(f.read(reinterpret_cast<char *>(&v), sizeof v));
	}
	template <class T> bool vec(std::vector<T> &v)
	{
		uint64_t n;
		if (!pod(n) || n > left / sizeof(T))
			return false;
		v.resize(n);
		return bool(f.read(reinterpret_cast<char *>(v.data()), std::streamsize(n * sizeof(T))));
	}
	bool str(std::string &s)
	{
		uint64_t n;
		if (!pod(n) || n > left)
			return false;
		s.resize(n);
		return bool(f.read(s.data(), std::streamsize(n)));
	}
};

template <class T, class W, class R>
T cached(const std::string &path, const char *kind, ReplayOptions mode,
         const std::function<T()> &decode, W write, R read)
{
	if (!enabled() || path == "-" || cache_dir().empty())
		return decode();
	const std::string key = key_of(path, kind, mode);
	if (key.empty())
		return decode();
	const std::string file = file_of(key);
	{
		In in{std::ifstream(file, std::ios::binary), 0};
		std::error_code ec;
		in.left = fs::file_size(file, ec);
		char magic[8];
		uint32_t version;
		std::string stored;
		T t;
		if (!ec && in.f.read(magic, 8) && std::memcmp(magic, kMagic, 8) == 0 &&
		    in.pod(version) && version == kVersion && in.str(stored) && stored == key &&
		    read(in, t)) {
			std::error_code e2; // most recently used: the last to be pruned
			fs::last_write_time(file, fs::file_time_type::clock::now(), e2);
			return t;
		}
	}
	T t = decode();
	if (t.truncated)
		return t; // read again next time, so that its warning shows every time
	std::error_code ec;
	fs::create_directories(cache_dir(), ec);
	try {
		OutputFile f(file);
		Out out{f, {}};
		out.bytes(kMagic, 8);
		out.pod(kVersion);
		out.str(key);
		write(out, t);
		out.commit();
		prune(file);
	} catch (const TraceError &) { // a full disk or a read-only cache is not an error here
	}
	return t;
}

void write_repair(Out &o, const RepairReport &r)
{
	o.pod(r.moved);
	o.pod(r.claimed);
	o.pod(r.ambiguous);
	o.pod(r.unresolved);
}
bool read_repair(In &i, RepairReport &r)
{
	return i.pod(r.moved) && i.pod(r.claimed) && i.pod(r.ambiguous) && i.pod(r.unresolved);
}

// A cache file is ours, but a damaged one must not crash a replay.
bool valid(const KernelTrace &t)
{
	for (uint32_t op : t.ops) {
		const uint32_t a = op & KernelTrace::kMask;
		switch (KernelTrace::Op(op >> KernelTrace::kShift)) {
		case KernelTrace::Cs:
			if (a >= t.cs.size())
				return false;
			break;
		case KernelTrace::Frame: break;
		default:
			if (a >= t.size.size())
				return false;
		}
	}
	for (const KernelCs &c : t.cs)
		if (uint64_t(c.first) + c.n > t.relocs.size())
			return false;
	for (const CsReloc &r : t.relocs)
		if (r.id >= t.size.size())
			return false;
	return true;
}

} // namespace

CompactTrace cached_compact(const std::string &path, ReplayOptions mode,
                            const std::function<CompactTrace()> &decode)
{
	return cached<CompactTrace>(
	        path, "compact", mode, decode,
	        [](Out &o, const CompactTrace &t) {
		        o.str(t.name);
		        o.vec(t.ops);
		        o.vec(t.size);
		        o.vec(t.prio);
		        o.pod(t.skipped);
		        o.vec(t.skipped_at_create);
		        write_repair(o, t.repair);
		        o.pod(t.impossible);
		        o.pod(t.impossible_events);
	        },
	        [](In &i, CompactTrace &t) {
		        return i.str(t.name) && i.vec(t.ops) && i.vec(t.size) && i.vec(t.prio) &&
		               i.pod(t.skipped) && i.vec(t.skipped_at_create) &&
		               read_repair(i, t.repair) && i.pod(t.impossible) &&
		               i.pod(t.impossible_events) && t.prio.size() == t.size.size() &&
		               std::all_of(t.ops.begin(), t.ops.end(), [&](uint32_t op) {
			               return (op & CompactTrace::kIdMask) < t.size.size();
		               });
	        });
}

KernelTrace cached_kernel(const std::string &path, ReplayOptions mode,
                          const std::function<KernelTrace()> &decode)
{
	return cached<KernelTrace>(
	        path, "kernel", mode, decode,
	        [](Out &o, const KernelTrace &t) {
		        o.str(t.name);
		        o.vec(t.ops);
		        o.vec(t.cs);
		        o.vec(t.relocs);
		        o.vec(t.size);
		        o.vec(t.domain);
		        o.vec(t.prio);
		        o.vec(t.cs_us);
		        o.vec(t.frame_us);
		        o.pod(t.synthesized);
		        o.pod(t.skipped);
		        o.pod(t.accesses);
		        write_repair(o, t.repair);
		        o.pod(t.impossible);
		        o.pod(t.impossible_events);
		        o.pod(t.kernel_view);
	        },
	        [](In &i, KernelTrace &t) {
		        return i.str(t.name) && i.vec(t.ops) && i.vec(t.cs) && i.vec(t.relocs) &&
		               i.vec(t.size) && i.vec(t.domain) && i.vec(t.prio) && i.vec(t.cs_us) &&
		               i.vec(t.frame_us) &&
		               i.pod(t.synthesized) && i.pod(t.skipped) && i.pod(t.accesses) &&
		               read_repair(i, t.repair) && i.pod(t.impossible) &&
		               i.pod(t.impossible_events) && i.pod(t.kernel_view) &&
		               t.domain.size() == t.size.size() &&
		               t.prio.size() == t.size.size() && valid(t);
	        });
}

} // namespace vramlab
