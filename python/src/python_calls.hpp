#pragma once
// Calls from the library into Python callables (the passes of a distributed runner): the GIL
// taken for each call, and a Python exception kept so the binding raises it — same object and
// traceback — once the library has returned.
#include <mutex>
#include <optional>

#include "common.hpp"

namespace strata::python {

class PythonCalls {
 public:
  ~PythonCalls() {
    nb::gil_scoped_acquire gil;
    error_.reset();
  }
  /// f() with the GIL held: OK; Cancelled when it raised in Python (the exception kept); a
  /// StatusError's status; Invalid naming `what` for any other exception.
  template <class F>
  Status call(const char* what, F&& f) {
    nb::gil_scoped_acquire gil;
    try {
      f();
      return Status::OK();
    } catch (nb::python_error& e) {
      std::lock_guard<std::mutex> lk(mu_);
      error_.emplace(std::move(e));
      return Status::Cancelled("a ", what, " raised in Python");
    } catch (const StatusError& e) {
      return e.status();
    } catch (const std::exception& e) {
      return Status::Invalid(what, ": ", e.what());
    }
  }
  /// The Python exception a call raised, if any (GIL held).
  std::optional<nb::python_error> take_error() {
    std::lock_guard<std::mutex> lk(mu_);
    std::optional<nb::python_error> e = std::move(error_);
    error_.reset();
    return e;
  }

 private:
  std::mutex mu_;
  std::optional<nb::python_error> error_;
};

}  // namespace strata::python
