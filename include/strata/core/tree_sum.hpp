#pragma once
/// \file
/// TreeSum: the sum of per-block partials (float64 vectors) over a global grid of blocks in a
/// fixed binary tree, so that the bits do not depend on how the blocks are split across ranks.
///
/// The tree is fixed by the number of blocks B alone: node (level l, index i) covers blocks
/// [i·2^l, (i+1)·2^l) and is the sum left + right of its two halves; the blocks [0, B) are
/// covered by the maximal aligned nodes (the binary digits of B), which are added right to left
/// at the end. A rank that owns a contiguous range of blocks combines, in that same tree, every
/// node inside its range; combine() merges adjacent ranges pairwise in log₂P rounds (rank r
/// sends its maximal nodes, at most 2·log₂B of them, to rank r − d in the round of distance d;
/// the receiver pushes them after its own, combining the nodes that span both ranges), so rank
/// 0 finishes the same tree, receiving log₂P messages rather than P − 1, and broadcasts the
/// root. One rank and P ranks give the same bits, for any P (docs/architecture.md,
/// "Distributed runs").
///
/// \code
/// TreeSum sum(width);
/// for (int64_t b = first; b < first + count; ++b) sum.push(b, partial_of(b));  // in order
/// std::vector<double> total;
/// STRATA_RETURN_NOT_OK(sum.combine(ctx.communicator(), &total));
/// \endcode

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {

class TreeSum {
 public:
  /// Partials of `width` elements. With a pool, long additions split over its threads (each
  /// element's sum is the same; only who computes it changes).
  explicit TreeSum(int64_t width, ThreadPool* pool = nullptr) : width_(width), pool_(pool) {}

  /// \brief A vector of `width` elements (contents unspecified) left by a combined node, or an
  /// empty one: callers may fill it and push it back, instead of allocating each partial anew.
  std::vector<double> recycled() { return std::move(spare_); }

  /// \brief Add the partial of block `block`. A rank's blocks are pushed in increasing,
  /// contiguous order. Sibling nodes are combined as soon as both exist, so at most
  /// log₂(blocks) + 1 partials are held.
  void push(int64_t block, std::vector<double> partial);

  /// \brief The sum over every block of every rank, on every rank (collective: every rank of
  /// `comm` calls it, also ranks that pushed nothing). An empty grid sums to zeros.
  Status combine(const Communicator& comm, std::vector<double>* total);

  /// Partials held now (for tests of the memory bound).
  int64_t held() const { return static_cast<int64_t>(stack_.size()); }

  /// A node of the tree: the sum of blocks [index·2^level, (index+1)·2^level).
  struct Node {
    int level = 0;
    int64_t index = 0;
    std::vector<double> sum;
  };
  /// \brief The maximal nodes of the blocks pushed so far, in block order (what a rank sends in
  /// combine()), taken out: another tree continues them with push_nodes().
  std::vector<Node> take_nodes() { return std::move(stack_); }
  /// \brief Nodes another tree took (take_nodes()) for the blocks right after those pushed here
  /// (anywhere in an empty tree), in order: combined as if their blocks were pushed here.
  /// Invalid when a node does not continue the blocks before it or has the wrong width.
  Status push_nodes(std::vector<Node> nodes);

 private:
  void push_node(Node node);
  void add_into(std::vector<double>& left, const std::vector<double>& right) const;
  std::vector<double> fold() const;
  static std::string encode(const std::vector<Node>& nodes, int64_t width);
  static Status decode(const std::string& bytes, int64_t width, int rank, std::vector<Node>* out);

  int64_t width_;
  ThreadPool* pool_ = nullptr;
  std::vector<Node> stack_;
  std::vector<double> spare_;
};

}  // namespace strata
