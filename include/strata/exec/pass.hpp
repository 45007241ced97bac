#pragma once
/// \file
/// Passes: the building block every algorithm is made of, and the one engine that runs them
/// (array passes here; linalg's row-block passes, the genotype passes and the Gram products all
/// schedule their blocks through run_blocks). A pass streams over the blocks of one or more
/// aligned arrays in a fixed (C) order, runs a block kernel on the Context's threads, and
/// either emits output (map) or produces a per-block partial that is combined in block order
/// (reduce). The executor owns all parallelism (one level: block kernels must not start their
/// own threads or threaded BLAS), bounds the memory of blocks in flight by a budget, keeps at
/// most a small window of blocks ahead of the oldest unfinished one, and caches nothing.
///
/// Because partials are combined strictly in block-index order, results are bit-identical for
/// any number of threads.
///
/// \code
/// // Sum of squares, one partial per block, combined in block order:
/// auto total = reduce_blocks<double>(
///     ctx, {x}, 0.0,
///     [](const BlockInfo&, std::span<const BlockView> in) -> Result<double> {
///       double s = 0;
///       for (int64_t i = 0; i < in[0].numel(); ++i) s += in[0].as<double>()[i] * in[0].as<double>()[i];
///       return s;
///     },
///     [](double& acc, double&& part) { acc += part; });
/// \endcode

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/array/array.hpp"
#include "strata/core/context.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/report.hpp"

namespace strata {

/// \brief Where a block lies in the pass's block grid.
struct BlockInfo {
  int64_t index = 0;  ///< linear (C-order) block index = the order partials are combined in
  Shape grid_index;   ///< block coordinates
  Shape origin;       ///< first element
  Shape extent;       ///< block extent (clipped at the array edge)
};

/// \brief A read-only dense C-order block of one input array (host memory).
struct BlockView {
  const void* data = nullptr;
  DType dtype;
  Shape shape;
  int64_t numel() const;
  template <class T> const T* as() const { return static_cast<const T*>(data); }
};

using BlockKernel = std::function<Status(const BlockInfo&, std::span<const BlockView>)>;

/// \brief Call `fn` for every block of the aligned `arrays` (same shape), blocks of
/// `block_shape` (empty = the first array's chunks), in parallel. Each input block is read
/// (computed) into memory before `fn` runs; nothing is kept afterwards.
Status for_each_block(const Context& ctx, const std::vector<Array>& arrays, const BlockKernel& fn,
                      const PassOptions& options = {}, Shape block_shape = {});

/// \brief Reduce the blocks of `arrays`: `partial` per block (in parallel), then
/// `combine(acc, partial)` in block-index order, starting from `init`. At most `window` partials
/// wait for combination at any time, so memory stays bounded for any number of blocks.
template <class P>
Result<P> reduce_blocks(const Context& ctx, const std::vector<Array>& arrays, P init,
                        const std::function<Result<P>(const BlockInfo&, std::span<const BlockView>)>& partial,
                        const std::function<void(P&, P&&)>& combine, const PassOptions& options = {},
                        Shape block_shape = {});

namespace detail {
/// Shared implementation of reduce_blocks: partials stored in slots indexed by block % slots.
Status reduce_blocks_impl(const Context& ctx, const std::vector<Array>& arrays, int64_t slots,
                          const std::function<Status(const BlockInfo&, std::span<const BlockView>, int64_t slot)>& partial,
                          const std::function<void(int64_t slot)>& combine, const PassOptions& options,
                          Shape block_shape);
}  // namespace detail

template <class P>
Result<P> reduce_blocks(const Context& ctx, const std::vector<Array>& arrays, P init,
                        const std::function<Result<P>(const BlockInfo&, std::span<const BlockView>)>& partial,
                        const std::function<void(P&, P&&)>& combine, const PassOptions& options,
                        Shape block_shape) {
  const int64_t slots = pass_window(ctx, options);
  std::vector<std::optional<P>> parts(static_cast<size_t>(slots));
  P acc = std::move(init);
  Status st = detail::reduce_blocks_impl(
      ctx, arrays, slots,
      [&](const BlockInfo& info, std::span<const BlockView> views, int64_t slot) -> Status {
        Result<P> r = partial(info, views);
        if (!r.ok()) return r.status();
        parts[slot].emplace(std::move(r).value());
        return Status::OK();
      },
      [&](int64_t slot) {
        combine(acc, std::move(*parts[slot]));
        parts[slot].reset();
      },
      options, std::move(block_shape));
  if (!st.ok()) return st;
  return acc;
}

}  // namespace strata
