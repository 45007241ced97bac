// TreeSum: per-block partials summed in a tree fixed by the block grid (see tree_sum.hpp).
#include "strata/core/tree_sum.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace strata {
namespace {
// Elements per piece of a parallel addition: below two pieces it runs on the caller.
constexpr int64_t kAddPiece = int64_t{1} << 16;
}  // namespace

void TreeSum::add_into(std::vector<double>& left, const std::vector<double>& right) const {
  // left + right, element by element (addition is commutative, so only the grouping matters).
  const auto n = static_cast<int64_t>(left.size());
  auto add = [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) left[static_cast<size_t>(i)] += right[static_cast<size_t>(i)];
  };
  if (!pool_ || n < 2 * kAddPiece) return add(0, n);
  (void)pool_->parallel_for((n + kAddPiece - 1) / kAddPiece, [&](int64_t p) -> Status {
    add(p * kAddPiece, std::min(n, (p + 1) * kAddPiece));
    return Status::OK();
  });
}

void TreeSum::push(int64_t block, std::vector<double> partial) {
  partial.resize(static_cast<size_t>(width_), 0.0);
  push_node(Node{0, block, std::move(partial)});
}

void TreeSum::push_node(Node node) {
  stack_.push_back(std::move(node));
  // A right child (odd index) whose left sibling is on top of the stack completes its parent.
  while (stack_.size() >= 2) {
    Node& right = stack_.back();
    Node& left = stack_[stack_.size() - 2];
    if (left.level != right.level || (right.index & 1) == 0 || left.index != right.index - 1) break;
    add_into(left.sum, right.sum);
    left.index >>= 1;
    left.level += 1;
    if (spare_.empty()) spare_ = std::move(right.sum);
    stack_.pop_back();
    // `left` is now the parent: it may complete a node one level up in turn.
  }
}

Status TreeSum::push_nodes(std::vector<Node> nodes) {
  for (Node& n : nodes) {
    if (n.level < 0 || n.level > 62 || n.index < 0 || n.index > (std::numeric_limits<int64_t>::max() >> n.level))
      return Status::Invalid("tree sum: a node of level ", n.level, " and index ", n.index);
    if (static_cast<int64_t>(n.sum.size()) != width_)
      return Status::Invalid("tree sum: a node of ", n.sum.size(), " values where the partials have ", width_);
    if (!stack_.empty()) {
      const int64_t start = n.index << n.level, end = (stack_.back().index + 1) << stack_.back().level;
      if (start != end)
        return Status::Invalid("tree sum: a node starts at block ", start, " where block ", end, " was expected");
    }
    push_node(std::move(n));
  }
  return Status::OK();
}

std::vector<double> TreeSum::fold() const {
  if (stack_.empty()) return std::vector<double>(static_cast<size_t>(width_), 0.0);
  // The maximal nodes of [0, B) from the largest (left) to the smallest: added right to left.
  std::vector<double> acc = stack_.back().sum;
  for (size_t j = stack_.size() - 1; j-- > 0;) {
    std::vector<double> left = stack_[j].sum;
    add_into(left, acc);
    acc = std::move(left);
  }
  return acc;
}

std::string TreeSum::encode(const std::vector<Node>& nodes, int64_t width) {
  const size_t per = sizeof(int32_t) + sizeof(int64_t) + static_cast<size_t>(width) * sizeof(double);
  std::string out(nodes.size() * per, '\0');
  char* p = out.data();
  for (const Node& n : nodes) {
    const auto level = static_cast<int32_t>(n.level);
    std::memcpy(p, &level, sizeof level);
    std::memcpy(p + sizeof level, &n.index, sizeof n.index);
    std::memcpy(p + sizeof level + sizeof n.index, n.sum.data(), static_cast<size_t>(width) * sizeof(double));
    p += per;
  }
  return out;
}

Status TreeSum::decode(const std::string& bytes, int64_t width, int rank, std::vector<Node>* out) {
  const size_t per = sizeof(int32_t) + sizeof(int64_t) + static_cast<size_t>(width) * sizeof(double);
  if (bytes.size() % per != 0)
    return Status::CommError("tree sum: rank ", rank, " sent ", bytes.size(), " bytes, not whole nodes of ", per);
  for (const char* p = bytes.data(); p < bytes.data() + bytes.size(); p += per) {
    Node n;
    int32_t level = 0;
    std::memcpy(&level, p, sizeof level);
    std::memcpy(&n.index, p + sizeof level, sizeof n.index);
    n.level = level;
    n.sum.resize(static_cast<size_t>(width));
    std::memcpy(n.sum.data(), p + sizeof level + sizeof n.index, static_cast<size_t>(width) * sizeof(double));
    out->push_back(std::move(n));
  }
  return Status::OK();
}

Status TreeSum::combine(const Communicator& comm, std::vector<double>* total) {
  if (comm.size() == 1) {
    *total = fold();
    return Status::OK();
  }
  // Pairwise, log₂P rounds: in the round of distance d, rank r with r mod 2d = d sends its nodes
  // to rank r − d, which pushes them after its own. Ranks own contiguous ranges in rank order,
  // so each merge joins two adjacent ranges and combines exactly the tree nodes that span them;
  // rank 0 ends with the maximal nodes of [0, B), as one process would, folds them and
  // broadcasts the sum. No rank receives more than log₂P messages.
  const int rank = comm.rank(), size = comm.size();
  for (int d = 1; d < size; d *= 2) {
    if (rank % (2 * d) == d) {
      STRATA_RETURN_NOT_OK(comm.send(encode(stack_, width_), rank - d));
      break;
    }
    if (rank % (2 * d) != 0 || rank + d >= size) continue;
    std::string bytes;
    STRATA_RETURN_NOT_OK(comm.recv(&bytes, rank + d));
    std::vector<Node> nodes;
    STRATA_RETURN_NOT_OK(decode(bytes, width_, rank + d, &nodes));
    const Status pushed = push_nodes(std::move(nodes));
    if (!pushed.ok())
      return Status::CommError("rank ", rank + d, ": ", pushed.message(),
                               " (ranks must own contiguous ranges in rank order)");
  }
  std::string root;
  if (rank == 0) {
    if (!stack_.empty() && (stack_.front().index << stack_.front().level) != 0)
      return Status::CommError("tree sum: the ranks' blocks start at ", stack_.front().index << stack_.front().level,
                               ", not 0");
    const std::vector<double> sum = fold();
    root.assign(reinterpret_cast<const char*>(sum.data()), sum.size() * sizeof(double));
  }
  STRATA_RETURN_NOT_OK(comm.broadcast(root, 0));
  if (root.size() != static_cast<size_t>(width_) * sizeof(double))
    return Status::CommError("tree sum: the broadcast sum has ", root.size(), " bytes, expected ",
                             width_ * static_cast<int64_t>(sizeof(double)));
  total->resize(static_cast<size_t>(width_));
  std::memcpy(total->data(), root.data(), root.size());
  return Status::OK();
}

}  // namespace strata
