// zstd codec (RFC 8878 frames) on libzstd. Decoding accepts concatenated and skippable frames
// and frames that do not record their content size (decoded by streaming, under a size cap).

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>

#include "io/codecs/codec_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

// One zstd frame expands at most ~32768x (an RLE block: 4 bytes for 128 KiB); anything beyond
// this ratio is a forged header, refused before allocating.
constexpr int64_t kZstdMaxExpansion = 65536;

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// Contexts are costly to create; one per thread keeps the codec object stateless and shareable.
ZSTD_CCtx* thread_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

int64_t expansion_cap(std::span<const uint8_t> in) {
  return std::min(kMaxUnknownDecodedBytes, static_cast<int64_t>(in.size()) * kZstdMaxExpansion);
}

// Total decoded size of all frames in `in`, or -1 when some frame does not record it.
// Walking the frames also rejects truncated input and trailing garbage up front.
Result<int64_t> total_content_size(std::span<const uint8_t> in) {
  if (in.empty()) return Status::Corrupt("zstd: empty input is not a zstd frame");
  size_t off = 0;
  int64_t total = 0;
  bool known = true;
  while (off < in.size()) {
    const uint8_t* p = in.data() + off;
    const size_t rem = in.size() - off;
    unsigned long long content = ZSTD_getFrameContentSize(p, rem);
    if (content == ZSTD_CONTENTSIZE_ERROR) {
      return Status::Corrupt("zstd: no valid frame header at byte ", off, " of ", in.size());
    }
    size_t frame = ZSTD_findFrameCompressedSize(p, rem);
    if (ZSTD_isError(frame)) {
      return Status::Corrupt("zstd: frame at byte ", off, " is truncated or corrupt (",
                             ZSTD_getErrorName(frame), ")");
    }
    if (content == ZSTD_CONTENTSIZE_UNKNOWN) {
      known = false;
    } else if (content > static_cast<unsigned long long>(kMaxUnknownDecodedBytes - total)) {
      return Status::Corrupt("zstd: frames claim more than ", kMaxUnknownDecodedBytes,
                             " decoded bytes");
    } else {
      total += static_cast<int64_t>(content);
    }
    off += frame;
  }
  return known ? total : int64_t{-1};
}

Result<Bytes> stream_decode(std::span<const uint8_t> in) {
  ZSTD_DCtx* dctx = thread_dctx();
  if (!dctx) return Status::OutOfMemory("zstd: cannot create a decompression context");
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  const int64_t cap = expansion_cap(in);
  STRATA_ASSIGN_OR_RETURN(
      Bytes out, allocate_bytes(std::clamp<int64_t>(4 * static_cast<int64_t>(in.size()), 1, cap), "zstd"));
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t produced = 0;
  while (true) {
    if (produced == out.size()) {
      if (static_cast<int64_t>(out.size()) >= cap) {
        return Status::Corrupt("zstd: data without a recorded size decodes to more than ", cap,
                               " bytes");
      }
      try {
        out.resize(static_cast<size_t>(std::min<int64_t>(2 * static_cast<int64_t>(out.size()), cap)));
      } catch (const std::exception&) {
        return Status::OutOfMemory("zstd: cannot grow the output past ", out.size(), " bytes");
      }
    }
    ZSTD_outBuffer ob{out.data(), out.size(), produced};
    size_t rc = ZSTD_decompressStream(dctx, &ob, &ib);
    if (ZSTD_isError(rc)) return Status::Corrupt("zstd: corrupt data (", ZSTD_getErrorName(rc), ")");
    produced = ob.pos;
    if (ib.pos == ib.size && rc == 0) break;
    // All input consumed, room left for output, yet the frame is unfinished: truncated.
    if (ib.pos == ib.size && ob.pos < ob.size) return Status::Corrupt("zstd: truncated frame");
  }
  out.resize(produced);
  return out;
}

class ZstdCodec final : public BytesCodec {
 public:
  explicit ZstdCodec(ZstdOptions o) : o_(o) {}

  std::string name() const override { return "zstd"; }

  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    ZSTD_CCtx* cctx = thread_cctx();
    if (!cctx) return Status::OutOfMemory("zstd: cannot create a compression context");
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, o_.level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, o_.checksum ? 1 : 0);
    size_t bound = ZSTD_compressBound(in.size());
    if (ZSTD_isError(bound)) {
      return Status::Unsupported("zstd: chunk of ", in.size(), " bytes is too large");
    }
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(static_cast<int64_t>(bound), "zstd"));
    size_t r = ZSTD_compress2(cctx, out.data(), out.size(), nonnull(in), in.size());
    if (ZSTD_isError(r)) {
      return Status::Internal("zstd: compression failed (", ZSTD_getErrorName(r), ")");
    }
    out.resize(r);
    return out;
  }

  Result<Bytes> decode(std::span<const uint8_t> in) const override {
    STRATA_ASSIGN_OR_RETURN(int64_t total, total_content_size(in));
    if (total < 0) return stream_decode(in);
    if (total > expansion_cap(in)) {
      return Status::Corrupt("zstd: frame headers claim ", total, " decoded bytes from only ",
                             in.size(), " compressed bytes");
    }
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(total, "zstd"));
    STRATA_RETURN_NOT_OK(decode_into(in, out));
    return out;
  }

  Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const override {
    if (in.empty()) return Status::Corrupt("zstd: empty input is not a zstd frame");
    ZSTD_DCtx* dctx = thread_dctx();
    if (!dctx) return Status::OutOfMemory("zstd: cannot create a decompression context");
    uint8_t scratch = 0;
    size_t r = ZSTD_decompressDCtx(dctx, nonnull(out, &scratch), out.size(), in.data(), in.size());
    if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall) {
      return Status::Corrupt("zstd: decoded data is larger than the expected ", out.size(),
                             " bytes");
    }
    if (ZSTD_isError(r)) return Status::Corrupt("zstd: corrupt data (", ZSTD_getErrorName(r), ")");
    return check_decoded_size("zstd", static_cast<int64_t>(r), static_cast<int64_t>(out.size()));
  }

  std::string config_json_v2() const override {
    json j = {{"id", "zstd"}, {"level", o_.level}};
    // numcodecs 0.11 rejects an unknown "checksum" argument; write it only when it matters.
    if (o_.checksum) j["checksum"] = true;
    return j.dump();
  }

  Result<std::string> config_json_v3() const override {
    return json{{"name", "zstd"},
                {"configuration", {{"level", o_.level}, {"checksum", o_.checksum}}}}.dump();
  }

  std::string describe() const override {
    return str_cat("zstd(", o_.level, o_.checksum ? ", checksum)" : ")");
  }

 private:
  ZstdOptions o_;
};

}  // namespace

Result<std::unique_ptr<BytesCodec>> make_zstd(const ZstdOptions& o) {
  if (o.level < ZSTD_minCLevel() || o.level > ZSTD_maxCLevel()) {
    return Status::Invalid("zstd: level must be between ", ZSTD_minCLevel(), " and ",
                           ZSTD_maxCLevel(), ", got ", o.level);
  }
  return std::unique_ptr<BytesCodec>(std::make_unique<ZstdCodec>(o));
}

Result<std::unique_ptr<BytesCodec>> zstd_from_json(const json& config, bool v3) {
  // numcodecs' default level is 1; the v3 spec makes "level" mandatory.
  std::optional<int64_t> default_level;
  if (!v3) default_level = 1;
  STRATA_ASSIGN_OR_RETURN(int64_t level, json_int(config, "zstd", "level", default_level,
                                                  ZSTD_minCLevel(), ZSTD_maxCLevel()));
  STRATA_ASSIGN_OR_RETURN(bool checksum, json_bool(config, "zstd", "checksum", false));
  return make_zstd({.level = static_cast<int>(level), .checksum = checksum});
}

}  // namespace strata::io::detail
