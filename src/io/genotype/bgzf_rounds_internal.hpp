#pragma once
// A BGZF file read a round at a time (bgzf_rounds.cpp), for the VCF source's text path: each
// block's compressed and inflated sizes are in its own header and footer, so the place of every
// block's text in the round is known before any is inflated, and the blocks are inflated in
// parallel straight into one buffer. Each round hands out whole lines, which the caller parses
// in place; the part line at a round's end is carried into the next round. This replaces one
// hts_getline copy per line and the handoffs of htslib's decompression threads.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/core/result.hpp"

namespace strata::io::detail {

class BgzfRounds {
 public:
  /// Read the regular file `path` from `virtual_offset` (bgzf_tell's: the compressed offset of a
  /// block << 16 | the offset within its text), e.g. just after a header htslib has read.
  /// Each round reads about `read_per_thread` compressed bytes per thread, for at most four
  /// threads (fewer, longer rounds wait less at their ends; the cap bounds the round's buffer,
  /// ~12 MB of genotype text per MB, at any thread count).
  static Result<std::unique_ptr<BgzfRounds>> open(const std::string& path, uint64_t virtual_offset,
                                                  size_t read_per_thread = size_t{1} << 20);
  ~BgzfRounds();
  BgzfRounds(const BgzfRounds&) = delete;
  BgzfRounds& operator=(const BgzfRounds&) = delete;

  /// The next round's text: whole lines, each ending in '\n' (one is added after a last line
  /// without it), inflated on `threads` threads. Empty at the end of the file. The caller may
  /// overwrite the text until the next call. A block that is malformed, cut short or fails its
  /// CRC ends the text before the line it starts or continues; the call after that returns the
  /// error (Corrupt, naming the block's byte offset and the problem).
  Result<std::span<char>> next(int threads);

  /// The share of the compressed bytes from the start offset to the end of the file inflated
  /// so far (to size what is decoded from them).
  double fraction_read() const {
    const int64_t at = next_read_ - static_cast<int64_t>(comp_.size() - comp_used_);
    return file_size_ > start_ ? static_cast<double>(at - start_) / static_cast<double>(file_size_ - start_) : 1.0;
  }

 private:
  struct Block {
    int64_t at = 0;          // byte offset in the file
    size_t data = 0, data_bytes = 0;  // the deflate stream within comp_
    uint32_t crc = 0, text_bytes = 0;
    size_t dest = 0;         // where its text goes in text_
  };
  struct Inflater;
  BgzfRounds() = default;
  void read_blocks(int threads);
  Status inflate(const Block& b, size_t skip, Inflater& z, char* scratch);

  std::string path_;
  size_t read_per_thread_ = 0;
  int fd_ = -1;
  int64_t file_size_ = 0, start_ = 0, next_read_ = 0;
  std::vector<uint8_t> comp_;  // compressed bytes read, comp_used_ of them parsed into blocks
  size_t comp_used_ = 0;
  std::vector<Block> blocks_;
  uint32_t skip_ = 0;           // text of the first block before the virtual offset
  std::vector<char> text_;      // the round; [carry_begin_, text_end_) is the part line carried
  size_t carry_begin_ = 0, text_end_ = 0;
  Status pending_;              // an error met in a round, returned by the next call
  bool at_end_ = false;
  std::vector<std::unique_ptr<Inflater>> inflaters_;
};

}  // namespace strata::io::detail
