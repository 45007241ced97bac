// BgzfRounds (bgzf_rounds_internal.hpp): BGZF blocks read a round at a time, inflated in
// parallel into one buffer (libdeflate when built with it, zlib otherwise), handed out as
// whole lines.
#include "io/genotype/bgzf_rounds_internal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <limits>

#if STRATA_HAVE_LIBDEFLATE
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

namespace strata::io::detail {
namespace {

constexpr uint32_t kMaxBlockText = 65536;
constexpr size_t kMaxBlockBytes = 65536;
constexpr size_t kHeaderBytes = 12, kFooterBytes = 8;

uint32_t le16(const uint8_t* p) { return p[0] | (uint32_t{p[1]} << 8); }
uint32_t le32(const uint8_t* p) { return le16(p) | (le16(p + 2) << 16); }

}  // namespace

#if STRATA_HAVE_LIBDEFLATE
struct BgzfRounds::Inflater {
  Inflater() : d(libdeflate_alloc_decompressor()) {}
  ~Inflater() { libdeflate_free_decompressor(d); }
  // False when the stream is invalid or does not inflate to exactly `out_bytes`.
  bool inflate(const uint8_t* in, size_t in_bytes, char* out, size_t out_bytes) {
    size_t got = 0;
    return libdeflate_deflate_decompress(d, in, in_bytes, out, out_bytes, &got) == LIBDEFLATE_SUCCESS && got == out_bytes;
  }
  static uint32_t crc(const char* p, size_t n) { return libdeflate_crc32(0, p, n); }
  libdeflate_decompressor* d;
};
#else
struct BgzfRounds::Inflater {
  Inflater() { ok = inflateInit2(&z, -15) == Z_OK; }
  ~Inflater() {
    if (ok) inflateEnd(&z);
  }
  bool inflate(const uint8_t* in, size_t in_bytes, char* out, size_t out_bytes) {
    if (!ok || inflateReset(&z) != Z_OK) return false;
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = static_cast<uInt>(in_bytes);
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(out_bytes);
    return ::inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_out == 0;
  }
  static uint32_t crc(const char* p, size_t n) {
    return static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n)));
  }
  z_stream z{};
  bool ok = false;
};
#endif

Result<std::unique_ptr<BgzfRounds>> BgzfRounds::open(const std::string& path, uint64_t virtual_offset,
                                                     size_t read_per_thread) {
  std::unique_ptr<BgzfRounds> r(new BgzfRounds());
  r->path_ = path;
  r->read_per_thread_ = std::max<size_t>(read_per_thread, 1);
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) return Status::IOError(path, ": cannot open: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(r->fd_, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::Unsupported(path, ": not a regular file, so its BGZF blocks cannot be read by offset");
  r->file_size_ = st.st_size;
  r->next_read_ = r->start_ = static_cast<int64_t>(virtual_offset >> 16);
  r->skip_ = static_cast<uint32_t>(virtual_offset & 0xFFFF);
  if (r->next_read_ > r->file_size_) return Status::Invalid(path, ": BGZF offset ", r->next_read_, " is past the end");
  return r;
}

BgzfRounds::~BgzfRounds() {
  if (fd_ >= 0) ::close(fd_);
}

// Reads about read_per_thread_ × min(threads, 4) more compressed bytes and lists the complete blocks in
// them; a malformed or cut block ends the list and becomes pending_.
void BgzfRounds::read_blocks(int threads) {
  comp_.erase(comp_.begin(), comp_.begin() + static_cast<std::ptrdiff_t>(comp_used_));
  comp_used_ = 0;
  // Enough for the round, and always enough to complete a block begun (BGZF blocks are at most 64 KiB).
  const size_t want = std::max(read_per_thread_ * static_cast<size_t>(std::min(threads, 4)), comp_.size() + kMaxBlockBytes);
  if (comp_.size() < want && next_read_ < file_size_) {
    const size_t had = comp_.size();
    const size_t n = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(want - had), file_size_ - next_read_));
    comp_.resize(had + n);
    size_t got = 0;
    while (got < n) {
      const ssize_t k = ::pread(fd_, comp_.data() + had + got, n - got, next_read_ + static_cast<int64_t>(got));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) {
        pending_ = Status::IOError(path_, ": read failed at byte ", next_read_ + static_cast<int64_t>(got), ": ",
                                   std::strerror(errno));
        break;
      }
      if (k == 0) {  // the file shrank while read
        file_size_ = next_read_ + static_cast<int64_t>(got);
        break;
      }
      got += static_cast<size_t>(k);
    }
    comp_.resize(had + got);
    next_read_ += static_cast<int64_t>(got);
  }
  const bool all_read = next_read_ >= file_size_;
  while (pending_.ok() && comp_used_ < comp_.size()) {
    const uint8_t* p = comp_.data() + comp_used_;
    const size_t left = comp_.size() - comp_used_;
    const int64_t at = next_read_ - static_cast<int64_t>(left);
    auto bad = [&](const std::string& what) { pending_ = Status::Corrupt(path_, ": BGZF block at byte ", at, ": ", what); };
    if (left < kHeaderBytes) {
      if (!all_read) break;
      bad("cut short (the file ends inside it)");
      break;
    }
    if (p[0] != 31 || p[1] != 139 || p[2] != 8 || (p[3] & 4) == 0) {
      bad("not a BGZF block (no gzip header with extra fields)");
      break;
    }
    const size_t xlen = le16(p + 10);
    if (kHeaderBytes + xlen > left) {
      if (!all_read) break;
      bad("cut short (the file ends inside it)");
      break;
    }
    size_t block_bytes = 0;
    for (size_t k = kHeaderBytes; k + 4 <= kHeaderBytes + xlen; k += 4 + le16(p + k + 2)) {
      if (p[k] == 66 && p[k + 1] == 67 && le16(p + k + 2) == 2 && k + 6 <= kHeaderBytes + xlen) {
        block_bytes = le16(p + k + 4) + size_t{1};
        break;
      }
    }
    if (block_bytes == 0) {
      bad("not a BGZF block (no BC field with its size)");
      break;
    }
    if (block_bytes < kHeaderBytes + xlen + kFooterBytes) {
      bad("its stated size " + std::to_string(block_bytes) + " is smaller than its header and footer");
      break;
    }
    if (block_bytes > left) {
      if (!all_read) break;
      bad("cut short (the file ends inside it)");
      break;
    }
    Block b;
    b.at = at;
    b.data = comp_used_ + kHeaderBytes + xlen;
    b.data_bytes = block_bytes - kHeaderBytes - xlen - kFooterBytes;
    b.crc = le32(p + block_bytes - 8);
    b.text_bytes = le32(p + block_bytes - 4);
    if (b.text_bytes > kMaxBlockText) {
      bad("its stated text size " + std::to_string(b.text_bytes) + " is over BGZF's 65536 bytes");
      break;
    }
    blocks_.push_back(b);
    comp_used_ += block_bytes;
  }
}

Status BgzfRounds::inflate(const Block& b, size_t skip, Inflater& z, char* scratch) {
  char* out = skip > 0 ? scratch : text_.data() + b.dest;
  const uint8_t* in = comp_.data() + b.data;
  if (!z.inflate(in, b.data_bytes, out, b.text_bytes))
    return Status::Corrupt(path_, ": BGZF block at byte ", b.at, ": its deflate data is damaged or does not inflate to ",
                           "the ", b.text_bytes, " bytes its footer states");
  if (Inflater::crc(out, b.text_bytes) != b.crc)
    return Status::Corrupt(path_, ": BGZF block at byte ", b.at, ": CRC-32 mismatch (the block is damaged)");
  if (skip > 0) std::memcpy(text_.data() + b.dest, scratch + skip, b.text_bytes - skip);
  return Status::OK();
}

Result<std::span<char>> BgzfRounds::next(int threads) {
  threads = std::max(1, threads);
  while (inflaters_.size() < static_cast<size_t>(threads)) inflaters_.push_back(std::make_unique<Inflater>());
  // The part line carried from the last round goes to the front.
  const size_t carry = text_end_ - carry_begin_;
  if (carry_begin_ > 0 && carry > 0) std::memmove(text_.data(), text_.data() + carry_begin_, carry);
  carry_begin_ = 0;
  text_end_ = carry;
  for (;;) {
    if (!pending_.ok()) return pending_;
    if (at_end_) {
      if (text_end_ == 0) return std::span<char>();
      text_[text_end_] = '\n';  // text_ keeps a spare byte after its text
      const size_t n = text_end_ + 1;
      text_end_ = 0;
      return std::span<char>(text_.data(), n);
    }
    blocks_.clear();
    read_blocks(threads);
    // Each block's place in the round, after the text carried.
    size_t end = text_end_;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const size_t skip = i == 0 ? skip_ : 0;
      if (skip > blocks_[i].text_bytes) {
        pending_ = Status::Corrupt(path_, ": BGZF block at byte ", blocks_[i].at, ": the start offset ", skip,
                                   " is past its ", blocks_[i].text_bytes, " bytes of text");
        blocks_.resize(i);
        break;
      }
      blocks_[i].dest = end;
      end += blocks_[i].text_bytes - skip;
    }
    if (text_.size() < end + 1) text_.resize(end + 1);
    // Inflate: thread t takes a contiguous run of blocks; the first failure in file order counts.
    const size_t nb = blocks_.size();
    const size_t nt = std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(nb, 1));
    std::vector<size_t> failed(nt, nb);
    std::vector<Status> why(nt);
    auto work = [&](size_t t) {
      std::vector<char> scratch;
      for (size_t i = nb * t / nt; i < nb * (t + 1) / nt; ++i) {
        const size_t skip = i == 0 ? skip_ : 0;
        if (skip > 0) scratch.resize(kMaxBlockText);
        Status s = inflate(blocks_[i], skip, *inflaters_[t], scratch.data());
        if (!s.ok()) {
          failed[t] = i;
          why[t] = std::move(s);
          return;
        }
      }
    };
    std::vector<std::future<void>> running;
    for (size_t t = 1; t < nt; ++t) running.push_back(std::async(std::launch::async, work, t));
    work(0);
    for (auto& f : running) f.get();
    skip_ = 0;
    for (size_t t = 0; t < nt; ++t)
      if (failed[t] < nb) {
        pending_ = std::move(why[t]);
        end = blocks_[failed[t]].dest;
        break;
      }
    const size_t searched = text_end_;
    text_end_ = end;
    if (pending_.ok() && next_read_ >= file_size_ && comp_used_ == comp_.size()) at_end_ = true;
    // The round ends after its last line end; the part line after it waits for the next round.
    const void* nl = ::memrchr(text_.data() + searched, '\n', end - searched);
    if (nl) {
      carry_begin_ = static_cast<size_t>(static_cast<const char*>(nl) - text_.data()) + 1;
      return std::span<char>(text_.data(), carry_begin_);
    }
  }
}

}  // namespace strata::io::detail
