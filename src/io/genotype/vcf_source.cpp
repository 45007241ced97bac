// VCF/BCF as a genotype source: htslib reads every record once, at open (BGZF inflated on the
// context's threads), and GT becomes the packed 2-bit codes `strata convert F out.bed` writes,
// held in memory (a quarter byte per genotype) with the variant metadata.
#include "strata/core/config.hpp"

#include "io/genotype/vcf_source_internal.hpp"

#if STRATA_HAVE_HTSLIB
#include <htslib/kseq.h>
#include <htslib/kstring.h>
#include <htslib/tbx.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <limits>
#include <unordered_map>
#include <vector>

#include "io/genotype/bgzf_rounds_internal.hpp"
#include "io/genotype/codes_internal.hpp"
#include "io/genotype/htslib_vcf_internal.hpp"
#include "io/genotype/vcf_fast_gt_internal.hpp"
#include "strata/core/context.hpp"
#include "strata/core/log.hpp"

namespace strata::io::detail {
namespace {

// Dosages are kept as plink2 stores them: multiples of 1/16384 on the codes' 0..2 scale.
constexpr float kDosageUnitFloat = 16384.0f;
constexpr uint16_t kDosageMissing = 0xFFFF;
// plink2's --hard-call-threshold default: a dosage within 0.1 of an integer is called.
constexpr int kHardCallDistance = 1638;  // 0.1 × 16384, rounded down

enum class DosageField { kNone, kDS, kHDS, kGP };

class VcfSource final : public GenotypeView {
 public:
  int64_t num_variants() const override { return info.size(); }
  int64_t num_samples() const override { return samples_.size(); }
  std::string describe() const override { return path; }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return contig_names; }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override {
    if (start < 0 || count < 0 || start + count > num_variants())
      return Status::Invalid(path, ": variants [", start, ", ", start + count, ") out of range (", num_variants(), ")");
    VariantInfo out;
    out.start = start;
    out.reserve(count);
    out.append_range(info, start, count);
    return out;
  }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const override {
    STRATA_RETURN_NOT_OK(check_box(v0, nv, s0, ns, stride < packed_row_bytes(ns)));
    const int64_t row = packed_row_bytes(num_samples());
    for (int64_t v = 0; v < nv; ++v) extract_row(codes.data() + (v0 + v) * row, s0, ns, nullptr, out + v * stride);
    return Status::OK();
  }
  bool has_dosages() const override { return !dosages.empty(); }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    if (dosages.empty()) return GenotypeView::read_dosages(v0, nv, s0, ns, out, stride);
    STRATA_RETURN_NOT_OK(check_box(v0, nv, s0, ns, stride < ns));
    const int64_t n = num_samples();
    for (int64_t v = 0; v < nv; ++v) {
      const uint16_t* d = dosages.data() + (v0 + v) * n + s0;
      float* o = out + v * stride;
      for (int64_t j = 0; j < ns; ++j)
        o[j] = d[j] == kDosageMissing ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(d[j]) / kDosageUnitFloat;
    }
    return Status::OK();
  }
  SourceReport report() const override { return report_; }

  std::string path;
  SampleInfo samples_;
  std::vector<std::string> contig_names;
  VariantInfo info;
  std::vector<uint8_t> codes;     // num_variants rows of packed_row_bytes(num_samples)
  std::vector<uint16_t> dosages;  // num_variants × num_samples, in 1/16384 (only with vcf_dosage)
  SourceReport report_;

 private:
  Status check_box(int64_t v0, int64_t nv, int64_t s0, int64_t ns, bool bad_stride) const {
    if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples() || bad_stride)
      return Status::Invalid(path, ": read of variants [", v0, ", ", v0 + nv, ") × samples [", s0, ", ", s0 + ns,
                             ") outside the ", num_variants(), " × ", num_samples(), " matrix or with a short stride");
    return Status::OK();
  }
};

// One region of an indexed read: a contig (htslib id of the index) and a 0-based half-open range.
struct Region {
  int tid = 0;
  hts_pos_t beg = 0, end = HTS_POS_MAX;
};

using Parsed = VcfParsedRecord;

// GT (and the dosage field) of one record → codes; owns its buffers, reads only `hdr`, so one
// per thread decodes records in parallel.
class RecordDecoder {
 public:
  RecordDecoder(const bcf_hdr_t* hdr, const std::string& path, const GenotypeOpenOptions& o, DosageField dosage,
                bool has_gt)
      : hdr_(hdr), path_(path), o_(o), dosage_(dosage), has_gt_(has_gt), n_(bcf_hdr_nsamples(hdr)) {}
  void decode(bcf1_t* rec, Parsed& p);

 private:
  Status add_dosages(bcf1_t* rec, const int32_t* gt, int64_t ploidy, Parsed& p);

  const bcf_hdr_t* hdr_;
  const std::string& path_;
  const GenotypeOpenOptions& o_;
  DosageField dosage_;
  bool has_gt_;
  int64_t n_;
  std::unique_ptr<int32_t, decltype(&free)> gt_{nullptr, &free};
  int gt_cap_ = 0;
  std::unique_ptr<float, decltype(&free)> ds_{nullptr, &free};
  int ds_cap_ = 0;
};

// One parsing thread: its own copy of the header (htslib adds undefined contigs and tags to the
// header it parses with), its record, and the records it decoded this round.
struct LineWorker {
  HtsPtr<bcf_hdr_t> hdr;
  HtsPtr<bcf1_t> rec;
  std::unique_ptr<RecordDecoder> decoder;
  std::unique_ptr<FastGtParser> fast;
  std::vector<kstring_t> lines;  // read_parallel's copies of the round's lines
  kstring_t copy = {0, 0, nullptr};
  std::vector<Parsed> parsed;  // kept across rounds, so their buffers are reused
  size_t used = 0;             // read_parallel's lines this round
  size_t done = 0;             // records decoded this round: parsed[0, done)
  bool parse_failed = false;   // htslib could not parse the line after the last record
  LineWorker() = default;
  LineWorker(const LineWorker&) = delete;
  LineWorker& operator=(const LineWorker&) = delete;
  ~LineWorker() {
    for (kstring_t& k : lines) free(k.s);
    free(copy.s);
  }
  void start_round() {
    done = 0;
    parse_failed = false;
  }
  // The line [s, s + len) (NUL at s[len]) into the next record: the fast path, else htslib's
  // vcf_parse of `line` (the same text; copied from `s` when null), which may fail (parse_failed).
  void parse(const char* s, size_t len, kstring_t* line) {
    if (done == parsed.size()) parsed.emplace_back();
    Parsed& p = parsed[done];
    if (fast && fast->parse(s, len, p)) {
      ++done;
      return;
    }
    if (!line) {
      copy.l = 0;
      line = &copy;
      if (kputsn(s, len, &copy) < 0) {
        parse_failed = true;
        return;
      }
    }
    if (vcf_parse(line, hdr.get(), rec.get()) != 0) {
      parse_failed = true;
      return;
    }
    decoder->decode(rec.get(), p);
    ++done;
  }
};
using LineWorkers = std::vector<std::unique_ptr<LineWorker>>;

class Decoder {
 public:
  Decoder(const std::string& path, const GenotypeOpenOptions& o, VcfSource& out) : path_(path), o_(o), out_(out) {}
  Status run();

 private:
  Status open_regions();
  int read_next(bcf1_t* rec);
  Status read_serial();
  Status make_workers(int threads, LineWorkers& workers);
  Status read_parallel(int threads);
  Status read_rounds(int threads);
  Status run_round(LineWorkers& workers, const std::function<void(LineWorker&, size_t)>& job);
  Status end_of_input(int ret);
  Status commit(Parsed& p);
  Status check_order(int32_t contig, int64_t pos);
  Status check_budget() const;
  std::string where() const {
    return last_contig_ < 0 ? "" : " (after " + out_.contig_names[static_cast<size_t>(last_contig_)] + ":" + std::to_string(last_pos_) + ")";
  }
  Status fail_record(const std::string& what) const {
    if (v_.eof_marker_missing) return truncated(record_);
    return Status::Corrupt(path_, ": record ", record_, where(), ": ", what);
  }
  Status truncated(int64_t record) const {
    return Status::Corrupt(path_, ": truncated or malformed BGZF block near record ", record,
                           v_.eof_marker_missing ? " (the BGZF end-of-file marker is missing: the file was cut short)" : "");
  }

  std::string path_;
  const GenotypeOpenOptions& o_;
  VcfSource& out_;
  OpenVcf v_;
  bcf_hdr_t* hdr_ = nullptr;
  int64_t n_ = 0, row_bytes_ = 0, budget_ = 0;
  int64_t record_ = 0;
  int32_t last_contig_ = -1;
  int64_t last_pos_ = 0;
  bool unsorted_warned_ = false;
  std::unordered_map<std::string, int32_t> contig_index_;
  std::vector<char> contig_done_;
  DosageField dosage_ = DosageField::kNone;
  // Indexed reads: the index, the regions left and the current iterator.
  std::unique_ptr<tbx_t, decltype(&tbx_destroy)> tbx_{nullptr, &tbx_destroy};
  std::unique_ptr<hts_idx_t, decltype(&hts_idx_destroy)> idx_{nullptr, &hts_idx_destroy};
  std::unique_ptr<hts_itr_t, decltype(&hts_itr_destroy)> itr_{nullptr, &hts_itr_destroy};
  std::vector<Region> regions_;
  size_t next_region_ = 0;
  bool indexed_ = false;
  bool fast_gt_ = false;  // text VCF lines in the common shape skip htslib's vcf_parse
  kstring_t line_ = {0, 0, nullptr};
};

// With a contig filter and an index, the regions of the accepted contigs in the index's order.
Status Decoder::open_regions() {
  if (!o_.vcf_contig_filter) return Status::OK();
  const bool is_bcf = hts_get_format(v_.file.get())->format == bcf;
  int nseq = 0;
  const char** names = nullptr;
  if (is_bcf) {
    idx_.reset(bcf_index_load3(path_.c_str(), nullptr, HTS_IDX_SILENT_FAIL));
    if (idx_) names = bcf_index_seqnames(idx_.get(), hdr_, &nseq);
  } else {
    tbx_.reset(tbx_index_load3(path_.c_str(), nullptr, HTS_IDX_SILENT_FAIL));
    if (tbx_) names = tbx_seqnames(tbx_.get(), &nseq);
  }
  if (!idx_ && !tbx_) return Status::OK();  // no index: read everything, the selection filters
  indexed_ = true;
  for (int i = 0; i < nseq; ++i) {
    if (!o_.vcf_contig_filter(names[i])) continue;
    Region r;
    r.tid = is_bcf ? bcf_hdr_name2id(hdr_, names[i]) : tbx_name2id(tbx_.get(), names[i]);
    if (o_.vcf_bp_to > 0) {
      r.beg = std::max<int64_t>(0, o_.vcf_bp_from - 1);
      r.end = o_.vcf_bp_to;
    }
    if (r.tid >= 0) regions_.push_back(r);
  }
  free(names);
  log_info(path_, ": reading ", regions_.size(), " of ", nseq, " indexed contigs");
  return Status::OK();
}

// bcf_read's contract (0 a record, −1 the end, < −1 an error), over the whole file or the regions.
int Decoder::read_next(bcf1_t* rec) {
  if (!indexed_) return bcf_read(v_.file.get(), hdr_, rec);
  for (;;) {
    if (!itr_) {
      if (next_region_ == regions_.size()) return -1;
      const Region& r = regions_[next_region_++];
      itr_.reset(idx_ ? bcf_itr_queryi(idx_.get(), r.tid, r.beg, r.end) : tbx_itr_queryi(tbx_.get(), r.tid, r.beg, r.end));
      if (!itr_) return -2;
    }
    int ret;
    if (idx_) {
      ret = bcf_itr_next(v_.file.get(), itr_.get(), rec);
    } else {
      ret = tbx_itr_next(v_.file.get(), tbx_.get(), itr_.get(), &line_);
      if (ret >= 0) ret = vcf_parse(&line_, hdr_, rec) == 0 ? 0 : -2;
    }
    if (ret >= 0) return 0;
    if (ret < -1) return ret;
    itr_.reset();
  }
}

// Contigs must not come back after another (plink2's "split chromosome"); positions out of order
// within one are kept in the file's order with a warning, as for `strata convert F out.bed`.
Status Decoder::check_order(int32_t contig, int64_t pos) {
  if (contig != last_contig_) {
    if (last_contig_ >= 0) contig_done_[static_cast<size_t>(last_contig_)] = 1;
    if (contig_done_[static_cast<size_t>(contig)])
      return fail_record("contig '" + out_.contig_names[static_cast<size_t>(contig)] +
                         "' appears again after other contigs: the file is not sorted (bcftools sort)");
  } else if (pos < last_pos_ && !unsorted_warned_) {
    log_warning(path_, ": variants are not sorted by position (record ", record_,
                "); they are kept in the file's order, as plink2 does");
    unsorted_warned_ = true;
  }
  last_contig_ = contig;
  last_pos_ = pos;
  return Status::OK();
}

Status Decoder::check_budget() const {
  const int64_t bytes = static_cast<int64_t>(out_.codes.size() + out_.dosages.size() * sizeof(uint16_t));
  if (bytes <= budget_) return Status::OK();
  return Status::OutOfMemory(path_, ": the genotypes decoded from this VCF/BCF (", bytes, " bytes after ", record_,
                         " records) exceed the memory budget of ", budget_, " bytes; raise --memory or convert ",
                         "it once (strata convert ", path_, " OUT.bed) and read OUT.bed");
}

Status Decoder::run() {
  // A BGZF text VCF read whole with the fast GT path inflates its own blocks (read_rounds):
  // htslib then reads only the header, without decompression threads.
  const char* parser = std::getenv(kVcfGtParserEnv);
  const bool fast_allowed = o_.vcf_dosage.empty() && !(parser && std::strcmp(parser, "htslib") == 0);
  struct stat st {};
  const bool may_use_rounds = fast_allowed && !o_.vcf_contig_filter && ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const int threads = std::max(1, o_.threads);
  STRATA_ASSIGN_OR_RETURN(v_, open_vcf(path_, may_use_rounds ? 1 : threads));
  const htsFormat* format = hts_get_format(v_.file.get());
  const bool text = format->format == vcf;
  const bool rounds = may_use_rounds && text && format->compression == bgzf;
  if (may_use_rounds && !rounds && format->compression == bgzf && threads > 1) {  // a BCF: again, with threads
    STRATA_ASSIGN_OR_RETURN(v_, open_vcf(path_, threads));
  }
  hdr_ = v_.hdr.get();
  n_ = v_.n;
  row_bytes_ = packed_row_bytes(n_);
  budget_ = memory_budget_or_default(o_.memory_budget);
  out_.path = path_;
  for (int64_t i = 0; i < n_; ++i) out_.samples_.id.emplace_back(hdr_->samples[i]);
  if (n_ == 0) return Status::InvalidData(path_, ": the VCF has no samples, so there are no genotypes to read");
  if (!o_.vcf_dosage.empty()) {
    const std::string& f = o_.vcf_dosage;
    dosage_ = f == "DS" ? DosageField::kDS : f == "HDS" ? DosageField::kHDS : f == "GP" ? DosageField::kGP : DosageField::kNone;
    if (dosage_ == DosageField::kNone) return Status::Invalid("vcf_dosage must be DS, HDS or GP, got '", f, "'");
    const int id = bcf_hdr_id2int(hdr_, BCF_DT_ID, f.c_str());
    if (!bcf_hdr_idinfo_exists(hdr_, BCF_HL_FMT, id))
      return Status::InvalidData(path_, ": no FORMAT/", f, " in the VCF header, so there are no ", f, " dosages to read");
  } else if (!v_.has_gt) {
    return Status::InvalidData(path_, ": no GT field in the VCF header, so there are no genotypes to read "
                               "(read dosages with --vcf-dosage DS, HDS or GP)");
  }
  // Contigs: the header's, in its order, then any a record names (htslib adds them with a warning).
  int nseq = 0;
  const char** names = bcf_hdr_seqnames(hdr_, &nseq);
  for (int i = 0; i < nseq; ++i) {
    contig_index_.emplace(names[i], static_cast<int32_t>(out_.contig_names.size()));
    out_.contig_names.emplace_back(names[i]);
  }
  free(names);
  STRATA_RETURN_NOT_OK(open_regions());
  // Text VCF is parsed on the context's threads (htslib's parsing is most of the time); BCF and
  // indexed reads record by record.
  fast_gt_ = text && fast_allowed;
  if (rounds) STRATA_RETURN_NOT_OK(read_rounds(threads));
  else if (text && !indexed_ && (threads > 1 || fast_gt_)) STRATA_RETURN_NOT_OK(read_parallel(threads));
  else STRATA_RETURN_NOT_OK(read_serial());
  // Memory left over beyond an eighth is given back (a copy); less is not worth copying.
  if (out_.codes.capacity() - out_.codes.size() > out_.codes.size() / 8) out_.codes.shrink_to_fit();
  out_.dosages.shrink_to_fit();
  return Status::OK();
}

// After the last record: `ret` is read_next's or hts_getline's last value. A read error (a cut
// or damaged BGZF block) must not pass for the end of the file, and a clean end without the BGZF
// end-of-file block means the file was cut at a block boundary.
Status Decoder::end_of_input(int ret) {
  const BGZF* bgzfp = bgzf_of(v_.file.get());
  if (ret < -1) {
    ++record_;
    if (v_.eof_marker_missing || (bgzfp && bgzfp->errcode != 0)) return truncated(record_);
    return fail_record("malformed record (htslib could not parse it)");
  }
  if ((v_.eof_marker_missing && !indexed_) || (bgzfp && bgzfp->errcode != 0)) return truncated(record_ + 1);
  return Status::OK();
}

Status Decoder::read_serial() {
  HtsPtr<bcf1_t> rec(bcf_init());
  RecordDecoder decoder(hdr_, path_, o_, dosage_, v_.has_gt);
  Parsed p;
  int ret;
  while ((ret = read_next(rec.get())) == 0) {
    ++record_;
    decoder.decode(rec.get(), p);
    STRATA_RETURN_NOT_OK(commit(p));
  }
  free(line_.s);
  line_ = {0, 0, nullptr};
  return end_of_input(ret);
}

Status Decoder::make_workers(int threads, LineWorkers& workers) {
  for (int t = 0; t < threads; ++t) {
    auto w = std::make_unique<LineWorker>();
    w->hdr.reset(bcf_hdr_dup(hdr_));
    w->rec.reset(bcf_init());
    if (!w->hdr || !w->rec) return Status::OutOfMemory(path_, ": cannot copy the VCF header");
    w->decoder = std::make_unique<RecordDecoder>(w->hdr.get(), path_, o_, dosage_, v_.has_gt);
    if (fast_gt_) w->fast = std::make_unique<FastGtParser>(w->hdr.get(), n_, o_.multiallelic);
    workers.push_back(std::move(w));
  }
  return Status::OK();
}

// Runs job(worker t, t) for every worker, the first on this thread, then commits their records
// in order (worker 0's first); a line htslib could not parse ends the read after the records
// before it.
Status Decoder::run_round(LineWorkers& workers, const std::function<void(LineWorker&, size_t)>& job) {
  std::vector<std::future<void>> pending;
  for (size_t t = 1; t < workers.size(); ++t)
    pending.push_back(std::async(std::launch::async, job, std::ref(*workers[t]), t));
  job(*workers[0], 0);
  for (auto& f : pending) f.get();
  for (auto& w : workers) {
    for (size_t i = 0; i < w->done; ++i) {
      ++record_;
      STRATA_RETURN_NOT_OK(commit(w->parsed[i]));
    }
    if (w->parse_failed) return end_of_input(-2);
  }
  return Status::OK();
}

// Batches of lines read here (BGZF inflated by htslib's threads) are parsed by `threads` workers
// and committed in file order.
Status Decoder::read_parallel(int threads) {
  LineWorkers workers;
  STRATA_RETURN_NOT_OK(make_workers(threads, workers));
  constexpr size_t kBatchLines = 256;
  constexpr size_t kBatchBytes = size_t{4} << 20;
  int ret = 0;
  while (ret >= 0) {
    // A worker left without lines this round must not hand back its last round's records.
    for (auto& w : workers) w->used = 0;
    for (auto& w : workers) {
      size_t bytes = 0;
      while (w->used < kBatchLines && bytes < kBatchBytes) {
        if (w->used == w->lines.size()) w->lines.push_back(kstring_t{0, 0, nullptr});
        kstring_t& k = w->lines[w->used];
        k.l = 0;
        ret = hts_getline(v_.file.get(), KS_SEP_LINE, &k);
        if (ret < 0) break;
        bytes += k.l;
        ++w->used;
      }
      if (ret < 0) break;
    }
    STRATA_RETURN_NOT_OK(run_round(workers, [](LineWorker& w, size_t) {
      w.start_round();
      for (size_t i = 0; i < w.used && !w.parse_failed; ++i) w.parse(w.lines[i].s, w.lines[i].l, &w.lines[i]);
    }));
  }
  return end_of_input(ret);
}

// A regular BGZF file read whole: BgzfRounds inflates a round of blocks on `threads` threads,
// each worker parses the lines that start in its share of the round in place, and the records
// are committed in file order.
Status Decoder::read_rounds(int threads) {
  BGZF* bgzfp = bgzf_of(v_.file.get());
  STRATA_ASSIGN_OR_RETURN(auto rounds, BgzfRounds::open(path_, static_cast<uint64_t>(bgzf_tell(bgzfp))));
  LineWorkers workers;
  STRATA_RETURN_NOT_OK(make_workers(threads, workers));
  std::vector<char*> cut(workers.size() + 1);
  for (;;) {
    Result<std::span<char>> text = rounds->next(threads);
    if (!text.ok()) {
      if (text.status().code() != StatusCode::Corrupt) return text.status();
      ++record_;
      if (v_.eof_marker_missing) return truncated(record_);
      return Status::Corrupt(truncated(record_).message(), " (", text.status().message(), ")");
    }
    if (text->empty()) break;
    // Worker t takes the lines that start in the t-th share of the text (the text ends in '\n').
    char* const begin = text->data();
    const size_t size = text->size();
    cut.front() = begin;
    cut.back() = begin + size;
    for (size_t t = 1; t < workers.size(); ++t) {
      const size_t at = size * t / workers.size();
      char* from = std::max(cut[t - 1], begin + (at > 0 ? at - 1 : 0));
      cut[t] = from == cut.back() ? from : static_cast<char*>(std::memchr(from, '\n', static_cast<size_t>(cut.back() - from))) + 1;
    }
    const bool first = record_ == 0;
    STRATA_RETURN_NOT_OK(run_round(workers, [&cut](LineWorker& w, size_t t) {
      w.start_round();
      for (char* s = cut[t]; s < cut[t + 1] && !w.parse_failed;) {
        char* nl = static_cast<char*>(std::memchr(s, '\n', static_cast<size_t>(cut[t + 1] - s)));
        size_t len = static_cast<size_t>(nl - s);
        if (len > 0 && s[len - 1] == '\r') --len;  // as hts_getline
        s[len] = '\0';
        w.parse(s, len, nullptr);
        s = nl + 1;
      }
    }));
    // The rows to come, guessed from the first round's share of the file: growing the codes
    // by doubling would copy them and touch twice their memory.
    const double share = rounds->fraction_read();
    if (first && share > 0 && share < 1) {
      const double rows = static_cast<double>(out_.info.size()) / share * 1.05;
      const auto capped = static_cast<int64_t>(std::min(rows, static_cast<double>(budget_ / std::max<int64_t>(row_bytes_, 1))));
      out_.codes.reserve(static_cast<size_t>(capped * row_bytes_));
      out_.info.reserve(capped);
    }
  }
  return end_of_input(-1);
}

void RecordDecoder::decode(bcf1_t* rec, Parsed& p) {
  p.broken.clear();
  p.status = Status::OK();
  p.skipped = false;
  p.polyploid = 0;
  // Undefined contigs/tags are warnings in htslib; anything else is a broken record.
  if (rec->errcode & ~(BCF_ERR_CTG_UNDEF | BCF_ERR_TAG_UNDEF)) {
    p.broken = "malformed record";
    return;
  }
  bcf_unpack(rec, BCF_UN_STR | BCF_UN_FMT);
  if (rec->n_sample != static_cast<uint32_t>(n_)) {
    p.broken = "malformed record: " + std::to_string(rec->n_sample) + " sample columns, the header has " + std::to_string(n_);
    return;
  }
  p.pos = rec->pos + 1;
  if (p.pos < 1) {
    p.broken = "malformed record: POS is not a positive integer";
    return;
  }
  p.contig = bcf_hdr_id2name(hdr_, rec->rid);
  p.n_allele = rec->n_allele;
  if (p.n_allele > 2 && o_.multiallelic == MultiallelicMode::Skip) {
    p.skipped = true;
    return;
  }
  if (p.n_allele > 127) {
    p.broken = "more than 127 alleles";
    return;
  }
  p.id = rec->d.id ? rec->d.id : ".";
  p.ref = p.n_allele > 0 ? rec->d.allele[0] : "";
  p.alt.clear();
  for (int k = 1; k < p.n_allele; ++k) {
    if (k > 1) p.alt += ',';
    p.alt += rec->d.allele[k];
  }

  // GT: per-sample ploidy = values / samples; shorter calls end in vector_end.
  int32_t* gt = gt_.release();
  const int ngt = has_gt_ ? bcf_get_genotypes(hdr_, rec, &gt, &gt_cap_) : 0;
  gt_.reset(gt);
  const int64_t ploidy = ngt > 0 ? ngt / n_ : 0;
  p.codes.assign(static_cast<size_t>(packed_row_bytes(n_)), 0);
  uint8_t* row = p.codes.data();
  int8_t call[64];
  for (int64_t s = 0; s < n_; ++s) {
    uint8_t code = kCodeMissing;
    if (ploidy > 0) {
      const int32_t* g = gt + s * ploidy;
      const int64_t k_end = std::min<int64_t>(ploidy, 64);
      for (int64_t k = 0; k < k_end; ++k) {
        if (g[k] == bcf_int32_vector_end) {
          call[k] = -2;
        } else if (bcf_gt_is_missing(g[k])) {
          call[k] = -1;
        } else {
          const int a = bcf_gt_allele(g[k]);
          if (a >= p.n_allele) {
            p.broken = "GT refers to an allele the record does not have";
            return;
          }
          call[k] = static_cast<int8_t>(a);
        }
      }
      bool poly = ploidy > 64;
      code = ploidy > 64 ? uint8_t{kCodeMissing} : call_to_code(call, k_end, poly);
      p.polyploid += poly;
    }
    row[s >> 2] = static_cast<uint8_t>(row[s >> 2] | (code << (2 * (s & 3))));
  }
  pad_row(row, n_);
  if (dosage_ != DosageField::kNone) p.status = add_dosages(rec, ploidy > 0 ? gt : nullptr, ploidy, p);
}

// One decoded record, in file order: its order, the counts, then its codes and metadata.
Status Decoder::commit(Parsed& p) {
  if (!p.broken.empty()) return fail_record(p.broken);
  auto [it, added] = contig_index_.emplace(p.contig, static_cast<int32_t>(out_.contig_names.size()));
  if (added) out_.contig_names.push_back(p.contig);
  if (contig_done_.size() < out_.contig_names.size()) contig_done_.resize(out_.contig_names.size(), 0);
  STRATA_RETURN_NOT_OK(check_order(it->second, p.pos));
  if (p.n_allele > 2) ++out_.report_.multiallelic_sites;
  if (p.skipped) {
    ++out_.report_.skipped_sites;
    return Status::OK();
  }
  STRATA_RETURN_NOT_OK(p.status);
  VariantInfo& info = out_.info;
  info.contig.push_back(it->second);
  info.position.push_back(p.pos);
  info.id.push_back(std::move(p.id));
  info.ref.push_back(std::move(p.ref));
  info.alt.push_back(std::move(p.alt));
  info.cm.push_back(0.0);
  out_.report_.polyploid_calls += p.polyploid;
  out_.codes.insert(out_.codes.end(), p.codes.begin(), p.codes.end());
  if (dosage_ != DosageField::kNone) out_.dosages.insert(out_.dosages.end(), p.dosages.begin(), p.dosages.end());
  return check_budget();
}

// The dosage field of one record on the codes' scale (a haploid dosage counts twice, as a
// haploid call does), checked within [0, ploidy]; a sample without one keeps its hard call.
// Without GT, the hard calls come from the dosages (plink2's threshold).
Status RecordDecoder::add_dosages(bcf1_t* rec, const int32_t* gt, int64_t ploidy, Parsed& parsed) {
  parsed.dosages.resize(static_cast<size_t>(n_));
  uint16_t* d = parsed.dosages.data();
  uint8_t* code_row = parsed.codes.data();
  float* ds = ds_.release();
  const int nds = bcf_get_format_float(hdr_, rec, o_.vcf_dosage.c_str(), &ds, &ds_cap_);
  ds_.reset(ds);
  const int64_t per = nds > 0 ? nds / n_ : 0;
  const int n_alt = std::max(1, rec->n_allele - 1);
  if (dosage_ == DosageField::kGP && rec->n_allele > 2 && per > 0)
    return Status::Unsupported(path_, ": variant ", bcf_hdr_id2name(hdr_, rec->rid), ":", rec->pos + 1, " ",
                               rec->d.id ? rec->d.id : ".", ": GP dosages of a multi-allelic site are not read "
                               "(--multiallelic skip leaves such sites out)");
  for (int64_t s = 0; s < n_; ++s) {
    const uint8_t code = code_at(code_row, s);
    // The sample's ploidy: from GT, else from the values (HDS: one per haplotype; GP: 2 haploid,
    // 3 diploid), else diploid.
    int64_t p = 0;
    if (gt) {
      for (int64_t k = 0; k < ploidy && gt[s * ploidy + k] != bcf_int32_vector_end; ++k) ++p;
    }
    const float* x = ds + s * per;
    int64_t present = 0;
    bool missing = per == 0;
    for (int64_t k = 0; k < per; ++k) {
      if (bcf_float_is_vector_end(x[k])) break;
      if (bcf_float_is_missing(x[k])) missing = true;
      ++present;
    }
    if (present == 0) missing = true;
    if (p == 0) p = dosage_ == DosageField::kHDS ? present / n_alt : dosage_ == DosageField::kGP ? present - 1 : 2;
    if (p <= 0) p = 2;
    if (missing) {
      d[s] = code == kCodeMissing ? kDosageMissing : static_cast<uint16_t>(code * 16384);
      continue;
    }
    double value = 0;
    if (dosage_ == DosageField::kGP) {
      for (int64_t k = 1; k < present; ++k) value += static_cast<double>(k) * x[k];
    } else {
      for (int64_t k = 0; k < present; ++k) value += x[k];
    }
    if (!(value >= 0 && value <= static_cast<double>(p) * (1 + 1e-6)))
      return Status::InvalidData(path_, ": variant ", bcf_hdr_id2name(hdr_, rec->rid), ":", rec->pos + 1, " ",
                                 rec->d.id ? rec->d.id : ".", ", sample ", hdr_->samples[s], ": ", o_.vcf_dosage, " ",
                                 value, " is outside [0, ", p, "] (the sample's ploidy)");
    const double scaled = std::min(2.0, value * 2.0 / static_cast<double>(p));
    const auto q = static_cast<int>(scaled * kDosageUnitFloat + 0.5);
    d[s] = static_cast<uint16_t>(q);
    if (!gt) {
      const int call = (q + 8192) / 16384;
      if (std::abs(q - call * 16384) <= kHardCallDistance) set_code(code_row, s, static_cast<uint8_t>(call));
    }
  }
  return Status::OK();
}

}  // namespace

Result<GenotypeViewPtr> open_vcf_genotypes(const std::string& path, const GenotypeOpenOptions& options) {
  auto source = std::make_shared<VcfSource>();
  Decoder decoder(path, options, *source);
  STRATA_RETURN_NOT_OK(decoder.run());
  const SourceReport& r = source->report_;
  if (r.skipped_sites > 0)
    log_warning(path, ": skipped ", r.skipped_sites, " multi-allelic sites (keep them as non-reference dosage with "
                "--multiallelic nonref)");
  else if (r.multiallelic_sites > 0)
    log_info(path, ": ", r.multiallelic_sites, " multi-allelic sites read as non-reference dosage");
  if (r.polyploid_calls > 0)
    log_warning(path, ": ", r.polyploid_calls, " calls with more than two alleles are read as missing");
  return GenotypeViewPtr(std::move(source));
}

}  // namespace strata::io::detail

#else  // built without htslib

namespace strata::io::detail {

Result<GenotypeViewPtr> open_vcf_genotypes(const std::string& path, const GenotypeOpenOptions&) {
  return Status::Unsupported(path, ": this strata was built without htslib, so VCF/BCF input is not available; ",
                             "convert it elsewhere to .bed or VCF Zarr");
}

}  // namespace strata::io::detail

#endif
