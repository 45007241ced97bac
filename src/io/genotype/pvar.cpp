// PLINK 2 `.pvar` / `.pvar.zst` parsing (pgen_spec "PVAR Format Specification").
#include <zstd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "io/genotype/text_reader_internal.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/pgen.hpp"

namespace strata::io {
namespace {

// Lines of a text held in memory (a decompressed `.pvar.zst`), with LineReader's interface.
class MemoryLines {
 public:
  explicit MemoryLines(std::string text) : text_(std::move(text)) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const size_t nl = text_.find('\n', pos_);
    const size_t stop = nl == std::string::npos ? text_.size() : nl;
    line = std::string_view(text_).substr(pos_, stop - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl == std::string::npos ? text_.size() : nl + 1;
    ++line_no_;
    return true;
  }
  int64_t line_no() const { return line_no_; }
  Status status() const { return Status::OK(); }

 private:
  std::string text_;
  size_t pos_ = 0;
  int64_t line_no_ = 0;
};

Result<std::string> read_zstd_file(const std::string& path) {
  STRATA_RETURN_NOT_OK(detail::check_text_input(path, false));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::IOError(path, ": cannot open: ", std::strerror(errno));
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  std::string out;
  std::vector<char> in(ZSTD_DStreamInSize()), buf(ZSTD_DStreamOutSize());
  size_t last = 0;
  while (size_t got = std::fread(in.data(), 1, in.size(), f.get())) {
    ZSTD_inBuffer input{in.data(), got, 0};
    while (input.pos < input.size) {
      ZSTD_outBuffer output{buf.data(), buf.size(), 0};
      last = ZSTD_decompressStream(dctx.get(), &output, &input);
      if (ZSTD_isError(last)) return Status::Corrupt(path, ": not a valid zstd stream: ", ZSTD_getErrorName(last));
      out.append(buf.data(), output.pos);
    }
  }
  if (std::ferror(f.get())) return Status::IOError(path, ": read failed: ", std::strerror(errno));
  if (last != 0) return Status::Corrupt(path, ": zstd stream is truncated");
  return out;
}

// Column positions of a .pvar body line (-1: absent).
struct PvarColumns {
  int chrom = 0, pos = 3, id = 1, ref = 5, alt = 4, cm = 2;
  int count = 6;  // columns a line must have at least
};

Result<PvarColumns> parse_header(const std::string& path, int64_t line_no, std::string_view line) {
  PvarColumns c{-1, -1, -1, -1, -1, -1, 0};
  line.remove_prefix(1);
  const std::vector<std::string_view> names = detail::split_all(line);
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string_view name = names[k];
    if (name == "FORMAT") break;  // a VCF header: the sample columns follow
    int* slot = name == "CHROM" ? &c.chrom : name == "POS" ? &c.pos : name == "ID" ? &c.id
              : name == "REF" ? &c.ref : name == "ALT" ? &c.alt : name == "CM" ? &c.cm : nullptr;
    if (!slot && name != "QUAL" && name != "FILTER" && name != "INFO")
      return Status::Corrupt(path, " line ", line_no, ": unknown .pvar column '", name, "'");
    if (slot) {
      if (*slot >= 0) return Status::Corrupt(path, " line ", line_no, ": header names column '", name, "' twice");
      *slot = static_cast<int>(k);
    }
    c.count = static_cast<int>(k) + 1;
  }
  for (auto [col, name] : {std::pair{c.chrom, "CHROM"}, {c.pos, "POS"}, {c.ref, "REF"}, {c.alt, "ALT"}})
    if (col < 0) return Status::Corrupt(path, " line ", line_no, ": the #CHROM header has no ", name, " column");
  return c;
}

template <class Lines>
Result<BimTable> parse_pvar(const std::string& path, Lines& r) {
  BimTable t;
  std::unordered_map<std::string, int32_t> contig_index;
  VariantInfo& v = t.variants;
  PvarColumns cols;
  bool header = false, first = true;
  std::string_view line;
  std::vector<std::string_view> tok(8);
  while (r.next(line)) {
    if (detail::is_blank(line)) continue;
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .pvar file?)");
    if (line[0] == '#') {
      if (v.size() > 0 || header)
        return Status::Corrupt(path, " line ", r.line_no(), ": a '#' line after the #CHROM header");
      if (line.substr(0, 6) == "#CHROM") {
        STRATA_ASSIGN_OR_RETURN(cols, parse_header(path, r.line_no(), line));
        header = true;
        tok.resize(static_cast<size_t>(cols.count) + 1);
      }
      continue;  // `##` meta lines
    }
    const int n = detail::split_ws(line, tok.data(), static_cast<int>(tok.size()));
    if (first && !header && n == 5) cols = PvarColumns{0, 2, 1, 4, 3, -1, 5};  // .bim without cM
    first = false;
    if (n < cols.count)
      return Status::Corrupt(path, " line ", r.line_no(), ": expected ", cols.count, " columns, found ", n);
    double cm_value = 0.0;
    if (cols.cm >= 0) {
      const std::string_view s = tok[cols.cm];
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), cm_value);
      if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(cm_value))
        return Status::Corrupt(path, " line ", r.line_no(), ": CM column '", s, "' is not a finite number");
    }
    int64_t pos = 0;
    const std::string_view ps = tok[cols.pos];
    auto [pp, pec] = std::from_chars(ps.data(), ps.data() + ps.size(), pos);
    if (pec != std::errc() || pp != ps.data() + ps.size())
      return Status::Corrupt(path, " line ", r.line_no(), ": position '", ps, "' is not an integer");
    if (pos > kMaxBimPosition)
      return Status::Corrupt(path, " line ", r.line_no(), ": position ", pos, " is above plink2's limit (",
                             kMaxBimPosition, ")");
    if (pos < 0) ++t.negative_positions;
    const std::string_view chrom = tok[cols.chrom];
    if (chromosome_code(chrom) > 26)
      return Status::Corrupt(path, " line ", r.line_no(), ": chromosome code '", chrom, "' is not a human chromosome "
                             "(1-22, X/23, Y/24, XY/25, MT/26; other contigs need names that are not numbers)");
    auto it = contig_index.find(std::string(chrom));
    if (it == contig_index.end()) {
      it = contig_index.emplace(std::string(chrom), static_cast<int32_t>(t.contigs.size())).first;
      t.contigs.emplace_back(chrom);
    }
    v.contig.push_back(it->second);
    v.position.push_back(pos);
    v.id.emplace_back(cols.id >= 0 ? tok[cols.id] : std::string_view("."));
    v.ref.emplace_back(tok[cols.ref]);
    v.alt.emplace_back(tok[cols.alt]);
    v.cm.push_back(cm_value);
  }
  STRATA_RETURN_NOT_OK(r.status());
  return t;
}

}  // namespace

Result<BimTable> read_pvar(const std::string& path) {
  if (path.ends_with(".zst")) {
    STRATA_ASSIGN_OR_RETURN(std::string text, read_zstd_file(path));
    MemoryLines lines(std::move(text));
    return parse_pvar(path, lines);
  }
  detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path));
  return parse_pvar(path, r);
}

}  // namespace strata::io
