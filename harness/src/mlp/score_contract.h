// The score contract (docs/score.md, "The score contract"): which statistics a driver keeps per
// buffer, when it computes a buffer's score and which score each relocation of a command
// submission carries, so that the scores Mesa sent can be recomputed from its trace alone.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlp/mlp.h"
#include "trace/format.h"

namespace vramlab {

// When a GPU access recomputes a buffer's score: its previous GPU access (or create) is more
// than kScoreRefreshTicks old ("access", the thesis's rule, Mesa's default), or its last score
// computation (or create) is ("age", RADEON_BO_SCORE_REFRESH=age).
enum class Refresh { Access, Age };
inline constexpr uint32_t kScoreRefreshTicks = 600;
Refresh parse_refresh(const std::string &name); // "access", "age"; throws std::invalid_argument
const char *refresh_name(Refresh r);

// Per-buffer statistics and scores, tick by tick. Ticks are u32 and wrap, as Mesa keeps them;
// every difference is taken modulo 2^32.
class ScoreTracker {
public:
	// Called with the statistics of every score computation (creates and refreshes).
	using Observer = std::function<void(const BufferStats &)>;
	ScoreTracker(const Mlp &m, uint64_t vram_bytes, Refresh rule, Observer observe = nullptr);

	// A CREATE record (one tick). An own buffer is scored at once; an imported one is
	// RADEON_BO_SCORE_NEUTRAL until its first refresh. Ids are dense, in create order.
	// high_prio: the CREATE flag only (a later high-priority use does not reach this score).
	void create(uint32_t id, uint64_t size, bool high_prio, bool imported);
	// One GPU access (one tick): a relocation, or a READ/WRITE record. True if it refreshed.
	// high_prio_use (a v2.2 relocation's bit 4) makes the buffer high priority for the rest of
	// its life, before this access is counted and before the refresh it may trigger.
	bool access(uint32_t id, bool write, bool high_prio_use = false);
	// A CPU map: not a tick.
	void cpu(uint32_t id);
	uint32_t score(uint32_t id) const { return st_[id].score; }
	uint32_t ticks() const { return tick_; }
	uint64_t computations() const { return computed_; }

private:
	struct St {
		uint64_t size = 0;
		bool high_prio = false;
		uint32_t reads = 0, writes = 0, cpu_ops = 0;
		uint32_t last_read = 0, last_write = 0, last_cpu = 0, last_gpu = 0, scored = 0;
		uint32_t score = kScoreNeutral;
	};
	void compute(St &s);

	MlpPlan plan_;
	uint64_t vram_;
	Refresh rule_;
	Observer observe_;
	std::vector<St> st_;
	uint32_t tick_ = 0;
	uint64_t computed_ = 0;
};

// Feeds one event to the tracker: CREATE, READ/WRITE (one access each), CPU; a CS record's
// relocations in order, one access each, with their high-priority use. Other records change
// nothing.
void track_event(ScoreTracker &t, const Event &e);

// A header's vram_bytes as every reader takes it (the score's VRAM input, sim's recorded size)
// and trace convert --meta checks it: bytes, a whole number of MiB from 1 MiB to 1 TiB, as a
// card has. std::invalid_argument saying what is wrong.
uint64_t parse_vram_bytes(const std::string &v);
// The VRAM size input of a trace: its header's vram_bytes, else `fallback` (0: an error).
uint64_t trace_vram_bytes(const TraceInfo &info, const std::string &name, uint64_t fallback);

// A kernel-view trace: what the DRM shim of the virtual radeon recorded (vradeon, header
// source=vradeon...), one CREATE per GEM object and every relocation the kernel got, not Mesa's
// own trace. The contract cannot recompute its scores (docs/score.md, "Kernel-view traces").
// is_kernel_view(): trace/format.h
// The highest score the network gives: u32(0.999f) (docs/score.md, "Network").
inline const uint32_t kScoreCap = uint32_t(double(0.999f) * 4294967296.0);

// `vramlab trace scores`: the contract's scores of every CS record against the ones the trace
// recorded (CS records with a score chunk) and, optionally, against a DRM shim log. On a
// kernel-view trace, what that view can be checked for instead (below).
struct ScoreMismatch {
	std::string what;       // "score", "ring", "relocation count", "score chunk", "missing line",
	                        // "extra line"; kernel view: "fence score", "repeated buffer score",
	                        // "score above the cap"
	uint64_t cs = 0;        // CS index (0-based, in trace order)
	uint64_t time_us = 0;   // the CS record's time
	int64_t reloc = -1;     // relocation index (-1: the whole CS)
	uint32_t id = 0;        // buffer id (for "score")
	uint64_t expected = 0;  // what the contract (or the trace) says
	uint64_t got = 0;       // what the trace or the log has
	uint64_t line = 0;      // shim log line (1-based; 0 for the trace)
};

struct ScoreCheckPart {
	uint64_t scores_checked = 0, mismatches = 0;
	std::vector<ScoreMismatch> first;          // the first kScoreExamples
	std::vector<std::pair<std::string, uint64_t>> by_kind; // mismatches per `what`
	void add(const ScoreMismatch &m);
};
inline constexpr size_t kScoreExamples = 10;

struct ScoreCheck {
	uint64_t vram_bytes = 0;       // 0: a kernel-view trace without one (not needed there)
	bool truncated = false;
	// A kernel-view trace (is_kernel_view): the recorded scores are not recomputed; in every CS
	// with a score chunk, the last relocation (the winsys's fence) must be neutral, a buffer
	// named twice must carry one score, and every other score must be neutral or at most
	// kScoreCap; a shim log is compared with the recorded scores. The counts of those checks:
	bool kernel_view = false;
	std::string source;            // the header's source (empty when none)
	uint64_t fences = 0, repeats = 0, in_range = 0;
	uint64_t cs = 0, cs_with_chunk = 0, relocations = 0, ticks = 0;
	ScoreCheckPart trace;              // against the trace's recorded scores (kernel view: the
	                                   // checks above; scores_checked = their sum)
	bool shim = false;
	uint64_t shim_lines = 0, shim_unchecked = 0; // unchecked: lines after a truncated trace
	uint64_t untracked = 0;            // log relocations not in the trace (fences, neutral)
	ScoreCheckPart log;                // against the shim log (kernel view: its recorded scores)
	uint64_t mismatches() const { return trace.mismatches + log.mismatches; }
};

// Throws TraceError on bad input (the trace, a malformed shim log line naming file and line).
ScoreCheck check_trace_scores(const std::string &trace, const Mlp &m, Refresh rule,
                              const std::string &shim_log = "", uint64_t vram_fallback = 0);

// `vramlab weights calibrate`: calls f with the statistics of every score computation of a
// trace (creates and refreshes; thesis and v2.0 traces: one access per READ/WRITE), events on
// destroyed ids left out as the simulator does. Which computations happen does not depend on
// the weights.
void observe_computations(const std::string &trace, Refresh rule, uint64_t vram_fallback,
                          const ScoreTracker::Observer &f);
// The q-quantile (0 <= q <= 1): the value at index round(q * (n - 1)) of v sorted (reorders v).
template <class T> T quantile(std::vector<T> &v, double q);

} // namespace vramlab
