#include "sim/policy_name.h"

#include <stdexcept>

namespace vramlab {

uint64_t parse_size_text(const std::string &s)
{
	size_t used = 0;
	unsigned long long v = 0;
	if (s.empty() || s[0] < '0' || s[0] > '9')
		throw std::invalid_argument("not a size: \"" + s + "\"");
	try {
		v = std::stoull(s, &used);
	} catch (const std::exception &) {
		throw std::invalid_argument("not a size: \"" + s + "\"");
	}
	const std::string suffix = s.substr(used);
	unsigned shift = 0;
	if (suffix == "K" || suffix == "k" || suffix == "KiB")
		shift = 10;
	else if (suffix == "M" || suffix == "m" || suffix == "MiB")
		shift = 20;
	else if (suffix == "G" || suffix == "g" || suffix == "GiB")
		shift = 30;
	else if (!suffix.empty())
		throw std::invalid_argument("unknown size suffix in \"" + s + "\" (use K, M or G)");
	if (v > (UINT64_MAX >> shift))
		throw std::invalid_argument("size too large: \"" + s + "\"");
	return uint64_t(v) << shift;
}

PolicyName split_policy_name(const std::string &name)
{
	const size_t at = name.find('@');
	if (at == std::string::npos)
		return {name, std::nullopt};
	try {
		return {name.substr(0, at), parse_size_text(name.substr(at + 1))};
	} catch (const std::invalid_argument &e) {
		throw std::invalid_argument("policy \"" + name + "\": threshold after '@': " + e.what());
	}
}

} // namespace vramlab
