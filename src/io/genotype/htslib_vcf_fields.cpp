// INFO and FORMAT fields → VCF Zarr arrays (built with htslib only) with bio2zarr's names, shapes, dtypes and sentinels.
#include "io/genotype/vcf_fields_internal.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "io/zarr/metadata_json_internal.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/zarr.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

constexpr int64_t kProvisionalVariants = INT32_MAX;  // cut to the real length by finish()
constexpr uint32_t kFloatMissing = 0x7F800001u, kFloatFill = 0x7F800002u;
constexpr int32_t kIntMissing = INT32_MIN, kIntEnd = INT32_MIN + 1;  // htslib's sentinels

std::string hrec_value(const bcf_hrec_t* h, const char* key) {
  const int k = bcf_hrec_find_key(const_cast<bcf_hrec_t*>(h), key);
  if (k < 0 || !h->vals[k]) return "";
  std::string v = h->vals[k];
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

std::vector<std::string> split_commas(const char* s, size_t len) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    size_t j = i;
    while (j < len && s[j] != ',') ++j;
    out.emplace_back(s + i, j - i);
    if (j >= len) break;
    i = j + 1;
  }
  return out;
}

int64_t int_value(int32_t v) { return v == kIntMissing ? -1 : v == kIntEnd ? -2 : v; }

void put_int(std::vector<uint8_t>& out, ScalarType t, int64_t v) {
  const size_t at = out.size();
  switch (t) {
    case ScalarType::Int8: out.push_back(static_cast<uint8_t>(static_cast<int8_t>(v))); return;
    case ScalarType::Int16: {
      const int16_t x = static_cast<int16_t>(v);
      out.resize(at + 2);
      std::memcpy(out.data() + at, &x, 2);
      return;
    }
    case ScalarType::Int32: {
      const int32_t x = static_cast<int32_t>(v);
      out.resize(at + 4);
      std::memcpy(out.data() + at, &x, 4);
      return;
    }
    default: {
      out.resize(at + 8);
      std::memcpy(out.data() + at, &v, 8);
      return;
    }
  }
}

void put_float_bits(std::vector<uint8_t>& out, uint32_t bits) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &bits, 4);
}

void put_float(std::vector<uint8_t>& out, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_float_bits(out, std::isnan(v) ? kFloatMissing : bits);
}

}  // namespace

ScalarType smallest_int_type(int64_t lo, int64_t hi) {
  if (lo >= INT8_MIN && hi <= INT8_MAX) return ScalarType::Int8;
  if (lo >= INT16_MIN && hi <= INT16_MAX) return ScalarType::Int16;
  if (lo >= INT32_MIN && hi <= INT32_MAX) return ScalarType::Int32;
  return ScalarType::Int64;
}

VcfValueBuffers::~VcfValueBuffers() {
  free(ints);
  free(floats);
  free(chars);
  if (strings) free(strings[0]);
  free(strings);
}

VcfScan vcf_scan_start(const bcf_hdr_t* hdr, bool has_gt) {
  VcfScan scan;
  scan.has_gt = has_gt;
  for (const int hl : {BCF_HL_INFO, BCF_HL_FMT}) {
    for (int i = 0; i < hdr->nhrec; ++i) {
      const bcf_hrec_t* h = hdr->hrec[i];
      if (h->type != hl) continue;
      VcfFieldSpec f;
      f.name = hrec_value(h, "ID");
      if (f.name.empty() || (hl == BCF_HL_FMT && f.name == "GT")) continue;
      const int id = bcf_hdr_id2int(hdr, BCF_DT_ID, f.name.c_str());
      if (id < 0 || !bcf_hdr_idinfo_exists(hdr, hl, id)) continue;
      f.format = hl == BCF_HL_FMT;
      f.description = hrec_value(h, "Description");
      f.type = bcf_hdr_id2type(hdr, hl, id);
      f.character = hrec_value(h, "Type") == "Character";
      f.number = bcf_hdr_id2length(hdr, hl, id);
      f.declared = f.number == BCF_VL_FIXED ? bcf_hdr_id2number(hdr, hl, id) : 0;
      if (f.format && f.type == BCF_HT_FLAG) continue;  // not valid VCF; htslib keeps no values
      scan.fields.push_back(std::move(f));
    }
  }
  return scan;
}

void vcf_scan_record(const bcf_hdr_t* hdr, bcf1_t* rec, int64_t samples, VcfScan& scan, VcfValueBuffers& buf) {
  ++scan.records;
  scan.max_alleles = std::max<int64_t>(scan.max_alleles, rec->n_allele);
  const int64_t pos = rec->pos + 1;
  scan.min_pos = std::min(scan.min_pos, pos);
  scan.max_pos = std::max(scan.max_pos, pos);
  scan.min_rlen = std::min<int64_t>(scan.min_rlen, rec->rlen);
  scan.max_rlen = std::max<int64_t>(scan.max_rlen, rec->rlen);
  if (scan.has_gt && samples > 0) {
    const int gt_id = bcf_hdr_id2int(hdr, BCF_DT_ID, "GT");
    for (int i = 0; i < rec->n_fmt; ++i)
      if (rec->d.fmt[i].id == gt_id) scan.max_ploidy = std::max<int64_t>(scan.max_ploidy, rec->d.fmt[i].n);
  }
  for (VcfFieldSpec& f : scan.fields) {
    const char* tag = f.name.c_str();
    auto bounds = [&](const int32_t* v, int n) {
      for (int i = 0; i < n; ++i)
        if (v[i] >= INT32_MIN + 2) {
          f.min_value = std::min<int64_t>(f.min_value, v[i]);
          f.max_value = std::max<int64_t>(f.max_value, v[i]);
        }
    };
    if (!f.format) {
      int n = 0;
      if (f.type == BCF_HT_FLAG) {
        n = bcf_get_info_flag(hdr, rec, tag, &buf.ints, &buf.int_capacity) == 1 ? 1 : 0;
      } else if (f.type == BCF_HT_INT) {
        n = bcf_get_info_int32(hdr, rec, tag, &buf.ints, &buf.int_capacity);
        if (n > 0) bounds(static_cast<int32_t*>(buf.ints), n);
      } else if (f.type == BCF_HT_REAL) {
        n = bcf_get_info_float(hdr, rec, tag, &buf.floats, &buf.float_capacity);
      } else {
        n = bcf_get_info_string(hdr, rec, tag, &buf.chars, &buf.char_capacity);
        if (n > 0) n = static_cast<int>(split_commas(static_cast<char*>(buf.chars), std::strlen(static_cast<char*>(buf.chars))).size());
      }
      f.max_number = std::max<int64_t>(f.max_number, std::max(n, 0));
      continue;
    }
    if (samples == 0) continue;
    if (f.type == BCF_HT_STR) {
      if (bcf_get_format_string(hdr, rec, tag, &buf.strings, &buf.string_capacity) < 0) continue;
      for (int64_t s = 0; s < samples; ++s) {
        const char* v = buf.strings[s];
        f.max_number = std::max<int64_t>(f.max_number, static_cast<int64_t>(std::count(v, v + std::strlen(v), ',')) + 1);
      }
      continue;
    }
    const int n = f.type == BCF_HT_INT ? bcf_get_format_int32(hdr, rec, tag, &buf.ints, &buf.int_capacity)
                                        : bcf_get_format_float(hdr, rec, tag, &buf.floats, &buf.float_capacity);
    if (n <= 0) continue;
    f.max_number = std::max<int64_t>(f.max_number, n / samples);
    if (f.type == BCF_HT_INT) bounds(static_cast<int32_t*>(buf.ints), n);
  }
}

void VcfFieldBlock::clear() {
  rows = 0;
  for (auto& v : numeric) v.clear();
  for (auto& v : text) v.clear();
  rlen.clear();
}

struct VcfFieldWriter::Impl {
  std::shared_ptr<Store> store;
  VcfScan scan;
  int64_t n = 0, vc = 0, sc = 0;
  std::vector<ScalarType> dtype;            // per field (Bool for flags; unused for strings)
  std::vector<std::optional<ZarrArray>> numeric;
  std::vector<std::optional<ZarrStringWriter>> text;
  std::optional<ZarrArray> length;
  ScalarType length_type = ScalarType::Int8;
  VcfValueBuffers buf;
  bool is_text(size_t f) const { return scan.fields[f].type == BCF_HT_STR; }
};

VcfFieldWriter::VcfFieldWriter() = default;
VcfFieldWriter::~VcfFieldWriter() = default;
const VcfScan& VcfFieldWriter::scan() const { return impl_->scan; }

Result<std::unique_ptr<VcfFieldWriter>> VcfFieldWriter::create(std::shared_ptr<Store> store, VcfScan scan, int64_t samples,
                                                               int64_t variants_chunk, int64_t samples_chunk,
                                                               const std::string& input) {
  std::unique_ptr<VcfFieldWriter> w(new VcfFieldWriter());
  w->impl_ = std::make_unique<Impl>();
  Impl& im = *w->impl_;
  im.store = std::move(store);
  im.n = samples;
  im.vc = variants_chunk;
  im.sc = std::max<int64_t>(1, std::min(samples_chunk, samples));
  // Drop FORMAT fields when there are no samples (no call axis to hold them).
  if (samples == 0)
    scan.fields.erase(std::remove_if(scan.fields.begin(), scan.fields.end(), [](const VcfFieldSpec& f) { return f.format; }),
                      scan.fields.end());
  im.scan = std::move(scan);
  VcfScan& sc = im.scan;
  // bio2zarr's axes: alleles = max(ALT count + 1, 2); genotypes from GT's ploidy, or (no GT)
  // the widest Number=G field.
  const int64_t alleles = std::max<int64_t>(sc.max_alleles, 2);
  int64_t genotypes = 0;
  if (sc.has_gt) {
    const int64_t p = std::max<int64_t>(sc.max_ploidy, 1);
    double c = 1;  // C(alleles + p − 1, p)
    for (int64_t i = 1; i <= p; ++i) c = c * static_cast<double>(alleles - 1 + i) / static_cast<double>(i);
    genotypes = static_cast<int64_t>(std::llround(c));
  } else {
    for (const auto& f : sc.fields)
      if (f.number == BCF_VL_G) genotypes = std::max(genotypes, f.max_number);
  }
  STRATA_ASSIGN_OR_RETURN(auto string_codec, parse_codec_spec("blosc:zstd:7:shuffle", 1));
  std::shared_ptr<const BytesCodec> strings(std::move(string_codec));
  for (VcfFieldSpec& f : sc.fields) {
    const int64_t max_number = f.number == BCF_VL_FIXED ? std::max(f.max_number, f.declared) : f.max_number;
    const std::string where = std::string(f.format ? "FORMAT/" : "INFO/") + f.name;
    auto axis = [&](const char* dim, int64_t size) -> Status {
      if (max_number > size)
        return Status::InvalidData(input, ": ", where, " has up to ", max_number, " values, more than the ", size,
                                   " its Number allows (", dim, ")");
      f.dim = dim;
      f.width = size;
      return Status::OK();
    };
    if (f.number == BCF_VL_R) STRATA_RETURN_NOT_OK(axis("alleles", alleles));
    else if (f.number == BCF_VL_A) STRATA_RETURN_NOT_OK(axis("alt_alleles", alleles - 1));
    else if (f.number == BCF_VL_G) STRATA_RETURN_NOT_OK(axis("genotypes", genotypes));
    else if (max_number > 1) {
      f.dim = std::string(f.format ? "FORMAT_" : "INFO_") + f.name + "_dim";
      f.width = max_number;
    }
    f.array = std::string(f.format ? "call_" : "variant_") + f.name;
  }
  im.dtype.resize(sc.fields.size(), ScalarType::Int8);
  im.numeric.resize(sc.fields.size());
  im.text.resize(sc.fields.size());
  for (size_t i = 0; i < sc.fields.size(); ++i) {
    const VcfFieldSpec& f = sc.fields[i];
    std::vector<std::string> dims{"variants"};
    Shape shape{kProvisionalVariants}, chunks{im.vc};
    if (f.format) {
      dims.push_back("samples");
      shape.push_back(im.n);
      chunks.push_back(im.sc);
    }
    if (!f.dim.empty()) {
      dims.push_back(f.dim);
      shape.push_back(f.width);
      chunks.push_back(f.width);
    }
    if (f.type == BCF_HT_STR) {
      // The string writer keeps a chunk's columns whole: FORMAT strings are written as
      // (variants, samples·width) and reshaped in finish() (the same bytes in C order).
      ZarrStringCreateOptions o;
      o.dtype = f.character ? "<U1" : "|O";
      o.chunk_rows = im.vc;
      o.columns = (f.format ? im.n : 1) * f.width;
      if (!f.format && f.dim.empty()) o.columns = 0;
      o.dimension_names = f.format && !f.dim.empty() ? std::vector<std::string>{"variants", "samples"} : dims;
      o.compressor = strings;
      STRATA_ASSIGN_OR_RETURN(auto sw, ZarrStringWriter::create(im.store, f.array, o));
      im.text[i].emplace(std::move(sw));
      continue;
    }
    ZarrCreateOptions o;
    o.format = ZarrFormat::V2;
    o.shape = shape;
    o.chunks = chunks;
    o.fill_value = nullptr;
    o.dimension_names = dims;
    if (f.type == BCF_HT_FLAG) im.dtype[i] = ScalarType::Bool;
    else if (f.type == BCF_HT_REAL) im.dtype[i] = ScalarType::Float32;
    else im.dtype[i] = f.max_value < f.min_value ? ScalarType::Int8 : smallest_int_type(f.min_value, f.max_value);
    o.dtype = DType(im.dtype[i]);
    STRATA_ASSIGN_OR_RETURN(auto codec, parse_codec_spec("blosc:zstd:7:shuffle", o.dtype.itemsize()));
    o.compressor = std::shared_ptr<const BytesCodec>(std::move(codec));
    STRATA_ASSIGN_OR_RETURN(auto a, ZarrArray::create(im.store, f.array, o));
    im.numeric[i].emplace(std::move(a));
  }
  // variant_length: END − POS + 1 (htslib's rlen), bio2zarr's smallest integer type.
  ZarrCreateOptions o;
  o.format = ZarrFormat::V2;
  o.shape = {kProvisionalVariants};
  o.chunks = {im.vc};
  o.fill_value = nullptr;
  o.dimension_names = {"variants"};
  im.length_type = sc.max_rlen < sc.min_rlen ? ScalarType::Int8 : smallest_int_type(sc.min_rlen, sc.max_rlen);
  o.dtype = DType(im.length_type);
  STRATA_ASSIGN_OR_RETURN(auto codec, parse_codec_spec("blosc:zstd:7:shuffle", o.dtype.itemsize()));
  o.compressor = std::shared_ptr<const BytesCodec>(std::move(codec));
  STRATA_ASSIGN_OR_RETURN(auto len, ZarrArray::create(im.store, "variant_length", o));
  im.length.emplace(std::move(len));
  return w;
}

void VcfFieldWriter::add(const bcf_hdr_t* hdr, bcf1_t* rec, VcfFieldBlock& b) {
  Impl& im = *impl_;
  const auto& fields = im.scan.fields;
  b.numeric.resize(fields.size());
  b.text.resize(fields.size());
  ++b.rows;
  b.rlen.push_back(rec->rlen);
  VcfValueBuffers& buf = im.buf;
  for (size_t i = 0; i < fields.size(); ++i) {
    const VcfFieldSpec& f = fields[i];
    const char* tag = f.name.c_str();
    const int64_t w = f.width, cells = f.format ? im.n * w : w;
    std::vector<uint8_t>& out = b.numeric[i];
    std::vector<std::string>& txt = b.text[i];
    if (f.type == BCF_HT_FLAG) {
      out.push_back(bcf_get_info_flag(hdr, rec, tag, &buf.ints, &buf.int_capacity) == 1 ? 1 : 0);
      continue;
    }
    if (f.type == BCF_HT_STR) {
      auto put = [&](const char* s, size_t len) {  // one sample's (or the record's) values
        std::vector<std::string> parts = split_commas(s, len);
        for (int64_t k = 0; k < w; ++k) {
          std::string v = k < static_cast<int64_t>(parts.size()) ? std::move(parts[k]) : std::string();
          if (f.character && v.size() > 1) v.resize(1);  // numpy's U1 keeps the first character
          txt.push_back(std::move(v));
        }
      };
      if (!f.format) {
        const int n = bcf_get_info_string(hdr, rec, tag, &buf.chars, &buf.char_capacity);
        if (n <= 0) txt.insert(txt.end(), static_cast<size_t>(cells), ".");
        else put(static_cast<char*>(buf.chars), std::strlen(static_cast<char*>(buf.chars)));
      } else if (bcf_get_format_string(hdr, rec, tag, &buf.strings, &buf.string_capacity) < 0) {
        txt.insert(txt.end(), static_cast<size_t>(cells), ".");
      } else {
        for (int64_t s = 0; s < im.n; ++s) put(buf.strings[s], std::strlen(buf.strings[s]));
      }
      continue;
    }
    const bool is_int = f.type == BCF_HT_INT;
    int n;
    if (f.format) n = is_int ? bcf_get_format_int32(hdr, rec, tag, &buf.ints, &buf.int_capacity)
                             : bcf_get_format_float(hdr, rec, tag, &buf.floats, &buf.float_capacity);
    else n = is_int ? bcf_get_info_int32(hdr, rec, tag, &buf.ints, &buf.int_capacity)
                    : bcf_get_info_float(hdr, rec, tag, &buf.floats, &buf.float_capacity);
    if (n <= 0) {  // absent: missing in every slot
      for (int64_t k = 0; k < cells; ++k) is_int ? put_int(out, im.dtype[i], -1) : put_float_bits(out, kFloatMissing);
      continue;
    }
    const int64_t per = f.format ? n / im.n : n;
    const int64_t rows = f.format ? im.n : 1;
    for (int64_t s = 0; s < rows; ++s)
      for (int64_t k = 0; k < w; ++k) {
        if (k >= per) {
          is_int ? put_int(out, im.dtype[i], -2) : put_float_bits(out, kFloatFill);
        } else if (is_int) {
          put_int(out, im.dtype[i], int_value(static_cast<int32_t*>(buf.ints)[s * per + k]));
        } else {
          put_float(out, static_cast<float*>(buf.floats)[s * per + k]);
        }
      }
  }
}

Status VcfFieldWriter::write(const VcfFieldBlock& b, int64_t start, ThreadPool& pool) {
  Impl& im = *impl_;
  const auto& fields = im.scan.fields;
  const int64_t nv = b.rows;
  if (nv == 0) return Status::OK();
  std::vector<uint8_t> len;
  for (int64_t v : b.rlen) put_int(len, im.length_type, v);
  STRATA_RETURN_NOT_OK(im.length->write_region({start}, {nv}, len.data()));
  return pool.parallel_for(static_cast<int64_t>(fields.size()), [&](int64_t i) -> Status {
    const VcfFieldSpec& f = fields[static_cast<size_t>(i)];
    if (im.text[i]) return im.text[i]->write_rows(start, b.text[i]);
    Shape at{start}, count{nv};
    if (f.format) {
      at.push_back(0);
      count.push_back(im.n);
    }
    if (!f.dim.empty()) {
      at.push_back(0);
      count.push_back(f.width);
    }
    return im.numeric[i]->write_region(at, count, b.numeric[i].data());
  });
}

Status VcfFieldWriter::finish(int64_t m) {
  Impl& im = *impl_;
  STRATA_RETURN_NOT_OK(set_v2_length(*im.store, "variant_length", m));
  for (size_t i = 0; i < im.scan.fields.size(); ++i) {
    const VcfFieldSpec& f = im.scan.fields[i];
    if (im.numeric[i]) {
      STRATA_RETURN_NOT_OK(set_v2_length(*im.store, f.array, m));
      continue;
    }
    STRATA_RETURN_NOT_OK(im.text[i]->finish(m));
    if (!(f.format && !f.dim.empty())) continue;
    // (variants, samples·width) → (variants, samples, width).
    STRATA_ASSIGN_OR_RETURN(auto meta, read_metadata_object(*im.store, f.array + "/.zarray"));
    STRATA_ASSIGN_OR_RETURN(auto attrs, read_metadata_object(*im.store, f.array + "/.zattrs"));
    if (!meta || !attrs) return Status::Internal(f.array, ": metadata missing after writing");
    (*meta)["shape"] = json::array({m, im.n, f.width});
    (*meta)["chunks"] = json::array({im.vc, im.n, f.width});
    (*attrs)["_ARRAY_DIMENSIONS"] = json::array({"variants", "samples", f.dim});
    for (int64_t c = 0; c * im.vc < m; ++c) {  // chunk "c.0" becomes "c.0.0"
      const std::string from = f.array + "/" + std::to_string(c) + ".0";
      STRATA_ASSIGN_OR_RETURN(auto bytes, im.store->get(from));
      if (!bytes) continue;
      STRATA_RETURN_NOT_OK(im.store->set(from + ".0", std::span<const uint8_t>(bytes->data(), bytes->size())));
      STRATA_RETURN_NOT_OK(im.store->erase(from));
    }
    for (const auto& [key, doc] : {std::pair{f.array + "/.zarray", *meta}, std::pair{f.array + "/.zattrs", *attrs}}) {
      const std::string s = doc.dump();
      STRATA_RETURN_NOT_OK(im.store->set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
    }
  }
  return Status::OK();
}

}  // namespace strata::io::detail
