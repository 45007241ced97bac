#pragma once
/// \file
/// Helpers shared by strata's tests: temporary directories, the python oracle, data paths.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "strata/core/result.hpp"

namespace strata::testing {

/// \brief A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string str(const std::string& child = "") const {
    return child.empty() ? path_.string() : (path_ / child).string();
  }

 private:
  std::filesystem::path path_;
};

/// \brief Output and exit code of a shell command.
struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};
/// \brief Run `command` through /bin/sh, capturing stdout+stderr.
CommandResult run_command(const std::string& command);

/// \brief Expect `r` to be a strata CLI failure: exit `exit_code` (1 data/runtime error, 2 usage;
/// a crash — signal, abort — never matches), output beginning with "strata: error: " and a
/// first line containing `message`. Use through STRATA_EXPECT_CLI_ERROR for the caller's line.
void expect_cli_error(const CommandResult& r, int exit_code, const std::string& message);

/// \brief Debian's python (where python3-zarr/numpy/dask live), or "" if it lacks zarr.
std::string python_with_zarr();
/// \brief Run a python snippet with Debian's python; the snippet's stdout+stderr are returned.
CommandResult run_python(const std::string& code);

/// Skip messages for missing oracles and data: each says what is missing and where it was looked for.
inline constexpr const char* kSkipNoPythonZarr =
    "no oracle: /usr/bin/python3 with zarr, numpy and numcodecs not found (Debian python3-zarr)";
inline constexpr const char* kSkipNoPlink2 = "no oracle: plink2 not installed (/usr/bin/plink2)";
inline constexpr const char* kSkipNoSharedData =
    "shared data absent (../shared/data beside the source tree, or $STRATA_SHARED_DATA)";

/// \brief ../shared/data relative to the source tree, or "" when absent.
std::string shared_data_dir();
/// \brief Path of the built strata CLI binary ($STRATA_CLI when set).
std::string strata_cli_path();
/// \brief Source tree root.
std::string source_dir();

/// \brief Read a whole file into a string (empty on failure).
std::string read_file(const std::string& path);
/// \brief Lines of `text` split into fields at `sep` (tab by default), or at runs of whitespace
/// when `sep` is ' '.
std::vector<std::vector<std::string>> split_rows(const std::string& text, char sep = '\t');
/// \brief split_rows() of a whole file.
inline std::vector<std::vector<std::string>> read_rows(const std::string& path, char sep = '\t') {
  return split_rows(read_file(path), sep);
}
/// \brief Write a string to a file.
void write_file(const std::string& path, const std::string& contents);

}  // namespace strata::testing

/// Assert/expect a Status or Result is OK, printing the error otherwise.
#define STRATA_ASSERT_OK(expr)                                              \
  do {                                                                      \
    const ::strata::Status _t_st = ::strata::detail::status_of(expr);       \
    ASSERT_TRUE(_t_st.ok()) << _t_st.to_string();                          \
  } while (false)
#define STRATA_EXPECT_OK(expr)                                              \
  do {                                                                      \
    const ::strata::Status _t_st = ::strata::detail::status_of(expr);       \
    EXPECT_TRUE(_t_st.ok()) << _t_st.to_string();                          \
  } while (false)
/// `STRATA_ASSERT_OK_AND_ASSIGN(auto x, make());`
#define STRATA_ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                         \
  auto STRATA_CONCAT(_t_res_, __LINE__) = (rexpr);                                      \
  ASSERT_TRUE(STRATA_CONCAT(_t_res_, __LINE__).ok())                                    \
      << STRATA_CONCAT(_t_res_, __LINE__).status().to_string();                         \
  lhs = std::move(STRATA_CONCAT(_t_res_, __LINE__)).value()
/// Expect a failure with `code` whose message matches the regex `pattern`.
#define STRATA_EXPECT_STATUS(expr, status_code, pattern)                                 \
  do {                                                                                   \
    const ::strata::Status _t_st = ::strata::detail::status_of(expr);                    \
    EXPECT_EQ(_t_st.code(), status_code) << _t_st.to_string();                           \
    EXPECT_THAT(_t_st.message(), ::testing::ContainsRegex(pattern));                     \
  } while (false)
/// Expect a CLI failure with `exit_code` whose first output line is strata's error with `message`.
#define STRATA_EXPECT_CLI_ERROR(result, exit_code, message)                                \
  do {                                                                                   \
    SCOPED_TRACE("expected a CLI error here");                                           \
    ::strata::testing::expect_cli_error((result), (exit_code), (message));               \
  } while (false)
