// run_grm_to_files: declare the outputs (one OutputSet), stream compute_grm()'s tiles into
// them, commit.
#include "strata/genomics/grm_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "io/zarr/metadata_json_internal.hpp"
#include "strata/core/job.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::genomics {
namespace {


// Powers of ten that are exact doubles (10^0 … 10^22).
constexpr double kExactPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// An open staged file written with pwrite at explicit offsets.
class PositionalFile {
 public:
  static Result<PositionalFile> open(const std::string& path) {
    PositionalFile f;
    f.path_ = path;
    f.fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (f.fd_ < 0) return Status::IOError("cannot open ", path, " for writing: ", std::strerror(errno));
    return f;
  }
  PositionalFile() = default;
  PositionalFile(PositionalFile&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) { o.fd_ = -1; }
  PositionalFile& operator=(PositionalFile&& o) noexcept {
    std::swap(path_, o.path_);
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~PositionalFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status write_at(const void* data, int64_t bytes, int64_t offset) const {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
      const ssize_t w = ::pwrite(fd_, p, static_cast<size_t>(bytes), offset);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return Status::IOError("cannot write ", path_, ": ", std::strerror(errno));
      p += w;
      bytes -= w;
      offset += w;
    }
    return Status::OK();
  }
  Status close() {
    const int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) return Status::IOError("cannot write ", path_, ": ", std::strerror(errno));
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string rel_id_text(const io::SampleInfo& s) {
  const bool fid = s.family_id.size() == s.id.size();
  std::string out = fid ? "#FID\tIID\n" : "#IID\n";
  for (size_t i = 0; i < s.id.size(); ++i) {
    if (fid) out += s.family_id[i] + '\t';
    out += s.id[i] + '\n';
  }
  return out;
}

std::string grm_id_text(const io::SampleInfo& s) {
  const bool fid = s.family_id.size() == s.id.size();
  std::string out;
  for (size_t i = 0; i < s.id.size(); ++i) out += (fid ? s.family_id[i] : std::string("0")) + '\t' + s.id[i] + '\n';
  return out;
}

Status write_text_file(const std::string& path, std::string_view text) {
  STRATA_ASSIGN_OR_RETURN(PositionalFile f, PositionalFile::open(path));
  STRATA_RETURN_NOT_OK(f.write_at(text.data(), static_cast<int64_t>(text.size()), 0));
  return f.close();
}

}  // namespace

Result<GrmFormat> parse_grm_format(const std::string& name) {
  if (name == "rel") return GrmFormat::Rel;
  if (name == "rel-bin") return GrmFormat::RelBin;
  if (name == "grm-bin") return GrmFormat::GrmBin;
  if (name == "zarr") return GrmFormat::Zarr;
  return Status::Invalid("--format must be rel, rel-bin, grm-bin or zarr, got '", name, "'");
}

const char* grm_format_name(GrmFormat format) {
  switch (format) {
    case GrmFormat::Rel: return "rel";
    case GrmFormat::RelBin: return "rel-bin";
    case GrmFormat::GrmBin: return "grm-bin";
    case GrmFormat::Zarr: return "zarr";
  }
  return "?";
}

char* format_grm_value(double x, char* out) {
  if (!std::isfinite(x) || x == 0.0) {
    const int len = std::snprintf(out, 16, "%g", x);
    return out + len;
  }
  // Six significant digits: d = round(|x| · 10^(5 − e)) with e the decimal exponent, using
  // exact powers of ten (one rounding); outside their range, printf.
  const double a = std::fabs(x);
  int e = static_cast<int>(std::floor(std::log10(a)));
  auto scaled = [&](int exp10) -> double {
    const int s = 5 - exp10;
    return s >= 0 ? a * kExactPow10[s] : a / kExactPow10[-s];
  };
  if (5 - e > 22 || e - 5 > 22) {
    const int len = std::snprintf(out, 16, "%g", x);
    return out + len;
  }
  auto printf_g = [&]() {
    const int len = std::snprintf(out, 16, "%g", x);
    return out + len;
  };
  // A scaled value within rounding of a half: the product's own rounding may have decided the
  // tie, so let printf round the exact value.
  auto near_half = [](double v) { return std::fabs(v - std::floor(v) - 0.5) < 1e-9 * std::max(1.0, v); };
  if (near_half(scaled(e))) return printf_g();
  double d = std::nearbyint(scaled(e));
  if (d >= 1e6) {  // log10 rounded down, or the rounding carried into a new digit
    ++e;
    if (5 - e < -22) {
      const int len = std::snprintf(out, 16, "%g", x);
      return out + len;
    }
    if (near_half(scaled(e))) return printf_g();
    d = std::nearbyint(scaled(e));
  } else if (d < 1e5) {
    --e;
    if (5 - e > 22) {
      const int len = std::snprintf(out, 16, "%g", x);
      return out + len;
    }
    if (near_half(scaled(e))) return printf_g();
    d = std::nearbyint(scaled(e));
    if (d >= 1e6) {
      ++e;
      d = 1e5;
    }
  }
  auto digits = static_cast<int64_t>(d);  // 100000 … 999999
  char dig[6];
  for (int i = 5; i >= 0; --i) {
    dig[i] = static_cast<char>('0' + digits % 10);
    digits /= 10;
  }
  int last = 5;  // trailing zeros are dropped, as %g does
  while (last > 0 && dig[last] == '0') --last;
  char* p = out;
  if (x < 0) *p++ = '-';
  if (e < -4 || e >= 6) {
    *p++ = dig[0];
    if (last > 0) {
      *p++ = '.';
      for (int i = 1; i <= last; ++i) *p++ = dig[i];
    }
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    const int ae = std::abs(e);
    if (ae >= 100) *p++ = static_cast<char>('0' + ae / 100);
    *p++ = static_cast<char>('0' + (ae / 10) % 10);
    *p++ = static_cast<char>('0' + ae % 10);
    return p;
  }
  if (e < 0) {
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -e - 1; ++i) *p++ = '0';
    for (int i = 0; i <= last; ++i) *p++ = dig[i];
    return p;
  }
  for (int i = 0; i <= e; ++i) *p++ = dig[i];
  if (last > e) {
    *p++ = '.';
    for (int i = e + 1; i <= last; ++i) *p++ = dig[i];
  }
  return p;
}

Result<GrmRunSummary> run_grm_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                       const GrmRunOptions& options) {
  if (prefix.empty()) return Status::Invalid("grm: no output prefix");
  // Under MPI the ranks share the GRM's tiles (compute_grm); rank 0 alone declares, writes and
  // commits the outputs, after every rank agrees.
  Job job(ctx, "grm", input, prefix);
  PhaseTimer open = job.phase("open");
  const bool writer = job.writer();
  const GrmFormat format = options.format;
  const std::string first = format == GrmFormat::Rel      ? prefix + ".rel"
                            : format == GrmFormat::RelBin ? prefix + ".rel.bin"
                            : format == GrmFormat::GrmBin ? prefix + ".grm.bin"
                                                          : prefix + ".zarr";
  std::string main_path, count_path, id_path;
  OutputRules rules;
  rules.overwrite = options.overwrite;
  rules.inputs = options.selection.files();
  STRATA_RETURN_NOT_OK(job.declare(first, std::move(rules), [&](OutputSet& out) -> Status {
    if (format == GrmFormat::Zarr) {
      STRATA_ASSIGN_OR_RETURN(main_path, out.add_directory(first));
    } else {
      STRATA_ASSIGN_OR_RETURN(main_path, out.add_file(first));
      if (format == GrmFormat::GrmBin) {
        STRATA_ASSIGN_OR_RETURN(count_path, out.add_file(prefix + ".grm.N.bin"));
        STRATA_ASSIGN_OR_RETURN(id_path, out.add_file(prefix + ".grm.id"));
      } else {
        STRATA_ASSIGN_OR_RETURN(id_path, out.add_file(prefix + ".rel.id"));
      }
    }
    return Status::OK();
  }));
  SelectionOptions selection = options.selection;
  selection.skip_non_autosomes_for = "GRM construction";  // plink2 --make-rel/--make-grm-bin skip X, Y and MT
  auto selected = open_selected_genotypes(ctx, input, selection);
  STRATA_RETURN_NOT_OK(job.agree(selected.status()));
  const io::GenotypeViewPtr view = selected->view;
  const int64_t n = view->num_samples();
  open.stop();

  PositionalFile main_file, count_file;
  std::shared_ptr<io::LocalStore> store;
  io::ZarrArray grm_array, count_array;
  bool count_array_made = false;
  const int64_t tile = grm_tile(n, options.grm.tile);
  auto open_outputs = [&]() -> Status {
    if (format != GrmFormat::Zarr) {
      STRATA_ASSIGN_OR_RETURN(main_file, PositionalFile::open(main_path));
      if (format == GrmFormat::GrmBin) {
        STRATA_ASSIGN_OR_RETURN(count_file, PositionalFile::open(count_path));
      }
    } else if (n >= 2) {
      STRATA_ASSIGN_OR_RETURN(store, io::LocalStore::open(main_path, true));
      io::ZarrCreateOptions zo;
      zo.shape = {n, n};
      zo.chunks = {std::min(tile, n), std::min(tile, n)};
      zo.dtype = DType(ScalarType::Float64);
      zo.dimension_names = {"samples_0", "samples_1"};
      auto codec = io::parse_codec_spec("blosc:zstd:3:shuffle", 8);
      if (codec.ok()) zo.compressor = std::shared_ptr<const io::BytesCodec>(std::move(*codec));
      STRATA_ASSIGN_OR_RETURN(grm_array, io::ZarrArray::create(store, "grm", zo));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.agree(writer ? open_outputs() : Status::OK()));

  // Text: one tile row of the lower triangle is buffered (rows × its width), then emitted.
  std::vector<double> band_rows;
  int64_t text_offset = 0;
  std::vector<std::string> lines;
  std::vector<float> f32;
  std::vector<double> mirror;
  auto sink = [&](const GrmTile& tl) -> Status {
    const int64_t width = tl.row0 + tl.rows;  // lower row i spans columns 0..i ≤ width − 1
    switch (format) {
      case GrmFormat::Rel: {
        if (tl.col0 == 0) band_rows.assign(static_cast<size_t>(tl.rows * width), 0.0);
        for (int64_t i = 0; i < tl.rows; ++i)
          std::memcpy(band_rows.data() + i * width + tl.col0, tl.values + i * tl.cols,
                      static_cast<size_t>(tl.cols) * sizeof(double));
        if (tl.row0 != tl.col0) return Status::OK();  // the diagonal tile ends the tile row
        // The rows' text is formatted side by side on the workers (the sink runs between
        // passes), then written in row order.
        lines.resize(static_cast<size_t>(tl.rows));
        STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(tl.rows, [&](int64_t i) -> Status {
          std::string& line = lines[static_cast<size_t>(i)];
          line.clear();
          char buf[32];
          const double* row = band_rows.data() + i * width;
          for (int64_t j = 0; j <= tl.row0 + i; ++j) {
            char* e = format_grm_value(row[j], buf);
            *e++ = j == tl.row0 + i ? '\n' : '\t';
            line.append(buf, e);
          }
          return Status::OK();
        }));
        for (const std::string& line : lines) {
          STRATA_RETURN_NOT_OK(main_file.write_at(line.data(), static_cast<int64_t>(line.size()), text_offset));
          text_offset += static_cast<int64_t>(line.size());
        }
        return Status::OK();
      }
      case GrmFormat::RelBin: {
        for (int64_t i = 0; i < tl.rows; ++i)
          STRATA_RETURN_NOT_OK(main_file.write_at(tl.values + i * tl.cols, tl.cols * 8,
                                                  ((tl.row0 + i) * n + tl.col0) * 8));
        if (tl.row0 == tl.col0) return Status::OK();
        mirror.resize(static_cast<size_t>(tl.rows));
        for (int64_t j = 0; j < tl.cols; ++j) {
          for (int64_t i = 0; i < tl.rows; ++i) mirror[static_cast<size_t>(i)] = tl.values[i * tl.cols + j];
          STRATA_RETURN_NOT_OK(main_file.write_at(mirror.data(), tl.rows * 8, ((tl.col0 + j) * n + tl.row0) * 8));
        }
        return Status::OK();
      }
      case GrmFormat::GrmBin: {
        for (int64_t i = 0; i < tl.rows; ++i) {
          const int64_t r = tl.row0 + i;
          const int64_t len = std::min(tl.cols, r - tl.col0 + 1);
          if (len <= 0) continue;
          const int64_t offset = (r * (r + 1) / 2 + tl.col0) * 4;
          f32.resize(static_cast<size_t>(len));
          for (int64_t j = 0; j < len; ++j) f32[static_cast<size_t>(j)] = static_cast<float>(tl.values[i * tl.cols + j]);
          STRATA_RETURN_NOT_OK(main_file.write_at(f32.data(), len * 4, offset));
          if (!tl.counts) continue;  // every pair observes all M variants: written after the pass
          for (int64_t j = 0; j < len; ++j) f32[static_cast<size_t>(j)] = static_cast<float>(tl.counts[i * tl.cols + j]);
          STRATA_RETURN_NOT_OK(count_file.write_at(f32.data(), len * 4, offset));
        }
        return Status::OK();
      }
      case GrmFormat::Zarr: {
        STRATA_RETURN_NOT_OK(grm_array.write_region({tl.row0, tl.col0}, {tl.rows, tl.cols}, tl.values));
        if (tl.row0 != tl.col0) {
          mirror.resize(static_cast<size_t>(tl.rows * tl.cols));
          for (int64_t i = 0; i < tl.rows; ++i)
            for (int64_t j = 0; j < tl.cols; ++j)
              mirror[static_cast<size_t>(j * tl.rows + i)] = tl.values[i * tl.cols + j];
          STRATA_RETURN_NOT_OK(grm_array.write_region({tl.col0, tl.row0}, {tl.cols, tl.rows}, mirror.data()));
        }
        if (tl.counts) {
          if (!count_array_made) {
            io::ZarrCreateOptions zo;
            zo.shape = {n, n};
            zo.chunks = {std::min(tile, n), std::min(tile, n)};
            zo.dtype = DType(ScalarType::Float32);
            zo.dimension_names = {"samples_0", "samples_1"};
            STRATA_ASSIGN_OR_RETURN(count_array, io::ZarrArray::create(store, "pair_count", zo));
            count_array_made = true;
          }
          std::vector<float> c(static_cast<size_t>(tl.rows * tl.cols)), ct(c.size());
          for (int64_t i = 0; i < tl.rows; ++i)
            for (int64_t j = 0; j < tl.cols; ++j) {
              c[static_cast<size_t>(i * tl.cols + j)] = static_cast<float>(tl.counts[i * tl.cols + j]);
              ct[static_cast<size_t>(j * tl.rows + i)] = c[static_cast<size_t>(i * tl.cols + j)];
            }
          STRATA_RETURN_NOT_OK(count_array.write_region({tl.row0, tl.col0}, {tl.rows, tl.cols}, c.data()));
          if (tl.row0 != tl.col0)
            STRATA_RETURN_NOT_OK(count_array.write_region({tl.col0, tl.row0}, {tl.cols, tl.rows}, ct.data()));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  };
  GrmRunSummary s;
  s.selection = selected->report;
  STRATA_ASSIGN_OR_RETURN(s.info, compute_grm(ctx, view, options.grm, sink));
  PhaseTimer write = job.phase("write");
  const io::SampleInfo& samples = view->samples();
  auto finish = [&]() -> Status {
    if (format == GrmFormat::GrmBin && !s.info.pairwise_counts) {
      // Every pair observed all M variants: the counts file is M repeated.
      const int64_t cells = n * (n + 1) / 2, chunk = int64_t{1} << 16;
      std::vector<float> fill(static_cast<size_t>(std::min(cells, chunk)), static_cast<float>(s.info.grm_variants));
      for (int64_t c0 = 0; c0 < cells; c0 += chunk) {
        const int64_t len = std::min(chunk, cells - c0);
        STRATA_RETURN_NOT_OK(count_file.write_at(fill.data(), len * 4, c0 * 4));
      }
    }
    if (format == GrmFormat::Zarr) {
      std::vector<std::string> ids = samples.id;
      STRATA_RETURN_NOT_OK(io::write_zarr_strings(store, "sample_id", ids, "samples"));
      const nlohmann::json attrs = {{"source", input},
                                    {"definition", "plink2 --make-rel: mean of products of standardized genotypes "
                                                   "(g - 2f) / sqrt(2f(1 - f)) over variants both samples observe"},
                                    {"meanimpute", options.grm.meanimpute},
                                    {"num_samples", n},
                                    {"grm_variants", s.info.grm_variants},
                                    {"pairwise_counts", s.info.pairwise_counts}};
      STRATA_RETURN_NOT_OK(io::zarr_create_group(store, "", io::ZarrFormat::V2, io::detail::dump_compact(attrs)));
      STRATA_RETURN_NOT_OK(io::zarr_consolidate(store, ""));
    } else {
      STRATA_RETURN_NOT_OK(main_file.close());
      if (format == GrmFormat::GrmBin) STRATA_RETURN_NOT_OK(count_file.close());
      STRATA_RETURN_NOT_OK(write_text_file(id_path, format == GrmFormat::GrmBin ? grm_id_text(samples)
                                                                                 : rel_id_text(samples)));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(writer ? finish() : Status::OK()));
  write.stop();
  s.files = job.files();
  const GrmInfo& i = s.info;
  Summary& r = job.summary();
  r.set("format", grm_format_name(format)).set("meanimpute", options.grm.meanimpute);
  r.set("samples", i.num_samples).set("variants_input", i.num_variants_input).set("grm_variants", i.grm_variants);
  r.set("dropped_missing", i.filter.dropped_missing).set("dropped_maf", i.filter.dropped_maf);
  r.set("pairwise_counts", i.pairwise_counts).set("bands", i.bands).set("tile", i.tile);
  s.selection.add_to(r);
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
