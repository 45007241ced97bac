// strata::Communicator over MPI (see strata/dist/mpi.hpp). Collectives run on a duplicate of
// MPI_COMM_WORLD; a second duplicate carries the control traffic: failure notices (point to
// point) and the error agreement.
// libmpi is opened (dlopen) when MPI starts, not linked: a process outside mpirun never loads
// Open MPI's libraries (libmpi, libopen-rte, libopen-pal, hwloc, libevent, libudev: ~1.3 ms of
// every start). <mpi.h> gives the types and constants; every call goes through MpiApi (the
// MPI_* names below are macros for its entries).
// The C API only: OpenMPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "strata/dist/mpi.hpp"

namespace strata::dist {
namespace {

#define STRATA_MPI_FUNCTIONS(X)                                                                                  \
  X(Init_thread) X(Initialized) X(Finalize) X(Abort) X(Error_string) X(Comm_dup) X(Comm_free)                   \
  X(Comm_set_errhandler) X(Comm_rank) X(Comm_size) X(Comm_split_type) X(Test) X(Isend) X(Irecv) X(Ibcast)        \
  X(Iallgather) X(Iallgatherv) X(Igatherv) X(Ibarrier) X(Iallreduce) X(Iprobe) X(Probe) X(Recv) X(Get_count)
// Open MPI's predefined handles are addresses of objects in libmpi (MPICH's are constants).
#ifdef OPEN_MPI
#define STRATA_MPI_HANDLES(X)                                                                             \
  X(MPI_Comm, comm_world, ompi_mpi_comm_world) X(MPI_Comm, comm_null, ompi_mpi_comm_null)                  \
  X(MPI_Datatype, type_byte, ompi_mpi_byte) X(MPI_Datatype, type_char, ompi_mpi_char)                     \
  X(MPI_Datatype, type_int32, ompi_mpi_int32_t) X(MPI_Datatype, type_int64, ompi_mpi_int64_t)             \
  X(MPI_Op, op_sum, ompi_mpi_op_sum) X(MPI_Errhandler, errors_return, ompi_mpi_errors_return)             \
  X(MPI_Info, info_null, ompi_mpi_info_null)
#else
#define STRATA_MPI_HANDLES(X)
#endif

struct MpiApi {
#define STRATA_MPI_ENTRY(name) decltype(&::MPI_##name) name = nullptr;
  STRATA_MPI_FUNCTIONS(STRATA_MPI_ENTRY)
#undef STRATA_MPI_ENTRY
#define STRATA_MPI_HANDLE(type, field, symbol) type field{};
  STRATA_MPI_HANDLES(STRATA_MPI_HANDLE)
#undef STRATA_MPI_HANDLE
};
MpiApi g_mpi;

// The library this build compiled against (STRATA_MPI_LIBRARY: its file, STRATA_MPI_SONAME: the
// name the loader finds it by), opened once; the handle is never closed. RTLD_GLOBAL: Open MPI's
// components (dlopen'ed by MPI_Init) bind to libmpi's symbols.
Status load_mpi() {
  static const Status loaded = []() -> Status {
    std::string tried;
    void* lib = nullptr;
    for (const char* name : {STRATA_MPI_SONAME, STRATA_MPI_LIBRARY}) {
      if (*name == '\0') continue;
      lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
      if (lib) break;
      const char* e = dlerror();
      tried += str_cat(tried.empty() ? "" : "; ", e ? e : name);
    }
    if (!lib) return Status::Unsupported("strata runs under mpirun with the MPI library it was built with, which could not be loaded (", tried, ")");
    std::string missing;
    auto bind = [&](const char* symbol) {
      void* p = dlsym(lib, symbol);
      if (!p) missing += str_cat(missing.empty() ? "" : ", ", symbol);
      return p;
    };
#define STRATA_MPI_ENTRY(name) g_mpi.name = reinterpret_cast<decltype(g_mpi.name)>(bind("MPI_" #name));
    STRATA_MPI_FUNCTIONS(STRATA_MPI_ENTRY)
#undef STRATA_MPI_ENTRY
#define STRATA_MPI_HANDLE(type, field, symbol) g_mpi.field = reinterpret_cast<type>(bind(#symbol));
    STRATA_MPI_HANDLES(STRATA_MPI_HANDLE)
#undef STRATA_MPI_HANDLE
    if (!missing.empty()) return Status::Unsupported("the MPI library lacks ", missing);
    return Status::OK();
  }();
  return loaded;
}

}  // namespace

// From here on every MPI name is MpiApi's.
#define STRATA_MPI_CALL(name) g_mpi.name
#define MPI_Init_thread STRATA_MPI_CALL(Init_thread)
#define MPI_Initialized STRATA_MPI_CALL(Initialized)
#define MPI_Finalize STRATA_MPI_CALL(Finalize)
#define MPI_Abort STRATA_MPI_CALL(Abort)
#define MPI_Error_string STRATA_MPI_CALL(Error_string)
#define MPI_Comm_dup STRATA_MPI_CALL(Comm_dup)
#define MPI_Comm_free STRATA_MPI_CALL(Comm_free)
#define MPI_Comm_set_errhandler STRATA_MPI_CALL(Comm_set_errhandler)
#define MPI_Comm_rank STRATA_MPI_CALL(Comm_rank)
#define MPI_Comm_size STRATA_MPI_CALL(Comm_size)
#define MPI_Comm_split_type STRATA_MPI_CALL(Comm_split_type)
#define MPI_Test STRATA_MPI_CALL(Test)
#define MPI_Isend STRATA_MPI_CALL(Isend)
#define MPI_Irecv STRATA_MPI_CALL(Irecv)
#define MPI_Ibcast STRATA_MPI_CALL(Ibcast)
#define MPI_Iallgather STRATA_MPI_CALL(Iallgather)
#define MPI_Iallgatherv STRATA_MPI_CALL(Iallgatherv)
#define MPI_Igatherv STRATA_MPI_CALL(Igatherv)
#define MPI_Ibarrier STRATA_MPI_CALL(Ibarrier)
#define MPI_Iallreduce STRATA_MPI_CALL(Iallreduce)
#define MPI_Iprobe STRATA_MPI_CALL(Iprobe)
#define MPI_Probe STRATA_MPI_CALL(Probe)
#define MPI_Recv STRATA_MPI_CALL(Recv)
#define MPI_Get_count STRATA_MPI_CALL(Get_count)
#ifdef OPEN_MPI
#undef MPI_COMM_WORLD
#undef MPI_COMM_NULL
#undef MPI_BYTE
#undef MPI_CHAR
#undef MPI_INT32_T
#undef MPI_INT64_T
#undef MPI_SUM
#undef MPI_ERRORS_RETURN
#undef MPI_INFO_NULL
#define MPI_COMM_WORLD g_mpi.comm_world
#define MPI_COMM_NULL g_mpi.comm_null
#define MPI_BYTE g_mpi.type_byte
#define MPI_CHAR g_mpi.type_char
#define MPI_INT32_T g_mpi.type_int32
#define MPI_INT64_T g_mpi.type_int64
#define MPI_SUM g_mpi.op_sum
#define MPI_ERRORS_RETURN g_mpi.errors_return
#define MPI_INFO_NULL g_mpi.info_null
#endif

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kFailTag = 7001;
constexpr int kDataTag = 7002;  // point-to-point data on the data communicator
// Largest piece one MPI call moves (MPI counts are int).
constexpr int64_t kMaxPiece = int64_t{1} << 30;
// How long a wait polls without sleeping (see MpiCommunicator::wait).
constexpr std::chrono::microseconds kSpinWait{5000};

double timeout_seconds() {
  const char* e = std::getenv("STRATA_MPI_TIMEOUT");
  if (e && *e) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end && *end == '\0' && v > 0) return v;
  }
  return 600.0;
}

std::string mpi_error(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, buf, &len);
  return std::string(buf, static_cast<size_t>(len));
}

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(double timeout) : timeout_(timeout) {
    MPI_Comm_dup(MPI_COMM_WORLD, &data_);
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl_);
    MPI_Comm_set_errhandler(data_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ctl_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(data_, &rank_);
    MPI_Comm_size(data_, &size_);
    MPI_Comm host;
    if (MPI_Comm_split_type(data_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
      MPI_Comm_size(host, &on_host_);
      MPI_Comm_free(&host);
    }
    heard_from_.assign(static_cast<size_t>(size_), 0);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_this_host() const override { return on_host_; }

  Status allreduce_sum(double* data, int64_t n) const override {
    // Gathered on rank 0 and added there in rank order: the same bits for the same rank count.
    std::string mine(reinterpret_cast<const char*>(data), static_cast<size_t>(n) * sizeof(double));
    std::vector<std::string> all;
    STRATA_RETURN_NOT_OK(gather(mine, &all));
    std::string sum;
    if (rank_ == 0) {
      std::vector<double> acc(static_cast<size_t>(n), 0.0);
      for (int r = 0; r < size_; ++r) {
        if (all[static_cast<size_t>(r)].size() != mine.size())
          return Status::CommError("allreduce: rank ", r, " sent ", all[static_cast<size_t>(r)].size(),
                                   " bytes, expected ", mine.size());
        const auto* p = reinterpret_cast<const double*>(all[static_cast<size_t>(r)].data());
        if (r == 0) std::copy(p, p + n, acc.begin());
        else for (int64_t i = 0; i < n; ++i) acc[static_cast<size_t>(i)] += p[i];
      }
      sum.assign(reinterpret_cast<const char*>(acc.data()), mine.size());
    }
    STRATA_RETURN_NOT_OK(broadcast(sum, 0));
    if (sum.size() != mine.size()) return Status::CommError("allreduce: the broadcast sum has the wrong size");
    std::memcpy(data, sum.data(), sum.size());
    return Status::OK();
  }

  Status allreduce_sum(int64_t* data, int64_t n) const override {
    std::lock_guard<std::mutex> lk(mu_);
    STRATA_RETURN_NOT_OK(usable("allreduce (int64)"));
    Timer t(*this, n * 8);
    for (int64_t done = 0; done < n;) {
      const int64_t piece = std::min(n - done, kMaxPiece / 8);
      auto buf = std::make_shared<std::vector<int64_t>>(data + done, data + done + piece);
      MPI_Request req;
      STRATA_RETURN_NOT_OK(check(MPI_Iallreduce(MPI_IN_PLACE, buf->data(), static_cast<int>(piece), MPI_INT64_T,
                                                MPI_SUM, data_, &req), "allreduce (int64)"));
      STRATA_RETURN_NOT_OK(waited(&req, "allreduce (int64)", true, buf));
      std::copy(buf->begin(), buf->end(), data + done);
      done += piece;
    }
    return Status::OK();
  }

  Status broadcast(std::string& bytes, int root) const override {
    std::lock_guard<std::mutex> lk(mu_);
    return broadcast_locked(bytes, root, data_, "broadcast", true);
  }

  Status gather(const std::string& mine, std::vector<std::string>* all) const override {
    return gather_impl(mine, all, false);
  }
  Status send(const std::string& bytes, int dest) const override {
    std::lock_guard<std::mutex> lk(mu_);
    STRATA_RETURN_NOT_OK(usable("send"));
    if (dest < 0 || dest >= size_ || dest == rank_) return Status::Invalid("send: no rank ", dest, " to send to");
    Timer t(*this, static_cast<int64_t>(bytes.size()));
    auto size = std::make_shared<int64_t>(static_cast<int64_t>(bytes.size()));
    MPI_Request req;
    STRATA_RETURN_NOT_OK(check(MPI_Isend(size.get(), 1, MPI_INT64_T, dest, kDataTag, data_, &req), "send"));
    STRATA_RETURN_NOT_OK(waited(&req, "send", true, size));
    auto buf = std::make_shared<std::string>(bytes);
    for (int64_t done = 0; done < *size;) {
      const int64_t piece = std::min(*size - done, kMaxPiece);
      STRATA_RETURN_NOT_OK(check(MPI_Isend(buf->data() + done, static_cast<int>(piece), MPI_BYTE, dest, kDataTag, data_,
                                           &req), "send"));
      STRATA_RETURN_NOT_OK(waited(&req, "send", true, buf));
      done += piece;
    }
    return Status::OK();
  }
  Status recv(std::string* bytes, int source) const override {
    std::lock_guard<std::mutex> lk(mu_);
    STRATA_RETURN_NOT_OK(usable("receive"));
    if (source < 0 || source >= size_ || source == rank_) return Status::Invalid("receive: no rank ", source);
    Timer t(*this, 0);
    auto size = std::make_shared<int64_t>(0);
    MPI_Request req;
    STRATA_RETURN_NOT_OK(check(MPI_Irecv(size.get(), 1, MPI_INT64_T, source, kDataTag, data_, &req), "receive"));
    STRATA_RETURN_NOT_OK(waited(&req, "receive", true, size));
    if (*size < 0) return Status::CommError("receive: rank ", source, " announced ", *size, " bytes");
    auto buf = std::make_shared<std::string>(static_cast<size_t>(*size), '\0');
    for (int64_t done = 0; done < *size;) {
      const int64_t piece = std::min(*size - done, kMaxPiece);
      STRATA_RETURN_NOT_OK(check(MPI_Irecv(buf->data() + done, static_cast<int>(piece), MPI_BYTE, source, kDataTag,
                                           data_, &req), "receive"));
      STRATA_RETURN_NOT_OK(waited(&req, "receive", true, buf));
      done += piece;
    }
    *bytes = std::move(*buf);
    return Status::OK();
  }
  Status allgather(const std::string& mine, std::vector<std::string>* all) const override {
    return gather_impl(mine, all, true);
  }

  Status barrier() const override {
    std::lock_guard<std::mutex> lk(mu_);
    STRATA_RETURN_NOT_OK(usable("barrier"));
    Timer t(*this, 0);
    MPI_Request req;
    STRATA_RETURN_NOT_OK(check(MPI_Ibarrier(data_, &req), "barrier"));
    return wait(&req, "barrier", true);
  }

  Status agree(const Status& local) const override;

  CommStats stats() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return stats_;
  }

  // Whether some rank left a collective unfinished (known after a failed agreement).
  bool must_abort() const {
    std::lock_guard<std::mutex> lk(mu_);
    return broken_ || any_broken_;
  }

  void free_comms() {
    MPI_Comm_free(&data_);
    MPI_Comm_free(&ctl_);
  }

 private:
  // Adds one collective's time and bytes to the stats.
  struct Timer {
    Timer(const MpiCommunicator& c, int64_t bytes) : c_(c), t0_(Clock::now()) {
      c_.stats_.collectives += 1;
      c_.stats_.bytes_sent += bytes;
    }
    ~Timer() { c_.stats_.seconds += std::chrono::duration<double>(Clock::now() - t0_).count(); }
    const MpiCommunicator& c_;
    Clock::time_point t0_;
  };

  // STRATA_FAULT_MPI_STALL_RANK=r (tests only): rank r hangs at its first gather, as a rank
  // stuck in a loop or a dead host would; the others must stop within the deadline.
  void stall_for_tests() const {
    const char* e = std::getenv("STRATA_FAULT_MPI_STALL_RANK");
    if (e && *e && std::atoi(e) == rank_) std::this_thread::sleep_for(std::chrono::hours(1));
  }

  Status usable(const char* what) const {
    if (agreed_failure_) return *agreed_failure_;
    if (broken_) return Status::CommError(what, ": an earlier collective on rank ", rank_, " did not finish");
    return Status::OK();
  }

  Status check(int rc, const char* what) const {
    if (rc == MPI_SUCCESS) return Status::OK();
    broken_ = true;
    return Status::CommError(what, " on rank ", rank_, ": ", mpi_error(rc));
  }

  // Polls `req` until it completes, a peer reports a failure (`watch`: data collectives) or the
  // deadline passes. Anything but completion leaves the collective unfinished (broken_).
  Status wait(MPI_Request* req, const char* what, bool watch) const {
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout_);
    const auto spin_until = start + kSpinWait;
    for (int sleeps = 0;;) {
      int done = 0;
      STRATA_RETURN_NOT_OK(check(MPI_Test(req, &done, MPI_STATUS_IGNORE), what));
      if (done) return Status::OK();
      if (watch) {
        std::optional<Status> peer = poll_failure();
        if (peer) {
          broken_ = true;
          learned_from_peer_ = true;
          return Status::CommError(what, " on rank ", rank_, " stopped: ", peer->message());
        }
      }
      if (Clock::now() > deadline) {
        broken_ = true;
        return Status::CommError(what, " on rank ", rank_, ": the other ranks did not answer within ", timeout_,
                                 " s (a rank hangs or died; STRATA_MPI_TIMEOUT sets the limit)");
      }
      // A message above the eager limit moves only while both ranks call into MPI: sleeping
      // between tests stretched the PCA pass's tree-node transfer (1.3 MB) from ~0.3 ms to
      // ~2.5 ms. So the first kSpinWait spins (yielding the core to any other runnable thread),
      // and only longer waits (a peer still computing or writing) back off to sleeps of 1 ms.
      if (Clock::now() < spin_until) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, ++sleeps)));
    }
  }

  // wait(), keeping `keep` (the request's buffers) alive when the request is left unfinished: a
  // peer failed or the deadline passed, yet MPI progresses the request on every later call and
  // may still write into its buffers (a freed one corrupted the heap or stack of a rank whose
  // peer failed mid-run). They live until the process ends, which such a rank soon does.
  Status waited(MPI_Request* req, const char* what, bool watch, std::shared_ptr<void> keep) const {
    Status st = wait(req, what, watch);
    if (!st.ok()) parked_.push_back(std::move(keep));
    return st;
  }

  // A failure notice from a peer, if one arrived: "rank r: message" with the peer's code.
  std::optional<Status> poll_failure() const {
    int has = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kFailTag, ctl_, &has, &st) != MPI_SUCCESS || !has) return std::nullopt;
    return receive_failure(st.MPI_SOURCE);
  }

  std::optional<Status> receive_failure(int source) const {
    MPI_Status st;
    MPI_Probe(source, kFailTag, ctl_, &st);
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    std::string buf(static_cast<size_t>(std::max(len, 0)), '\0');
    MPI_Recv(buf.data(), len, MPI_CHAR, source, kFailTag, ctl_, MPI_STATUS_IGNORE);
    heard_from_[static_cast<size_t>(source)] = 1;
    int32_t code = static_cast<int32_t>(StatusCode::CommError);
    if (buf.size() >= sizeof code) std::memcpy(&code, buf.data(), sizeof code);
    const std::string msg = buf.size() >= sizeof code ? buf.substr(sizeof code) : std::string();
    return Status(static_cast<StatusCode>(code), str_cat("rank ", source, ": ", msg));
  }

  // Tells every peer that this rank failed, so those waiting in a collective stop at once.
  void notify(const Status& st) const {
    if (notified_) return;
    notified_ = true;
    const auto code = static_cast<int32_t>(st.code());
    notice_.assign(reinterpret_cast<const char*>(&code), sizeof code);
    notice_ += st.message();
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Request req;
      if (MPI_Isend(notice_.data(), static_cast<int>(notice_.size()), MPI_CHAR, r, kFailTag, ctl_, &req) == MPI_SUCCESS)
        sends_.push_back(req);
    }
  }

  // `watch`: a data collective (stops on a peer's failure notice, refused once this rank left a
  // collective unfinished); otherwise the agreement's own broadcast, which runs regardless.
  Status broadcast_locked(std::string& bytes, int root, MPI_Comm comm, const char* what, bool watch) const {
    if (watch) STRATA_RETURN_NOT_OK(usable(what));
    Timer t(*this, rank_ == root ? static_cast<int64_t>(bytes.size()) : 0);
    auto size = std::make_shared<int64_t>(static_cast<int64_t>(bytes.size()));
    MPI_Request req;
    STRATA_RETURN_NOT_OK(check(MPI_Ibcast(size.get(), 1, MPI_INT64_T, root, comm, &req), what));
    STRATA_RETURN_NOT_OK(waited(&req, what, watch, size));
    auto buf = std::make_shared<std::string>(rank_ == root ? bytes : std::string(static_cast<size_t>(*size), '\0'));
    for (int64_t done = 0; done < *size;) {
      const int64_t piece = std::min(*size - done, kMaxPiece);
      STRATA_RETURN_NOT_OK(check(MPI_Ibcast(buf->data() + done, static_cast<int>(piece), MPI_BYTE, root, comm, &req), what));
      STRATA_RETURN_NOT_OK(waited(&req, what, watch, buf));
      done += piece;
    }
    if (rank_ != root) bytes = std::move(*buf);
    return Status::OK();
  }

  Status gather_impl(const std::string& mine, std::vector<std::string>* all, bool everyone) const {
    stall_for_tests();
    std::lock_guard<std::mutex> lk(mu_);
    const char* what = everyone ? "allgather" : "gather";
    STRATA_RETURN_NOT_OK(usable(what));
    Timer t(*this, static_cast<int64_t>(mine.size()));
    // Every rank learns every size, so all make the same decision about the limits.
    const int64_t my_size = static_cast<int64_t>(mine.size());
    // [0] this rank's size, then every rank's.
    auto size_buf = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(size_ + 1));
    (*size_buf)[0] = my_size;
    MPI_Request req;
    STRATA_RETURN_NOT_OK(check(MPI_Iallgather(size_buf->data(), 1, MPI_INT64_T, size_buf->data() + 1, 1, MPI_INT64_T,
                                              data_, &req), what));
    STRATA_RETURN_NOT_OK(waited(&req, what, true, size_buf));
    const std::vector<int64_t> sizes(size_buf->begin() + 1, size_buf->end());
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    if (total > INT_MAX)
      return Status::CommError(what, ": ", total, " bytes in all is more than one MPI call moves (2 GiB)");
    std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
    for (int r = 0, off = 0; r < size_; ++r) {
      counts[static_cast<size_t>(r)] = static_cast<int>(sizes[static_cast<size_t>(r)]);
      displs[static_cast<size_t>(r)] = off;
      off += counts[static_cast<size_t>(r)];
    }
    const bool receives = everyone || rank_ == 0;
    // What MPI reads and writes, kept alive if the collective is left unfinished (waited).
    struct Buffers {
      std::string mine, joined;
      std::vector<int> counts, displs;
    };
    auto b = std::make_shared<Buffers>(Buffers{mine, std::string(receives ? static_cast<size_t>(total) : 0, '\0'),
                                               counts, displs});
    const int rc = everyone ? MPI_Iallgatherv(b->mine.data(), static_cast<int>(my_size), MPI_BYTE, b->joined.data(),
                                              b->counts.data(), b->displs.data(), MPI_BYTE, data_, &req)
                            : MPI_Igatherv(b->mine.data(), static_cast<int>(my_size), MPI_BYTE, b->joined.data(),
                                           b->counts.data(), b->displs.data(), MPI_BYTE, 0, data_, &req);
    STRATA_RETURN_NOT_OK(check(rc, what));
    STRATA_RETURN_NOT_OK(waited(&req, what, true, b));
    const std::string& joined = b->joined;
    if (receives && all) {
      all->assign(static_cast<size_t>(size_), std::string());
      for (int r = 0; r < size_; ++r)
        (*all)[static_cast<size_t>(r)] = joined.substr(static_cast<size_t>(displs[static_cast<size_t>(r)]),
                                                       static_cast<size_t>(counts[static_cast<size_t>(r)]));
    }
    return Status::OK();
  }

  mutable std::mutex mu_;
  MPI_Comm data_ = MPI_COMM_NULL, ctl_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, on_host_ = 1;
  double timeout_;
  mutable CommStats stats_;
  mutable bool broken_ = false;             // a collective of this rank did not finish
  mutable bool any_broken_ = false;         // some rank's did not (agreed)
  mutable bool learned_from_peer_ = false;  // this rank's error is a peer's failure notice
  mutable bool notified_ = false;
  mutable std::string notice_;
  mutable std::vector<MPI_Request> sends_;
  mutable std::vector<std::shared_ptr<void>> parked_;  // buffers of requests left unfinished (waited)
  mutable std::vector<char> heard_from_;
  mutable std::optional<Status> agreed_failure_;
};

// The agreement: every rank's (kind, broken, code, length) to every rank; the first rank with an
// error of its own (else the first that saw a peer fail) broadcasts its message. Ranks then
// collect the notices still in flight, so MPI can finalize cleanly when nothing was left
// unfinished.
Status MpiCommunicator::agree(const Status& local) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (agreed_failure_) return *agreed_failure_;
  Timer t(*this, 16);
  const int32_t kind = local.ok() ? 0 : (learned_from_peer_ ? 2 : 1);
  if (kind == 1) notify(local);
  // [0, 4) this rank's, then every rank's four (kept alive if the gather is left unfinished).
  auto buf = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(4 * size_ + 4));
  (*buf)[0] = kind;
  (*buf)[1] = broken_ ? 1 : 0;
  (*buf)[2] = static_cast<int32_t>(local.code());
  (*buf)[3] = static_cast<int32_t>(std::min<size_t>(local.message().size(), 1 << 20));
  MPI_Request req;
  auto fail = [&](Status st) {
    broken_ = true;
    any_broken_ = true;
    agreed_failure_ = local.ok() ? st : Status(local.code(), str_cat("rank ", rank_, ": ", local.message()));
    return *agreed_failure_;
  };
  Status st = check(MPI_Iallgather(buf->data(), 4, MPI_INT32_T, buf->data() + 4, 4, MPI_INT32_T, ctl_, &req),
                    "error agreement");
  if (st.ok()) st = waited(&req, "error agreement", false, buf);
  if (!st.ok()) return fail(st);
  const std::vector<int32_t> all(buf->begin() + 4, buf->end());
  int chosen = -1;
  for (int want = 1; want <= 2 && chosen < 0; ++want)
    for (int r = 0; r < size_ && chosen < 0; ++r)
      if (all[static_cast<size_t>(4 * r)] == want) chosen = r;
  for (int r = 0; r < size_; ++r) any_broken_ = any_broken_ || all[static_cast<size_t>(4 * r + 1)] != 0;
  if (chosen < 0) return Status::OK();
  std::string msg = rank_ == chosen ? local.message().substr(0, 1 << 20) : std::string();
  st = broadcast_locked(msg, chosen, ctl_, "error agreement", false);
  if (!st.ok()) return fail(st);
  // Receive the notices not yet read and complete ours, so no message is left in flight.
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || all[static_cast<size_t>(4 * r)] != 1 || heard_from_[static_cast<size_t>(r)]) continue;
    receive_failure(r);
  }
  for (MPI_Request& s : sends_) {
    if (!wait(&s, "error agreement", false).ok()) any_broken_ = true;
  }
  sends_.clear();
  agreed_failure_ = Status(static_cast<StatusCode>(all[static_cast<size_t>(4 * chosen + 2)]),
                           str_cat("rank ", chosen, ": ", msg));
  return *agreed_failure_;
}

}  // namespace

bool mpi_available() { return true; }

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

namespace {

// Open MPI tries its matching-transport PML ("cm": PSM2 / OFI networks) before the default one;
// on a host without such a network that probe alone took 0.2 s of MPI_Init (of 0.25 s; the
// development VM, Open MPI 4.1). When every rank runs on this host (the launcher's local size
// equals the world size) no network carries the traffic, so the probe is skipped — unless the
// user chose a PML (OMPI_MCA_pml, which `mpirun --mca pml …` also sets).
void skip_network_pml_probe_on_one_host() {
  const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!world || !local || std::strcmp(world, local) != 0 || std::getenv("OMPI_MCA_pml")) return;
  setenv("OMPI_MCA_pml", "^cm", 0);
}

}  // namespace

Result<std::shared_ptr<const Communicator>> start_mpi(int* argc, char*** argv) {
  STRATA_RETURN_NOT_OK(load_mpi());
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    skip_network_pml_probe_on_one_host();
    int provided = 0;
    const int rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) return Status::CommError("MPI_Init_thread failed: ", mpi_error(rc));
    if (provided < MPI_THREAD_FUNNELED)
      return Status::CommError("MPI offers no thread support (strata runs worker threads beside MPI)");
  }
  return std::shared_ptr<const Communicator>(std::make_shared<MpiCommunicator>(timeout_seconds()));
}

void finish_mpi(const Communicator& comm, int exit_code) {
  auto* mpi = dynamic_cast<const MpiCommunicator*>(&comm);
  if (!mpi) return;
  std::fflush(stdout);
  std::fflush(stderr);
  if (mpi->must_abort()) {
    // A collective is still posted somewhere: MPI_Finalize could wait on it forever.
    if (mpi->rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(10));  // rank 0 aborts first
    MPI_Abort(MPI_COMM_WORLD, exit_code == 0 ? 1 : exit_code);
    _exit(exit_code == 0 ? 1 : exit_code);
  }
  const_cast<MpiCommunicator*>(mpi)->free_comms();
  MPI_Finalize();
}

}  // namespace strata::dist
