// Ctrl-C while strata computes with the GIL released: Python's SIGINT handler only sets a flag
// that the interpreter checks between bytecodes, which never come while C++ runs. For the call's
// duration a C handler cancels the call's Context (an atomic store: async-signal-safe) and then
// runs the handler it replaced (Python's, which sets that flag); once the library has returned
// Cancelled, finish() lets Python act on the flag: KeyboardInterrupt, or the user's handler.
#include <Python.h>
#include <signal.h>

#include <atomic>

#include "common.hpp"

namespace strata::python {
namespace {

std::atomic<const Context*> g_ctx{nullptr};  // the Context a SIGINT cancels (one guard at a time)
struct sigaction g_prev {};                   // the handler a guard replaced
volatile sig_atomic_t g_hit = 0;

void on_sigint(int sig, siginfo_t* info, void* uctx) {
  g_hit = 1;
  if (const Context* c = g_ctx.load()) c->cancel();
  if (g_prev.sa_flags & SA_SIGINFO) {
    if (g_prev.sa_sigaction) g_prev.sa_sigaction(sig, info, uctx);
  } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN && g_prev.sa_handler) {
    g_prev.sa_handler(sig);
  }
}

bool in_main_thread() {
  static const unsigned long main_ident =
      nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  return PyThread_get_thread_ident() == main_ident;
}

}  // namespace

SigintCancel::SigintCancel(const Context& ctx) : ctx_(&ctx) {
  // Only the main thread sees Python's signal handlers, and only a handled SIGINT (not
  // SIG_DFL/SIG_IGN: an embedding application's choice) is taken over; a nested call (a
  // progress callback's) leaves the outer call's guard in place.
  if (!in_main_thread() || g_ctx.load() != nullptr) return;
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  const bool handled = (current.sa_flags & SA_SIGINFO) ? current.sa_sigaction != nullptr
                                                       : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
  if (!handled) return;
  g_prev = current;
  g_hit = 0;
  g_ctx.store(ctx_);
  struct sigaction ours {};
  ours.sa_sigaction = on_sigint;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  if (sigaction(SIGINT, &ours, nullptr) != 0) {
    g_ctx.store(nullptr);
    return;
  }
  installed_ = true;
}

void SigintCancel::restore() {
  if (!installed_) return;
  sigaction(SIGINT, &g_prev, nullptr);
  g_ctx.store(nullptr);
  installed_ = false;
}

SigintCancel::~SigintCancel() { restore(); }

void SigintCancel::finish() {
  const bool was_installed = installed_;
  restore();
  if (!was_installed || !g_hit) return;
  g_hit = 0;
  ctx_->reset_cancel();  // the Context stays usable for the next call
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

}  // namespace strata::python
