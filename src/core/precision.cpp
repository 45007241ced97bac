#include "strata/core/precision.hpp"

namespace strata {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Auto: return "auto";
    case Precision::Int16: return "int16";
    case Precision::Mixed: return "mixed";
    case Precision::Float32: return "float32";
    case Precision::Float64: return "float64";
  }
  return "?";
}

Result<Precision> parse_precision(std::string_view name) {
  for (Precision p : {Precision::Auto, Precision::Int16, Precision::Mixed, Precision::Float32, Precision::Float64}) {
    if (name == precision_name(p)) return p;
  }
  return Status::Invalid("unknown precision '", name, "' (expected auto, int16, mixed, float32 or float64)");
}

}  // namespace strata
