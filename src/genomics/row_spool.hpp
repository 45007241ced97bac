#pragma once
// Output rows assembled from the pair pass's tiles (strata/genomics/pair_counts.hpp): each tile
// formats its part of its rows, and a tile row's parts are kept until the tile row is complete,
// then written row by row in the order they came (column order). With several sample bands
// the parts of a whole band of rows wait for the band's last column band, so the spool keeps at
// most `cap` bytes in memory and moves the rest to an unlinked file beside the outputs.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "genomics/relatedness_internal.hpp"
#include "strata/core/result.hpp"

namespace strata::genomics::detail {

class RowSpool {
 public:
  // `dir`: where a spill file may go (the output's staging directory); `cap`: bytes of text
  // kept in memory.
  RowSpool(std::string dir, int64_t cap);
  ~RowSpool();
  RowSpool(const RowSpool&) = delete;
  RowSpool& operator=(const RowSpool&) = delete;

  // One tile's part of tile row `tile_row`: row r is text[ends[r - 1], ends[r]) (from 0 for
  // r = 0); every part of a tile row has the same number of rows.
  Status add(int64_t tile_row, std::string text, std::vector<uint32_t> ends);
  // Write the rows of `tile_row` (each its parts in the order added) and drop them. A tile row
  // with no parts writes nothing.
  Status emit(int64_t tile_row, TextWriter& w);

  // Bytes ever moved to the spill file (tests).
  int64_t spilled_bytes() const { return file_size_; }

 private:
  struct Part {
    std::string text;
    std::vector<uint32_t> ends;
    int64_t offset = -1;  // in the spill file; -1 while in memory
  };
  Status spill();
  Status read_at(int64_t offset, int64_t bytes, char* out) const;

  std::string dir_;
  int64_t cap_ = 0, held_ = 0;
  std::map<int64_t, std::vector<Part>> rows_;
  int fd_ = -1;
  int64_t file_size_ = 0;
};

}  // namespace strata::genomics::detail
