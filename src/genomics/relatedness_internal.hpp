#pragma once
// Shared by the KING and distance outputs: sample ID columns and a buffered text writer.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics::detail {

// IDs of a view's samples: FID (when the source has them) and IID, numbered from 0 where the
// source has no IDs (plain dosage arrays).
struct SampleIds {
  bool has_fid = false;
  std::vector<std::string> fid, iid;
  static SampleIds of(const io::SampleInfo& s, int64_t n) {
    SampleIds ids;
    ids.iid = static_cast<int64_t>(s.id.size()) == n ? s.id : std::vector<std::string>{};
    for (int64_t i = static_cast<int64_t>(ids.iid.size()); i < n; ++i) ids.iid.push_back(std::to_string(i));
    ids.has_fid = static_cast<int64_t>(s.family_id.size()) == n && n > 0;
    if (ids.has_fid) ids.fid = s.family_id;
    return ids;
  }
  // "FID\tIID" or "IID" of sample i.
  std::string columns(int64_t i) const {
    const auto k = static_cast<size_t>(i);
    return has_fid ? fid[k] + '\t' + iid[k] : iid[k];
  }
};

// The genotypes of `input` for a pairwise command (`what`: "kinship needs", "distances need"; `calculation`
// names it where X, Y and MT are skipped, as plink2 does): InvalidData naming the input when it has fewer
// than two samples (there is no pair).
inline Result<io::GenotypeViewPtr> open_pairwise_genotypes(const Context& ctx, const std::string& input,
                                                          SelectionOptions selection, const char* what,
                                                          const char* calculation, SelectionReport* report) {
  selection.skip_non_autosomes_for = calculation;
  STRATA_ASSIGN_OR_RETURN(Selection sel, open_selected_genotypes(ctx, input, selection));
  *report = std::move(sel.report);
  io::GenotypeViewPtr view = std::move(sel.view);
  const int64_t n = view->num_samples();
  if (n < 2)
    return Status::InvalidData(input, ": ", n, n == 1 ? " sample" : " samples", ": ", what,
                               " at least two samples (there is no pair)");
  return view;
}

// A file written through a large buffer; errors name the path.
class TextWriter {
 public:
  static Result<TextWriter> open(const std::string& path) {
    TextWriter w;
    w.path_ = path;
    w.f_ = std::fopen(path.c_str(), "wb");
    if (!w.f_) return Status::IOError("cannot open ", path, " for writing");
    w.buf_.reserve(kFlush + 4096);
    return w;
  }
  TextWriter() = default;
  TextWriter(TextWriter&& o) noexcept : f_(o.f_), path_(std::move(o.path_)), buf_(std::move(o.buf_)) { o.f_ = nullptr; }
  TextWriter& operator=(TextWriter&& o) noexcept {
    std::swap(f_, o.f_);
    std::swap(path_, o.path_);
    std::swap(buf_, o.buf_);
    return *this;
  }
  ~TextWriter() {
    if (f_) std::fclose(f_);
  }
  void put(std::string_view s) { buf_.append(s); }
  void put(char c) { buf_.push_back(c); }
  Status maybe_flush() { return buf_.size() >= kFlush ? flush() : Status::OK(); }
  Status flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size())
      return Status::IOError("cannot write ", path_, " (disk full?)");
    buf_.clear();
    return Status::OK();
  }
  Status close() {
    STRATA_RETURN_NOT_OK(flush());
    const int rc = std::fclose(f_);
    f_ = nullptr;
    if (rc != 0) return Status::IOError("cannot write ", path_, " (disk full?)");
    return Status::OK();
  }

 private:
  static constexpr size_t kFlush = size_t{1} << 20;
  std::FILE* f_ = nullptr;
  std::string path_;
  std::string buf_;
};

}  // namespace strata::genomics::detail
