// Job, PhaseTimer and Summary (strata/core/job.hpp).
#include "strata/core/job.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "strata/core/context.hpp"
#include "strata/core/log.hpp"

namespace strata {

std::string utc_now_text();  // job_log.cpp
// The plots (.svg/.png at the log's prefix) the last run of `command` there listed as written
// and this run does not write: regular files only. job_log.cpp.
std::vector<std::string> stale_plots(const std::string& log_path, const std::string& command,
                                     const std::vector<std::string>& written);

namespace {

nlohmann::ordered_json to_value(const Summary::Value& v);

nlohmann::ordered_json to_object(const Summary& s) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : s.fields()) j[key] = to_value(value);
  return j;
}

nlohmann::ordered_json number(double d) { return std::isfinite(d) ? nlohmann::ordered_json(d) : nlohmann::ordered_json(); }

nlohmann::ordered_json to_value(const Summary::Value& v) {
  struct Visit {
    nlohmann::ordered_json operator()(std::nullptr_t) const { return nullptr; }
    nlohmann::ordered_json operator()(bool b) const { return b; }
    nlohmann::ordered_json operator()(int64_t i) const { return i; }
    nlohmann::ordered_json operator()(double d) const { return number(d); }
    nlohmann::ordered_json operator()(const std::string& s) const { return s; }
    nlohmann::ordered_json operator()(const std::vector<int64_t>& a) const { return a; }
    nlohmann::ordered_json operator()(const std::vector<double>& a) const {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (double d : a) j.push_back(number(d));
      return j;
    }
    nlohmann::ordered_json operator()(const std::vector<std::string>& a) const { return a; }
    nlohmann::ordered_json operator()(const std::vector<Summary>& a) const {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const Summary& s : a) j.push_back(to_object(s));
      return j;
    }
    nlohmann::ordered_json operator()(const std::shared_ptr<const Summary>& s) const {
      return s ? to_object(*s) : nlohmann::ordered_json();
    }
    nlohmann::ordered_json operator()(const Summary::Json& t) const {
      return nlohmann::ordered_json::parse(t.text, nullptr, /*allow_exceptions=*/false);
    }
  };
  return std::visit(Visit{}, v);
}

}  // namespace

Summary& Summary::set(const std::string& key, Value value) {
  for (auto& [k, v] : fields_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  fields_.emplace_back(key, std::move(value));
  return *this;
}

Summary& Summary::set(const std::string& key, Summary nested) {
  return set(key, Value(std::make_shared<const Summary>(std::move(nested))));
}

Summary& Summary::merge(const Summary& other) {
  for (const auto& [k, v] : other.fields_) set(k, v);
  return *this;
}

bool Summary::contains(const std::string& key) const { return find(key) != nullptr; }

const Summary::Value* Summary::find(const std::string& key) const {
  for (const auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

std::string Summary::to_json() const { return to_object(*this).dump(); }

PhaseTimer::PhaseTimer(const Context& ctx, std::string name)
    : ctx_(&ctx), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

PhaseTimer::PhaseTimer(PhaseTimer&& o) noexcept
    : ctx_(o.ctx_), name_(std::move(o.name_)), start_(o.start_), seconds_(o.seconds_) {
  o.ctx_ = nullptr;
}

double PhaseTimer::stop() {
  if (!ctx_) return seconds_;
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ctx_->report().add_phase(name_, seconds_);
  ctx_ = nullptr;
  return seconds_;
}

Job::Job(const Context& ctx, std::string command, std::string input, std::string prefix)
    : ctx_(&ctx),
      writer_(ctx.communicator().rank() == 0),
      input_(std::move(input)),
      prefix_(std::move(prefix)),
      start_(std::chrono::steady_clock::now()),
      command_(std::move(command)),
      log_path_(log_path_for(prefix_)),
      started_at_(utc_now_text()) {
  if (writer_ && !log_path_.empty()) capture_ = std::make_unique<LogCapture>();
  summary_.set("command", command_);
  summary_.set("input", input_);
  summary_.set("output_prefix", prefix_);
}

Status Job::declare(const std::string& first, OutputRules rules, const std::function<Status(OutputSet&)>& stage) {
  Status st;
  if (writer_) {
    st = [&]() -> Status {
      if (!input_.empty())
        for (std::string& p : input_paths(input_)) rules.inputs.push_back(std::move(p));
      protected_ = rules.inputs;
      STRATA_ASSIGN_OR_RETURN(out_, OutputSet::begin(first, std::move(rules)));
      if (stage) STRATA_RETURN_NOT_OK(stage(*out_));
      if (!log_path_.empty()) {
        STRATA_ASSIGN_OR_RETURN(log_staged_, out_->add_file(log_path_));
        log_path_ = out_->final_paths().back();  // as the set resolved it (absolute)
      }
      return Status::OK();
    }();
    declare_failed_ = !st.ok();  // the outputs' place is refused: no failure log there either
  }
  return agree(st);
}

std::string Job::staging_dir() const { return out_ ? out_->staging_dir() : std::string(); }

Status Job::agree(const Status& local) const { return ctx_->communicator().agree(local); }

Status Job::commit(const Status& written) {
  Status local = written;
  std::vector<std::string> stale;
  if (local.ok() && out_ && !log_staged_.empty()) {
    // The log so far goes in with the outputs; the rest is appended when the Job ends.
    std::vector<std::string> files;
    for (const std::string& f : out_->final_paths())
      if (f != log_path_) files.push_back(f);
    // A plot the previous run drew and this one does not (another --plot-format, a phenotype
    // left out) would sit beside the new tables as if it were theirs: it goes with the commit.
    stale = stale_plots(log_path_, command_, files);
    std::string text = log_head() + log_warnings(0);
    warnings_written_ = capture_ ? capture_->lines().size() : 0;
    text += "Written:\n";
    for (const std::string& f : files) text += "  " + f + "\n";
    text += "  " + log_path_ + "\n";
    if (!stale.empty()) {
      text += "Removed (plots of the previous run that this run does not draw):\n";
      for (const std::string& f : stale) text += "  " + f + "\n";
    }
    std::ofstream f(log_staged_, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) local = Status::IOError(log_path_, ": cannot write the log");
  }
  STRATA_RETURN_NOT_OK(agree_and_commit(*ctx_, out_.get(), local));
  committed_ = true;
  for (const std::string& f : stale)
    if (::unlink(f.c_str()) != 0 && errno != ENOENT) log_warning(f, ": cannot remove the previous run's plot: ", std::strerror(errno));
  files_.clear();
  if (out_)
    for (const std::string& f : out_->final_paths())
      if (f != log_path_) files_.push_back(f);
  summary_.set("files", files_);
  summary_.set("wall_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  return Status::OK();
}

}  // namespace strata
