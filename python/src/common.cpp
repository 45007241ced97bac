#include "common.hpp"

#include <nanobind/stl/string.h>

#include <chrono>
#include <mutex>

namespace strata::python {

// Forwards progress to a Python callable. The library calls one sink method at a time per
// Context, from any worker thread; updates are thrown away unless `interval` passed since the
// last one forwarded, so a fast pass does not spend its time in the interpreter. An exception
// raised by the callback (a closed notebook, KeyboardInterrupt) cancels the computation and is
// kept: the binding raises it from the call once the library returns (raise_progress_error).
// Later events of that call are not forwarded.
class CallbackProgress final : public ProgressSink {
 public:
  CallbackProgress(nb::object callback, double interval) : callback_(std::move(callback)), interval_(interval) {}
  ~CallbackProgress() override {
    nb::gil_scoped_acquire gil;
    callback_.reset();
    error_.reset();
  }
  void set_context(const Context& ctx) { ctx_ = ctx; }
  void detach() { ctx_.reset(); }
  /// The callback's exception of the last call, if it raised (cleared); GIL held.
  std::optional<nb::python_error> take_error() {
    std::lock_guard<std::mutex> lk(mu_);
    std::optional<nb::python_error> e = std::move(error_);
    error_.reset();
    return e;
  }

  void begin(std::string_view label, int64_t total, std::string_view unit) override {
    last_ = Clock::now();
    call("begin", 0, total, label, unit);
  }
  void update(int64_t done, int64_t total) override {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval_) return;
    last_ = now;
    call("update", done, total, "", "");
  }
  void end(int64_t done, int64_t total) override { call("end", done, total, "", ""); }
  // The pass the task is in ("variant counts", "eigensolve"): a bar's description.
  void phase(std::string_view name) override { call("phase", 0, 0, name, ""); }

 private:
  using Clock = std::chrono::steady_clock;
  void call(const char* event, int64_t done, int64_t total, std::string_view label, std::string_view unit) {
    nb::gil_scoped_acquire gil;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (error_) return;
    }
    try {
      callback_(event, done, total, nb::str(label.data(), label.size()), nb::str(unit.data(), unit.size()));
    } catch (nb::python_error& e) {
      {
        std::lock_guard<std::mutex> lk(mu_);
        error_.emplace(std::move(e));
      }
      if (ctx_) ctx_->cancel();
    }
  }
  nb::object callback_;
  double interval_;
  Clock::time_point last_ = Clock::now();
  std::optional<Context> ctx_;
  std::mutex mu_;
  std::optional<nb::python_error> error_;
};

void raise_progress_error(const PyContext& pc) {
  if (!pc.sink()) return;
  if (std::optional<nb::python_error> e = pc.sink()->take_error()) {
    pc.ctx().reset_cancel();
    throw std::move(*e);
  }
}

PyContext::~PyContext() {
  if (sink_) sink_->detach();
}

int64_t memory_budget_of(const nb::handle& memory) {
  // The library's checks and messages, as the CLI's --memory; None leaves the budget to the
  // library (default_memory_budget(), as every command without --memory).
  if (memory.is_none()) return 0;
  if (nb::isinstance<nb::bool_>(memory) || !(nb::isinstance<nb::int_>(memory) || nb::isinstance<nb::str>(memory)))
    throw nb::type_error("memory must be a number of bytes or a size like '2G'");
  if (nb::isinstance<nb::str>(memory)) return take(parse_memory_budget(nb::cast<std::string>(memory)));
  const int64_t bytes = nb::cast<int64_t>(memory);
  check(check_memory_budget(bytes));
  return bytes;
}

std::unique_ptr<PyContext> make_py_context(int threads, const nb::object& memory, nb::object progress, double interval) {
  ContextOptions o;
  o.threads = threads;
  o.memory_budget = memory_budget_of(memory);
  std::shared_ptr<CallbackProgress> sink;
  if (!progress.is_none()) {
    sink = std::make_shared<CallbackProgress>(std::move(progress), interval);
    o.progress = sink;
  }
  auto out = std::make_unique<PyContext>(take(Context::make(o)), sink);
  if (sink) sink->set_context(out->ctx());
  return out;
}

nb::ndarray<nb::numpy, double> column_major_array(std::vector<double>&& data, int64_t rows, int64_t cols) {
  double* p = data.data();
  return owned_array<double>(std::move(data), p, {static_cast<size_t>(rows), static_cast<size_t>(cols)},
                             {1, rows});
}

nb::ndarray<nb::numpy, double> vector_array(std::vector<double>&& data) {
  double* p = data.data();
  const size_t n = data.size();
  return owned_array<double>(std::move(data), p, {n});
}

nb::dict summary_dict(const Summary& summary) {
  // Through the JSON text: one conversion for every value kind (nested summaries and JSON text
  // made elsewhere included), doubles round-trip exactly.
  const std::string text = summary.to_json();
  return nb::cast<nb::dict>(nb::module_::import_("json").attr("loads")(nb::str(text.data(), text.size())));
}

}  // namespace strata::python
