#include "strata/io/npy.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

namespace strata::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string errno_text() { return std::strerror(errno); }

// Value of `key` in the header dict literal, up to the next top-level comma or closing brace.
Result<std::string> dict_value(std::string_view dict, std::string_view key, const std::string& path) {
  std::string quoted1 = str_cat("'", key, "'"), quoted2 = str_cat("\"", key, "\"");
  size_t pos = dict.find(quoted1);
  size_t klen = quoted1.size();
  if (pos == std::string_view::npos) pos = dict.find(quoted2);
  if (pos == std::string_view::npos) return Status::Corrupt(path, ": .npy header has no '", key, "' field");
  pos = dict.find(':', pos + klen);
  if (pos == std::string_view::npos) return Status::Corrupt(path, ": .npy header field '", key, "' has no value");
  ++pos;
  while (pos < dict.size() && dict[pos] == ' ') ++pos;
  size_t end = pos;
  int depth = 0;
  while (end < dict.size()) {
    char c = dict[end];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    ++end;
  }
  if (depth != 0 && end < dict.size()) ++end;
  return std::string(dict.substr(pos, end - pos));
}

Result<NpyHeader> parse_header(std::string_view dict, const std::string& path) {
  NpyHeader h;
  STRATA_ASSIGN_OR_RETURN(std::string descr, dict_value(dict, "descr", path));
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"'))
    return Status::Unsupported(path, ": .npy descr ", descr, " is not a simple dtype (structured arrays are not supported)");
  descr = descr.substr(1, descr.size() - 2);
  auto dt = DType::from_numpy(descr);
  if (!dt.ok()) return dt.status().with_context(path);
  h.dtype = *dt;
  STRATA_ASSIGN_OR_RETURN(std::string fo, dict_value(dict, "fortran_order", path));
  if (fo == "True") h.fortran_order = true;
  else if (fo == "False") h.fortran_order = false;
  else return Status::Corrupt(path, ": .npy fortran_order is '", fo, "'");
  STRATA_ASSIGN_OR_RETURN(std::string shape, dict_value(dict, "shape", path));
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return Status::Corrupt(path, ": .npy shape '", shape, "' is not a tuple");
  std::string_view inner(shape);
  inner = inner.substr(1, inner.size() - 2);
  size_t pos = 0;
  while (pos < inner.size()) {
    while (pos < inner.size() && (inner[pos] == ' ' || inner[pos] == ',')) ++pos;
    if (pos >= inner.size()) break;
    int64_t v = 0;
    size_t start = pos;
    while (pos < inner.size() && inner[pos] >= '0' && inner[pos] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return Status::Corrupt(path, ": .npy shape overflows");
      v = v * 10 + (inner[pos++] - '0');
    }
    if (pos == start) return Status::Corrupt(path, ": .npy shape '", shape, "' is malformed");
    h.shape.push_back(v);
  }
  STRATA_RETURN_NOT_OK(shape_numel(h.shape));
  return h;
}

}  // namespace

Result<NpyReader> NpyReader::open(const std::string& path) {
  NpyReader r;
  r.path_ = path;
  r.file_ = std::fopen(path.c_str(), "rb");
  if (!r.file_) return Status::IOError("cannot open ", path, ": ", errno_text());
  uint8_t pre[10];
  if (std::fread(pre, 1, 10, r.file_) != 10 || std::memcmp(pre, kMagic, 6) != 0)
    return Status::Corrupt(path, ": not a .npy file (bad magic)");
  int major = pre[6];
  int64_t hlen;
  int64_t prefix;
  if (major == 1) {
    hlen = pre[8] | (pre[9] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    uint8_t extra[2];
    if (std::fread(extra, 1, 2, r.file_) != 2) return Status::Corrupt(path, ": truncated .npy header");
    hlen = static_cast<int64_t>(pre[8]) | (static_cast<int64_t>(pre[9]) << 8) |
           (static_cast<int64_t>(extra[0]) << 16) | (static_cast<int64_t>(extra[1]) << 24);
    prefix = 12;
  } else {
    return Status::Unsupported(path, ": .npy format version ", major, " is not supported");
  }
  if (hlen <= 0 || hlen > (1 << 24)) return Status::Corrupt(path, ": .npy header length ", hlen, " is implausible");
  std::string dict(static_cast<size_t>(hlen), '\0');
  if (std::fread(dict.data(), 1, dict.size(), r.file_) != dict.size())
    return Status::Corrupt(path, ": truncated .npy header");
  STRATA_ASSIGN_OR_RETURN(r.header_, parse_header(dict, path));
  r.header_.data_offset = prefix + hlen;
  if (r.header_.fortran_order && r.header_.shape.size() > 1)
    return Status::Unsupported(path, ": Fortran-order .npy is not supported; save it with numpy.ascontiguousarray first");
  STRATA_ASSIGN_OR_RETURN(int64_t numel, shape_numel(r.header_.shape));
  STRATA_ASSIGN_OR_RETURN(int64_t nbytes, checked_mul(numel, r.header_.dtype.itemsize()));
  if (std::fseek(r.file_, 0, SEEK_END) != 0) return Status::IOError(path, ": ", errno_text());
  int64_t size = std::ftell(r.file_);
  if (size < r.header_.data_offset + nbytes)
    return Status::Corrupt(path, ": .npy file is truncated: header promises ", nbytes, " data bytes, file has ",
                           size - r.header_.data_offset);
  std::fseek(r.file_, r.header_.data_offset, SEEK_SET);
  return r;
}

NpyReader::NpyReader(NpyReader&& o) noexcept : path_(std::move(o.path_)), header_(o.header_), file_(o.file_) {
  o.file_ = nullptr;
}
NpyReader& NpyReader::operator=(NpyReader&& o) noexcept {
  if (this != &o) {
    if (file_) std::fclose(file_);
    path_ = std::move(o.path_);
    header_ = o.header_;
    file_ = o.file_;
    o.file_ = nullptr;
  }
  return *this;
}
NpyReader::~NpyReader() {
  if (file_) std::fclose(file_);
}

Status NpyReader::read(void* out, int64_t count) {
  STRATA_ASSIGN_OR_RETURN(int64_t nbytes, checked_mul(count, header_.dtype.itemsize()));
  if (std::fread(out, 1, static_cast<size_t>(nbytes), file_) != static_cast<size_t>(nbytes))
    return Status::IOError(path_, ": short read");
  if (header_.dtype.needs_swap()) byteswap_inplace(out, count, header_.dtype.itemsize());
  return Status::OK();
}

Result<NpyWriter> NpyWriter::create(const std::string& path, DType dtype, const Shape& shape, OutputRules rules) {
  NpyWriter w;
  w.path_ = path;
  w.dtype_ = dtype.native();
  STRATA_ASSIGN_OR_RETURN(w.expected_, shape_numel(shape));
  STRATA_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::begin(path, std::move(rules)));
  w.out_ = std::make_unique<AtomicFile>(std::move(out));
  w.tmp_path_ = w.out_->path();
  w.file_ = std::fopen(w.tmp_path_.c_str(), "wb");
  if (!w.file_) return Status::IOError("cannot create ", w.path_, ": ", errno_text());
  std::string dict = str_cat("{'descr': '", w.dtype_.numpy_str(), "', 'fortran_order': False, 'shape': (");
  for (size_t i = 0; i < shape.size(); ++i) dict += str_cat(shape[i], shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  dict += "), }";
  // Pad so that the data starts on a 64-byte boundary, header ends with '\n'.
  int64_t prefix = 10;
  bool v2 = dict.size() + 1 + prefix > 65535;
  if (v2) prefix = 12;
  int64_t total = prefix + static_cast<int64_t>(dict.size()) + 1;
  int64_t padded = (total + 63) / 64 * 64;
  dict.append(static_cast<size_t>(padded - total), ' ');
  dict.push_back('\n');
  std::string head(kMagic, 6);
  head.push_back(static_cast<char>(v2 ? 2 : 1));
  head.push_back(0);
  int64_t hlen = static_cast<int64_t>(dict.size());
  head.push_back(static_cast<char>(hlen & 0xff));
  head.push_back(static_cast<char>((hlen >> 8) & 0xff));
  if (v2) {
    head.push_back(static_cast<char>((hlen >> 16) & 0xff));
    head.push_back(static_cast<char>((hlen >> 24) & 0xff));
  }
  head += dict;
  if (std::fwrite(head.data(), 1, head.size(), w.file_) != head.size())
    return Status::IOError("cannot write ", w.path_, ": ", errno_text());
  return w;
}

NpyWriter::NpyWriter(NpyWriter&& o) noexcept
    : path_(std::move(o.path_)), tmp_path_(std::move(o.tmp_path_)), out_(std::move(o.out_)), dtype_(o.dtype_),
      expected_(o.expected_), written_(o.written_), file_(o.file_) {
  o.file_ = nullptr;
  o.tmp_path_.clear();
}
NpyWriter& NpyWriter::operator=(NpyWriter&& o) noexcept {
  if (this != &o) {
    this->~NpyWriter();
    new (this) NpyWriter(std::move(o));
  }
  return *this;
}
NpyWriter::~NpyWriter() {
  if (file_) std::fclose(file_);  // out_'s destructor removes the staged file
}

Status NpyWriter::write(const void* data, int64_t count) {
  if (!file_) return Status::Invalid("npy writer for ", path_, " is closed");
  if (written_ + count > expected_) return Status::Invalid(path_, ": writing more elements than the shape holds");
  size_t nbytes = static_cast<size_t>(count * dtype_.itemsize());
  if (std::fwrite(data, 1, nbytes, file_) != nbytes) return Status::IOError("cannot write ", path_, ": ", errno_text());
  written_ += count;
  return Status::OK();
}

Status NpyWriter::finish() {
  if (!file_) return Status::Invalid("npy writer for ", path_, " is closed");
  if (written_ != expected_)
    return Status::Internal(path_, ": wrote ", written_, " of ", expected_, " elements");
  int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return Status::IOError("cannot write ", path_, ": ", errno_text());
  return out_->commit();
}

}  // namespace strata::io
