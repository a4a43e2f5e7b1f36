// The C interface of the kernel model (include/vramlab_kmodel.h), for the virtual radeon.
#include "vramlab_kmodel.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

#include "kmodel/cost_file.h"
#include "kmodel/kernel_json.h"
#include "kmodel/kernel_model.h"
#include "trace/format.h"
#include "util/output_file.h"

using namespace vramlab;

struct vramlab_kmodel {
	KernelConfig config;
	CostFile costs; // the config's transfer costs, and the file they came from
	KernelModel model;
	std::vector<CsReloc> relocs;   // reused per submission
	std::vector<double> frame_cpu_us;
	std::unique_ptr<TraceWriter> trace; // vramlab_kmodel_record()
	std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
	vramlab_kmodel(const KernelConfig &c, CostFile cf) : config(c), costs(std::move(cf)), model(c)
	{
	}
	~vramlab_kmodel()
	{
		if (trace) {
			try {
				trace->close();
			} catch (const std::exception &e) {
				std::fprintf(stderr, "vramlab_kmodel: %s\n", e.what());
			}
		}
	}
	uint64_t now_us() const
	{
		return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
		                        std::chrono::steady_clock::now() - t0)
		                        .count());
	}
	// time: the operation's, when the model used it (a submission: the move budget's clock,
	// so that a replay of the recording sees the same time)
	void record(Event e, uint64_t time = UINT64_MAX)
	{
		if (!trace)
			return;
		e.time_us = time == UINT64_MAX ? now_us() : time;
		try {
			trace->write(e);
		} catch (const std::exception &ex) { // a full disk: stop recording, keep modelling
			std::fprintf(stderr, "vramlab_kmodel: trace stopped: %s\n", ex.what());
			trace.reset();
		}
	}
};

namespace {
void set_err(char *err, size_t size, const std::string &msg)
{
	if (err && size)
		std::snprintf(err, size, "%s", msg.c_str());
}
} // namespace

extern "C" {

vramlab_kmodel *vramlab_kmodel_new(const vramlab_kmodel_config *c, char *err, size_t err_size)
{
	if (!c || c->vram_bytes < 4096 || c->vram_bytes % 4096) {
		set_err(err, err_size, "VRAM size must be a positive number of 4 KiB pages");
		return nullptr;
	}
	if (c->window < 1 || c->window > 4096) {
		set_err(err, err_size, "bo_score_window must be 1..4096");
		return nullptr;
	}
	if (c->evict_window > 1024 || c->move_budget_mbps > 1000000 || c->move_budget_ms > 10000 ||
	    (c->move_budget_mbps && !c->move_budget_ms)) {
		set_err(err, err_size, "evict_window must be 0..1024 (radeon.evict_window), move_budget_mbps 0..1000000 "
		                       "and move_budget_ms 1..10000");
		return nullptr;
	}
	if (c->too_big > 2) {
		set_err(err, err_size, "too_big must be 0..2");
		return nullptr;
	}
	if (c->lab_cs_end > 2) {
		set_err(err, err_size, "lab_cs_end must be 0..2");
		return nullptr;
	}
	if (c->evict_predict > 1 || c->evict_admit > 100000 || c->evict_unused > (1u << 20) ||
	    c->evict_repack > 1 || ((c->evict_predict || c->evict_admit) && !c->evict_window) ||
	    ((c->evict_admit || c->evict_unused || c->evict_repack) && !c->evict_predict)) {
		set_err(err, err_size, "evict_predict must be 0 or 1, evict_admit 0..100000 (per "
		                       "mille), evict_unused 0..1048576 and evict_repack 0 or 1; "
		                       "evict_predict needs evict_window, and evict_admit, "
		                       "evict_unused and evict_repack need evict_predict");
		return nullptr;
	}
	// radeon.lab_cs_end's values are Stock's (bo_score with 6.14 is refused by the model)
	static_assert(int(Stock::V6_12) == 0 && int(Stock::V6_14) == 1 && int(Stock::V6_14_Fixed) == 2);
	KernelConfig k;
	k.stock = Stock(c->lab_cs_end);
	k.vram = c->vram_bytes;
	k.topdown_kib = c->topdown_kib;
	k.bo_score = c->bo_score != 0;
	k.window = c->window;
	k.scan = c->evict_window != 0;
	k.scan_max = c->evict_window ? c->evict_window : k.scan_max;
	k.window_predict = c->evict_predict != 0;
	k.admit_predict = c->evict_admit != 0;
	k.admit_gtt_permille = c->evict_admit;
	k.predict_unused = c->evict_unused;
	k.predict_repack = c->evict_repack != 0;
	k.budget = c->move_budget_mbps != 0;
	k.budget_mbps = c->move_budget_mbps ? c->move_budget_mbps : k.budget_mbps;
	k.budget_cap_ms = c->move_budget_ms ? c->move_budget_ms : k.budget_cap_ms;
	k.per_frame = true;
	// the policy table's rule (kernel_policies.cc: fit with window eviction or the budget)
	k.flush_for_impossible = c->too_big == 2 || (c->too_big == 0 && !k.scan && !k.budget);
	try {
		CostFile costs = builtin_costs();
		if (c->cost_file && *c->cost_file)
			costs = load_cost_file(c->cost_file);
		costs.apply(k);
		return new vramlab_kmodel(k, std::move(costs));
	} catch (const std::exception &e) {
		set_err(err, err_size, e.what());
		return nullptr;
	}
}

void vramlab_kmodel_free(vramlab_kmodel *m) { delete m; }

int vramlab_kmodel_create(vramlab_kmodel *m, uint32_t id, uint64_t size, uint8_t domain)
{
	const bool ok = m->model.create(id, size, domain);
	Event e;
	e.type = EventType::Create;
	e.id = id;
	e.size = size;
	e.domain = domain;
	m->record(e);
	return ok ? 0 : -1;
}

void vramlab_kmodel_submit(vramlab_kmodel *m, const vramlab_kmodel_reloc *relocs, uint32_t n,
                           int scores)
{
	m->relocs.resize(n);
	for (uint32_t i = 0; i < n; i++)
		// the kernel's view: no high-priority use (trace v2.2 bit 4 is the driver's knowledge)
		m->relocs[i] = {relocs[i].id, relocs[i].read_domains, relocs[i].write_domain,
		                relocs[i].prio, false, relocs[i].score};
	const uint64_t now = m->now_us();
	m->model.submit(m->relocs.data(), n, scores != 0, now);
	Event e;
	e.type = EventType::Cs;
	e.cs_scores = scores != 0;
	e.nrelocs = n;
	e.relocs = m->relocs.data();
	m->record(e, now);
}

namespace {
void buffer_event(vramlab_kmodel *m, EventType t, uint32_t id)
{
	Event e;
	e.type = t;
	e.id = id;
	m->record(e);
}
} // namespace

void vramlab_kmodel_cpu_map(vramlab_kmodel *m, uint32_t id)
{
	m->model.cpu_map(id);
	buffer_event(m, EventType::Cpu, id);
}

void vramlab_kmodel_destroy(vramlab_kmodel *m, uint32_t id)
{
	m->model.destroy(id);
	buffer_event(m, EventType::Destroy, id);
}

void vramlab_kmodel_frame(vramlab_kmodel *m, double cpu_us)
{
	m->model.frame();
	m->frame_cpu_us.push_back(cpu_us);
	buffer_event(m, EventType::Frame, 0);
}

int vramlab_kmodel_record(vramlab_kmodel *m, const char *path, const char *meta, char *err,
                          size_t err_size)
{
	try {
		TraceInfo info;
		info.format = Format::V2;
		for (const char *p = meta; p && *p;) {
			const char *nl = std::strchr(p, '\n');
			const std::string line(p, nl ? size_t(nl - p) : std::strlen(p));
			const size_t eq = line.find('=');
			if (eq != std::string::npos && eq > 0)
				info.meta[line.substr(0, eq)] = line.substr(eq + 1);
			p = nl ? nl + 1 : p + line.size();
		}
		m->trace = make_writer(Format::V2, path, info, Output::Live);
		m->t0 = std::chrono::steady_clock::now();
		return 0;
	} catch (const std::exception &e) {
		set_err(err, err_size, e.what());
		return -1;
	}
}

void vramlab_kmodel_get_counters(vramlab_kmodel *m, vramlab_kmodel_counters *out)
{
	const KernelResult &r = m->model.result();
	*out = {};
	out->evictions = r.evictions();
	out->evicted_bytes = r.mem[MemVram].evicted_bytes;
	out->bytes_to_vram = r.bytes_to_vram();
	out->bytes_from_vram = r.bytes_from_vram();
	out->moves = r.moves();
	out->cs = r.cs;
	out->cs_rejected = r.cs_rejected;
	out->creates = r.creates;
	out->creates_refused = r.creates_refused;
	out->cpu_maps = r.cpu_maps;
	out->destroys = r.destroys;
	out->frames = r.frames;
	out->gtt_accesses = r.gtt_accesses;
	out->threshold_cs = r.threshold_cs;
	out->transfer_ms = r.transfer_us / 1000.0;
}

int vramlab_kmodel_write_json(vramlab_kmodel *m, const char *path, char *err, size_t err_size)
{
	try {
		const KernelResult &r = m->model.result();
		nlohmann::json j = kernel_result_json(r);
		j["schema"] = "vramlab-kmodel-live";
		j["version"] = 1;
		j["config"] = {{"vram_bytes", m->config.vram},
		               {"topdown_kib", m->config.topdown_kib},
		               {"bo_score", m->config.bo_score},
		               {"window", m->config.window},
		               {"evict_window", m->config.scan ? m->config.scan_max : 0},
		               {"evict_predict", m->config.window_predict ? 1 : 0},
		               {"evict_admit", m->config.admit_predict ? m->config.admit_gtt_permille : 0},
		               {"evict_unused", m->config.window_predict ? m->config.predict_unused : 0},
		               {"evict_repack", m->config.predict_repack ? 1 : 0},
		               {"move_budget_mbps", m->config.budget ? m->config.budget_mbps : 0},
		               {"move_budget_ms", m->config.budget_cap_ms},
		               {"lab_cs_end", int(m->config.stock)},
		               {"kernel", stock_name(m->config.stock)},
		               {"too_big", m->config.flush_for_impossible ? "evict" : "refuse"},
		               {"cost_file", m->costs.builtin() ? nlohmann::json(nullptr)
		                                                : nlohmann::json(m->costs.path)}};
		j["costs"] = m->costs.json();
		nlohmann::json frames = nlohmann::json::array();
		std::vector<double> times;
		for (size_t i = 0; i < r.frames && i < r.per_frame.size(); i++) {
			const double cpu = i < m->frame_cpu_us.size() ? m->frame_cpu_us[i] : 0.0;
			times.push_back(cpu + r.per_frame[i].transfer_us);
			frames.push_back({{"moves", r.per_frame[i].moves},
			                  {"bytes", r.per_frame[i].bytes},
			                  {"gtt_accesses", r.per_frame[i].gtt_accesses},
			                  {"transfer_us", r.per_frame[i].transfer_us},
			                  {"cpu_us", cpu},
			                  {"time_us", times.back()}});
		}
		j["per_frame"] = std::move(frames);
		const FrameTimes ft = frame_times(times);
		j["frame_times"] = {{"model", "time = CPU time (measured) + transfer time (modelled)"},
		                    {"p50_ms", ft.p50_us / 1000.0},
		                    {"p95_ms", ft.p95_us / 1000.0},
		                    {"p99_ms", ft.p99_us / 1000.0},
		                    {"max_ms", ft.max_us / 1000.0},
		                    {"stutter", ft.stutter}};
		write_output(path, j.dump(1) + "\n");
		return 0;
	} catch (const std::exception &e) {
		set_err(err, err_size, e.what());
		return -1;
	}
}

} // extern "C"
