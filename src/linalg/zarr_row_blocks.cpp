// RowBlockSource over a 2-D numeric Zarr array: regions read through ZarrArray::read_region
// and cast to the float type a pass computes in.
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "strata/core/shape.hpp"
#include "strata/io/store.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/zarr.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::nanf("") : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

class ZarrSource final : public RowBlockSource {
 public:
  ZarrSource(io::ZarrArray array, bool transposed) : array_(std::move(array)), transposed_(transposed) {}

  int64_t rows() const override { return array_.shape()[transposed_ ? 1 : 0]; }
  int64_t cols() const override { return array_.shape()[transposed_ ? 0 : 1]; }
  int64_t preferred_block_rows() const override { return array_.chunk_grid().chunk_shape()[transposed_ ? 1 : 0]; }
  ScalarType natural_type() const override { return array_.dtype().type; }
  std::string describe() const override { return array_.describe() + (transposed_ ? " (transposed)" : ""); }

  Status read_block(int64_t row0, int64_t nrows, double* out) const override { return read(row0, nrows, out); }
  Status read_block(int64_t row0, int64_t nrows, float* out) const override { return read(row0, nrows, out); }
  Result<RowBlockSourcePtr> transposed() const override {
    return RowBlockSourcePtr(std::make_shared<ZarrSource>(array_, !transposed_));
  }

 private:
  template <class T>
  Status read(int64_t row0, int64_t nrows, T* out) const {
    if (row0 < 0 || nrows < 0 || row0 > rows() || nrows > rows() - row0) {
      return Status::Invalid(describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range");
    }
    const int64_t c = cols();
    STRATA_ASSIGN_OR_RETURN(int64_t n, checked_mul(nrows, c));
    const DType dt = array_.dtype();
    STRATA_ASSIGN_OR_RETURN(int64_t nbytes, checked_mul(n, dt.itemsize()));
    const Shape start = transposed_ ? Shape{0, row0} : Shape{row0, 0};
    const Shape count = transposed_ ? Shape{c, nrows} : Shape{nrows, c};
    const bool direct = !transposed_ && dt.type == scalar_type_of<T>();
    std::vector<uint8_t> raw(direct ? 0 : static_cast<size_t>(nbytes));
    void* dst = direct ? static_cast<void*>(out) : static_cast<void*>(raw.data());
    STRATA_RETURN_NOT_OK(array_.read_region(start, count, dst));
    if (!direct) {
      // Region element (a, b) of a count[0] × count[1] C-order box; transposed views swap.
      auto convert = [&](auto tag) {
        using S = decltype(tag);
        const S* src = reinterpret_cast<const S*>(raw.data());
        for (int64_t a = 0; a < count[0]; ++a)
          for (int64_t b = 0; b < count[1]; ++b) {
            const int64_t dst_idx = transposed_ ? b * c + a : a * c + b;
            if constexpr (std::is_same_v<S, uint16_t>) {
              out[dst_idx] = static_cast<T>(half_to_float(src[a * count[1] + b]));
            } else {
              out[dst_idx] = static_cast<T>(src[a * count[1] + b]);
            }
          }
      };
      if (dt.type == ScalarType::Float16) {
        convert(uint16_t{});
      } else {
        STRATA_RETURN_NOT_OK(visit_scalar(dt.type, convert));
      }
    }
    if (dt.is_float()) {
      for (int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(out[i])) {
          return Status::InvalidData(describe(), ": non-finite value at row ", row0 + i / c, ", column ", i % c);
        }
      }
    }
    return Status::OK();
  }

  io::ZarrArray array_;
  bool transposed_;
};

}  // namespace

Result<RowBlockSourcePtr> make_zarr_source(const io::ZarrArray& array) {
  if (array.ndim() != 2) {
    return Status::InvalidData(array.describe(), ": expected a 2-D array, found ", array.ndim(), "-D (shape ",
                           shape_to_string(array.shape()), ")");
  }
  if (array.dtype().is_bool()) {
    return Status::InvalidData(array.describe(), ": dtype bool is not numeric");
  }
  return RowBlockSourcePtr(std::make_shared<ZarrSource>(array, false));
}

Result<RowBlockSourcePtr> open_zarr_source(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(io::StoreLocation loc, io::open_zarr_location(path));
  auto array = io::ZarrArray::open(loc.store, loc.node_path);
  if (!array.ok()) return array.status().with_context(path);
  return make_zarr_source(*array);
}

}  // namespace strata::linalg
