// zlib (RFC 1950) and gzip (RFC 1952) codecs on zlib; they differ only in the stream wrapper.
// gzip decoding accepts several members and trailing zero padding, like Python's gzip module.

#include <zlib.h>

#include <algorithm>

#include "io/codecs/codec_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

// zlib counts in 32-bit uInt; large buffers are fed in steps of this size.
constexpr int64_t kStep = int64_t{1} << 30;
// Deflate expands at most ~1032x; larger claims are refused rather than allocated.
constexpr int64_t kDeflateMaxExpansion = 2048;

const char* codec_name(bool gzip) { return gzip ? "gzip" : "zlib"; }

// Owns an initialised z_stream for deflate or inflate.
class ZStream {
 public:
  explicit ZStream(bool inflating) : inflating_(inflating) {}
  ~ZStream() {
    if (ready_) inflating_ ? inflateEnd(&zs_) : deflateEnd(&zs_);
  }
  ZStream(const ZStream&) = delete;
  ZStream& operator=(const ZStream&) = delete;
  z_stream* get() { return &zs_; }
  void set_ready() { ready_ = true; }

 private:
  z_stream zs_{};
  bool inflating_;
  bool ready_ = false;
};

// Where inflate writes: a growable buffer (decode) or a fixed span (decode_into).
struct InflateTarget {
  Bytes* grow = nullptr;
  std::span<uint8_t> fixed;
  int64_t limit = 0;  // most bytes `grow` may reach
};

bool all_zero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

// Inflates every stream/member of `in` into `target`; returns the decoded byte count.
Result<int64_t> run_inflate(std::span<const uint8_t> in, bool gzip, InflateTarget target) {
  const char* codec = codec_name(gzip);
  if (in.empty()) return Status::Corrupt(codec, ": empty input");
  ZStream stream(true);
  z_stream* zs = stream.get();
  int rc = inflateInit2(zs, gzip ? 16 + MAX_WBITS : MAX_WBITS);
  if (rc != Z_OK) return Status::OutOfMemory(codec, ": cannot initialise inflate");
  stream.set_ready();

  size_t in_off = 0;
  int64_t produced = 0;
  uint8_t spill = 0;  // one byte past a fixed target: output there means "too large"
  while (true) {
    if (zs->avail_in == 0 && in_off < in.size()) {
      size_t take = static_cast<size_t>(std::min<int64_t>(kStep, in.size() - in_off));
      zs->next_in = const_cast<Bytef*>(in.data() + in_off);
      zs->avail_in = static_cast<uInt>(take);
      in_off += take;
    }
    int64_t cap = target.grow ? static_cast<int64_t>(target.grow->size())
                              : static_cast<int64_t>(target.fixed.size());
    if (target.grow && produced == cap) {
      if (cap >= target.limit) {
        return Status::Corrupt(codec, ": data decodes to more than ", target.limit, " bytes");
      }
      try {
        target.grow->resize(static_cast<size_t>(std::min(std::max<int64_t>(2 * cap, 64), target.limit)));
      } catch (const std::exception&) {
        return Status::OutOfMemory(codec, ": cannot grow the output past ", cap, " bytes");
      }
      cap = static_cast<int64_t>(target.grow->size());
    }
    uint8_t* base = target.grow ? target.grow->data() : target.fixed.data();
    const bool spilling = produced == cap;
    const uInt avail = spilling ? 1 : static_cast<uInt>(std::min(kStep, cap - produced));
    zs->next_out = spilling ? &spill : base + produced;
    zs->avail_out = avail;
    const uInt avail_in_before = zs->avail_in;
    rc = inflate(zs, Z_NO_FLUSH);
    const int64_t written = avail - zs->avail_out;
    if (spilling && written > 0) {
      return Status::Corrupt(codec, ": decoded data is larger than the expected ", cap, " bytes");
    }
    produced += written;
    if (rc == Z_STREAM_END) {
      const size_t rest = zs->avail_in + (in.size() - in_off);
      if (rest == 0) break;
      if (!gzip) return Status::Corrupt("zlib: ", rest, " bytes of trailing data after the stream");
      if (all_zero(in.data() + in.size() - rest, rest)) break;
      inflateReset(zs);  // next gzip member
      continue;
    }
    if (rc == Z_NEED_DICT) return Status::Corrupt(codec, ": stream needs a preset dictionary");
    if (rc == Z_DATA_ERROR) {
      return Status::Corrupt(codec, ": corrupt data (", zs->msg ? zs->msg : "invalid stream", ")");
    }
    if (rc == Z_MEM_ERROR) return Status::OutOfMemory(codec, ": out of memory while inflating");
    if (rc != Z_OK && rc != Z_BUF_ERROR) return Status::Internal(codec, ": inflate error ", rc);
    if (written == 0 && zs->avail_in == avail_in_before) {
      if (in_off == in.size() && zs->avail_in == 0) return Status::Corrupt(codec, ": truncated stream");
      if (zs->avail_in > 0) return Status::Corrupt(codec, ": inflate made no progress");
    }
  }
  return produced;
}

class DeflateCodec final : public BytesCodec {
 public:
  explicit DeflateCodec(DeflateOptions o) : o_(o) {}

  std::string name() const override { return codec_name(o_.gzip); }

  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    ZStream stream(false);
    z_stream* zs = stream.get();
    if (deflateInit2(zs, o_.level, Z_DEFLATED, o_.gzip ? 16 + MAX_WBITS : MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status::OutOfMemory(name(), ": cannot initialise deflate");
    }
    stream.set_ready();
    STRATA_ASSIGN_OR_RETURN(
        Bytes out, allocate_bytes(static_cast<int64_t>(deflateBound(zs, in.size())), name()));
    size_t in_off = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (zs->avail_in == 0 && in_off < in.size()) {
        size_t take = static_cast<size_t>(std::min<int64_t>(kStep, in.size() - in_off));
        zs->next_in = const_cast<Bytef*>(in.data() + in_off);
        zs->avail_in = static_cast<uInt>(take);
        in_off += take;
      }
      const size_t produced = static_cast<size_t>(zs->total_out);
      if (produced == out.size()) {
        // deflateBound makes this unreachable; grow anyway rather than fail.
        STRATA_ASSIGN_OR_RETURN(Bytes bigger, allocate_bytes(2 * produced + 64, name()));
        std::copy(out.begin(), out.end(), bigger.begin());
        out = std::move(bigger);
      }
      zs->next_out = out.data() + produced;
      zs->avail_out = static_cast<uInt>(std::min<int64_t>(kStep, out.size() - produced));
      const bool last = in_off == in.size();  // all input handed to zlib
      rc = deflate(zs, last ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return Status::Internal(name(), ": deflate failed");
    }
    out.resize(static_cast<size_t>(zs->total_out));
    return out;
  }

  Result<Bytes> decode(std::span<const uint8_t> in) const override {
    const int64_t limit =
        std::min(kMaxUnknownDecodedBytes, static_cast<int64_t>(in.size()) * kDeflateMaxExpansion + 64);
    // gzip records the (last member's) size mod 2^32: a good first guess.
    int64_t guess = 4 * static_cast<int64_t>(in.size());
    if (o_.gzip && in.size() >= 18) guess = int64_t{load_le32(in.data() + in.size() - 4)} + 1;
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(std::clamp<int64_t>(guess, 1, limit), name()));
    STRATA_ASSIGN_OR_RETURN(int64_t n, run_inflate(in, o_.gzip, {&out, {}, limit}));
    out.resize(static_cast<size_t>(n));
    return out;
  }

  Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const override {
    STRATA_ASSIGN_OR_RETURN(int64_t n, run_inflate(in, o_.gzip, {nullptr, out, 0}));
    return check_decoded_size(name(), n, static_cast<int64_t>(out.size()));
  }

  std::string config_json_v2() const override { return json{{"id", name()}, {"level", o_.level}}.dump(); }

  Result<std::string> config_json_v3() const override {
    if (!o_.gzip) return Status::Unsupported("zlib: Zarr v3 has no zlib codec; use gzip");
    return json{{"name", "gzip"}, {"configuration", {{"level", o_.level}}}}.dump();
  }

  std::string describe() const override { return str_cat(name(), "(", o_.level, ")"); }

 private:
  DeflateOptions o_;
};

}  // namespace

Result<std::unique_ptr<BytesCodec>> make_deflate(const DeflateOptions& o) {
  if (o.level < -1 || o.level > 9) {
    return Status::Invalid(codec_name(o.gzip), ": level must be between -1 and 9, got ", o.level);
  }
  return std::unique_ptr<BytesCodec>(std::make_unique<DeflateCodec>(o));
}

Result<std::unique_ptr<BytesCodec>> deflate_from_json(const json& config, bool gzip, bool v3) {
  // numcodecs defaults both to level 1; the v3 gzip spec makes "level" mandatory.
  std::optional<int64_t> default_level;
  if (!v3) default_level = 1;
  STRATA_ASSIGN_OR_RETURN(int64_t level,
                          json_int(config, codec_name(gzip), "level", default_level, -1, 9));
  return make_deflate({.gzip = gzip, .level = static_cast<int>(level)});
}

}  // namespace strata::io::detail
