#include "mlp/score_contract.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

#include "trace/filters.h"

namespace vramlab {

Refresh parse_refresh(const std::string &name)
{
	if (name == "access")
		return Refresh::Access;
	if (name == "age")
		return Refresh::Age;
	throw std::invalid_argument("unknown refresh rule \"" + name + "\" (expected access or age)");
}

const char *refresh_name(Refresh r) { return r == Refresh::Age ? "age" : "access"; }

ScoreTracker::ScoreTracker(const Mlp &m, uint64_t vram_bytes, Refresh rule, Observer observe)
    : plan_(m), vram_(vram_bytes), rule_(rule), observe_(std::move(observe))
{
}

void ScoreTracker::compute(St &s)
{
	BufferStats b;
	b.size = s.size;
	b.vram_size = vram_;
	b.high_prio = s.high_prio;
	b.since_read = uint32_t(tick_ - s.last_read);
	b.since_write = uint32_t(tick_ - s.last_write);
	b.since_cpu = uint32_t(tick_ - s.last_cpu);
	b.reads = s.reads;
	b.writes = s.writes;
	b.cpu_ops = s.cpu_ops;
	s.score = plan_.score(b);
	s.scored = tick_;
	computed_++;
	if (observe_)
		observe_(b);
}

void ScoreTracker::create(uint32_t id, uint64_t size, bool high_prio, bool imported)
{
	tick_++;
	if (st_.size() <= id)
		st_.resize(size_t(id) + 1);
	St &s = st_[id];
	s = St{};
	s.size = size;
	s.high_prio = high_prio;
	s.last_read = s.last_write = s.last_cpu = s.last_gpu = s.scored = tick_;
	if (!imported)
		compute(s);
}

bool ScoreTracker::access(uint32_t id, bool write, bool high_prio_use)
{
	tick_++;
	if (id >= st_.size()) [[unlikely]] // readers only name created buffers; stay safe anyway
		st_.resize(size_t(id) + 1);
	St &s = st_[id];
	// Sticky, and set first: Mesa marks the buffer when it adds the relocation, then counts the
	// access, then refreshes if due, so that refresh already sees high_prio = 1 (score.md).
	if (high_prio_use)
		s.high_prio = true;
	const uint32_t since = tick_ - (rule_ == Refresh::Age ? s.scored : s.last_gpu);
	if (write) {
		s.writes++;
		s.last_write = tick_;
	} else {
		s.reads++;
		s.last_read = tick_;
	}
	s.last_gpu = tick_;
	if (since <= kScoreRefreshTicks)
		return false;
	compute(s); // from the statistics including this access
	return true;
}

void ScoreTracker::cpu(uint32_t id)
{
	if (id >= st_.size()) [[unlikely]]
		st_.resize(size_t(id) + 1);
	St &s = st_[id];
	if (s.cpu_ops && s.last_cpu == tick_)
		return; // mapped again with no tick between: the same CPU use (score.md, rule 3)
	s.cpu_ops++;
	s.last_cpu = tick_;
}

void track_event(ScoreTracker &t, const Event &e)
{
	switch (e.type) {
	case EventType::Create: t.create(e.id, e.size, e.high_prio, e.imported); break;
	// A READ/WRITE record's high_prio is only ever set by CsExpander (a relocation's use).
	case EventType::Read: t.access(e.id, false, e.high_prio); break;
	case EventType::Write: t.access(e.id, true, e.high_prio); break;
	case EventType::Cpu: t.cpu(e.id); break;
	case EventType::Cs:
		for (uint32_t i = 0; i < e.nrelocs; i++)
			t.access(e.relocs[i].id, e.relocs[i].write_domain != 0,
			         e.relocs[i].high_prio_use);
		break;
	default: break;
	}
}

uint64_t parse_vram_bytes(const std::string &v)
{
	if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
		throw std::invalid_argument("vram_bytes=\"" + v + "\" is not a number of bytes");
	const uint64_t b = std::stoull(v);
	if (!b || b % (1 << 20) || b > (1ull << 40))
		throw std::invalid_argument("vram_bytes=" + v + " is not a VRAM size (a whole number "
		                            "of MiB, 1 MiB to 1 TiB)");
	return b;
}

uint64_t trace_vram_bytes(const TraceInfo &info, const std::string &name, uint64_t fallback)
{
	auto it = info.meta.find("vram_bytes");
	if (it == info.meta.end()) {
		if (!fallback)
			throw TraceError(name + ": no vram_bytes in the header (the score's VRAM size "
			                        "input); give one with --vram");
		return fallback;
	}
	try {
		return parse_vram_bytes(it->second);
	} catch (const std::invalid_argument &e) {
		throw TraceError(name + ": header " + e.what());
	}
}

void ScoreCheckPart::add(const ScoreMismatch &m)
{
	mismatches++;
	if (first.size() < kScoreExamples)
		first.push_back(m);
	for (auto &[k, n] : by_kind)
		if (k == m.what)
			return void(n++);
	by_kind.emplace_back(m.what, 1);
}

namespace {

// One line of the DRM shim's log: "<ring> <nrelocs> <nscores> <score_1> ... <score_nscores>".
struct ShimLine {
	uint64_t ring = 0, nrelocs = 0;
	std::vector<uint32_t> scores;
};

class ShimLog {
public:
	explicit ShimLog(const std::string &path) : path_(path), f_(path)
	{
		if (!f_)
			throw TraceError(path + ": cannot open shim log");
	}
	bool next(ShimLine &l)
	{
		std::string text;
		if (!std::getline(f_, text))
			return false;
		line_++;
		while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
			text.pop_back();
		std::vector<uint64_t> v;
		const char *p = text.data(), *end = p + text.size();
		while (p < end) {
			if (*p == ' ' || *p == '\t') {
				p++;
				continue;
			}
			const char *tok = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			uint64_t x = 0;
			const auto [stop, ec] = std::from_chars(tok, p, x, 10);
			if (ec != std::errc() || stop != p || x > UINT32_MAX) {
				std::string what(tok, std::min<size_t>(p - tok, 20));
				what.insert(what.begin(), '"');
				what.append("\" is not a decimal u32");
				bad(what);
			}
			v.push_back(x);
		}
		if (v.size() < 3)
			bad("expected \"<ring> <nrelocs> <nscores> <score>...\", got " +
			    std::to_string(v.size()) + " numbers");
		if (v.size() != 3 + v[2])
			bad("nscores is " + std::to_string(v[2]) + " but " + std::to_string(v.size() - 3) +
			    " scores follow");
		l.ring = v[0];
		l.nrelocs = v[1];
		l.scores.assign(v.begin() + 3, v.end());
		return true;
	}
	uint64_t line() const { return line_; }

private:
	[[noreturn]] void bad(const std::string &what) const
	{
		throw TraceError(path_ + ": line " + std::to_string(line_) + ": " + what);
	}
	std::string path_;
	std::ifstream f_;
	uint64_t line_ = 0;
};

} // namespace

ScoreCheck check_trace_scores(const std::string &path, const Mlp &m, Refresh rule,
                              const std::string &shim_log, uint64_t vram_fallback)
{
	ScoreCheck out;
	auto r = open_trace(path);
	out.kernel_view = is_kernel_view(r->info());
	if (auto it = r->info().meta.find("source"); it != r->info().meta.end())
		out.source = it->second;
	// A kernel-view trace's scores are not recomputed: its VRAM size is not needed.
	out.vram_bytes = out.kernel_view && !r->info().meta.count("vram_bytes")
	                         ? vram_fallback
	                         : trace_vram_bytes(r->info(), path, vram_fallback);
	ScoreTracker t(m, out.vram_bytes, rule);
	std::unordered_map<uint32_t, uint32_t> first_in_cs; // kernel view: buffer -> its first relocation
	std::unique_ptr<ShimLog> log;
	if (!shim_log.empty()) {
		log = std::make_unique<ShimLog>(shim_log);
		out.shim = true;
	}
	std::vector<uint32_t> expected;
	ShimLine line;
	bool log_ended = false;
	Event e;
	while (r->next(e)) {
		if (!out.kernel_view)
			track_event(t, e);
		if (e.type != EventType::Cs)
			continue;
		const uint64_t k = out.cs++;
		out.relocations += e.nrelocs;
		out.cs_with_chunk += e.cs_scores;
		// The chunk carries each buffer's score after all relocations of the CS are accounted.
		// Kernel view: the scores the kernel got, which a shim log must repeat.
		expected.resize(e.nrelocs);
		for (uint32_t i = 0; i < e.nrelocs; i++)
			expected[i] = out.kernel_view ? e.relocs[i].score : t.score(e.relocs[i].id);
		ScoreMismatch mm;
		mm.cs = k;
		mm.time_us = e.time_us;
		if (e.cs_scores && out.kernel_view) {
			// What the kernel's view can be checked for (docs/score.md, "Kernel-view traces").
			first_in_cs.clear();
			for (uint32_t i = 0; i < e.nrelocs; i++) {
				const CsReloc &rl = e.relocs[i];
				out.trace.scores_checked++;
				mm.reloc = i;
				mm.id = rl.id;
				mm.got = rl.score;
				const auto [first, fresh] = first_in_cs.try_emplace(rl.id, i);
				if (i + 1 == e.nrelocs) {
					// the winsys adds its fence last and leaves it out of the statistics
					out.fences++;
					mm.what = "fence score";
					mm.expected = kScoreNeutral;
				} else if (!fresh) {
					out.repeats++; // rule 5: a buffer named twice carries one score
					mm.what = "repeated buffer score";
					mm.expected = e.relocs[first->second].score;
				} else {
					out.in_range++;
					if (rl.score == kScoreNeutral || rl.score <= kScoreCap)
						continue;
					mm.what = "score above the cap";
					mm.expected = kScoreCap;
				}
				if (mm.got != mm.expected)
					out.trace.add(mm);
			}
		} else if (e.cs_scores) {
			for (uint32_t i = 0; i < e.nrelocs; i++) {
				out.trace.scores_checked++;
				if (e.relocs[i].score == expected[i])
					continue;
				mm.what = "score";
				mm.reloc = i;
				mm.id = e.relocs[i].id;
				mm.expected = expected[i];
				mm.got = e.relocs[i].score;
				out.trace.add(mm);
			}
		}
		if (!log)
			continue;
		mm.reloc = -1;
		mm.id = 0;
		if (log_ended || !log->next(line)) {
			log_ended = true;
			mm.what = "missing line";
			mm.line = log->line() + 1;
			mm.expected = e.nrelocs;
			mm.got = 0;
			out.log.add(mm);
			continue;
		}
		out.shim_lines++;
		mm.line = log->line();
		if (line.ring != e.ring) {
			mm.what = "ring";
			mm.expected = e.ring;
			mm.got = line.ring;
			out.log.add(mm);
		}
		// A CS with untracked relocations (fences) has more in the log than in the trace.
		if (e.cs_untracked ? line.nrelocs <= e.nrelocs : line.nrelocs != e.nrelocs) {
			mm.what = "relocation count";
			mm.expected = e.nrelocs;
			mm.got = line.nrelocs;
			out.log.add(mm);
			continue;
		}
		const uint64_t want = e.cs_scores ? line.nrelocs : 0;
		if (line.scores.size() != want) {
			mm.what = "score chunk"; // scores sent when the trace says none, or the reverse
			mm.expected = want;
			mm.got = line.scores.size();
			out.log.add(mm);
			continue;
		}
		out.untracked += line.nrelocs - e.nrelocs;
		if (!e.cs_scores)
			continue;
		// Match in order; a log score that is not the next expected one may be an untracked
		// relocation when it is neutral and extras remain (taking a neutral for an expected
		// neutral is always safe).
		uint64_t extra = line.nrelocs - e.nrelocs;
		size_t j = 0;
		for (size_t i = 0; i < line.scores.size(); i++) {
			if (j < e.nrelocs && line.scores[i] == expected[j]) {
				out.log.scores_checked++;
				j++;
				continue;
			}
			if (extra && line.scores[i] == kScoreNeutral) {
				extra--;
				continue;
			}
			out.log.scores_checked++;
			mm.what = "score";
			mm.reloc = int64_t(i);
			mm.id = j < e.nrelocs ? e.relocs[j].id : 0;
			mm.expected = j < e.nrelocs ? expected[j] : kScoreNeutral;
			mm.got = line.scores[i];
			out.log.add(mm);
			// Take a wrong extra score as the untracked one, so one bad score is one mismatch.
			if (extra)
				extra--;
			else if (j < e.nrelocs)
				j++;
		}
	}
	out.truncated = r->info().truncated;
	out.ticks = t.ticks();
	if (log && !log_ended) {
		// Lines after the trace's last CS: a truncated trace lost them, else they are extra.
		while (log->next(line)) {
			out.shim_lines++;
			if (out.truncated) {
				out.shim_unchecked++;
				continue;
			}
			ScoreMismatch mm;
			mm.what = "extra line";
			mm.cs = log->line() - 1; // the CS it would belong to
			mm.line = log->line();
			mm.got = line.nrelocs;
			out.log.add(mm);
		}
	}
	return out;
}

void observe_computations(const std::string &path, Refresh rule, uint64_t vram_fallback,
                          const ScoreTracker::Observer &f)
{
	ReplayReader r(path, OnDestroyed::Skip);
	ScoreTracker t(Mlp{}, trace_vram_bytes(r.info(), path, vram_fallback), rule, f);
	Event e;
	while (r.next(e))
		track_event(t, e);
}

template <class T> T quantile(std::vector<T> &v, double q)
{
	if (v.empty())
		throw TraceError("no score computations to take a quantile of");
	const size_t k = size_t(std::llround(std::clamp(q, 0.0, 1.0) * double(v.size() - 1)));
	std::nth_element(v.begin(), v.begin() + k, v.end());
	return v[k];
}
template float quantile(std::vector<float> &, double);
template uint32_t quantile(std::vector<uint32_t> &, double);

} // namespace vramlab
