// BgzfRounds against htslib's own line reader (bgzf_getline) on BGZF files whose blocks end where
// the test puts them: lines across block ends, a line longer than a block and than a round, CRLF,
// empty lines, a last line without its newline, a start inside a block; cut and damaged files.
#include "strata/core/config.hpp"

#if STRATA_HAVE_HTSLIB
#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/genotype/bgzf_rounds_internal.hpp"
#include "io/genotype/bgzf_test_writer.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

using strata::testing::read_file;
using strata::testing::TempDir;
using strata::testing::write_file;

struct Lines {
  std::vector<std::string> lines;
  bool failed = false;
  std::string error;
};

// htslib's lines from the virtual offset `from` (a trailing '\r' dropped, as hts_getline does).
Lines htslib_lines(const std::string& path, int64_t from) {
  Lines out;
  BGZF* f = bgzf_open(path.c_str(), "r");
  if (!f) return {{}, true, "open"};
  if (bgzf_seek(f, from, SEEK_SET) < 0) out.failed = true;
  kstring_t k = {0, 0, nullptr};
  int ret = 0;
  // A line cut by a damaged block comes back before the error: errcode tells it apart.
  while (!out.failed && (ret = bgzf_getline(f, '\n', &k)) >= 0 && f->errcode == 0) out.lines.emplace_back(k.s, k.l);
  if (ret < -1 || f->errcode != 0) out.failed = true;
  free(k.s);
  bgzf_close(f);
  return out;
}

// BgzfRounds' lines, split as the VCF source splits them.
Lines rounds_lines(const std::string& path, int64_t from, int threads, size_t read_per_thread) {
  Lines out;
  auto r = BgzfRounds::open(path, static_cast<uint64_t>(from), read_per_thread);
  if (!r.ok()) return {{}, true, r.status().to_string()};
  for (;;) {
    auto text = (*r)->next(threads);
    if (!text.ok()) {
      out.failed = true;
      out.error = text.status().to_string();
      break;
    }
    if (text->empty()) break;
    EXPECT_EQ(text->back(), '\n');
    const std::string t(text->data(), text->size());
    for (size_t s = 0; s < t.size();) {
      const size_t nl = t.find('\n', s);
      size_t len = nl - s;
      if (len > 0 && t[s + len - 1] == '\r') --len;
      out.lines.push_back(t.substr(s, len));
      s = nl + 1;
    }
  }
  return out;
}

std::string mixed_text() {
  std::string t = "first\n\n\nsecond\r\n";
  for (int i = 0; i < 300; ++i) t += "line " + std::to_string(i) + std::string(static_cast<size_t>(i * 7 % 61), 'x') + "\n";
  t += std::string(5000, 'a') + "\r\n";    // longer than the small blocks
  t += std::string(150000, 'b') + "\n";    // longer than a 64 KiB block and than a small round
  t += "\r\n\r\nnear the end\nno newline at the end";
  return t;
}

TEST(BgzfRoundsTest, LinesAreHtslibsForAnyBlocksRoundsAndThreads) {
  TempDir tmp;
  const std::string text = mixed_text();
  for (size_t block : {size_t{3}, size_t{1000}, size_t{65536}}) {
    const std::string path = tmp.str("m" + std::to_string(block) + ".gz");
    write_bgzf(path, text, block);
    const Lines want = htslib_lines(path, 0);
    ASSERT_FALSE(want.failed);
    ASSERT_GT(want.lines.size(), 300u);
    for (int threads : {1, 2, 3})
      for (size_t per_thread : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
        SCOPED_TRACE("blocks of " + std::to_string(block) + ", " + std::to_string(threads) + " threads, rounds of " +
                     std::to_string(per_thread));
        const Lines got = rounds_lines(path, 0, threads, per_thread);
        EXPECT_FALSE(got.failed) << got.error;
        EXPECT_EQ(got.lines, want.lines);
      }
  }
}

// From a virtual offset inside a block (after a header htslib read) and at a block's end.
TEST(BgzfRoundsTest, StartsAtAVirtualOffset) {
  TempDir tmp;
  const std::string text = "##h=1\n#CHROM\tPOS\n1\t2\n1\t3\n1\t4";
  for (size_t block : {size_t{5}, size_t{17}, size_t{1000}}) {
    SCOPED_TRACE("blocks of " + std::to_string(block));
    const std::string path = tmp.str("h" + std::to_string(block) + ".gz");
    write_bgzf(path, text, block);
    BGZF* f = bgzf_open(path.c_str(), "r");
    ASSERT_NE(f, nullptr);
    kstring_t k = {0, 0, nullptr};
    ASSERT_GE(bgzf_getline(f, '\n', &k), 0);
    ASSERT_GE(bgzf_getline(f, '\n', &k), 0);
    const int64_t at = bgzf_tell(f);
    free(k.s);
    bgzf_close(f);
    const Lines got = rounds_lines(path, at, 2, 64);
    EXPECT_FALSE(got.failed) << got.error;
    EXPECT_EQ(got.lines, (std::vector<std::string>{"1\t2", "1\t3", "1\t4"}));
    EXPECT_EQ(got.lines, htslib_lines(path, at).lines);
  }
}

TEST(BgzfRoundsTest, EmptyFileHasNoLines) {
  TempDir tmp;
  const std::string path = tmp.str("e.gz");
  write_bgzf(path, "", 10);
  const Lines got = rounds_lines(path, 0, 2, 64);
  EXPECT_FALSE(got.failed) << got.error;
  EXPECT_TRUE(got.lines.empty());
}

// A file cut anywhere: the lines before the cut block, as htslib reads them, then an error naming
// the file and the block (a cut at a block's end is no error here: the VCF source reports the
// missing end-of-file block).
TEST(BgzfRoundsTest, CutFilesGiveTheLinesBeforeTheCutThenAnError) {
  TempDir tmp;
  std::string text;
  for (int i = 0; i < 200; ++i) text += "record " + std::to_string(i) + std::string(static_cast<size_t>(i % 40), 'z') + "\n";
  const std::string whole = tmp.str("w.gz");
  write_bgzf(whole, text, 300);
  const std::string bytes = read_file(whole);
  int errors = 0;
  for (size_t cut = 30; cut < bytes.size(); cut += 97) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    const std::string path = tmp.str("c.gz");
    write_file(path, bytes.substr(0, cut));
    const Lines want = htslib_lines(path, 0);
    for (int threads : {1, 3}) {
      const Lines got = rounds_lines(path, 0, threads, 128);
      EXPECT_EQ(got.lines, want.lines);
      EXPECT_EQ(got.failed, want.failed);
      if (got.failed) {
        EXPECT_NE(got.error.find(path + ": BGZF block at byte "), std::string::npos) << got.error;
        EXPECT_NE(got.error.find("Corrupt"), std::string::npos) << got.error;
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 10);
}

// A damaged byte in a block's data or CRC: the lines before that block, then the error naming it.
TEST(BgzfRoundsTest, DamagedBlocksAreReportedWithTheirOffset) {
  TempDir tmp;
  std::string text;
  for (int i = 0; i < 100; ++i) text += "row " + std::to_string(i) + "\n";
  const std::string whole = tmp.str("w.gz");
  write_bgzf(whole, text, 120);
  const std::string bytes = read_file(whole);
  // The blocks' offsets, from their BC fields.
  std::vector<size_t> starts;
  for (size_t at = 0; at < bytes.size(); at += static_cast<uint8_t>(bytes[at + 16]) + 256u * static_cast<uint8_t>(bytes[at + 17]) + 1)
    starts.push_back(at);
  ASSERT_GT(starts.size(), 5u);
  const size_t b = starts[3], end = starts[4];
  struct Damage {
    size_t at;
    const char* why;
  };
  for (const Damage& d : {Damage{end - 8, "CRC-32 mismatch"}, Damage{b + 18, "deflate data is damaged"}}) {
    std::string bad = bytes;
    bad[d.at] = static_cast<char>(bad[d.at] ^ 0x5A);
    const std::string path = tmp.str("d.gz");
    write_file(path, bad);
    const Lines want = htslib_lines(path, 0);
    ASSERT_TRUE(want.failed);
    const Lines got = rounds_lines(path, 0, 2, 100);
    EXPECT_TRUE(got.failed);
    EXPECT_EQ(got.lines, want.lines);
    EXPECT_NE(got.error.find("BGZF block at byte " + std::to_string(b) + ": "), std::string::npos) << got.error;
    EXPECT_NE(got.error.find(d.why), std::string::npos) << got.error;
  }
  // Not BGZF at all (no gzip header where a block should start).
  const std::string path = tmp.str("n.gz");
  write_file(path, bytes.substr(0, starts[2]) + "plain text, not a block" + bytes.substr(starts[2]));
  const Lines got = rounds_lines(path, 0, 1, 1 << 20);
  EXPECT_TRUE(got.failed);
  EXPECT_NE(got.error.find("BGZF block at byte " + std::to_string(starts[2]) + ": not a BGZF block"), std::string::npos)
      << got.error;
}

}  // namespace
}  // namespace strata::io::detail

#endif
