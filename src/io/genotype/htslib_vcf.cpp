// VCF/BCF → VCF Zarr or PLINK 1 through htslib (built only when htslib is found).
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/vcf.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <future>
#include <optional>
#include <unordered_map>

#include "io/genotype/codes_internal.hpp"
#include "io/genotype/htslib_vcf_internal.hpp"
#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"
#include "io/genotype/vcf_fields_internal.hpp"
#include "strata/core/log.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/vcf.hpp"
#include "strata/io/vcf_zarr.hpp"

namespace strata::io {
namespace {

using detail::HtsPtr;
using detail::OpenVcf;
using detail::bgzf_of;
using detail::open_vcf;


struct FieldScan : detail::VcfScan {
  int64_t contigs = 0;  // header contigs and those records add
};

// The first pass of a VCF Zarr conversion: what the INFO/FORMAT arrays' layout depends on.
// A broken record ends the scan quietly; the second pass reports it with its context.
Result<FieldScan> scan_fields(const std::string& path, int threads) {
  STRATA_ASSIGN_OR_RETURN(OpenVcf v, open_vcf(path, threads));
  bcf_hdr_t* hdr = v.hdr.get();
  FieldScan scan;
  static_cast<detail::VcfScan&>(scan) = detail::vcf_scan_start(hdr, v.has_gt);
  HtsPtr<bcf1_t> rec(bcf_init());
  detail::VcfValueBuffers buf;
  while (bcf_read(v.file.get(), hdr, rec.get()) == 0) {
    if (rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF)) break;
    if (v.n > 0 && rec->n_sample != static_cast<uint32_t>(v.n)) break;
    bcf_unpack(rec.get(), BCF_UN_ALL);
    detail::vcf_scan_record(hdr, rec.get(), v.n, scan, buf);
  }
  scan.contigs = hdr->n[BCF_DT_CTG];
  return scan;
}

// Signals that a record needs a wider ploidy axis than the one the store was started with.
struct PloidyGrew {
  int64_t ploidy = 0;
};

class Converter {
 public:
  Converter(const Context& ctx, const std::string& input, const std::string& output, const ConvertOptions& o)
      : ctx_(ctx), input_(input), output_(output), o_(o), to_zarr_(is_zarr_output(output)) {}

  /// One pass over the file with call arrays `ploidy` wide; PloidyGrew when a record is wider.
  Result<ConvertReport> run(int64_t ploidy, PloidyGrew& grew);

 private:
  Status fail_record(const char* what) const {
    if (eof_marker_missing_) return truncated(record_);
    return Status::Corrupt(input_, ": record ", record_, last_contig_.empty() ? "" : " (after " + last_contig_ + ":" + std::to_string(last_pos_) + ")",
                           ": ", what);
  }
  Status truncated(int64_t variant) const {
    return Status::Corrupt(input_, ": truncated or malformed BGZF block near variant ", variant,
                           eof_marker_missing_ ? " (the BGZF end-of-file marker is missing: the file was cut short)" : "");
  }
  Status check_order(const std::string& contig, int64_t pos);
  Status add_qual_filter(const bcf_hdr_t* hdr, const bcf1_t* rec);
  Status flush();
  Status wait();

  std::string input_, output_;
  const Context& ctx_;
  ConvertOptions o_;
  bool to_zarr_;
  bool unsorted_warned_ = false;
  int64_t n_ = 0, ploidy_ = 0, chunk_ = 0;
  int64_t record_ = 0;  // 1-based index of the record being read
  bool eof_marker_missing_ = false;
  std::string last_contig_;
  int64_t last_pos_ = 0;
  std::unordered_map<std::string, bool> contigs_done_;
  std::vector<std::string> contigs_;
  std::unordered_map<std::string, int32_t> contig_index_;
  // The block being filled: metadata, calls (zarr) or code rows (bed).
  // Default-initialising vectors: every byte is written per record, so no zero fill first.
  using I8Vec = std::vector<int8_t, DefaultInitAllocator<int8_t>>;
  using U8Vec = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;
  VariantInfo info_;
  VcfRecordFields fields_;  // QUAL and FILTER (zarr)
  std::unordered_map<int, int> filter_column_;  // htslib FILTER id -> variant_filter column
  int64_t filters_ = 0;
  I8Vec calls_;
  U8Vec phased_, codes_;
  std::unique_ptr<VczWriter> vcz_;
  std::unique_ptr<BedWriter> bed_;
  std::unique_ptr<detail::VcfFieldWriter> info_format_;  // INFO/FORMAT arrays (zarr)
  detail::VcfFieldBlock field_block_, w_field_block_;
  ConvertReport report_;
  // The block being written in the background (declared last: destroyed, i.e. waited for,
  // before the writers it uses).
  VariantInfo w_info_;
  VcfRecordFields w_fields_;
  I8Vec w_calls_;
  U8Vec w_phased_, w_codes_;
  std::vector<std::string> w_contigs_;
  std::future<Status> pending_;
};

// The header's FILTER lines (PASS first, then header order; descriptions without their quotes)
// and the lengths of `contigs` (−1 where the header gives none), as bio2zarr reads them.
VcfHeaderFields header_fields(const bcf_hdr_t* hdr, const std::vector<std::string>& contigs) {
  auto value = [](bcf_hrec_t* h, const char* key) -> std::string {
    const int k = bcf_hrec_find_key(h, key);
    if (k < 0 || !h->vals[k]) return "";
    std::string v = h->vals[k];
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  };
  VcfHeaderFields f;
  for (int i = 0; i < hdr->nhrec; ++i) {
    bcf_hrec_t* h = hdr->hrec[i];
    if (h->type != BCF_HL_FLT) continue;
    std::string id = value(h, "ID");
    if (id.empty()) continue;
    const bool pass = id == "PASS";
    f.filter_id.insert(pass ? f.filter_id.begin() : f.filter_id.end(), id);
    f.filter_description.insert(pass ? f.filter_description.begin() : f.filter_description.end(), value(h, "Description"));
  }
  for (const std::string& c : contigs) {
    bcf_hrec_t* h = bcf_hdr_get_hrec(hdr, BCF_HL_CTG, "ID", c.c_str(), nullptr);
    const std::string len = h ? value(h, "length") : "";
    char* end = nullptr;
    const long long v = len.empty() ? -1 : std::strtoll(len.c_str(), &end, 10);
    f.contig_length.push_back(len.empty() || *end != '\0' || v < 0 ? -1 : v);
  }
  return f;
}

// QUAL (its float bits, htslib's missing value included) and the FILTER columns of `rec`.
Status Converter::add_qual_filter(const bcf_hdr_t* hdr, const bcf1_t* rec) {
  fields_.quality.push_back(rec->qual);
  const size_t row = fields_.filter.size();
  fields_.filter.resize(row + static_cast<size_t>(filters_), 0);
  for (int i = 0; i < rec->d.n_flt; ++i) {
    const auto c = filter_column_.find(rec->d.flt[i]);
    if (c == filter_column_.end())
      return fail_record(("FILTER '" + std::string(bcf_hdr_int2id(hdr, BCF_DT_ID, rec->d.flt[i])) +
                          "' is not defined by a ##FILTER header line (VCF Zarr's filter axis is the header's)")
                             .c_str());
    fields_.filter[row + static_cast<size_t>(c->second)] = 1;
  }
  return Status::OK();
}

Status Converter::check_order(const std::string& contig, int64_t pos) {
  if (contig != last_contig_) {
    if (!last_contig_.empty()) contigs_done_[last_contig_] = true;
    // A split chromosome is refused for every output, as plink2 refuses it ("split chromosome").
    if (contigs_done_.count(contig))
      return fail_record(("contig '" + contig + "' appears again after other contigs: the file is not sorted "
                          "(bcftools sort)").c_str());
  } else if (pos < last_pos_) {
    // A PLINK fileset keeps the file's order (plink2 reads positions out of order within a
    // chromosome, with a warning); VCF Zarr stores need sorted positions (bio2zarr's rule).
    if (!to_zarr_) {
      if (!unsorted_warned_) log_warning(input_, ": variants are not sorted by position (record ", record_,
                                         "); they are kept in the file's order, as plink2 does");
      unsorted_warned_ = true;
    } else {
      return fail_record(("position " + std::to_string(pos) + " is before the previous one: the file is not sorted "
                          "(VCF Zarr needs sorted positions: bcftools sort, or convert to .bed)").c_str());
    }
  }
  last_contig_ = contig;
  last_pos_ = pos;
  return Status::OK();
}

Status Converter::wait() {
  if (!pending_.valid()) return Status::OK();
  return pending_.get();
}

// Hand the filled block to a writer thread and keep parsing into the other buffer set, so
// parsing (this thread) overlaps compression and writing (the pool).
Status Converter::flush() {
  STRATA_RETURN_NOT_OK(wait());
  if (info_.size() == 0) return Status::OK();
  report_.variants += info_.size();
  std::swap(info_, w_info_);
  std::swap(fields_, w_fields_);
  std::swap(field_block_, w_field_block_);
  std::swap(calls_, w_calls_);
  std::swap(phased_, w_phased_);
  std::swap(codes_, w_codes_);
  if (bed_) w_contigs_ = contigs_;
  info_ = VariantInfo();
  fields_.quality.clear();
  fields_.filter.clear();
  field_block_.clear();
  calls_.clear();
  phased_.clear();
  codes_.clear();
  pending_ = std::async(std::launch::async, [this]() -> Status {
    if (info_format_) STRATA_RETURN_NOT_OK(info_format_->write(w_field_block_, vcz_->variants_written(), ctx_.pool()));
    if (vcz_)
      STRATA_RETURN_NOT_OK(
          vcz_->append_calls(w_info_, w_calls_.data(), w_phased_.empty() ? nullptr : w_phased_.data(), &w_fields_));
    if (bed_) STRATA_RETURN_NOT_OK(bed_->append(w_info_, w_contigs_, w_codes_.data(), packed_row_bytes(n_)));
    return Status::OK();
  });
  return Status::OK();
}

Result<ConvertReport> Converter::run(int64_t ploidy, PloidyGrew& grew) {
  const int threads = o_.decompression_threads > 0 ? o_.decompression_threads : ctx_.threads();
  STRATA_ASSIGN_OR_RETURN(OpenVcf v, open_vcf(input_, threads));
  bcf_hdr_t* hdr = v.hdr.get();
  eof_marker_missing_ = v.eof_marker_missing;
  n_ = v.n;
  ploidy_ = v.has_gt ? ploidy : 0;
  report_ = ConvertReport();
  report_.samples = n_;
  SampleInfo samples;
  for (int64_t i = 0; i < n_; ++i) samples.id.emplace_back(hdr->samples[i]);
  int nseq = 0;
  const char** seqnames = bcf_hdr_seqnames(hdr, &nseq);
  for (int i = 0; i < nseq; ++i) {
    contig_index_.emplace(seqnames[i], static_cast<int32_t>(contigs_.size()));
    contigs_.emplace_back(seqnames[i]);
  }
  free(seqnames);

  const MultiallelicMode mode = o_.multiallelic_set ? o_.multiallelic : MultiallelicMode::Skip;
  if (to_zarr_) {
    if (!v.has_gt) log_warning(input_, ": no GT field in the header; writing variants and samples only");
    VczWriteOptions vo;
    if (o_.variants_chunk > 0) vo.variants_chunk = o_.variants_chunk;
    if (o_.samples_chunk > 0) vo.samples_chunk = o_.samples_chunk;
    vo.genotype_codec = o_.genotype_codec;
    vo.overwrite = o_.overwrite;
    vo.inputs = input_paths(input_);
    vo.output_set = o_.output_set;
    vo.vcf = header_fields(hdr, contigs_);
    // INFO/FORMAT arrays take a first pass (their shapes and dtypes depend on every record);
    // a pipe can be read once only, so it gets the fixed fields and GT alone.
    struct stat in {};
    std::optional<FieldScan> scan;
    if (::stat(input_.c_str(), &in) == 0 && S_ISREG(in.st_mode)) {
      STRATA_ASSIGN_OR_RETURN(scan, scan_fields(input_, threads));
      vo.position_type = scan->max_pos < scan->min_pos ? ScalarType::Int32 : detail::smallest_int_type(scan->min_pos, scan->max_pos);
      vo.contig_type = detail::smallest_int_type(0, scan->contigs);
      // bio2zarr clips the variant chunk to the variant count.
      vo.variants_chunk = std::max<int64_t>(1, std::min(vo.variants_chunk, scan->records));
      if (ploidy_ > 0) ploidy_ = std::max(ploidy_, scan->max_ploidy);  // no restart for a wider record
    } else {
      log_warning(input_, ": not a regular file; INFO and FORMAT fields are not written (they need two passes)");
    }
    filters_ = static_cast<int64_t>(vo.vcf->filter_id.size());
    for (int64_t j = 0; j < filters_; ++j)
      filter_column_.emplace(bcf_hdr_id2int(hdr, BCF_DT_ID, vo.vcf->filter_id[j].c_str()), static_cast<int>(j));
    STRATA_ASSIGN_OR_RETURN(vcz_, VczWriter::create(ctx_, output_, samples, ploidy_, true, vo));
    if (scan) {
      STRATA_ASSIGN_OR_RETURN(info_format_, detail::VcfFieldWriter::create(vcz_->store(), std::move(*scan), n_,
                                                                           vcz_->variants_chunk(), vo.samples_chunk, input_));
    }
    chunk_ = vcz_->variants_chunk();
  } else {
    if (!v.has_gt) return Status::InvalidData(input_, ": no GT field in the VCF header, so there are no genotypes to write as .bed");
    if (n_ == 0) return Status::InvalidData(input_, ": the VCF has no samples, so there is nothing to write as .bed");
    // Existing fileset files are replaced (strata/core/output.hpp), never the input.
    BedWriteTarget target;
    target.rules.inputs = input_paths(input_);
    target.output_set = o_.output_set;
    STRATA_ASSIGN_OR_RETURN(bed_, BedWriter::create(output_, samples, target));
    chunk_ = 4096;
  }

  struct stat st {};
  const int64_t file_bytes = ::stat(input_.c_str(), &st) == 0 ? st.st_size : 0;
  // Progress in compressed bytes (BGZF virtual offset >> 16); plain text shows none.
  ProgressScope progress(ctx_, "converting " + std::filesystem::path(input_).filename().string(), file_bytes, "bytes");
  int64_t shown = 0;
  HtsPtr<bcf1_t> rec(bcf_init());
  int32_t* gt = nullptr;
  int ngt_cap = 0;
  std::unique_ptr<int32_t, decltype(&free)> gt_owner(nullptr, &free);
  const int64_t row_bytes = packed_row_bytes(n_);
  int ret;
  while ((ret = bcf_read(v.file.get(), hdr, rec.get())) == 0) {
    ++record_;
    // Undefined contigs/tags are warnings in htslib; anything else is a broken record.
    if (rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF)) return fail_record("malformed record");
    bcf_unpack(rec.get(), info_format_ ? BCF_UN_ALL : BCF_UN_STR | BCF_UN_FLT | BCF_UN_FMT);
    // htslib reads short lines and non-numeric POS without flagging them.
    if (n_ > 0 && rec->n_sample != static_cast<uint32_t>(n_))
      return fail_record(("malformed record: " + std::to_string(rec->n_sample) + " sample columns, the header has " +
                          std::to_string(n_)).c_str());
    const std::string contig = bcf_hdr_id2name(hdr, rec->rid);
    const int64_t pos = rec->pos + 1;
    if (pos < 1) return fail_record("malformed record: POS is not a positive integer");
    STRATA_RETURN_NOT_OK(check_order(contig, pos));
    const int n_allele = rec->n_allele;
    if (n_allele > 2) ++report_.multiallelic;
    if (!to_zarr_ && n_allele > 2 && mode == MultiallelicMode::Skip) {
      ++report_.skipped;
      continue;
    }
    if (n_allele > 127) return fail_record("more than 127 alleles");
    auto ci = contig_index_.find(contig);
    if (ci == contig_index_.end()) {
      ci = contig_index_.emplace(contig, static_cast<int32_t>(contigs_.size())).first;
      contigs_.push_back(contig);
    }
    info_.contig.push_back(ci->second);
    info_.position.push_back(pos);
    info_.id.emplace_back(rec->d.id ? rec->d.id : ".");
    info_.ref.emplace_back(n_allele > 0 ? rec->d.allele[0] : "");
    std::string alt;
    for (int k = 1; k < n_allele; ++k) {
      if (k > 1) alt += ',';
      alt += rec->d.allele[k];
    }
    info_.alt.push_back(std::move(alt));
    info_.cm.push_back(0.0);
    if (to_zarr_) STRATA_RETURN_NOT_OK(add_qual_filter(hdr, rec.get()));
    if (info_format_) info_format_->add(hdr, rec.get(), field_block_);

    // Genotypes: per-sample ploidy = values / samples; shorter calls end in vector_end.
    int ngt = v.has_gt && n_ > 0 ? bcf_get_genotypes(hdr, rec.get(), &gt, &ngt_cap) : 0;
    gt_owner.release();
    gt_owner.reset(gt);
    const int64_t rec_ploidy = ngt > 0 ? ngt / n_ : 0;
    if (to_zarr_ && rec_ploidy > ploidy_ && ploidy_ > 0) {
      grew.ploidy = rec_ploidy;
      return Status::Cancelled("ploidy grew");
    }
    report_.max_ploidy = std::max(report_.max_ploidy, rec_ploidy);
    const int64_t p = to_zarr_ ? ploidy_ : std::max<int64_t>(rec_ploidy, 1);
    std::vector<int8_t> one(static_cast<size_t>(std::max<int64_t>(p, 1)));
    const size_t call_base = calls_.size();
    if (to_zarr_) {
      calls_.resize(call_base + static_cast<size_t>(n_ * p));
      phased_.resize(phased_.size() + static_cast<size_t>(n_));
    } else {
      codes_.resize(codes_.size() + static_cast<size_t>(row_bytes));
    }
    uint8_t* code_row = to_zarr_ ? nullptr : codes_.data() + codes_.size() - row_bytes;
    uint8_t* phase_row = to_zarr_ ? phased_.data() + phased_.size() - n_ : nullptr;
    for (int64_t s = 0; s < n_ && p > 0; ++s) {
      int8_t* c = to_zarr_ ? calls_.data() + call_base + s * p : one.data();
      if (phase_row) phase_row[s] = 0;
      if (rec_ploidy == 0) {  // no GT in this record: missing at every ploidy slot (bio2zarr's)
        for (int64_t k = 0; k < p; ++k) c[k] = -1;
      } else {
        const int32_t* g = gt + s * rec_ploidy;
        for (int64_t k = 0; k < p; ++k) {
          if (k >= rec_ploidy || g[k] == bcf_int32_vector_end) {
            c[k] = -2;
          } else if (bcf_gt_is_missing(g[k])) {
            c[k] = -1;
          } else {
            const int a = bcf_gt_allele(g[k]);
            if (a >= n_allele || a > 127) return fail_record("GT refers to an allele the record does not have");
            c[k] = static_cast<int8_t>(a);
          }
        }
        // The phase bit of the second allele, as bio2zarr (cyvcf2) writes it: a haploid call in a
        // record of higher ploidy ends in vector_end, whose bit reads as phased; a record whose
        // calls are all haploid is unphased.
        if (phase_row && rec_ploidy > 1) phase_row[s] = bcf_gt_is_phased(g[1]) ? 1 : 0;
      }
      if (code_row) {
        bool poly = false;
        set_code(code_row, s, detail::call_to_code(c, p, poly));
        report_.polyploid_calls += poly;
      }
    }
    if (code_row) detail::pad_row(code_row, n_);
    if (info_.size() == chunk_) {
      STRATA_RETURN_NOT_OK(flush());
      if (v.file->format.compression == bgzf) {
        const int64_t at = int64_t(bgzf_tell(v.file->fp.bgzf) >> 16);
        ctx_.advance_progress(at - shown);
        shown = at;
      }
    }
  }
  // bcf_read: 0 a record, -1 end of file, < -1 an error. A read error (a cut or damaged BGZF
  // block) must not pass for the end of the file, and a clean end without the BGZF end-of-file
  // block means the file was cut at a block boundary.
  if (ret < -1) {
    ++record_;
    const BGZF* bgzfp = bgzf_of(v.file.get());
    if (eof_marker_missing_ || (bgzfp && bgzfp->errcode != 0)) return truncated(record_);
    return fail_record("malformed record (htslib could not parse it)");
  }
  if (eof_marker_missing_) return truncated(record_ + 1);
  if (const BGZF* bgzfp = bgzf_of(v.file.get()); bgzfp && bgzfp->errcode != 0) return truncated(record_ + 1);
  STRATA_RETURN_NOT_OK(flush());
  STRATA_RETURN_NOT_OK(wait());
  if (info_format_) STRATA_RETURN_NOT_OK(info_format_->finish(vcz_->variants_written()));
  if (vcz_) STRATA_RETURN_NOT_OK(vcz_->finish(contigs_));
  if (bed_) STRATA_RETURN_NOT_OK(bed_->finish());
  ctx_.advance_progress(file_bytes - shown);
  return report_;
}

}  // namespace

Result<ConvertReport> convert_vcf(const Context& ctx, const std::string& input, const std::string& output,
                                  const ConvertOptions& options) {
  // Start with diploid calls; a wider record restarts the pass with the wider axis (rare: the
  // store's ploidy axis must be fixed before the first chunk is written).
  int64_t ploidy = 2;
  for (int attempt = 0; attempt < 8; ++attempt) {
    PloidyGrew grew;
    auto r = [&] {
      Converter c(ctx, input, output, options);
      return c.run(ploidy, grew);
    }();
    if (r.ok() || grew.ploidy == 0) return r;
    log_info(input, ": calls with ploidy ", grew.ploidy, " found; restarting with a wider ploidy axis");
    // The command's set keeps the first attempt's store staged: drop it before declaring it again.
    if (options.output_set) STRATA_RETURN_NOT_OK(options.output_set->withdraw(output));
    ploidy = grew.ploidy;
  }
  return Status::Internal(input, ": ploidy kept growing");
}

}  // namespace strata::io
