// The CLI's progress bar as drawn: the phase named, the ETA from the fraction done, and every
// line erasing what a longer earlier one left (the finished line read " ta 0s" once).
#include <cstdio>
#include <string>

#include "../../tools/cli/terminal_progress.cpp"  // the CLI's renderer, compiled into the test
#include "testing/testing.hpp"

namespace strata::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What the bar wrote, through a memory stream.
class Drawn {
 public:
  Drawn() : f_(open_memstream(&buf_, &size_)) {}
  ~Drawn() {
    std::fclose(f_);
    std::free(buf_);
  }
  std::FILE* file() { return f_; }
  std::string text() {
    std::fflush(f_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  size_t size_ = 0;
  std::FILE* f_;
};

// The screen line a terminal shows after `text`: "\r" returns to column 0, "\033[K" erases to
// the end of the line, "\n" starts a new line (the last line is returned).
std::string screen_line(const std::string& text) {
  std::string line;
  size_t col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      col = 0;
    } else if (text.compare(i, 3, "\033[K") == 0) {
      line.resize(col);
      i += 2;
    } else if (text[i] == '\n') {
      if (i + 1 < text.size()) line.clear(), col = 0;
    } else {
      if (col < line.size()) line[col] = text[i];
      else line.push_back(text[i]);
      ++col;
    }
  }
  return line;
}

TEST(TerminalProgress, RendersPhasePercentAndEta) {
  Drawn d;
  TerminalProgress p(d.file());
  p.begin("king", 1000, "work");
  p.phase("bit planes");
  const std::string line = p.render(250, 1000, 10.0, false);
  EXPECT_THAT(line, HasSubstr("king (bit planes) ["));
  EXPECT_THAT(line, HasSubstr(" 25.0%"));
  EXPECT_THAT(line, HasSubstr("eta 30s"));          // 10 s for a quarter: 30 s left
  EXPECT_THAT(p.render(800, 1000, 10.0, false), HasSubstr("eta 2.5s"));  // tenths under 10 s
  EXPECT_THAT(line, Not(HasSubstr("work/s")));      // weighted units have no rate
  p.phase("king");                                  // the task's own name: no phase shown
  EXPECT_THAT(p.render(500, 1000, 10.0, false), HasSubstr("king ["));
}

TEST(TerminalProgress, FinishedLineLeavesNothingOfTheBar) {
  Drawn d;
  TerminalProgress p(d.file());
  p.begin("pca", 100, "variants");
  p.phase("variant counts + load codes");
  p.update(37, 100);
  p.update(99, 100);
  p.end(100, 100);
  const std::string text = d.text();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const std::string last = screen_line(text);
  EXPECT_THAT(last, ::testing::MatchesRegex("pca: done in [0-9]+\\.[0-9]s"));
  EXPECT_THAT(last, Not(HasSubstr("eta")));
  EXPECT_THAT(last, Not(HasSubstr("ta ")));
}

TEST(TerminalProgress, ShorterLinesEraseLongerOnes) {
  Drawn d;
  TerminalProgress p(d.file());
  p.begin("grm", 100, "variants");
  p.phase("a long phase name that makes the line long");
  p.update(50, 100);
  p.phase("x");
  p.update(60, 100);
  const std::string last = screen_line(d.text());
  EXPECT_THAT(last, HasSubstr("grm (x) ["));
  EXPECT_THAT(last, Not(HasSubstr("makes the line")));
}

}  // namespace
}  // namespace strata::cli
