// Chunk encode/decode: axis order, byte order, and the bytes→bytes codec chain.
#include "io/zarr/chunk_pipeline_internal.hpp"

#include <cstring>

#include "io/codecs/codec_json_internal.hpp"
#include "io/zarr/sharding_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

template <class T>
void strided_copy(const uint8_t* src, int64_t stride_elems, int64_t n, uint8_t* dst) {
  T v;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(&v, src + i * stride_elems * static_cast<int64_t>(sizeof(T)), sizeof(T));
    std::memcpy(dst + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
  }
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

std::string perm_string(const std::vector<int64_t>& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + std::to_string(p[i]);
  return s + "]";
}

}  // namespace

Result<Bytes> allocate_bytes(int64_t n) {
  if (n < 0) return Status::Invalid("negative allocation size ", n);
  try {
    return Bytes(static_cast<size_t>(n));
  } catch (const std::exception&) {
    return Status::OutOfMemory("cannot allocate ", n, " bytes");
  }
}

void permute_axes(const uint8_t* src, const Shape& src_shape, const std::vector<int64_t>& perm,
                  uint8_t* dst, int64_t itemsize) {
  const int64_t nd = static_cast<int64_t>(perm.size());
  if (nd == 0) {
    std::memcpy(dst, src, static_cast<size_t>(itemsize));
    return;
  }
  const Shape ss = c_strides(src_shape);
  Shape dshape(nd), step(nd);  // step: source stride (elements) of each destination axis
  for (int64_t i = 0; i < nd; ++i) {
    dshape[i] = src_shape[perm[i]];
    step[i] = ss[perm[i]];
    if (dshape[i] == 0) return;
  }
  const int64_t n_inner = dshape[nd - 1];
  Shape idx(nd, 0);
  int64_t soff = 0;
  uint8_t* d = dst;
  while (true) {
    const uint8_t* s = src + soff * itemsize;
    switch (itemsize) {
      case 1: strided_copy<uint8_t>(s, step[nd - 1], n_inner, d); break;
      case 2: strided_copy<uint16_t>(s, step[nd - 1], n_inner, d); break;
      case 4: strided_copy<uint32_t>(s, step[nd - 1], n_inner, d); break;
      case 8: strided_copy<uint64_t>(s, step[nd - 1], n_inner, d); break;
      default:
        for (int64_t i = 0; i < n_inner; ++i)
          std::memcpy(d + i * itemsize, s + i * step[nd - 1] * itemsize, static_cast<size_t>(itemsize));
    }
    d += n_inner * itemsize;
    int64_t k = nd - 2;
    for (; k >= 0; --k) {
      soff += step[k];
      if (++idx[k] < dshape[k]) break;
      soff -= step[k] * dshape[k];
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

Result<ChunkPipeline> ChunkPipeline::make(Shape chunk_shape, DType stored, std::vector<int64_t> permutation,
                                          std::vector<std::shared_ptr<const BytesCodec>> codecs,
                                          std::vector<std::string> description) {
  ChunkPipeline p;
  if (!permutation.empty()) {
    if (permutation.size() != chunk_shape.size())
      return Status::Corrupt("axis permutation ", perm_string(permutation), " does not match rank ",
                             chunk_shape.size());
    std::vector<bool> seen(permutation.size(), false);
    for (int64_t a : permutation) {
      if (a < 0 || a >= static_cast<int64_t>(permutation.size()) || seen[a])
        return Status::Corrupt("axis order ", perm_string(permutation), " is not a permutation");
      seen[a] = true;
    }
    if (is_identity(permutation)) permutation.clear();
  }
  STRATA_ASSIGN_OR_RETURN(int64_t numel, shape_numel(chunk_shape));
  STRATA_ASSIGN_OR_RETURN(p.nbytes_, checked_mul(numel, stored.itemsize()));
  p.max_encoded_ = p.nbytes_;
  for (size_t i = 0; i < codecs.size(); ++i)
    p.max_encoded_ = saturating_add(p.max_encoded_, saturating_add(p.max_encoded_ / 8, 4096));
  p.chunk_shape_ = std::move(chunk_shape);
  p.stored_ = stored;
  p.perm_ = std::move(permutation);
  p.codecs_ = std::move(codecs);
  p.description_ = std::move(description);
  return p;
}

Status ChunkPipeline::decode(std::span<const uint8_t> in, std::span<uint8_t> out) const {
  if (static_cast<int64_t>(out.size()) != nbytes_)
    return Status::Internal("chunk buffer of ", out.size(), " bytes, expected ", nbytes_);
  const bool direct = perm_.empty();  // the last decoder can write straight into `out`
  Bytes staged;                      // decoded chunk when a transpose is still to come
  std::span<uint8_t> target = out;
  if (!direct) {
    STRATA_ASSIGN_OR_RETURN(staged, allocate_bytes(nbytes_));
    target = std::span<uint8_t>(staged.data(), staged.size());
  }
  if (codecs_.empty()) {
    if (static_cast<int64_t>(in.size()) != nbytes_)
      return Status::Corrupt("chunk holds ", in.size(), " bytes, expected ", nbytes_);
    std::memcpy(target.data(), in.data(), in.size());
  } else {
    Bytes cur;
    std::span<const uint8_t> src = in;
    for (size_t i = codecs_.size(); i-- > 1;) {
      auto r = codecs_[i]->decode(src);
      if (!r.ok()) return r.status();
      cur = std::move(r).value();
      src = std::span<const uint8_t>(cur.data(), cur.size());
    }
    Status st = codecs_[0]->decode_into(src, target);
    if (!st.ok()) return st;
  }
  if (!direct)
  {
    // Stored axis i is memory axis perm_[i]; invert to get back to C order.
    Shape stored_shape(perm_.size());
    std::vector<int64_t> inv(perm_.size());
    for (size_t i = 0; i < perm_.size(); ++i) {
      stored_shape[i] = chunk_shape_[perm_[i]];
      inv[perm_[i]] = static_cast<int64_t>(i);
    }
    permute_axes(staged.data(), stored_shape, inv, out.data(), stored_.itemsize());
  }
  if (stored_.needs_swap()) byteswap_inplace(out.data(), nbytes_ / stored_.itemsize(), stored_.itemsize());
  return Status::OK();
}

Result<Bytes> ChunkPipeline::encode(std::span<const uint8_t> in) const {
  if (static_cast<int64_t>(in.size()) != nbytes_)
    return Status::Internal("chunk of ", in.size(), " bytes, expected ", nbytes_);
  Bytes staged;
  std::span<const uint8_t> src = in;
  if (!perm_.empty() || stored_.needs_swap()) {
    STRATA_ASSIGN_OR_RETURN(staged, allocate_bytes(nbytes_));
    if (!perm_.empty()) permute_axes(in.data(), chunk_shape_, perm_, staged.data(), stored_.itemsize());
    else std::memcpy(staged.data(), in.data(), in.size());
    if (stored_.needs_swap()) byteswap_inplace(staged.data(), nbytes_ / stored_.itemsize(), stored_.itemsize());
    src = std::span<const uint8_t>(staged.data(), staged.size());
  }
  if (codecs_.empty()) {
    if (!staged.empty() || nbytes_ == 0) return staged;
    STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(nbytes_));
    std::memcpy(out.data(), in.data(), in.size());
    return out;
  }
  Bytes cur;
  for (size_t i = 0; i < codecs_.size(); ++i) {
    auto r = codecs_[i]->encode(src);
    if (!r.ok()) return r.status();
    cur = std::move(r).value();
    src = std::span<const uint8_t>(cur.data(), cur.size());
  }
  return cur;
}

std::string ChunkPipeline::describe() const {
  if (description_.empty()) return "none";
  std::string s;
  for (size_t i = 0; i < description_.size(); ++i) s += (i ? ", " : "") + description_[i];
  return s;
}

Result<ChunkPipeline> make_v2_pipeline(const json& filters, const json& compressor, DType stored, char order,
                                       const Shape& chunk_shape) {
  std::vector<std::shared_ptr<const BytesCodec>> codecs;
  std::vector<std::string> desc;
  if (!filters.is_null()) {
    if (!filters.is_array()) return Status::Corrupt("filters must be null or a list");
    for (size_t i = 0; i < filters.size(); ++i) {
      auto c = make_codec_v2(filters[i], stored.itemsize());
      if (!c.ok()) return c.status().with_context(str_cat("filters[", i, "]"));
      desc.push_back((*c)->describe());
      codecs.push_back(std::shared_ptr<const BytesCodec>(std::move(c).value()));
    }
  }
  if (!compressor.is_null()) {
    if (!compressor.is_object()) return Status::Corrupt("compressor must be null or an object");
    auto c = make_codec_v2(compressor, stored.itemsize());
    if (!c.ok()) return c.status().with_context("compressor");
    desc.push_back((*c)->describe());
    codecs.push_back(std::shared_ptr<const BytesCodec>(std::move(c).value()));
  }
  std::vector<int64_t> perm;
  if (order == 'F') {
    for (size_t i = chunk_shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    if (chunk_shape.size() > 1) desc.insert(desc.begin(), "order F");
  }
  if (stored.needs_swap()) desc.insert(desc.begin(), "big-endian");
  return ChunkPipeline::make(chunk_shape, stored, std::move(perm), std::move(codecs), std::move(desc));
}

Result<CodecEntry> parse_codec_entry(const json& entry) {
  CodecEntry e;
  if (entry.is_string()) {
    e.name = entry.get<std::string>();
    return e;
  }
  if (!entry.is_object()) return Status::Corrupt("a codec must be a name or an object");
  auto it = entry.find("name");
  if (it == entry.end() || !it->is_string()) return Status::Corrupt("codec object without a string \"name\"");
  e.name = it->get<std::string>();
  if (auto c = entry.find("configuration"); c != entry.end() && !c->is_null()) {
    if (!c->is_object()) return Status::Corrupt("codec '", e.name, "': configuration must be an object");
    e.configuration = *c;
  }
  if (auto m = entry.find("must_understand"); m != entry.end()) {
    if (!m->is_boolean()) return Status::Corrupt("codec '", e.name, "': must_understand must be a boolean");
    e.must_understand = m->get<bool>();
  }
  return e;
}

Result<V3Codecs> parse_v3_codecs(const json& codecs, DType dtype, const Shape& chunk_shape, int depth) {
  if (!codecs.is_array()) return Status::Corrupt("codecs must be a list");
  const int64_t nd = static_cast<int64_t>(chunk_shape.size());
  std::vector<int64_t> perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = i;
  std::vector<std::shared_ptr<const BytesCodec>> bb;
  std::vector<std::string> desc;
  bool have_array_to_bytes = false;
  DType stored = dtype.native();
  V3Codecs out;
  for (size_t i = 0; i < codecs.size(); ++i) {
    const std::string where = str_cat("codecs[", i, "]");
    auto er = parse_codec_entry(codecs[i]);
    if (!er.ok()) return er.status().with_context(where);
    const CodecEntry& e = *er;
    const json& cfg = e.configuration;
    if (e.name == "transpose") {
      if (have_array_to_bytes) return Status::Corrupt(where, ": transpose must come before the array→bytes codec");
      auto o = cfg.find("order");
      std::vector<int64_t> order;
      if (o != cfg.end() && o->is_array()) {
        for (const auto& a : *o) {
          if (!a.is_number_integer()) return Status::Corrupt(where, ": transpose order must hold integers");
          order.push_back(a.get<int64_t>());
        }
      } else if (o != cfg.end() && o->is_string() && (*o == "C" || *o == "F")) {
        for (int64_t k = 0; k < nd; ++k) order.push_back(*o == "C" ? k : nd - 1 - k);  // early drafts
      } else {
        return Status::Corrupt(where, ": transpose needs an \"order\" permutation");
      }
      std::vector<bool> seen(nd, false);
      if (static_cast<int64_t>(order.size()) != nd)
        return Status::Corrupt(where, ": transpose order ", perm_string(order), " does not match rank ", nd);
      for (int64_t a : order) {
        if (a < 0 || a >= nd || seen[a]) return Status::Corrupt(where, ": transpose order ", perm_string(order), " is not a permutation");
        seen[a] = true;
      }
      std::vector<int64_t> composed(nd);
      for (int64_t k = 0; k < nd; ++k) composed[k] = perm[order[k]];
      perm = std::move(composed);
      desc.push_back("transpose" + perm_string(order));
    } else if (e.name == "bytes") {
      if (have_array_to_bytes) return Status::Corrupt(where, ": more than one array→bytes codec");
      have_array_to_bytes = true;
      auto en = cfg.find("endian");
      if (en == cfg.end() || en->is_null()) {
        if (dtype.itemsize() > 1) return Status::Corrupt(where, ": bytes codec needs \"endian\" for ", dtype.name());
      } else if (*en == "big") {
        stored = DType(dtype.type, ByteOrder::Big);
      } else if (*en != "little") {
        return Status::Corrupt(where, ": bytes endian must be \"little\" or \"big\"");
      }
      desc.push_back(stored.needs_swap() ? "bytes(big)" : "bytes");
    } else if (e.name == "sharding_indexed") {
      if (have_array_to_bytes) return Status::Corrupt(where, ": more than one array→bytes codec");
      if (depth > 0) return Status::Unsupported(where, ": nested sharding_indexed is not supported");
      if (!is_identity(perm)) return Status::Unsupported(where, ": transpose before sharding_indexed is not supported");
      have_array_to_bytes = true;
      auto s = parse_sharding(cfg, dtype, chunk_shape, depth + 1);
      if (!s.ok()) return s.status().with_context(where + " (sharding_indexed)");
      out.sharding = std::move(s).value();
    } else {
      auto c = make_codec_v3(codecs[i], dtype.itemsize());
      if (!c.ok()) {
        if (!e.must_understand && c.status().code() == StatusCode::Unsupported) continue;  // optional
        return c.status().with_context(where);
      }
      if (!have_array_to_bytes)
        return Status::Corrupt(where, ": bytes→bytes codec '", e.name, "' comes before the array→bytes codec");
      if (out.sharding)
        return Status::Unsupported(where, ": codec '", e.name, "' after sharding_indexed is not supported");
      desc.push_back((*c)->describe());
      bb.push_back(std::shared_ptr<const BytesCodec>(std::move(c).value()));
    }
  }
  if (!have_array_to_bytes) return Status::Corrupt("codecs: no array→bytes codec (\"bytes\" or \"sharding_indexed\")");
  if (!out.sharding) {
    STRATA_ASSIGN_OR_RETURN(auto p, ChunkPipeline::make(chunk_shape, stored, perm, std::move(bb), std::move(desc)));
    out.pipeline = std::make_shared<const ChunkPipeline>(std::move(p));
  }
  return out;
}

}  // namespace strata::io::detail
