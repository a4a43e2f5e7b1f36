// The subcommands of `vramlab`: each file registers its own on the CLI11 app.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "kmodel/cost_file.h"
#include "sim/run.h"

namespace vramlab {

void add_trace_commands(CLI::App &app);
void add_sim_command(CLI::App &app);
void add_decide_command(CLI::App &app);
void add_weights_commands(CLI::App &app);
void add_train_command(CLI::App &app);
void add_labels_command(CLI::App &app); // labels_cmd.cc

// "512K", "64M", "1G", "4096" -> bytes. Throws CLI::ValidationError with the text.
uint64_t parse_size(const std::string &s);
// A VRAM size: a plain number is MiB ("256"); with a suffix, bytes that must be whole MiB.
uint64_t parse_vram_mib(const std::string &s, const char *option = "--vram");
// A comma-separated option's items (sim_cmd.cc): none empty, none twice (a repeat would count
// twice in a table), at least one unless it may be empty. CLI::ValidationError naming it.
std::vector<std::string> split_list(const std::string &s, const char *option,
                                    bool may_be_empty = false);
// VRAM sizes in MiB, each once by value ("64" and "64M" are one size).
std::vector<uint64_t> vram_list(const std::string &s, const char *option);
// The trace files of a command's arguments, directories expanded (expand_traces()), each file
// once: one named twice by any path (G and ./G, a link to G, G and a directory holding it, a
// directory twice) is a usage error naming both spellings, as it would count twice in every
// total. One list per option; lists given together (decide's --corpus and --live) are checked
// as one. "-" (stdin) and paths that are not there are left to the reader.
using TraceLists = std::vector<std::pair<const char *, std::vector<std::string>>>;
std::vector<std::vector<std::string>> trace_files(const TraceLists &lists);
std::vector<std::string> trace_files(const std::vector<std::string> &args,
                                     const char *option = "TRACE");
// A run that --on-impossible exclude left without a trace: TraceError (a table of zeros is no
// answer).
void refuse_nothing_left(const std::vector<TraceLoad> &loads);
// A weights file committed beside the build (harness/weights/<name>), found from the binary.
std::string default_weights_path(const std::string &name = "handset.txt");
// `vramlab trace scores` (scores_cmd.cc), registered under `trace`.
void add_trace_scores_command(CLI::App &trace);
bool stdout_is_tty();
// --json FILE: that FILE can be written, checked before any work (TraceError naming it); "-"
// and "" are always fine. write_json() then writes it whole or not at all (a temporary file
// renamed over it), or to stdout for "-".
void check_json_path(const std::string &path);
void write_json(const std::string &path, const nlohmann::json &j);
// --on-impossible keep|skip|exclude (CLI11 has checked the word).
OnImpossible parse_on_impossible(const std::string &s);
const char *on_impossible_name(OnImpossible m);
// One line naming the traces with impossible creates and what the run did with them (nothing
// when there are none).
void print_impossible(std::FILE *f, const std::vector<TraceLoad> &loads, OnImpossible m);
// The transfer costs of a kernel-model run (docs/cost-file.md): the --cost file (TraceError
// when it is bad), else the built-in costs as the cost options set them. A cost file sets
// every cost: with one, any of `cost_options` given on the command line is a usage error
// (CLI::ValidationError naming it).
CostFile resolve_costs(const std::string &file, const std::vector<const CLI::Option *> &cost_options,
                       double pcie_gbps, double vram_gbps, double move_latency_us);
// A cost option in a cost file's bounds (cost_file.h), else a usage error naming it.
void check_cost_option(double v, const CostBounds &b, const char *option);

} // namespace vramlab
