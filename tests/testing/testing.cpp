#include "testing/testing.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

namespace strata::testing {

TempDir::TempDir() {
  std::random_device rd;
  auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto p = base / ("strata-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
    std::error_code ec;
    if (std::filesystem::create_directory(p, ec)) {
      path_ = p;
      return;
    }
  }
  ADD_FAILURE() << "cannot create a temporary directory";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

CommandResult run_command(const std::string& command) {
  CommandResult r;
  std::string full = command + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void expect_cli_error(const CommandResult& r, int exit_code, const std::string& message) {
  EXPECT_EQ(r.exit_code, exit_code) << r.output;
  EXPECT_THAT(r.output, ::testing::StartsWith("strata: error: ")) << r.output;
  EXPECT_THAT(r.output.substr(0, r.output.find('\n')), ::testing::HasSubstr(message)) << r.output;
}

std::string python_with_zarr() {
  static const std::string found = [] {
    for (const char* py : {"/usr/bin/python3"}) {
      if (access(py, X_OK) != 0) continue;
      if (run_command(std::string(py) + " -c 'import zarr, numpy, numcodecs'").exit_code == 0) return std::string(py);
    }
    return std::string();
  }();
  return found;
}

CommandResult run_python(const std::string& code) {
  std::string py = python_with_zarr();
  if (py.empty()) return {127, "python3 with zarr not available"};
  TempDir dir;
  std::string script = dir.str("script.py");
  write_file(script, code);
  return run_command(py + " " + script);
}

std::string source_dir() { return STRATA_SOURCE_DIR; }

std::string shared_data_dir() {
  // $STRATA_SHARED_DATA wins; a value that is not a directory means "absent" (tests skip and
  // say why) rather than failing tests that open files under it.
  std::error_code ec;
  if (const char* env = std::getenv("STRATA_SHARED_DATA")) {
    return std::filesystem::is_directory(env, ec) ? std::string(env) : std::string();
  }
  auto p = std::filesystem::path(STRATA_SOURCE_DIR).parent_path() / "shared" / "data";
  return std::filesystem::is_directory(p, ec) ? p.string() : std::string();
}

std::string strata_cli_path() {
  // $STRATA_CLI: a binary elsewhere (the GPU kit, scripts/gpu_check.sh), else this build's.
  if (const char* env = std::getenv("STRATA_CLI"); env && *env) return env;
  return std::string(STRATA_BINARY_DIR) + "/tools/cli/strata";
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::vector<std::string>> split_rows(const std::string& text, char sep) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    if (sep == ' ') {
      for (std::string x; ls >> x;) f.push_back(x);
    } else {
      for (std::string x; std::getline(ls, x, sep);) f.push_back(x);
    }
    rows.push_back(std::move(f));
  }
  return rows;
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f << contents;
}

}  // namespace strata::testing
