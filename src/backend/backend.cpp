// What every backend shares: the context's choice and the CPU levels' names.
#include "strata/backend/backend.hpp"

#include "strata/core/context.hpp"

namespace strata::backend {

const Backend& of(const Context& ctx) {
  const auto& impl = ctx.backend_impl();
  return impl ? *impl : *cpu_backend();
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Best: return "best";
    case CpuIsa::Portable: return "portable";
    case CpuIsa::Avx2: return "avx2";
    case CpuIsa::Avx2Vnni: return "avx2-vnni";
    case CpuIsa::Avx512: return "avx512";
    case CpuIsa::Avx512Vnni: return "avx512-vnni";
    case CpuIsa::Avx512Amx: return "avx512-amx";
    case CpuIsa::Neon: return "neon";
  }
  return "?";
}

}  // namespace strata::backend
