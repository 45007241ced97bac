// VCF Zarr writer: call arrays tiled by (variant chunk × sample chunk) and written in
// parallel, per-variant arrays streamed chunk by chunk, the variant length fixed at finish.
#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>

#include "io/genotype/codes_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "strata/core/config.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/vcf_zarr.hpp"
#include "strata/io/zarr.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::io {
namespace {

using nlohmann::json;

// Arrays along variants are created this long and cut to the real length by finish().
constexpr int64_t kProvisionalVariants = INT32_MAX;

Result<std::shared_ptr<const BytesCodec>> make_codec(const std::string& spec, const char* dflt, int64_t itemsize) {
  STRATA_ASSIGN_OR_RETURN(auto c, parse_codec_spec(spec.empty() ? dflt : spec, itemsize));
  return std::shared_ptr<const BytesCodec>(std::move(c));
}

std::vector<std::string> split_alleles(const std::string& ref, const std::string& alt) {
  std::vector<std::string> out{ref};
  if (alt.empty()) return out;
  size_t i = 0;
  for (;;) {
    const size_t j = alt.find(',', i);
    out.push_back(alt.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

// Write int32 values into a 1-D integer array of any width (values were checked to fit).
Status write_ints(const ZarrArray& a, int64_t start, const std::vector<int32_t>& v) {
  const int64_t nv = static_cast<int64_t>(v.size());
  switch (a.dtype().type) {
    case ScalarType::Int8: {
      std::vector<int8_t> x(v.begin(), v.end());
      return a.write_region({start}, {nv}, x.data());
    }
    case ScalarType::Int16: {
      std::vector<int16_t> x(v.begin(), v.end());
      return a.write_region({start}, {nv}, x.data());
    }
    case ScalarType::Int64: {
      std::vector<int64_t> x(v.begin(), v.end());
      return a.write_region({start}, {nv}, x.data());
    }
    default:
      return a.write_region({start}, {nv}, v.data());
  }
}

}  // namespace

struct VczWriter::Impl {
  explicit Impl(const Context& c) : ctx(c) {}
  Context ctx;
  std::unique_ptr<OutputSet> own_set;  // when the caller gave none
  std::shared_ptr<LocalStore> store;
  VczWriteOptions opt;
  int64_t n = 0, ploidy = 0, vc = 0, sc = 0;
  bool phased = false;
  ZarrArray gt, mask, phased_arr, pos, contig, id_mask;
  ZarrArray quality, filter;  // stores written from a VCF (opt.vcf)
  int64_t filters = 0;
  ZarrStringWriter ids;
  std::shared_ptr<const BytesCodec> string_codec;
  // Alleles of every variant, '\0'-separated, kept until the allele count is known.
  std::string allele_blob;
  std::vector<uint64_t> allele_end;
  int64_t max_alleles = 2;
  int64_t written = 0;

  // A `|O` vlen-utf8 array with the string codec, chunked along variants (or samples).
  ZarrStringCreateOptions strings(int64_t chunk_rows, int64_t columns, std::vector<std::string> dims) const {
    ZarrStringCreateOptions o;
    o.chunk_rows = chunk_rows;
    o.columns = columns;
    o.dimension_names = std::move(dims);
    o.compressor = string_codec;
    return o;
  }

  Status create_variant_arrays(const std::shared_ptr<const BytesCodec>& gcodec,
                               const std::shared_ptr<const BytesCodec>& codec);
  Status write_samples(const SampleInfo& s);
  Status write_metadata(const VariantInfo& info, const VcfRecordFields* fields);
  template <class Fill>
  Status write_call_tiles(int64_t nv, Fill&& fill);

  // Tile buffers, reused across tiles and blocks and freed with the writer.
  struct Scratch {
    std::vector<int8_t> g;
    std::vector<uint8_t> m, ph;
  };
  std::mutex scratch_mu;
  std::vector<std::unique_ptr<Scratch>> scratch_free;
  std::unique_ptr<Scratch> take_scratch() {
    std::lock_guard<std::mutex> lk(scratch_mu);
    if (scratch_free.empty()) return std::make_unique<Scratch>();
    auto s = std::move(scratch_free.back());
    scratch_free.pop_back();
    return s;
  }
  void give_scratch(std::unique_ptr<Scratch> s) {
    std::lock_guard<std::mutex> lk(scratch_mu);
    scratch_free.push_back(std::move(s));
  }
};

VczWriter::VczWriter() = default;

// An uncommitted own OutputSet removes the staged store.
VczWriter::~VczWriter() = default;

std::shared_ptr<LocalStore> VczWriter::store() const { return impl_->store; }
int64_t VczWriter::variants_written() const { return impl_->written; }
int64_t VczWriter::variants_chunk() const { return impl_->vc; }

Status VczWriter::Impl::create_variant_arrays(const std::shared_ptr<const BytesCodec>& gcodec,
                                              const std::shared_ptr<const BytesCodec>& codec) {
  ZarrCreateOptions o;
  o.format = ZarrFormat::V2;
  if (ploidy > 0) {
    o.shape = {kProvisionalVariants, n, ploidy};
    o.chunks = {vc, sc, ploidy};
    o.dtype = DType(ScalarType::Int8);
    o.fill_value = nullptr;  // as bio2zarr: no fill value, so xarray keeps the integers
    o.compressor = gcodec;
    o.dimension_names = {"variants", "samples", "ploidy"};
    STRATA_ASSIGN_OR_RETURN(gt, ZarrArray::create(store, "call_genotype", o));
    o.dtype = DType(ScalarType::Bool);
    o.fill_value = nullptr;
    STRATA_ASSIGN_OR_RETURN(mask, ZarrArray::create(store, "call_genotype_mask", o));
    if (phased) {
      o.shape = {kProvisionalVariants, n};
      o.chunks = {vc, sc};
      o.dimension_names = {"variants", "samples"};
      STRATA_ASSIGN_OR_RETURN(phased_arr, ZarrArray::create(store, "call_genotype_phased", o));
    }
  }
  ZarrCreateOptions v;
  v.format = ZarrFormat::V2;
  v.shape = {kProvisionalVariants};
  v.chunks = {vc};
  v.fill_value = nullptr;
  v.compressor = codec;
  v.dimension_names = {"variants"};
  v.dtype = DType(opt.position_type);
  STRATA_ASSIGN_OR_RETURN(pos, ZarrArray::create(store, "variant_position", v));
  v.dtype = DType(opt.contig_type);
  STRATA_ASSIGN_OR_RETURN(contig, ZarrArray::create(store, "variant_contig", v));
  STRATA_ASSIGN_OR_RETURN(ids, ZarrStringWriter::create(store, "variant_id", strings(vc, 0, {"variants"})));
  v.dtype = DType(ScalarType::Bool);
  v.fill_value = nullptr;
  STRATA_ASSIGN_OR_RETURN(id_mask, ZarrArray::create(store, "variant_id_mask", v));
  if (opt.vcf) {
    // QUAL as float32 with the spec's missing NaN bits (bio2zarr's layout: no fill value).
    v.dtype = DType(ScalarType::Float32);
    v.fill_value = nullptr;
    STRATA_ASSIGN_OR_RETURN(quality, ZarrArray::create(store, "variant_quality", v));
    filters = static_cast<int64_t>(opt.vcf->filter_id.size());
    v.shape = {kProvisionalVariants, filters};
    v.chunks = {vc, std::max<int64_t>(filters, 1)};
    v.dtype = DType(ScalarType::Bool);
    v.fill_value = nullptr;
    v.compressor = gcodec;  // bool, like call_genotype_mask
    v.dimension_names = {"variants", "filters"};
    STRATA_ASSIGN_OR_RETURN(filter, ZarrArray::create(store, "variant_filter", v));
  }
  return Status::OK();
}

Status VczWriter::Impl::write_samples(const SampleInfo& s) {
  auto column = [&](const char* name, const std::vector<std::string>& values) -> Status {
    ZarrStringCreateOptions o = strings(std::max<int64_t>(n, 1), 0, {"samples"});
    o.empty_fill = true;  // bio2zarr's sample_id has fill value ""
    STRATA_ASSIGN_OR_RETURN(auto w, ZarrStringWriter::create(store, name, std::move(o)));
    STRATA_RETURN_NOT_OK(w.write_rows(0, values));
    return w.finish(n);
  };
  std::vector<std::string> sample_ids = s.id;
  sample_ids.resize(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(column("sample_id", sample_ids));
  if (!s.family_id.empty()) {  // PLINK columns, for a lossless .bed round trip
    STRATA_RETURN_NOT_OK(column("sample_family_id", s.family_id));
    if (!s.paternal_id.empty()) STRATA_RETURN_NOT_OK(column("sample_paternal_id", s.paternal_id));
    if (!s.maternal_id.empty()) STRATA_RETURN_NOT_OK(column("sample_maternal_id", s.maternal_id));
    if (!s.phenotype.empty()) STRATA_RETURN_NOT_OK(column("sample_phenotype", s.phenotype));
  }
  ZarrCreateOptions o;
  o.format = ZarrFormat::V2;
  o.shape = {n};
  o.chunks = {std::max<int64_t>(n, 1)};
  o.dimension_names = {"samples"};
  STRATA_ASSIGN_OR_RETURN(o.compressor, make_codec(opt.codec, "blosc:zstd:7:shuffle", 1));
  if (static_cast<int64_t>(s.sex.size()) == n && !s.family_id.empty()) {
    o.dtype = DType(ScalarType::Int8);
    STRATA_ASSIGN_OR_RETURN(auto a, ZarrArray::create(store, "sample_sex", o));
    STRATA_RETURN_NOT_OK(a.write_region({0}, {n}, s.sex.data()));
  }
  if (!opt.sample_population.empty()) {
    if (static_cast<int64_t>(opt.sample_population.size()) != n)
      return Status::Invalid("sample_population has ", opt.sample_population.size(), " entries for ", n, " samples");
    o.dtype = DType(ScalarType::Int32);
    o.attributes_json = detail::dump_compact(json{{"populations", opt.population_names}});
    STRATA_ASSIGN_OR_RETURN(o.compressor, make_codec(opt.codec, "blosc:zstd:7:shuffle", 4));
    STRATA_ASSIGN_OR_RETURN(auto a, ZarrArray::create(store, "sample_population", o));
    STRATA_RETURN_NOT_OK(a.write_region({0}, {n}, opt.sample_population.data()));
  }
  return Status::OK();
}

Result<std::unique_ptr<VczWriter>> VczWriter::create(const Context& ctx, const std::string& path, const SampleInfo& samples,
                                                     int64_t ploidy, bool phased,
                                                     const VczWriteOptions& options) {
  if (options.variants_chunk < 1 || options.samples_chunk < 1)
    return Status::Invalid("chunk sizes must be positive");
  if (ploidy < 0 || ploidy > 127) return Status::Invalid("ploidy ", ploidy, " out of range");
  if (options.vcf && (options.vcf->filter_description.size() != options.vcf->filter_id.size()))
    return Status::Invalid("VCF header fields: ", options.vcf->filter_id.size(), " filter IDs with ",
                           options.vcf->filter_description.size(), " descriptions");
  std::unique_ptr<VczWriter> w(new VczWriter());
  w->impl_ = std::make_unique<Impl>(ctx);
  Impl& im = *w->impl_;
  OutputSet* set = options.output_set;
  if (!set) {
    OutputRules rules;
    rules.overwrite = options.overwrite;
    rules.inputs = options.inputs;
    STRATA_ASSIGN_OR_RETURN(im.own_set, OutputSet::begin(path, std::move(rules)));
    set = im.own_set.get();
  }
  STRATA_ASSIGN_OR_RETURN(const std::string staged, set->add_directory(path));
  im.opt = options;
  im.n = samples.size();
  im.ploidy = im.n > 0 ? ploidy : 0;
  im.phased = phased && im.ploidy > 0;
  im.vc = options.variants_chunk;
  im.sc = std::max<int64_t>(1, std::min(options.samples_chunk, im.n));
  STRATA_ASSIGN_OR_RETURN(im.store, LocalStore::open(staged, true));
  STRATA_ASSIGN_OR_RETURN(im.string_codec, make_codec("blosc:zstd:7:noshuffle", "", 1));
  STRATA_ASSIGN_OR_RETURN(auto gcodec, make_codec(options.genotype_codec, "blosc:zstd:3:bitshuffle", 1));
  STRATA_ASSIGN_OR_RETURN(auto codec, make_codec(options.codec, "blosc:zstd:7:shuffle", 4));
  STRATA_RETURN_NOT_OK(zarr_create_group(im.store, "", ZarrFormat::V2));
  STRATA_RETURN_NOT_OK(im.create_variant_arrays(gcodec, codec));
  STRATA_RETURN_NOT_OK(im.write_samples(samples));
  return w;
}

Status VczWriter::Impl::write_metadata(const VariantInfo& info, const VcfRecordFields* fields) {
  const int64_t nv = info.size();
  if (opt.vcf) {
    if (!fields || static_cast<int64_t>(fields->quality.size()) != nv ||
        static_cast<int64_t>(fields->filter.size()) != nv * filters)
      return Status::Internal("VczWriter: a VCF store needs QUAL and FILTER for each of the ", nv, " variants");
    STRATA_RETURN_NOT_OK(quality.write_region({written}, {nv}, fields->quality.data()));
    if (filters > 0) STRATA_RETURN_NOT_OK(filter.write_region({written, 0}, {nv, filters}, fields->filter.data()));
  }
  std::vector<int32_t> p(static_cast<size_t>(nv)), c(static_cast<size_t>(nv));
  for (int64_t i = 0; i < nv; ++i) {
    if (info.position[i] < INT32_MIN || info.position[i] > INT32_MAX)
      return Status::Unsupported("variant ", written + i, ": position ", info.position[i],
                                 " does not fit VCF Zarr's int32 variant_position");
    p[i] = static_cast<int32_t>(info.position[i]);
    c[i] = info.contig[i];
  }
  STRATA_RETURN_NOT_OK(write_ints(pos, written, p));
  STRATA_RETURN_NOT_OK(write_ints(contig, written, c));
  std::vector<std::string> id(info.id);
  std::vector<uint8_t> missing_id(static_cast<size_t>(nv));
  for (int64_t i = 0; i < nv; ++i) {
    if (id[i].empty()) id[i] = ".";
    missing_id[i] = id[i] == ".";
  }
  STRATA_RETURN_NOT_OK(ids.write_rows(written, id));
  STRATA_RETURN_NOT_OK(id_mask.write_region({written}, {nv}, missing_id.data()));
  for (int64_t i = 0; i < nv; ++i) {
    const auto alleles = split_alleles(info.ref[i], info.alt[i]);
    max_alleles = std::max<int64_t>(max_alleles, static_cast<int64_t>(alleles.size()));
    for (size_t k = 0; k < alleles.size(); ++k) {
      if (k) allele_blob += '\0';
      allele_blob += alleles[k];
    }
    allele_end.push_back(allele_blob.size());
  }
  return Status::OK();
}

// Fill and write every (variant chunk × sample chunk) tile of the block starting at `written`.
// fill(v, s, gt, ph) writes the calls of block variant v, sample s. Tile buffers are reused
// per thread; only tiles that overhang the data are pre-filled with the fill value.
template <class Fill>
Status VczWriter::Impl::write_call_tiles(int64_t nv, Fill&& fill) {
  if (ploidy == 0) return Status::OK();
  const int64_t vchunks = (nv + vc - 1) / vc, schunks = (n + sc - 1) / sc;
  ThreadPool& tp = ctx.pool();
  return tp.parallel_for(vchunks * schunks, [&](int64_t t) -> Status {
    const int64_t vi = t / schunks, si = t % schunks;
    const int64_t v0 = vi * vc, s0 = si * sc;
    const int64_t vn = std::min(vc, nv - v0), sn = std::min(sc, n - s0);
    std::unique_ptr<Scratch> scratch = take_scratch();
    std::vector<int8_t>& g = scratch->g;
    std::vector<uint8_t>& m = scratch->m;
    std::vector<uint8_t>& ph = scratch->ph;
    const size_t cells = static_cast<size_t>(vc * sc * ploidy);
    g.resize(cells);
    m.resize(cells);
    if (vn < vc || sn < sc) std::fill(g.begin(), g.end(), int8_t{-1});
    if (phased) {
      ph.resize(static_cast<size_t>(vc * sc));
      if (vn < vc || sn < sc) std::fill(ph.begin(), ph.end(), uint8_t{0});
    }
    for (int64_t v = 0; v < vn; ++v)
      fill(v0 + v, s0, sn, g.data() + v * sc * ploidy, phased ? ph.data() + v * sc : nullptr);
    for (size_t i = 0; i < cells; ++i) m[i] = static_cast<uint8_t>(static_cast<uint8_t>(g[i]) >> 7);  // g < 0
    const Shape idx = {(written + v0) / vc, si, 0};
    STRATA_RETURN_NOT_OK(gt.write_chunk(idx, {reinterpret_cast<const uint8_t*>(g.data()), cells}));
    STRATA_RETURN_NOT_OK(mask.write_chunk(idx, {m.data(), cells}));
    if (phased) STRATA_RETURN_NOT_OK(phased_arr.write_chunk({idx[0], si}, {ph.data(), ph.size()}));
    give_scratch(std::move(scratch));
    return Status::OK();
  });
}

Status VczWriter::append_calls(const VariantInfo& info, const int8_t* genotypes, const uint8_t* phased,
                               const VcfRecordFields* fields) {
  Impl& im = *impl_;
  const int64_t nv = info.size();
  if (im.written % im.vc != 0) return Status::Internal("VczWriter: append after a partial chunk");
  const int64_t n = im.n, p = im.ploidy;
  // fill(v, s0, count, dst, ph): one variant's calls for samples [s0, s0 + count).
  STRATA_RETURN_NOT_OK(im.write_call_tiles(nv, [&](int64_t v, int64_t s0, int64_t count, int8_t* g, uint8_t* ph) {
    std::memcpy(g, genotypes + (v * n + s0) * p, static_cast<size_t>(count * p));
    if (ph) {
      if (phased) std::memcpy(ph, phased + v * n + s0, static_cast<size_t>(count));
      else std::memset(ph, 0, static_cast<size_t>(count));
    }
  }));
  STRATA_RETURN_NOT_OK(im.write_metadata(info, fields));
  im.written += nv;
  return Status::OK();
}

Status VczWriter::append_codes(const VariantInfo& info, const uint8_t* codes, int64_t stride) {
  Impl& im = *impl_;
  if (im.ploidy != 2 && im.ploidy != 0) return Status::Internal("VczWriter: codes need ploidy 2");
  if (im.written % im.vc != 0) return Status::Internal("VczWriter: append after a partial chunk");
  STRATA_RETURN_NOT_OK(im.write_call_tiles(info.size(), [&](int64_t v, int64_t s0, int64_t count, int8_t* g, uint8_t* ph) {
    const uint8_t* row = codes + v * stride;
    for (int64_t s = 0; s < count; ++s) detail::code_to_call(code_at(row, s0 + s), g + 2 * s);
    if (ph) std::memset(ph, 0, static_cast<size_t>(count));
  }));
  if (im.opt.vcf) return Status::Internal("VczWriter: code rows carry no QUAL or FILTER for a VCF store");
  STRATA_RETURN_NOT_OK(im.write_metadata(info, nullptr));
  im.written += info.size();
  return Status::OK();
}

Status VczWriter::finish(const std::vector<std::string>& contigs) {
  Impl& im = *impl_;
  const int64_t m = im.written;
  Store& st = *im.store;
  for (const char* a : {"call_genotype", "call_genotype_mask", "call_genotype_phased", "variant_position", "variant_contig",
                        "variant_id_mask", "variant_quality", "variant_filter"}) {
    STRATA_ASSIGN_OR_RETURN(bool present, st.exists(std::string(a) + "/.zarray"));
    if (present) STRATA_RETURN_NOT_OK(detail::set_v2_length(st, a, m));
  }
  STRATA_RETURN_NOT_OK(im.ids.finish(m));
  // variant_allele: (variants, alleles), REF first, "" pads shorter rows.
  const int64_t a = im.max_alleles;
  STRATA_ASSIGN_OR_RETURN(auto alleles, ZarrStringWriter::create(im.store, "variant_allele",
                                                                 im.strings(im.vc, a, {"variants", "alleles"})));
  for (int64_t v0 = 0; v0 < m; v0 += im.vc) {
    const int64_t nv = std::min(im.vc, m - v0);
    std::vector<std::string> rows(static_cast<size_t>(nv * a));
    for (int64_t v = 0; v < nv; ++v) {
      const uint64_t begin = v0 + v == 0 ? 0 : im.allele_end[v0 + v - 1];
      const uint64_t end = im.allele_end[v0 + v];
      std::string_view all(im.allele_blob.data() + begin, end - begin);
      int64_t k = 0;
      for (size_t i = 0;; ++k) {
        const size_t j = all.find('\0', i);
        rows[v * a + k] = std::string(all.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
        if (j == std::string_view::npos) break;
        i = j + 1;
      }
    }
    STRATA_RETURN_NOT_OK(alleles.write_rows(v0, rows));
  }
  STRATA_RETURN_NOT_OK(alleles.finish(m));
  STRATA_RETURN_NOT_OK(write_zarr_strings(im.store, "contig_id", contigs, "contigs", im.string_codec, true));
  if (const auto& vcf = im.opt.vcf) {
    STRATA_RETURN_NOT_OK(write_zarr_strings(im.store, "filter_id", vcf->filter_id, "filters", im.string_codec, true));
    STRATA_RETURN_NOT_OK(
        write_zarr_strings(im.store, "filter_description", vcf->filter_description, "filters", im.string_codec, true));
    // contig_length only when every contig's length is known (records may name contigs the
    // header does not), as bio2zarr writes it.
    std::vector<int64_t> lengths = vcf->contig_length;
    lengths.resize(contigs.size(), -1);
    if (!contigs.empty() && std::all_of(lengths.begin(), lengths.end(), [](int64_t l) { return l >= 0; })) {
      ZarrCreateOptions o;
      o.format = ZarrFormat::V2;
      o.shape = {static_cast<int64_t>(lengths.size())};
      o.chunks = o.shape;
      o.dtype = DType(ScalarType::Int64);
      o.fill_value = 0;  // bio2zarr's
      STRATA_ASSIGN_OR_RETURN(o.compressor, make_codec(im.opt.codec, "blosc:zstd:7:shuffle", 8));
      o.dimension_names = {"contigs"};
      STRATA_ASSIGN_OR_RETURN(auto a, ZarrArray::create(im.store, "contig_length", o));
      STRATA_RETURN_NOT_OK(a.write_region({0}, o.shape, lengths.data()));
    }
  }
  // Root attributes, then consolidated metadata, then the commit that publishes the store.
  const json attrs = {{"vcf_zarr_version", "0.4"}, {"source", std::string("strata ") + STRATA_VERSION_STRING}};
  const std::string s = attrs.dump();
  STRATA_RETURN_NOT_OK(st.set(".zattrs", std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
  STRATA_RETURN_NOT_OK(zarr_consolidate(im.store, ""));
  return im.own_set ? im.own_set->commit() : Status::OK();
}

Status write_vcf_zarr(const Context& ctx, const GenotypeView& view, const std::string& path,
                      const VczWriteOptions& options) {
  STRATA_ASSIGN_OR_RETURN(auto w, VczWriter::create(ctx, path, view.samples(), 2, false, options));
  // Blocks of whole variant chunks, about 8 MiB of codes each.
  const int64_t vc = w->variants_chunk();
  const int64_t per = std::max<int64_t>(1, default_block_variants(view) / vc);
  STRATA_RETURN_NOT_OK(for_each_genotype_block(
      ctx, view, per * vc, nullptr,
      [&](GenotypeBlock& b) -> Status {
        STRATA_ASSIGN_OR_RETURN(VariantInfo info, view.variants(b.variant_start, b.variant_count));
        return w->append_codes(info, b.codes.data(), b.stride);
      },
      PassOptions{.label = "writing " + path}));
  return w->finish(view.contigs());
}

}  // namespace strata::io
