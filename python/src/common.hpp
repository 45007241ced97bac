// Shared pieces of the bindings: Status → Python exceptions, the per-call Context with a
// progress sink that forwards to a Python callable, and numpy arrays that own C++ memory.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::python {

namespace nb = nanobind;

/// A library Status carried out of C++; the module's translator turns it into ValueError
/// (Invalid, InvalidData), OSError (IOError, NotFound, AlreadyExists, Corrupt, Unsupported),
/// RuntimeError otherwise (Cancelled included; a Ctrl-C raises KeyboardInterrupt: SigintCancel), message unchanged.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status s) : std::runtime_error(s.message()), status_(std::move(s)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

inline void check(const Status& s) {
  if (!s.ok()) throw StatusError(s);
}
template <class T>
T take(Result<T> r) {
  if (!r.ok()) throw StatusError(r.status());
  return std::move(r).value();
}

/// Run `fn` (returning Status or Result<T>) with the GIL released, then raise its error.
template <class F>
auto released(F&& fn) {
  using R = decltype(fn());
  if constexpr (std::is_same_v<R, Status>) {
    Status s;
    {
      nb::gil_scoped_release release;
      s = fn();
    }
    check(s);
  } else {
    std::optional<R> r;
    {
      nb::gil_scoped_release release;
      r.emplace(fn());
    }
    return take(std::move(*r));
  }
}

class CallbackProgress;
class PyContext;

/// The exception a progress callback raised during the last call on `pc` (which it cancelled),
/// raised again here — same object, type, message and traceback — instead of "Cancelled".
void raise_progress_error(const PyContext& pc);

/// Ctrl-C during a call on `pc`: while alive (made and finished with the GIL held, in the main
/// thread, and only where Python handles SIGINT), a SIGINT cancels the Context — the library
/// stops at its next block and returns Cancelled, removing its staged output — and then goes on
/// to Python's own handler, which finish() runs: KeyboardInterrupt (or the user's handler).
class SigintCancel {
 public:
  explicit SigintCancel(const Context& ctx);
  ~SigintCancel();
  SigintCancel(const SigintCancel&) = delete;
  SigintCancel& operator=(const SigintCancel&) = delete;
  /// Restore the earlier handler; after a SIGINT, run Python's handler (raising its exception).
  void finish();

 private:
  void restore();
  bool installed_ = false;
  const Context* ctx_;
};

/// released() for a call running on `pc`: Ctrl-C (KeyboardInterrupt) and then a progress
/// callback's exception win over the status (Cancelled) they caused.
template <class F>
auto released(const PyContext& pc, F&& fn) {
  using R = decltype(fn());
  SigintCancel sigint(pc.ctx());
  if constexpr (std::is_same_v<R, Status>) {
    Status s;
    {
      nb::gil_scoped_release release;
      s = fn();
    }
    sigint.finish();
    raise_progress_error(pc);
    check(s);
  } else {
    std::optional<R> r;
    {
      nb::gil_scoped_release release;
      r.emplace(fn());
    }
    sigint.finish();
    raise_progress_error(pc);
    return take(std::move(*r));
  }
}

/// The Python-side Context: resources of one call (or of the calls a user makes with it).
/// Not copyable: it breaks the Context ↔ progress sink cycle when destroyed.
class PyContext {
 public:
  PyContext(Context ctx, std::shared_ptr<CallbackProgress> sink) : ctx_(std::move(ctx)), sink_(std::move(sink)) {}
  ~PyContext();
  PyContext(const PyContext&) = delete;
  PyContext& operator=(const PyContext&) = delete;
  const Context& ctx() const { return ctx_; }
  CallbackProgress* sink() const { return sink_.get(); }

 private:
  Context ctx_;
  std::shared_ptr<CallbackProgress> sink_;
};

/// A memory budget as Python's memory= gives it: None → 0 (the library's
/// default_memory_budget()), bytes (int) or a size ("2G"), checked by the library.
int64_t memory_budget_of(const nb::handle& memory);

/// A Context with `threads` (0 = all cores), `memory` (memory_budget_of) and, when
/// `progress` is not None, a sink calling progress(event, done, total, label, unit) with
/// event "begin", "update" (at most every `interval` seconds), "phase" (label = the phase's
/// name) or "end", holding the GIL.
std::unique_ptr<PyContext> make_py_context(int threads, const nb::object& memory, nb::object progress, double interval);

/// A numpy array over memory owned by `holder` (moved to the heap; freed with the array).
template <class T, class Holder>
nb::ndarray<nb::numpy, T> owned_array(Holder&& holder, T* data, std::vector<size_t> shape,
                                      std::vector<int64_t> strides = {}) {
  auto* h = new std::decay_t<Holder>(std::forward<Holder>(holder));
  nb::capsule owner(h, [](void* p) noexcept { delete static_cast<std::decay_t<Holder>*>(p); });
  (void)h;
  return nb::ndarray<nb::numpy, T>(data, shape.size(), shape.data(), owner,
                                   strides.empty() ? nullptr : strides.data());
}

/// A column-major rows × cols matrix of doubles as a Fortran-order numpy array (no copy).
nb::ndarray<nb::numpy, double> column_major_array(std::vector<double>&& data, int64_t rows, int64_t cols);
nb::ndarray<nb::numpy, double> vector_array(std::vector<double>&& data);

/// Property `name` of a bound parameter struct for enum field `field`, spelled as the library
/// spells it: `name_of` (its `*_name()`) to read, `parse` (its `parse_*()`, errors raised) to set.
template <class C, class E, class NameOf, class Parse>
void enum_property(nb::class_<C>& cls, const char* name, E C::*field, NameOf name_of, Parse parse) {
  cls.def_prop_rw(
      name, [field, name_of](const C& c) { return std::string(name_of(c.*field)); },
      [field, parse](C& c, const std::string& text) { c.*field = take(parse(text)); });
}

/// A library Summary (a command's report fields) as the Python dict json.loads makes of its
/// JSON: the keys and values the CLI's --report writes (NaN and infinities are None).
nb::dict summary_dict(const Summary& summary);

/// strata.Genotypes' compiled half (python/strata/_genotypes.py): a genotype view.
struct Genotypes {
  io::GenotypeViewPtr view;
};

void bind_genotypes(nb::module_& m);
void bind_distributed(nb::module_& m);
void bind_relatedness(nb::module_& m);
void bind_project(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_arrays(nb::module_& m);
void bind_glm(nb::module_& m);
void bind_gwas(nb::module_& m);

}  // namespace strata::python
