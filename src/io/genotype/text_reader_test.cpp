// LineReader: text inputs are regular files (or pipes the user named) with bounded lines.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "io/genotype/text_reader_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

TEST(TextInput, DevicesDirectoriesAndUnaskedPipesAreRefused) {
  TempDir d;
  // Before: /dev/zero (directly or behind a link) was read without end.
  fs::create_symlink("/dev/zero", d.path() / "x.bim");
  LineReader r;
  STRATA_EXPECT_STATUS(r.open(d.str("x.bim")), StatusCode::InvalidData, "x.bim is a character device");
  LineReader r2;
  STRATA_EXPECT_STATUS(r2.open("/dev/zero", /*allow_pipe=*/true), StatusCode::InvalidData, "character device");
  fs::create_directories(d.path() / "dir");
  STRATA_EXPECT_STATUS(check_text_input(d.str("dir"), true), StatusCode::InvalidData, "is a directory");
  ASSERT_EQ(::mkfifo(d.str("p").c_str(), 0600), 0);
  STRATA_EXPECT_STATUS(check_text_input(d.str("p"), false), StatusCode::InvalidData, "is a pipe \\(FIFO\\)");
  STRATA_EXPECT_OK(check_text_input(d.str("p"), true));
  STRATA_EXPECT_STATUS(check_text_input(d.str("nope"), true), StatusCode::NotFound, "no such file");
}

TEST(TextInput, LinesAreBounded) {
  TempDir d;
  {
    std::ofstream f(d.str("long"), std::ios::binary);
    f << "first line\n" << std::string(kMaxTextLineBytes + 10, 'a') << "\nlast\n";
  }
  LineReader r;
  STRATA_ASSERT_OK(r.open(d.str("long")));
  std::string_view line;
  ASSERT_TRUE(r.next(line));
  EXPECT_EQ(line, "first line");
  EXPECT_FALSE(r.next(line));
  STRATA_EXPECT_STATUS(r.status(), StatusCode::InvalidData, "long line 2: longer than 8 MiB without a line end");
  // A line just under the bound is read whole.
  {
    std::ofstream f(d.str("ok"), std::ios::binary);
    f << std::string(kMaxTextLineBytes - 2, 'b') << "\nx";
  }
  LineReader ok;
  STRATA_ASSERT_OK(ok.open(d.str("ok")));
  ASSERT_TRUE(ok.next(line));
  EXPECT_EQ(line.size(), kMaxTextLineBytes - 2);
  ASSERT_TRUE(ok.next(line));
  EXPECT_EQ(line, "x");
  EXPECT_FALSE(ok.next(line));
  STRATA_EXPECT_OK(ok.status());
}

}  // namespace
}  // namespace strata::io::detail
