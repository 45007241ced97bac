// STRATA_CPU (strata/core/cpu_pin.hpp): parsed once, never changed for the process's life, so
// every kernel table and every random run made in the process sees the same cap.
#include "strata/core/cpu_pin.hpp"

#include <cstdlib>

namespace strata {
namespace {

CpuPin read_pin() {
  CpuPin p;
  const char* env = std::getenv("STRATA_CPU");
  if (!env || !*env) return p;
  p.text = env;
  for (int i = 0; i < kCpuLevelCount; ++i)
    if (p.text == kCpuLevelNames[i]) {
      p.max_level = i;
      return p;
    }
  p.valid = false;
  p.max_level = 0;
  return p;
}

}  // namespace

const CpuPin& cpu_pin() {
  static const CpuPin pin = read_pin();
  return pin;
}

Status cpu_pin_status() {
  const CpuPin& p = cpu_pin();
  if (p.valid) return Status::OK();
  std::string names;
  for (int i = 0; i < kCpuLevelCount; ++i) names += std::string(i ? ", " : "") + kCpuLevelNames[i];
  return Status::Invalid("STRATA_CPU='", p.text, "': not a CPU level (one of ", names,
                         "; unset it for the best level this CPU has)");
}

}  // namespace strata
