// Cost files (cost_file.h, docs/cost-file.md).
#include "kmodel/cost_file.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/event.h"

namespace vramlab {

namespace {

using nlohmann::json;

std::string num(double v)
{
	char s[64];
	std::snprintf(s, sizeof s, "%.10g", v);
	return s;
}

const char *type_word(const json &v)
{
	switch (v.type()) {
	case json::value_t::null: return "null";
	case json::value_t::boolean: return "a boolean";
	case json::value_t::string: return "a string";
	case json::value_t::array: return "an array";
	case json::value_t::object: return "an object";
	default: return "a number";
	}
}

[[noreturn]] void fail(const std::string &name, const std::string &field, const std::string &msg)
{
	throw TraceError(name + ": " + field + ": " + msg);
}

std::string one_line(std::string s)
{
	for (char &c : s)
		if (c == '\n' || c == '\r')
			c = ' ';
	return s;
}

// nlohmann's "[json.exception.parse_error.101] parse error at ..." without the bracket.
std::string without_tag(const std::string &what)
{
	const auto close = what.find("] ");
	return one_line(what.rfind("[json.exception.", 0) == 0 && close != std::string::npos
	                        ? what.substr(close + 2)
	                        : what);
}

std::string optional_string(const json &j, const std::string &name, const char *field)
{
	const auto it = j.find(field);
	if (it == j.end())
		return {};
	if (!it->is_string())
		fail(name, field, std::string("must be a string, not ") + type_word(*it));
	return it->get<std::string>();
}

double cost(const json &j, const std::string &name, const CostBounds &b, const char *what)
{
	const auto it = j.find(b.field);
	if (it == j.end())
		fail(name, b.field, std::string("missing (") + what + ", " + num(b.min) + ".." +
		                            num(b.max) + " " + b.unit + ")");
	if (it->is_string()) // "NaN", "inf": JSON has no such numbers
		fail(name, b.field, one_line(it->dump()) + " is a string, not a number");
	if (!it->is_number())
		fail(name, b.field, std::string("must be a number, not ") + type_word(*it));
	const double v = it->get<double>();
	if (!std::isfinite(v))
		fail(name, b.field, num(v) + " is not a finite number");
	if (!(v > 0))
		fail(name, b.field, num(v) + " is not positive (" + num(b.min) + ".." + num(b.max) +
		                            " " + b.unit + ")");
	if (v < b.min || v > b.max)
		fail(name, b.field, num(v) + " is out of range " + num(b.min) + ".." + num(b.max) +
		                            " " + b.unit);
	return v;
}

} // namespace

void CostFile::apply(KernelConfig &c) const
{
	c.pcie_gbps = pcie_gbps;
	c.vram_gbps = vram_gbps;
	c.move_latency_us = move_latency_us;
	c.gtt_reads_per_use = gtt_reads_per_use;
}

nlohmann::json CostFile::json() const
{
	nlohmann::json j;
	j["file"] = builtin() ? nlohmann::json() : nlohmann::json(path);
	j["source"] = source;
	for (auto [k, v] : {std::pair{"card", &card}, std::pair{"pci_id", &pci_id},
	                    std::pair{"kernel", &kernel}, std::pair{"mesa", &mesa},
	                    std::pair{"pcie_link", &pcie_link}})
		if (!v->empty())
			j[k] = *v;
	j["pcie_gbps"] = pcie_gbps;
	j["vram_gbps"] = vram_gbps;
	j["move_latency_us"] = move_latency_us;
	j["gtt_reads_per_use"] = gtt_reads_per_use;
	return j;
}

std::string CostFile::describe() const
{
	std::string s = "costs " + (builtin() ? std::string("built in") : path) + " (" + source;
	if (!card.empty())
		s += ", " + card;
	return s + "): PCIe " + num(pcie_gbps) + " GB/s, VRAM " + num(vram_gbps) + " GB/s, " +
	       num(move_latency_us) + " us a move, " + num(gtt_reads_per_use) +
	       " PCIe read" + (gtt_reads_per_use == 1 ? "" : "s") + " per GPU use in GTT";
}

CostFile builtin_costs() { return CostFile{}; }

CostFile parse_cost_file(const std::string &text, const std::string &name)
{
	json j;
	std::string last_key; // the field a number overflow is in
	try {
		j = json::parse(text, [&](int, json::parse_event_t ev, json &v) {
			if (ev == json::parse_event_t::key && v.is_string())
				last_key = v.get<std::string>();
			return true;
		});
	} catch (const json::parse_error &e) {
		throw TraceError(name + ": malformed JSON at byte " + std::to_string(e.byte) + ": " +
		                 without_tag(e.what()));
	} catch (const json::exception &e) { // a number too large for a double (406)
		throw TraceError(name + ": " + (last_key.empty() ? std::string("malformed JSON") : last_key) +
		                 ": " + without_tag(e.what()));
	}
	if (!j.is_object())
		throw TraceError(name + ": not a cost file: the JSON is " + type_word(j) +
		                 ", not an object");
	const auto fmt = j.find("format");
	if (fmt == j.end())
		fail(name, "format", std::string("missing (a cost file says \"format\": \"") +
		                             kCostFormat + "\")");
	if (!fmt->is_string() || fmt->get<std::string>() != kCostFormat)
		fail(name, "format", one_line(fmt->dump()) + " is not \"" + kCostFormat + "\"");
	const auto ver = j.find("version");
	if (ver == j.end())
		fail(name, "version", "missing (this vramlab reads version " +
		                              std::to_string(kCostVersion) + ")");
	if (!ver->is_number_integer() || ver->get<int64_t>() != kCostVersion)
		fail(name, "version", one_line(ver->dump()) + " is not supported (this vramlab reads "
		                              "version " + std::to_string(kCostVersion) + ")");
	CostFile c;
	c.path = name;
	const auto src = j.find("source");
	if (src == j.end())
		fail(name, "source", "missing (\"assumed\" or \"measured\")");
	if (!src->is_string() || (*src != "assumed" && *src != "measured"))
		fail(name, "source", one_line(src->dump()) + " is not \"assumed\" or \"measured\"");
	c.source = src->get<std::string>();
	c.card = optional_string(j, name, "card");
	c.pci_id = optional_string(j, name, "pci_id");
	c.kernel = optional_string(j, name, "kernel");
	c.mesa = optional_string(j, name, "mesa");
	c.pcie_link = optional_string(j, name, "pcie_link");
	c.notes = optional_string(j, name, "notes");
	c.pcie_gbps = cost(j, name, kPcieBounds, "PCIe bandwidth of a move");
	c.vram_gbps = cost(j, name, kVramBounds, "VRAM bandwidth");
	c.move_latency_us = cost(j, name, kMoveLatencyBounds, "fixed cost of one move");
	c.gtt_reads_per_use =
	        cost(j, name, kGttReadsBounds, "whole-size PCIe reads charged per GPU use in GTT");
	if (c.vram_gbps < c.pcie_gbps)
		fail(name, "vram_gbps", num(c.vram_gbps) + " is below pcie_gbps " + num(c.pcie_gbps) +
		                                " (a GTT read is charged the difference: VRAM slower "
		                                "than the bus is not modelled)");
	return c;
}

CostFile load_cost_file(const std::string &path)
{
	std::error_code ec;
	std::ifstream f(path, std::ios::binary);
	if (!f || std::filesystem::is_directory(path, ec))
		throw TraceError(path + ": cannot read the cost file");
	std::ostringstream s;
	s << f.rdbuf();
	if (f.bad())
		throw TraceError(path + ": cannot read the cost file");
	return parse_cost_file(s.str(), path);
}

} // namespace vramlab
