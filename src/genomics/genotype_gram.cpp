// GramOperator over standardized 2-bit genotype codes (see genotype_gram.hpp).
#include "strata/genomics/genotype_gram.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "genomics/genotype_gram_kernels.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/core/tree_sum.hpp"

namespace strata::genomics {
namespace {

using gram::GroupKernels;
using gram::kGroupRows;
using gram::kLanes;
using gram::kSlack;
using gram::kTileRows;
using gram::make_kernels;

// Rows [row0, row0 + rows) of `view` into fresh memory laid out as the operator keeps its codes
// (rows `stride` apart, then one zero row and kSlack zero bytes), `block` rows per task on ctx's
// threads; `loaded(r, count, codes)` (if any) runs on the same worker right after the read of
// rows [r, r + count) (numbered from row0), while they are in its cache; its error ends the read.
Result<Buffer> read_resident(const Context& ctx, const io::GenotypeView& view, int64_t row0, int64_t rows,
                             int64_t block, const std::function<Status(int64_t, int64_t, const uint8_t*)>& loaded) {
  const int64_t n = view.num_samples(), stride = io::packed_row_bytes(n);
  STRATA_ASSIGN_OR_RETURN(Buffer buf, Buffer::allocate((rows + 1) * stride + kSlack));
  uint8_t* base = buf.as<uint8_t>();
  std::fill(base + rows * stride, base + (rows + 1) * stride + kSlack, uint8_t{0});
  ctx.report().add_bytes_read(rows * stride);
  const int64_t blocks = ceil_div(rows, block);
  PassOptions o;  // a remote source fetches blocks ahead of the workers reading them
  io::set_genotype_read_ahead(ctx, view, row0, rows, block, o);
  ReadAheadHints ahead(ctx, o, blocks);
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(blocks, [&](int64_t b) -> Status {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    ahead.starting(b);
    const int64_t r0 = b * block, count = std::min(block, rows - r0);
    uint8_t* codes = base + r0 * stride;
    buf.prefault(r0 * stride, count * stride);  // each worker has the kernel zero its own pages
    STRATA_RETURN_NOT_OK(view.read_codes(row0 + r0, count, 0, n, codes, stride));
    if (loaded) STRATA_RETURN_NOT_OK(loaded(r0, count, codes));
    return Status::OK();
  }));
  return buf;
}

// Each group's contribution to a gram pass, in ascending group order.
using GramPartialSink = std::function<Status(int64_t group, GenotypeGramPartial&&)>;
// Each group's rows of A·X (rows × cols, row-major), in ascending group order.
using ProjectedRowsSink = std::function<Status(int64_t group, const std::vector<double>&)>;

// Where the operator's groups are computed: the codes here (LocalGroups) or where they are
// (RemoteGroups). A source runs this process's groups of each pass and hands their results
// back in order; the operator adds them with the same GroupKernels either way.
class GroupSource {
 public:
  virtual ~GroupSource() = default;
  virtual std::string describe() const = 0;
  // This process's groups of the fixed grid: [first, first + count).
  virtual std::pair<int64_t, int64_t> groups() const = 0;
  // The ranks that share the passes (each runs its groups; every rank gets the whole Y), or
  // null for one process.
  virtual const Communicator* ranks() const { return nullptr; }
  virtual bool resident() const { return false; }
  // Every group's partial of gram(q) (`op`: q prepared by `kernels`); `spare` gives a vector
  // (of the partial's width, or empty) to fill instead of a fresh one.
  virtual Status gram(const GroupKernels& kernels, const linalg::DenseMatrix& q, const GroupKernels::Operand& op,
                      const std::function<std::vector<double>()>& spare, const GramPartialSink& add) const = 0;
  virtual Status project(const GroupKernels& kernels, const linalg::DenseMatrix& x,
                         const ProjectedRowsSink& add) const = 0;
};

// The groups computed here from a view's codes, streamed per pass or resident in memory.
class LocalGroups final : public GroupSource {
 public:
  LocalGroups(const Context& ctx, io::GenotypeViewPtr view)
      : ctx_(ctx), view_(std::move(view)), m_(view_->num_variants()), n_(view_->num_samples()),
        stride_(io::packed_row_bytes(n_)) {
    // Under MPI each rank owns a contiguous range of whole groups (the group grid is fixed by
    // the data) and reads only those variants; partials combine in a tree over the groups.
    const Communicator& comm = ctx_.communicator();
    const auto [first, count] = rank_range(ceil_div(m_, kGroupRows), 1, comm.rank(), comm.size());
    group0_ = first;
    groups_ = count;
    row0_ = std::min(m_, group0_ * kGroupRows);
    own_rows_ = std::min(m_, (group0_ + groups_) * kGroupRows) - row0_;
  }

  int64_t own_bytes() const { return own_rows_ * stride_; }

  // This rank's rows [row0_, row0_ + own_rows_) into memory.
  Status load_resident() {
    STRATA_ASSIGN_OR_RETURN(resident_, read_resident(ctx_, *view_, row0_, own_rows_, kGroupRows, nullptr));
    return Status::OK();
  }

  // Takes codes already in memory (load_codes_with_counts: every variant of the view this
  // operator's variants `kept` were chosen from): the kept rows move down in place, in order
  // (row i comes from row kept[i] >= i, so no row is overwritten before it moves).
  Status adopt_resident(ResidentCodes&& codes, const std::vector<int64_t>& kept) {
    if (ctx_.communicator().size() != 1 || codes.stride != stride_ || static_cast<int64_t>(kept.size()) != m_ ||
        codes.codes.size() < (m_ + 1) * stride_ + kSlack)
      return Status::Invalid("genotype gram: the codes in memory do not match the operator's variants");
    uint8_t* base = codes.codes.as<uint8_t>();
    for (int64_t i = 0; i < m_;) {
      const int64_t from = kept[static_cast<size_t>(i)];
      if (from < i || from >= codes.rows) return Status::Invalid("genotype gram: kept variant ", from, " out of order");
      int64_t run = 1;  // rows moving by the same distance move together
      while (i + run < m_ && kept[static_cast<size_t>(i + run)] == from + run) ++run;
      if (from != i) std::memmove(base + i * stride_, base + from * stride_, static_cast<size_t>(run * stride_));
      i += run;
    }
    std::fill(base + m_ * stride_, base + (m_ + 1) * stride_ + kSlack, uint8_t{0});
    resident_ = std::move(codes.codes);
    return Status::OK();
  }

  std::string describe() const override { return view_->describe() + " (standardized genotypes)"; }
  std::pair<int64_t, int64_t> groups() const override { return {group0_, groups_}; }
  const Communicator* ranks() const override { return &ctx_.communicator(); }
  bool resident() const override { return !resident_.empty(); }

  Status gram(const GroupKernels& kernels, const linalg::DenseMatrix&, const GroupKernels::Operand& op,
              const std::function<std::vector<double>()>& spare, const GramPartialSink& add) const override {
    GenotypeGramPartial part;  // its buffers (z aside, taken by `add`) serve every group
    return for_each_group([&](int64_t g0, int64_t rows, const uint8_t* gcodes) -> Status {
      if (part.z.empty()) part.z = spare();
      STRATA_RETURN_NOT_OK(kernels.group_partial(op, g0, rows, gcodes, part));
      return add(g0 / kGroupRows, std::move(part));
    });
  }

  Status project(const GroupKernels& kernels, const linalg::DenseMatrix& x,
                 const ProjectedRowsSink& add) const override {
    const GroupKernels::Operand op = kernels.project_operand(x);
    std::vector<double> out;
    return for_each_group([&](int64_t g0, int64_t rows, const uint8_t* gcodes) -> Status {
      STRATA_RETURN_NOT_OK(kernels.project_group(op, g0, rows, gcodes, out));
      return add(g0 / kGroupRows, out);
    });
  }

 private:
  ThreadPool& pool() const { return ctx_.pool(); }

  // This rank's groups of kGroupRows variants in order, fixed by the shape (so the same bits for any
  // thread count): group(g0, rows, codes) once each.
  template <class GroupFn>
  Status for_each_group(GroupFn&& group) const {
    if (!resident()) ctx_.report().add_bytes_read(own_rows_ * stride_);
    // Streaming: group g + 1 is read (on the engine's reader thread) while group g computes;
    // a group is read whole before its kernels run, because kernels read a few bytes past a
    // tile's last row, into the next tile (multiplied by zeros, but it must not race with that
    // tile being written).
    std::vector<uint8_t> buffers[2];
    if (!resident()) {
      for (auto& b : buffers) b.resize(static_cast<size_t>((kGroupRows + 1) * stride_ + kSlack));
    }
    const bool pipelined = pipelined_reads(ctx_);
    PassOptions o;
    o.label = "genotype gram";
    if (!resident()) io::set_genotype_read_ahead(ctx_, *view_, row0_, own_rows_, kGroupRows, o);
    o.progress_units = [&](int64_t i) { return std::min(kGroupRows, m_ - (group0_ + i) * kGroupRows); };
    return run_pipelined(
        ctx_, groups_,
        resident() ? std::function<Status(int64_t, int)>()
                   : [&](int64_t i, int slot) -> Status {
                       const int64_t g0 = (group0_ + i) * kGroupRows, group_rows = std::min(kGroupRows, m_ - g0);
                       uint8_t* dst = buffers[slot].data();
                       if (pipelined) return view_->read_codes(g0, group_rows, 0, n_, dst, stride_);
                       // No reader thread: the workers read the group's tiles in parallel.
                       return pool().parallel_for(ceil_div(group_rows, kTileRows), [&](int64_t t) -> Status {
                         const int64_t r0 = g0 + t * kTileRows, rows = std::min(kTileRows, m_ - r0);
                         return view_->read_codes(r0, rows, 0, n_, dst + t * kTileRows * stride_, stride_);
                       });
                     },
        [&](int64_t i, int slot) -> Status {
          const int64_t g0 = (group0_ + i) * kGroupRows, group_rows = std::min(kGroupRows, m_ - g0);
          const uint8_t* gcodes =
              resident() ? resident_.as<uint8_t>() + (g0 - row0_) * stride_ : buffers[slot].data();
          return group(g0, group_rows, gcodes);
        },
        o);
  }

  Context ctx_;  // a handle: keeps the resources alive for the operator's passes
  io::GenotypeViewPtr view_;
  int64_t m_, n_, stride_;
  int64_t group0_ = 0, groups_ = 0;  // this rank's groups
  int64_t row0_ = 0, own_rows_ = 0;  // and their variants
  Buffer resident_;
};

// The groups run elsewhere (GenotypeGroupRunner): their results come back in group order;
// progress and cancellation between groups.
class RemoteGroups final : public GroupSource {
 public:
  RemoteGroups(const Context& ctx, int64_t m, std::shared_ptr<GenotypeGroupRunner> runner)
      : ctx_(ctx), m_(m), runner_(std::move(runner)) {}

  std::string describe() const override { return "remote genotypes (standardized)"; }
  std::pair<int64_t, int64_t> groups() const override { return {0, ceil_div(m_, kGroupRows)}; }

  Status gram(const GroupKernels&, const linalg::DenseMatrix& q, const GroupKernels::Operand&,
              const std::function<std::vector<double>()>&, const GramPartialSink& add) const override {
    return runner_->gram(q, [&](int64_t g, GenotypeGramPartial&& part) -> Status {
      STRATA_RETURN_NOT_OK(ctx_.check_cancelled());
      ctx_.advance_progress(part.rows);
      return add(g, std::move(part));
    });
  }

  Status project(const GroupKernels&, const linalg::DenseMatrix& x, const ProjectedRowsSink& add) const override {
    return runner_->project(x, [&](int64_t g, std::vector<double>&& rows) -> Status {
      STRATA_RETURN_NOT_OK(ctx_.check_cancelled());
      ctx_.advance_progress(std::clamp<int64_t>(m_ - g * kGroupRows, 0, kGroupRows));
      return add(g, rows);
    });
  }

 private:
  Context ctx_;  // a handle: progress and cancellation between groups
  int64_t m_;
  std::shared_ptr<GenotypeGroupRunner> runner_;
};

// The standardized genotypes as a GramOperator: its source computes the groups' partials and
// the kernels add them, in the fixed tree over the groups (core/tree_sum.hpp), into the same
// bits wherever the groups ran.
class GenotypeGramOperator final : public linalg::GramOperator {
 public:
  GenotypeGramOperator(const Context& ctx, GroupKernels kernels, int64_t m, std::shared_ptr<GroupSource> source)
      : ctx_(ctx), kernels_(std::move(kernels)), m_(m), source_(std::move(source)) {}

  bool resident() const { return source_->resident(); }
  int64_t rows() const override { return m_; }
  int64_t cols() const override { return kernels_.samples(); }
  std::string describe() const override { return source_->describe(); }
  bool single_precision() const override { return true; }
  int64_t preferred_width() const override { return kLanes; }
  bool rounds_operand() const override { return kernels_.arithmetic() == Precision::Mixed; }
  linalg::DenseMatrix operand(const linalg::DenseMatrix& q) const override {
    return rounds_operand() ? kernels_.rounded(q) : q;
  }
  const Communicator* ranks() const override { return source_->ranks(); }

  Status gram(const linalg::DenseMatrix& q, linalg::DenseMatrix& y) const override {
    STRATA_ASSIGN_OR_RETURN(const GroupKernels::Operand op, kernels_.gram_operand(q));
    // The tree's additions run on the pool, and its combined nodes become the next groups'
    // partials (no fresh 2 MB vector, zeroed, per group on the pass's critical path).
    TreeSum tree(kernels_.partial_width(op), &ctx_.pool());
    const auto [first, count] = source_->groups();
    int64_t next = first;
    STRATA_RETURN_NOT_OK(source_->gram(
        kernels_, q, op, [&] { return tree.recycled(); },
        [&](int64_t g, GenotypeGramPartial&& part) -> Status {
          if (g != next || part.rows != group_rows(g))
            return Status::Invalid("genotype gram: group ", g, " came back out of order or with ", part.rows, " rows");
          ++next;
          STRATA_ASSIGN_OR_RETURN(std::vector<double> dense,
                                  kernels_.dense_partial(op, g * kGroupRows, std::move(part)));
          tree.push(g, std::move(dense));
          return Status::OK();
        }));
    if (next != first + count) return Status::Invalid("genotype gram: ", next - first, " groups came back");
    std::vector<double> total;
    STRATA_RETURN_NOT_OK(tree.combine(communicator(), &total));
    y = kernels_.finish(op, total);
    return Status::OK();
  }

  Status project(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const override {
    const Communicator& comm = communicator();
    if (comm.size() == 1) return project_own(x, sink);
    // Under MPI each rank projects its rows; rank 0 receives them all, in rank order (= row
    // order), and hands them to `sink`. Rows are independent, so the bits equal one rank's.
    const int64_t k = x.cols;
    const auto [first, count] = source_->groups();
    const int64_t row0 = std::min(m_, first * kGroupRows), own_rows = std::min(m_, (first + count) * kGroupRows) - row0;
    std::vector<double> mine(static_cast<size_t>(own_rows * k));
    STRATA_RETURN_NOT_OK(project_own(x, [&](int64_t r0, int64_t rows, int64_t cols, const double* d) -> Status {
      std::copy(d, d + rows * cols, mine.begin() + (r0 - row0) * k);
      return Status::OK();
    }));
    std::vector<std::string> parts;
    STRATA_RETURN_NOT_OK(comm.gather(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(double)),
                                     &parts));
    if (comm.rank() != 0) return Status::OK();
    int64_t r0 = 0;
    for (const std::string& p : parts) {
      const int64_t rows = k > 0 ? static_cast<int64_t>(p.size() / sizeof(double)) / k : 0;
      if (r0 + rows > m_) return Status::CommError("projection: the ranks sent more than ", m_, " rows");
      if (rows == 0) continue;  // a rank without groups (its empty vector's data() may be null)
      std::vector<double> d(static_cast<size_t>(rows * k));
      std::memcpy(d.data(), p.data(), d.size() * sizeof(double));
      STRATA_RETURN_NOT_OK(sink(r0, rows, k, d.data()));
      r0 += rows;
    }
    if (r0 != m_) return Status::CommError("projection: the ranks sent ", r0, " rows of ", m_);
    return Status::OK();
  }

 private:
  const Communicator& communicator() const {
    const Communicator* ranks = source_->ranks();
    return ranks ? *ranks : *single_process_communicator();
  }
  int64_t group_rows(int64_t g) const { return std::min(kGroupRows, m_ - g * kGroupRows); }

  // Rows of A·X for this process's groups.
  Status project_own(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const {
    const auto [first, count] = source_->groups();
    int64_t next = first;
    STRATA_RETURN_NOT_OK(source_->project(kernels_, x, [&](int64_t g, const std::vector<double>& rows) -> Status {
      if (g != next || static_cast<int64_t>(rows.size()) != group_rows(g) * x.cols)
        return Status::Invalid("genotype projection: group ", g, " came back out of order or with the wrong size");
      ++next;
      return sink(g * kGroupRows, group_rows(g), x.cols, rows.data());
    }));
    if (next != first + count) return Status::Invalid("genotype projection: ", next - first, " groups came back");
    return Status::OK();
  }

  Context ctx_;  // a handle: keeps the resources alive for the operator's passes
  GroupKernels kernels_;
  int64_t m_;
  std::shared_ptr<GroupSource> source_;
};

// A worker's kernels over its group and its codes in a buffer the kernels may read past.
struct GroupWork {
  GroupKernels kernels;
  std::vector<uint8_t> codes;
};

Result<GroupWork> group_work(const Context& ctx, const GenotypeGroup& g, genomics::Standardization scale,
                             Precision arithmetic) {
  if (g.rows < 1 || g.rows > kGroupRows || g.samples < 1 || static_cast<int64_t>(g.counts.size()) != g.rows ||
      g.codes == nullptr)
    return Status::Invalid("genotype group: ", g.rows, " rows (1 to ", kGroupRows, ") of ", g.samples,
                           " samples with ", g.counts.size(), " counts");
  std::vector<int64_t> all(static_cast<size_t>(g.rows));
  for (int64_t i = 0; i < g.rows; ++i) all[static_cast<size_t>(i)] = i;
  STRATA_ASSIGN_OR_RETURN(GroupKernels k, make_kernels(ctx, g.counts, all, scale, g.samples, arithmetic));
  const int64_t stride = io::packed_row_bytes(g.samples);
  std::vector<uint8_t> codes(static_cast<size_t>((g.rows + 1) * stride + kSlack), 0);
  std::memcpy(codes.data(), g.codes, static_cast<size_t>(g.rows * stride));
  return GroupWork{std::move(k), std::move(codes)};
}

}  // namespace

Result<linalg::GramOperatorPtr> make_genotype_gram_operator(const Context& ctx, const io::GenotypeViewPtr& view,
                                                            const std::vector<genomics::VariantCounts>& counts,
                                                            std::vector<int64_t> kept, genomics::Standardization scale,
                                                            const GenotypeGramOptions& options) {
  if (!view) return Status::Invalid("genotype gram: no genotype view");
  STRATA_ASSIGN_OR_RETURN(GroupKernels kernels,
                          make_kernels(ctx, counts, kept, scale, view->num_samples(), options.arithmetic));
  if (ctx.communicator().size() > 1) {
    // Every rank repeats the small dense work of the solver on the combined products, so all
    // must compute it to the same bits: the same backend (instruction set) on every rank.
    std::vector<std::string> names;
    const std::string mine = backend::of(ctx).name();
    STRATA_RETURN_NOT_OK(ctx.communicator().allgather(mine, &names));
    for (size_t r = 0; r < names.size(); ++r)
      if (names[r] != mine)
        return Status::Unsupported("genotype gram: rank ", r, " runs backend ", names[r], " and rank ",
                                   ctx.communicator().rank(), " ", mine,
                                   "; distributed PCA needs the same backend on every rank");
  }
  ResidentCodes* pre = options.preloaded && options.preloaded->rows == view->num_variants() ? options.preloaded : nullptr;
  const std::vector<int64_t> kept_rows = pre ? kept : std::vector<int64_t>{};
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  const int64_t m = sub->num_variants();
  auto groups = std::make_shared<LocalGroups>(ctx, std::move(sub));
  if (options.resident_bytes > 0 && groups->own_bytes() <= options.resident_bytes) {
    STRATA_RETURN_NOT_OK(pre && ctx.communicator().size() == 1 ? groups->adopt_resident(std::move(*pre), kept_rows)
                                                                : groups->load_resident());
  }
  if (pre) *pre = ResidentCodes{};  // taken, or not needed: freed either way
  return linalg::GramOperatorPtr(std::make_shared<GenotypeGramOperator>(ctx, std::move(kernels), m, std::move(groups)));
}

Result<ResidentCodes> load_codes_with_counts(const Context& ctx, const io::GenotypeView& view) {
  if (ctx.communicator().size() != 1) return Status::Invalid("load_codes_with_counts: runs in one process only");
  ResidentCodes out;
  const int64_t m = view.num_variants(), n = view.num_samples();
  out.rows = m;
  out.stride = io::packed_row_bytes(n);
  out.counts.resize(static_cast<size_t>(m));
  // Blocks of about 1 MiB: counted right after they are read, while they are in the cache.
  const int64_t block = std::max<int64_t>(kTileRows, (int64_t{1} << 20) / std::max<int64_t>(1, out.stride));
  STRATA_ASSIGN_OR_RETURN(out.codes, read_resident(ctx, view, 0, m, block, [&](int64_t r0, int64_t rows, const uint8_t* codes) {
                            STRATA_RETURN_NOT_OK(count_rows(ctx, codes, rows, n, out.stride, out.counts.data() + r0));
                            ctx.advance_progress(rows);
                            return Status::OK();
                          }));
  return out;
}

Result<GenotypeGramPartial> genotype_gram_group(const Context& ctx, const GenotypeGroup& group,
                                                genomics::Standardization scale, Precision arithmetic,
                                                const linalg::DenseMatrix& q) {
  if (q.rows != group.samples) return Status::Invalid("genotype group: Q has ", q.rows, " rows for ", group.samples, " samples");
  STRATA_ASSIGN_OR_RETURN(GroupWork work, group_work(ctx, group, scale, arithmetic));
  GenotypeGramPartial part;
  STRATA_ASSIGN_OR_RETURN(const GroupKernels::Operand op, work.kernels.gram_operand(q));
  STRATA_RETURN_NOT_OK(work.kernels.group_partial(op, 0, group.rows, work.codes.data(), part));
  return part;
}

Result<std::vector<double>> genotype_project_group(const Context& ctx, const GenotypeGroup& group,
                                                   genomics::Standardization scale, const linalg::DenseMatrix& x) {
  if (x.rows != group.samples) return Status::Invalid("genotype group: X has ", x.rows, " rows for ", group.samples, " samples");
  STRATA_ASSIGN_OR_RETURN(GroupWork work, group_work(ctx, group, scale, Precision::Float32));
  std::vector<double> out;
  STRATA_RETURN_NOT_OK(work.kernels.project_group(work.kernels.project_operand(x), 0, group.rows, work.codes.data(), out));
  return out;
}

Result<linalg::GramOperatorPtr> make_remote_genotype_gram_operator(const Context& ctx, int64_t samples,
                                                                   const std::vector<genomics::VariantCounts>& counts,
                                                                   std::vector<int64_t> kept,
                                                                   genomics::Standardization scale,
                                                                   const GenotypeGramOptions& options,
                                                                   std::shared_ptr<GenotypeGroupRunner> runner) {
  if (!runner) return Status::Invalid("genotype gram: no group runner");
  STRATA_ASSIGN_OR_RETURN(GroupKernels kernels, make_kernels(ctx, counts, kept, scale, samples, options.arithmetic));
  STRATA_RETURN_NOT_OK(runner->plan(kept, scale, options.arithmetic));
  const auto m = static_cast<int64_t>(kept.size());
  return linalg::GramOperatorPtr(std::make_shared<GenotypeGramOperator>(
      ctx, std::move(kernels), m, std::make_shared<RemoteGroups>(ctx, m, std::move(runner))));
}

bool int16_kernels_vectorized(const Context& ctx) { return backend::of(ctx).fast_int16(); }
bool int16_kernels_vectorized() { return backend::cpu_backend()->fast_int16(); }

bool genotype_gram_is_resident(const linalg::GramOperator& op) {
  const auto* g = dynamic_cast<const GenotypeGramOperator*>(&op);
  return g && g->resident();
}

}  // namespace strata::genomics
