// Blosc1 codec on Debian's libblosc (c-blosc 1.21). Frames are validated structurally before
// libblosc sees them, so a truncated or corrupt chunk is reported instead of being read out of
// bounds. Compression runs single-threaded: parallelism is across chunks, owned by the caller.

#include <blosc.h>

#include <algorithm>
#include <array>

#include "io/codecs/codec_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 6> kCnames = {"blosclz", "lz4",  "lz4hc",
                                                     "snappy",  "zlib", "zstd"};
constexpr int64_t kHeaderBytes = BLOSC_MIN_HEADER_LENGTH;
constexpr int64_t kMaxBufferBytes = BLOSC_MAX_BUFFERSIZE;
// No blosc compressor expands a block more than this (zstd, the densest, stays near 32768).
constexpr int64_t kBloscMaxExpansion = 65536;
constexpr uint8_t kMemcpyedFlag = 0x02;

bool library_has(std::string_view cname) {
  static const std::string list = blosc_list_compressors();
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = std::min(list.find(',', start), list.size());
    if (std::string_view(list).substr(start, end - start) == cname) return true;
    start = end + 1;
  }
  return false;
}

const char* shuffle_name(int shuffle) {
  switch (shuffle) {
    case BLOSC_NOSHUFFLE: return "noshuffle";
    case BLOSC_SHUFFLE: return "shuffle";
    default: return "bitshuffle";
  }
}

struct FrameHeader {
  int64_t nbytes = 0;
  int64_t blocksize = 0;
  int64_t cbytes = 0;
  uint8_t flags = 0;
  uint8_t typesize = 0;
};

// Checks every size and offset libblosc will trust: header sizes against the chunk length,
// block geometry, and that each block start lies inside the frame.
Result<FrameHeader> read_frame_header(std::span<const uint8_t> in) {
  const int64_t len = static_cast<int64_t>(in.size());
  if (len < kHeaderBytes) {
    return Status::Corrupt("blosc: chunk has ", len, " bytes, fewer than the ", kHeaderBytes,
                           "-byte header");
  }
  const uint8_t* p = in.data();
  FrameHeader h;
  h.flags = p[2];
  h.typesize = p[3];
  h.nbytes = load_le32(p + 4);
  h.blocksize = load_le32(p + 8);
  h.cbytes = load_le32(p + 12);
  if (p[0] == 0 || p[0] > BLOSC_VERSION_FORMAT) {
    return Status::Corrupt("blosc: unsupported frame format version ", int{p[0]});
  }
  if (h.cbytes != len) {
    return Status::Corrupt("blosc: header says ", h.cbytes, " bytes compressed but chunk has ",
                           len);
  }
  if (h.nbytes > kMaxBufferBytes) {
    return Status::Corrupt("blosc: header says ", h.nbytes,
                           " bytes uncompressed, over blosc's limit of ", kMaxBufferBytes);
  }
  size_t validated = 0;
  if (blosc_cbuffer_validate(p, in.size(), &validated) != 0 ||
      static_cast<int64_t>(validated) != h.nbytes) {
    return Status::Corrupt("blosc: libblosc rejects the frame header");
  }
  if (h.nbytes == 0) return h;
  if (h.typesize == 0) return Status::Corrupt("blosc: header has typesize 0");
  if (h.blocksize == 0 || h.blocksize > std::max<int64_t>(h.nbytes, 65536)) {
    return Status::Corrupt("blosc: header block size ", h.blocksize, " does not fit ", h.nbytes,
                           " uncompressed bytes");
  }
  if ((h.flags >> 5) > 4) {
    return Status::Corrupt("blosc: unknown compressor code ", h.flags >> 5, " in header");
  }
  if (h.flags & kMemcpyedFlag) {
    if (h.cbytes != h.nbytes + kHeaderBytes) {
      return Status::Corrupt("blosc: uncompressed frame of ", h.nbytes, " bytes has ", h.cbytes,
                             " bytes, expected ", h.nbytes + kHeaderBytes);
    }
    return h;
  }
  if (h.nbytes > h.cbytes * kBloscMaxExpansion) {
    return Status::Corrupt("blosc: header claims ", h.nbytes, " bytes from only ", h.cbytes,
                           " compressed bytes");
  }
  const int64_t nblocks = (h.nbytes + h.blocksize - 1) / h.blocksize;
  const int64_t data_start = kHeaderBytes + 4 * nblocks;
  if (data_start >= h.cbytes) {
    return Status::Corrupt("blosc: frame of ", h.cbytes, " bytes is too short for its ", nblocks,
                           " block offsets");
  }
  for (int64_t j = 0; j < nblocks; ++j) {
    int64_t start = load_le32(p + kHeaderBytes + 4 * j);
    if (start < data_start || start >= h.cbytes) {
      return Status::Corrupt("blosc: block ", j, " starts at byte ", start,
                             ", outside the frame's data [", data_start, ", ", h.cbytes, ")");
    }
  }
  return h;
}

class BloscCodec final : public BytesCodec {
 public:
  explicit BloscCodec(BloscOptions o) : o_(std::move(o)) {
    // numcodecs AUTOSHUFFLE: bit-shuffle single bytes, byte-shuffle wider elements.
    shuffle_ = o_.shuffle >= 0 ? o_.shuffle : (o_.typesize == 1 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE);
    // libblosc treats element sizes above its limit as a byte stream.
    typesize_ = o_.typesize > BLOSC_MAX_TYPESIZE ? 1 : o_.typesize;
  }

  std::string name() const override { return "blosc"; }

  Result<Bytes> encode(std::span<const uint8_t> in) const override {
    const int64_t n = static_cast<int64_t>(in.size());
    if (n > kMaxBufferBytes) {
      return Status::Unsupported("blosc: chunk of ", n, " bytes exceeds blosc's limit of ",
                                 kMaxBufferBytes, " bytes; use smaller chunks");
    }
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(n + kHeaderBytes, "blosc"));
    int r = blosc_compress_ctx(o_.clevel, shuffle_, static_cast<size_t>(typesize_),
                               static_cast<size_t>(n), nonnull(in), out.data(), out.size(),
                               o_.cname.c_str(), static_cast<size_t>(o_.blocksize), 1);
    if (r <= 0) return Status::Internal("blosc: compression failed (error ", r, ")");
    out.resize(static_cast<size_t>(r));
    return out;
  }

  Result<Bytes> decode(std::span<const uint8_t> in) const override {
    STRATA_ASSIGN_OR_RETURN(FrameHeader h, read_frame_header(in));
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(h.nbytes, "blosc"));
    STRATA_RETURN_NOT_OK(decompress(in, h, out));
    return out;
  }

  Status decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const override {
    STRATA_ASSIGN_OR_RETURN(FrameHeader h, read_frame_header(in));
    if (h.nbytes != static_cast<int64_t>(out.size())) {
      return Status::Corrupt("blosc: header says ", h.nbytes, " bytes uncompressed but ",
                             out.size(), " were expected");
    }
    return decompress(in, h, out);
  }

  std::string config_json_v2() const override {
    return json{{"id", "blosc"}, {"cname", o_.cname}, {"clevel", o_.clevel},
                {"shuffle", o_.shuffle}, {"blocksize", o_.blocksize}}.dump();
  }

  Result<std::string> config_json_v3() const override {
    json cfg = {{"cname", o_.cname}, {"clevel", o_.clevel}, {"shuffle", shuffle_name(shuffle_)},
                {"typesize", o_.typesize}, {"blocksize", o_.blocksize}};
    return json{{"name", "blosc"}, {"configuration", std::move(cfg)}}.dump();
  }

  std::string describe() const override {
    return str_cat("blosc(", o_.cname, ", ", o_.clevel, ", ", shuffle_name(shuffle_), ")");
  }

 private:
  static Status decompress(std::span<const uint8_t> in, const FrameHeader& h,
                           std::span<uint8_t> out) {
    if (h.nbytes == 0) return Status::OK();
    int r = blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
    if (r == -5) {
      return Status::Unsupported("blosc: frame uses compressor code ", h.flags >> 5,
                                 " which this libblosc lacks");
    }
    if (r != h.nbytes) return Status::Corrupt("blosc: corrupt compressed data (error ", r, ")");
    return Status::OK();
  }

  BloscOptions o_;
  int shuffle_ = BLOSC_SHUFFLE;
  int64_t typesize_ = 1;
};

}  // namespace

Result<std::unique_ptr<BytesCodec>> make_blosc(const BloscOptions& o) {
  if (std::find(kCnames.begin(), kCnames.end(), o.cname) == kCnames.end()) {
    return Status::Invalid("blosc: unknown cname '", o.cname,
                           "' (expected blosclz, lz4, lz4hc, snappy, zlib or zstd)");
  }
  if (!library_has(o.cname)) {
    return Status::Unsupported("blosc: this libblosc was built without '", o.cname,
                               "' (it has ", blosc_list_compressors(), ")");
  }
  if (o.clevel < 0 || o.clevel > 9) {
    return Status::Invalid("blosc: clevel must be between 0 and 9, got ", o.clevel);
  }
  if (o.shuffle < -1 || o.shuffle > 2) {
    return Status::Invalid("blosc: shuffle must be -1, 0, 1 or 2, got ", o.shuffle);
  }
  if (o.typesize < 1) return Status::Invalid("blosc: typesize must be at least 1, got ", o.typesize);
  if (o.blocksize < 0 || o.blocksize > kMaxBufferBytes) {
    return Status::Invalid("blosc: blocksize must be between 0 and ", kMaxBufferBytes, ", got ",
                           o.blocksize);
  }
  return std::unique_ptr<BytesCodec>(std::make_unique<BloscCodec>(o));
}

Result<std::unique_ptr<BytesCodec>> blosc_from_v2(const json& config, int64_t itemsize) {
  BloscOptions o;
  STRATA_ASSIGN_OR_RETURN(o.cname, json_string(config, "blosc", "cname", "lz4"));
  STRATA_ASSIGN_OR_RETURN(int64_t clevel, json_int(config, "blosc", "clevel", 5, 0, 9));
  STRATA_ASSIGN_OR_RETURN(int64_t shuffle, json_int(config, "blosc", "shuffle", 1, -1, 2));
  STRATA_ASSIGN_OR_RETURN(o.blocksize,
                          json_int(config, "blosc", "blocksize", 0, 0, kMaxBufferBytes));
  o.clevel = static_cast<int>(clevel);
  o.shuffle = static_cast<int>(shuffle);
  o.typesize = itemsize;
  return make_blosc(o);
}

Result<std::unique_ptr<BytesCodec>> blosc_from_v3(const json& cfg, int64_t itemsize) {
  BloscOptions o;
  STRATA_ASSIGN_OR_RETURN(o.cname, json_string(cfg, "blosc", "cname", {}));
  STRATA_ASSIGN_OR_RETURN(int64_t clevel, json_int(cfg, "blosc", "clevel", {}, 0, 9));
  STRATA_ASSIGN_OR_RETURN(std::string shuffle, json_string(cfg, "blosc", "shuffle", {}));
  // The spec requires typesize unless noshuffle; fall back to the array's element size.
  STRATA_ASSIGN_OR_RETURN(o.typesize, json_int(cfg, "blosc", "typesize", std::max<int64_t>(itemsize, 1),
                                               1, INT32_MAX));
  STRATA_ASSIGN_OR_RETURN(o.blocksize, json_int(cfg, "blosc", "blocksize", 0, 0, kMaxBufferBytes));
  o.clevel = static_cast<int>(clevel);
  if (shuffle == "noshuffle") {
    o.shuffle = BLOSC_NOSHUFFLE;
  } else if (shuffle == "shuffle") {
    o.shuffle = BLOSC_SHUFFLE;
  } else if (shuffle == "bitshuffle") {
    o.shuffle = BLOSC_BITSHUFFLE;
  } else {
    return Status::Invalid("blosc: field 'shuffle' must be noshuffle, shuffle or bitshuffle, got '",
                           shuffle, "'");
  }
  return make_blosc(o);
}

}  // namespace strata::io::detail
