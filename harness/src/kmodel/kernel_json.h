// The kernel model's figures as JSON (kernel_json.cc).
#pragma once
#include <nlohmann/json.hpp>

#include "kmodel/kernel_model.h"

namespace vramlab {

nlohmann::json kernel_result_json(const KernelResult &r);

} // namespace vramlab
