// persist(): one pass computing every chunk once and keeping it encoded in memory.
#include <cstring>

#include "array/persisted.hpp"
#include "exec/run_context.hpp"
#include "strata/exec/run.hpp"

namespace strata {

Result<Array> persist(const Context& ctx, const Array& a, const PersistOptions& popts, const PassOptions& options) {
  STRATA_RETURN_NOT_OK(a.status());
  using Storage = detail::PersistedNode::Storage;
  auto storage = std::make_shared<Storage>();
  storage->kind = popts.encoding == PersistEncoding::Raw          ? Storage::Kind::Raw
                  : popts.encoding == PersistEncoding::Packed2Bit ? Storage::Kind::Packed2Bit
                                                                  : Storage::Kind::Codec;
  const int64_t isz = a.dtype().itemsize();
  if (storage->kind == Storage::Kind::Codec) {
    STRATA_ASSIGN_OR_RETURN(auto codec, io::parse_codec_spec(popts.codec, isz));
    if (!codec) return Status::Invalid("persist: codec spec '", popts.codec, "' has no codec");
    storage->codec = std::shared_ptr<const io::BytesCodec>(std::move(codec));
  }
  detail::RunContext run(ctx, options);
  STRATA_RETURN_NOT_OK(run.prepare({a}));
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make({a}, a.chunks()));
  const Shape chunk = grid.grid.chunk_shape();
  const int64_t cn = grid.grid.chunk_numel();
  storage->chunks.resize(static_cast<size_t>(grid.grid.num_chunks()));
  const std::string label = options.label.empty() ? "persist" : options.label;
  Status st = run.run_pass(
      grid.grid.num_chunks(), 2 * grid.block_bytes({a}) + cn * isz,
      [&](int64_t i) -> Status {
        const BlockInfo info = grid.info(i);
        STRATA_ASSIGN_OR_RETURN(Buffer block, run.read_block(*a.node(), info, isz));
        STRATA_ASSIGN_OR_RETURN(Buffer full, Buffer::zeros(std::max<int64_t>(1, cn) * isz));
        copy_box(block.data(), info.extent, Shape(chunk.size(), 0), full.data(), chunk, Shape(chunk.size(), 0),
                 info.extent, isz);
        Bytes& out = storage->chunks[i];
        switch (storage->kind) {
          case Storage::Kind::Raw: out.assign(full.data(), full.data() + cn * isz); break;
          case Storage::Kind::Packed2Bit:
            STRATA_RETURN_NOT_OK(detail::pack_2bit(full.data(), a.dtype(), cn, chunk, out)
                                     .with_context(str_cat("persist: block ", shape_to_string(info.grid_index))));
            break;
          case Storage::Kind::Codec: {
            STRATA_ASSIGN_OR_RETURN(out, storage->codec->encode(full.span()));
            break;
          }
        }
        return Status::OK();
      },
      nullptr, run.pass_options(label));
  run.finish();
  STRATA_RETURN_NOT_OK(st);
  for (const Bytes& b : storage->chunks) storage->stored_bytes += static_cast<int64_t>(b.size());
  return Array::from_node(std::make_shared<detail::PersistedNode>(a.shape(), chunk, a.dtype(), std::move(storage)));
}

int64_t persisted_bytes(const Array& a) {
  if (!a.ok() || a.node()->kind() != detail::NodeKind::Persisted) return 0;
  return static_cast<const detail::PersistedNode&>(*a.node()).storage().stored_bytes;
}

}  // namespace strata
