#pragma once
// Test helper: a BGZF file whose blocks end where the test puts them (htslib's writer).
#include <htslib/bgzf.h>

#include <algorithm>
#include <string>

#include "testing/testing.hpp"

namespace strata::io::detail {

/// `text` as BGZF, a block ending after every `block_text` bytes (the first after `first_block`
/// bytes when given: htslib tells a VCF by its first block), then the end-of-file block.
inline void write_bgzf(const std::string& path, const std::string& text, size_t block_text, size_t first_block = 0) {
  BGZF* f = bgzf_open(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  for (size_t at = 0; at < text.size();) {
    const size_t n = std::min(at == 0 && first_block > 0 ? first_block : block_text, text.size() - at);
    ASSERT_GE(bgzf_write(f, text.data() + at, n), 0);
    ASSERT_EQ(bgzf_flush(f), 0);
    at += n;
  }
  ASSERT_EQ(bgzf_close(f), 0);
}

}  // namespace strata::io::detail
