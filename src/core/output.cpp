// OutputSet: private staging directory, journaled commit, recovery of killed runs.
#include "strata/core/output.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "strata/core/log.hpp"

namespace strata {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStagePrefix = ".strata-stage-";
constexpr const char* kJournalHeader = "strata-output-journal 1";
// A staging directory without a lock file is only taken for dead after this long (the lock is
// created right after the directory; a live process is in that window for microseconds).
constexpr int kLocklessAgeSeconds = 60;

std::string errno_text(int e = errno) { return std::strerror(e); }

// Test hook: STRATA_FAULT_COMMIT_STEP=k kills the process with SIGKILL at commit step k
// (0: outputs staged, journal written but not in place; 1: journal in place; 1 + i: i of the n
// outputs renamed; n + 2: journal removed, staging directory not yet). The kill tests use it.
int fault_step() {
  const char* s = std::getenv("STRATA_FAULT_COMMIT_STEP");
  return s && *s ? std::atoi(s) : -1;
}
void fault_point(int armed, int step) {
  if (armed == step) std::raise(SIGKILL);
}

// The outputs claimed by the running command (CommandOutputs scope): its identity (link
// unresolved) and what it resolves to, so that no two outputs of a command are the same data.
struct Claim {
  fs::path identity, resolved;
  const void* owner = nullptr;  // the OutputSet that declared it
};
struct CommandClaims {
  std::mutex mu;
  int scopes = 0;
  std::vector<Claim> claims;
};
CommandClaims& command_claims() {
  static CommandClaims c;
  return c;
}

bool same_data(const Claim& a, const Claim& b) {
  return a.identity == b.identity || a.resolved == b.resolved || a.identity == b.resolved || a.resolved == b.identity;
}

// The path without following its last component: canonical parent + name.
fs::path identity_of(const fs::path& p) {
  std::error_code ec;
  fs::path parent = fs::weakly_canonical(p.parent_path(), ec);
  if (ec) parent = p.parent_path();
  return parent / p.filename();
}

// Absolute, normalized, without a trailing separator ("out.zarr/" names out.zarr).
fs::path normalize_output(const std::string& path) {
  fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  while (p.filename().empty() && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
  return p;
}

// True when `inner` is `outer` or lies below it (component-wise).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// Written into every directory output at commit: the mark that lets a rerun replace it.
constexpr const char* kStoreMark = ".strata-output";
constexpr std::string_view kStoreMarkText =
    "This directory was written by strata; a strata command writing the same path replaces it.\n";

bool is_strata_store(const fs::path& dir) {
  std::ifstream in(dir / kStoreMark);
  std::string line;
  return in && std::getline(in, line) && line + "\n" == kStoreMarkText;
}

bool is_zarr_node(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {".zgroup", ".zarray", "zarr.json"})
    if (fs::is_regular_file(dir / name, ec)) return true;
  return false;
}

Status fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(dir.string(), ": cannot open directory: ", errno_text());
  ::fsync(fd);
  ::close(fd);
  return Status::OK();
}

// Atomically swap two paths (Linux renameat2); ENOSYS/EINVAL where unsupported.
int exchange_paths(const fs::path& a, const fs::path& b) {
  return ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
}

struct Entry {
  bool directory = false;
  std::string final_path;  // absolute
  std::string staged_name; // inside the staging directory
  ino_t staged_ino = 0;
  Claim claim;             // final_path's identity and resolution (not journaled)
};

// Move one staged entry into place: rename for files and new directories, exchange for an
// existing directory (the old one lands in the staging directory, removed with it).
Status place(const fs::path& stage, const Entry& e) {
  const fs::path staged = stage / e.staged_name;
  struct stat st;
  if (e.directory && ::lstat(e.final_path.c_str(), &st) == 0) {
    if (exchange_paths(staged, e.final_path) == 0) return Status::OK();
    if (errno != EINVAL && errno != ENOSYS)
      return Status::IOError("cannot move ", staged.string(), " to ", e.final_path, ": ", errno_text());
    // No exchange on this file system: move the old one aside first (a kill in between leaves
    // the new store in staging, which recovery moves into place).
    const fs::path aside = stage / (e.staged_name + ".old");
    if (::rename(e.final_path.c_str(), aside.c_str()) != 0)
      return Status::IOError("cannot move ", e.final_path, " aside: ", errno_text());
  }
  if (::rename(staged.c_str(), e.final_path.c_str()) != 0)
    return Status::IOError("cannot move ", staged.string(), " to ", e.final_path, ": ", errno_text());
  return Status::OK();
}

std::string journal_text(const std::vector<Entry>& entries) {
  std::ostringstream os;
  os << kJournalHeader << '\n';
  for (const Entry& e : entries)
    os << (e.directory ? 'D' : 'F') << ' ' << e.staged_name << ' ' << e.staged_ino << ' '
       << e.final_path.size() << ':' << e.final_path << '\n';
  return os.str();
}

Result<std::vector<Entry>> parse_journal(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::string header;
  if (!f || !std::getline(f, header) || header != kJournalHeader)
    return Status::Corrupt(path.string(), ": not an output journal");
  std::vector<Entry> out;
  char kind;
  while (f >> kind) {
    Entry e;
    size_t len = 0;
    char colon = 0;
    f >> e.staged_name >> e.staged_ino >> len >> colon;
    if (!f || colon != ':' || len > 65536 || (kind != 'D' && kind != 'F'))
      return Status::Corrupt(path.string(), ": malformed entry");
    e.final_path.resize(len);
    f.read(e.final_path.data(), static_cast<std::streamsize>(len));
    if (!f) return Status::Corrupt(path.string(), ": truncated entry");
    e.directory = kind == 'D';
    out.push_back(std::move(e));
  }
  return out;
}

// Finish a journaled commit: place every entry whose staged inode is still in staging.
Status roll_forward(const fs::path& stage) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Entry> entries, parse_journal(stage / "journal"));
  for (const Entry& e : entries) {
    struct stat st;
    const fs::path staged = stage / e.staged_name;
    if (::lstat(staged.c_str(), &st) != 0 || st.st_ino != e.staged_ino) continue;  // already placed
    STRATA_RETURN_NOT_OK(place(stage, e));
  }
  return Status::OK();
}

// Remove a staging directory with its lock file last: a process killed half-way leaves a
// directory whose (unheld) lock lets the next run clean it at once instead of waiting for
// kLocklessAgeSeconds.
void remove_stage(const fs::path& stage) {
  std::error_code ec;
  std::vector<fs::path> children;
  for (fs::directory_iterator it(stage, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename() != "lock") children.push_back(it->path());
  for (const fs::path& c : children) fs::remove_all(c, ec);
  fs::remove(stage / "lock", ec);
  fs::remove(stage, ec);
}

Status write_all(int fd, const std::string& path, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError(path, ": write failed: ", errno_text());
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

}  // namespace

std::vector<std::string> input_paths(const std::string& argument) {
  std::vector<std::string> out{argument};
  std::string stem = argument;
  for (const char* ext : {".bed", ".bim", ".fam"}) {
    const size_t n = std::strlen(ext);
    if (stem.size() > n && stem.compare(stem.size() - n, n, ext) == 0) {
      stem.resize(stem.size() - n);
      break;
    }
  }
  for (const char* ext : {".bed", ".bim", ".fam"}) out.push_back(stem + ext);
  return out;
}

Result<int> create_new_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return Status::IOError(path, ": cannot create: ", errno_text());
  return fd;
}

Result<int64_t> recover_outputs(const std::string& dir) {
  std::error_code ec;
  int64_t cleaned = 0;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::IOError(dir, ": cannot list: ", ec.message());
  std::vector<fs::path> stages;
  Status first_error;
  for (const auto& de : it) {
    const std::string name = de.path().filename().string();
    if (name.rfind(kStagePrefix, 0) == 0 && de.is_directory(ec) && !de.is_symlink(ec)) stages.push_back(de.path());
  }
  for (const fs::path& stage : stages) {
    const int fd = ::open((stage / "lock").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      struct stat st;
      if (errno != ENOENT || ::lstat(stage.c_str(), &st) != 0 || std::time(nullptr) - st.st_mtime < kLocklessAgeSeconds)
        continue;
    } else if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);  // a live process owns it
      continue;
    }
    Status st = Status::OK();
    if (fs::exists(stage / "journal", ec)) st = roll_forward(stage);
    if (st.ok()) {
      remove_stage(stage);
      ++cleaned;
    }
    if (fd >= 0) ::close(fd);
    if (!st.ok() && first_error.ok())
      first_error = st.with_context(str_cat("cannot finish the interrupted output commit in ", stage.string()));
  }
  if (!first_error.ok()) return first_error;
  return cleaned;
}

static Status write_store_mark(const fs::path& dir) {
  const std::string path = (dir / kStoreMark).string();
  std::error_code ec;
  fs::remove(path, ec);  // a writer may have copied an earlier store's files
  STRATA_ASSIGN_OR_RETURN(int fd, create_new_file(path));
  Status w = write_all(fd, path, kStoreMarkText);
  ::close(fd);
  return w;
}

struct OutputSet::Impl {
  OutputRules rules;
  fs::path dir, stage;
  std::vector<fs::path> inputs;  // canonical (symlinks followed)
  std::vector<Entry> entries;
  int64_t names_used = 0;  // staged names stay unique after a withdraw
  int lock_fd = -1;
  bool journaled = false, committed = false;

  Status check(const fs::path& final_path, bool directory) const;
  Status check_distinct(const Claim& c, const std::string& shown) const;
  static Claim claim_of(const fs::path& p) {
    std::error_code ec;
    Claim c{identity_of(p), fs::weakly_canonical(p, ec), nullptr};
    if (ec) c.resolved = c.identity;
    return c;
  }
};

// No two outputs of a set, or of the running command, may be the same data.
Status OutputSet::Impl::check_distinct(const Claim& c, const std::string& shown) const {
  auto clash = [&](const fs::path& other) {
    const std::string also = other.string() == shown ? "" : str_cat(" (the same file as ", other.string(), ")");
    return Status::Invalid(shown, " is also another output of this command", also,
                           ": every output of a command (its --out files, --report) must be a different file");
  };
  for (const Entry& e : entries)
    if (same_data(e.claim, c)) return clash(e.final_path);
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  for (const Claim& other : cc.claims)
    if (same_data(other, c)) return clash(other.identity);
  return Status::OK();
}

Status OutputSet::Impl::check(const fs::path& p, bool directory) const {
  const std::string shown = p.string();
  if (p.filename().string().size() > NAME_MAX)
    return Status::Invalid(shown, ": the file name is longer than ", NAME_MAX, " bytes");
  if (shown.size() >= PATH_MAX) return Status::Invalid(shown, ": the path is longer than ", PATH_MAX - 1, " bytes");
  const fs::path id = identity_of(p);
  std::error_code ec;
  // Never the root, the home directory, the working directory or an ancestor of it.
  const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
  if (id == id.root_path() || is_within(cwd, id))
    return Status::Invalid("refusing to write ", shown, ": it is the working directory, the root or an ancestor of the working directory");
  if (const char* home = std::getenv("HOME"); home && *home) {
    if (id == fs::weakly_canonical(home, ec)) return Status::Invalid("refusing to write ", shown, ": it is the home directory");
  }
  const fs::path resolved = fs::weakly_canonical(p, ec);  // through a symbolic link, too
  for (const fs::path& in : inputs) {
    if (id == in || is_within(in, id) || is_within(id, in) || (!ec && (is_within(in, resolved) || is_within(resolved, in))))
      return Status::Invalid(shown, " is an input of this command (or holds one, or lies inside one); "
                             "choose another output path");
  }
  if (p.parent_path() != dir)
    return Status::Internal("outputs of one command must share a directory: ", shown, " is not in ", dir.string());
  STRATA_RETURN_NOT_OK(check_distinct(claim_of(p), shown));
  struct stat st;
  if (::lstat(p.c_str(), &st) != 0) return Status::OK();  // new output
  if (!directory) {
    // A link is judged by what it points to (a link to a directory is refused like the
    // directory); the link itself is then replaced, its target never written.
    struct stat target;
    const bool link = S_ISLNK(st.st_mode);
    if (link && ::stat(p.c_str(), &target) == 0) st = target;
    const char* as = link ? " is a symbolic link to a directory" : " is a directory";
    if (S_ISDIR(st.st_mode))
      return Status::AlreadyExists(shown, as, "; strata replaces only files at a file output's path");
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      return Status::AlreadyExists(shown, link ? " is a symbolic link to something that is not a regular file"
                                               : " exists and is not a regular file",
                                   "; refusing to replace it");
    return Status::OK();
  }
  if (S_ISLNK(st.st_mode)) return Status::AlreadyExists(shown, " is a symbolic link; refusing to replace it");
  // A store an earlier strata command wrote is replaced like a file (a rerun succeeds);
  // anything else needs the flag.
  if (!rules.overwrite && !(rules.replace_own_stores && S_ISDIR(st.st_mode) && is_zarr_node(p) && is_strata_store(p)))
    return Status::AlreadyExists(shown, rules.replace_own_stores ? " already exists and was not written by strata (use --overwrite to replace it)"
                                                         : " already exists (use --overwrite to replace it)");
  if (!S_ISDIR(st.st_mode)) return Status::AlreadyExists(shown, " is not a directory; refusing to replace it with a Zarr store");
  if (!is_zarr_node(p))
    return Status::AlreadyExists(shown, " is not a Zarr store (no .zgroup, .zarray or zarr.json); strata replaces only "
                                 "Zarr stores");
  return Status::OK();
}

namespace {
// Recorded only while a CommandOutputs scope is open (a library user's separate calls may
// rewrite a path they wrote before).
void claim_for_command(const Claim& c) {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  if (cc.scopes > 0) cc.claims.push_back(c);
}

// A set discarded before its commit wrote nothing: its paths are free again (a command that
// retries a conversion declares them anew).
void release_claims(const void* owner) {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  std::erase_if(cc.claims, [owner](const Claim& c) { return c.owner == owner; });
}

// One withdrawn output of a set frees its path.
void release_claim(const void* owner, const fs::path& identity) {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  std::erase_if(cc.claims, [&](const Claim& c) { return c.owner == owner && c.identity == identity; });
}

// A committed set's paths stay claimed for the rest of the command, whoever reuses its address.
void keep_claims(const void* owner) {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  for (Claim& c : cc.claims)
    if (c.owner == owner) c.owner = nullptr;
}
}  // namespace

CommandOutputs::CommandOutputs() {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  ++cc.scopes;
}

CommandOutputs::~CommandOutputs() {
  CommandClaims& cc = command_claims();
  std::lock_guard lock(cc.mu);
  if (--cc.scopes == 0) cc.claims.clear();
}

OutputSet::OutputSet() : impl_(std::make_unique<Impl>()) {}

OutputSet::~OutputSet() {
  if (impl_ && !impl_->committed) discard();
  if (impl_ && impl_->lock_fd >= 0) ::close(impl_->lock_fd);
}

Result<std::unique_ptr<OutputSet>> OutputSet::begin(const std::string& first_output, OutputRules rules) {
  if (first_output.empty()) return Status::Invalid("the output path is empty");
  std::unique_ptr<OutputSet> set(new OutputSet());
  Impl& m = *set->impl_;
  m.dir = normalize_output(first_output).parent_path();
  std::error_code ec;
  for (const std::string& in : rules.inputs) {
    if (in.empty() || !fs::exists(fs::symlink_status(in, ec))) continue;
    m.inputs.push_back(fs::weakly_canonical(fs::absolute(in), ec));
    m.inputs.push_back(identity_of(normalize_output(in)));  // the input path itself, link unresolved
  }
  m.rules = std::move(rules);
  fs::create_directories(m.dir, ec);
  if (ec) return Status::IOError("cannot create directory ", m.dir.string(), ": ", ec.message());
  // A leftover that cannot be finished must not block every later command in the folder.
  if (auto rec = recover_outputs(m.dir.string()); !rec.ok()) log_warning(rec.status().message());
  std::string tmpl = (m.dir / (std::string(kStagePrefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    return Status::IOError("cannot create a staging directory in ", m.dir.string(), ": ", errno_text());
  m.stage = tmpl;
  STRATA_ASSIGN_OR_RETURN(m.lock_fd, create_new_file((m.stage / "lock").string()));
  if (::flock(m.lock_fd, LOCK_EX) != 0) return Status::IOError(m.stage.string(), ": cannot lock: ", errno_text());
  return set;
}

Status OutputSet::check(const std::string& final_path, bool directory) const {
  return impl_->check(normalize_output(final_path), directory);
}

Result<std::string> OutputSet::add_file(const std::string& final_path) {
  Impl& m = *impl_;
  const fs::path p = normalize_output(final_path);
  STRATA_RETURN_NOT_OK(m.check(p, false));
  Entry e{false, p.string(), "o" + std::to_string(m.names_used++), 0, Impl::claim_of(p)};
  e.claim.owner = &m;
  const std::string staged = (m.stage / e.staged_name).string();
  STRATA_ASSIGN_OR_RETURN(int fd, create_new_file(staged));
  ::close(fd);
  claim_for_command(e.claim);
  m.entries.push_back(std::move(e));
  return staged;
}

Result<std::string> OutputSet::add_directory(const std::string& final_path) {
  Impl& m = *impl_;
  const fs::path p = normalize_output(final_path);
  STRATA_RETURN_NOT_OK(m.check(p, true));
  Entry e{true, p.string(), "o" + std::to_string(m.names_used++), 0, Impl::claim_of(p)};
  e.claim.owner = &m;
  const std::string staged = (m.stage / e.staged_name).string();
  if (::mkdir(staged.c_str(), 0777) != 0) return Status::IOError(staged, ": cannot create: ", errno_text());
  claim_for_command(e.claim);
  m.entries.push_back(std::move(e));
  return staged;
}

Status OutputSet::commit() {
  Impl& m = *impl_;
  if (m.committed) return Status::OK();
  const int armed = fault_step();
  for (Entry& e : m.entries) {
    struct stat st;
    const fs::path staged = m.stage / e.staged_name;
    if (e.directory) STRATA_RETURN_NOT_OK(write_store_mark(staged));
    if (::lstat(staged.c_str(), &st) != 0) return Status::IOError(staged.string(), ": staged output vanished");
    e.staged_ino = st.st_ino;
  }
  // The journal makes the commit roll forward from here on, whatever happens to this process.
  const std::string tmp = (m.stage / "journal.new").string();
  {
    STRATA_ASSIGN_OR_RETURN(int fd, create_new_file(tmp));
    Status w = write_all(fd, tmp, journal_text(m.entries));
    if (w.ok() && ::fsync(fd) != 0) w = Status::IOError(tmp, ": fsync failed: ", errno_text());
    ::close(fd);
    STRATA_RETURN_NOT_OK(w);
  }
  fault_point(armed, 0);
  if (::rename(tmp.c_str(), (m.stage / "journal").c_str()) != 0)
    return Status::IOError(tmp, ": cannot rename: ", errno_text());
  m.journaled = true;
  STRATA_RETURN_NOT_OK(fsync_dir(m.stage));
  fault_point(armed, 1);
  for (size_t i = 0; i < m.entries.size(); ++i) {
    Status st = place(m.stage, m.entries[i]);
    if (!st.ok() && i == 0) {
      // Nothing has moved yet: withdraw the journal, so the set is simply discarded.
      fs::path journal = m.stage / "journal";
      if (::unlink(journal.c_str()) == 0) m.journaled = false;
      return st;
    }
    if (!st.ok())
      return st.with_context(str_cat("outputs in ", m.dir.string(), " are incomplete (the next strata run there finishes them)"));
    fault_point(armed, static_cast<int>(i) + 2);
  }
  STRATA_RETURN_NOT_OK(fsync_dir(m.dir));
  std::error_code ec;
  fs::remove(m.stage / "journal", ec);
  fault_point(armed, static_cast<int>(m.entries.size()) + 2);
  remove_stage(m.stage);
  keep_claims(&m);
  m.committed = true;
  return Status::OK();
}

Status OutputSet::withdraw(const std::string& final_path) {
  Impl& m = *impl_;
  if (m.committed || m.journaled) return Status::Invalid("withdraw ", final_path, ": the outputs are being committed");
  const std::string p = normalize_output(final_path).string();
  auto it = std::find_if(m.entries.begin(), m.entries.end(), [&](const Entry& e) { return e.final_path == p; });
  if (it == m.entries.end()) return Status::NotFound(final_path, " is not an output of this set");
  std::error_code ec;
  fs::remove_all(m.stage / it->staged_name, ec);
  if (ec) return Status::IOError((m.stage / it->staged_name).string(), ": cannot remove: ", ec.message());
  release_claim(&m, it->claim.identity);
  m.entries.erase(it);
  return Status::OK();
}

void OutputSet::discard() {
  Impl& m = *impl_;
  if (m.committed || m.stage.empty()) return;
  std::error_code ec;
  if (m.journaled) {
    // A journaled commit that failed half-way: finish it rather than leave a mix.
    if (roll_forward(m.stage).ok()) remove_stage(m.stage);
    keep_claims(&m);
    m.committed = true;
    return;
  }
  remove_stage(m.stage);
  release_claims(&m);
  m.committed = true;  // nothing left to do
}

std::vector<std::string> OutputSet::final_paths() const {
  std::vector<std::string> out;
  for (const Entry& e : impl_->entries) out.push_back(e.final_path);
  return out;
}

std::string OutputSet::staging_dir() const { return impl_->stage.string(); }

Result<AtomicFile> AtomicFile::begin(const std::string& final_path, OutputRules rules) {
  AtomicFile f;
  STRATA_ASSIGN_OR_RETURN(f.set_, OutputSet::begin(final_path, std::move(rules)));
  STRATA_ASSIGN_OR_RETURN(f.staged_, f.set_->add_file(final_path));
  return f;
}

Status write_file_atomically(const std::string& final_path, std::string_view contents, OutputRules rules) {
  STRATA_ASSIGN_OR_RETURN(AtomicFile f, AtomicFile::begin(final_path, std::move(rules)));
  const int fd = ::open(f.path().c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status::IOError(f.path(), ": cannot open: ", errno_text());
  Status st = write_all(fd, final_path, contents);
  ::close(fd);
  STRATA_RETURN_NOT_OK(st);
  return f.commit();
}

}  // namespace strata

namespace strata {

Status agree_and_commit(const Context& ctx, OutputSet* out, const Status& written) {
  STRATA_RETURN_NOT_OK(ctx.communicator().agree(written));
  return out ? out->commit() : Status::OK();
}

}  // namespace strata
