#pragma once
// Fused elementwise expressions. Building an elementwise op on top of other elementwise nodes
// splices their programs into one, so a whole chain is one node holding a small register
// program; evaluation runs the program tile by tile (elementwise_eval.cpp) with one tile-sized
// scratch per register and no intermediate arrays.

#include <vector>

#include "array/node.hpp"
#include "strata/backend/backend.hpp"

namespace strata::detail {

/// The operations of a program are the backend's elementwise kernels.
using EwOp = backend::EwOp;

struct EwInstr {
  EwOp op;
  ScalarType type;  ///< result type (Cast: target type)
  int a = -1, b = -1, c = -1;
};

/// Registers [0, leaves.size()) hold leaf values; register leaves.size() + i holds instr i.
struct EwProgram {
  std::vector<NodePtr> leaves;
  std::vector<ScalarType> reg_type;
  std::vector<bool> reg_const;  ///< one value for every element (0-d constants and ops on them)
  std::vector<EwInstr> instrs;
  int result = -1;
};

class ElementwiseNode final : public Node {
 public:
  ElementwiseNode(Shape shape, Shape chunks, DType dtype, EwProgram program);
  std::vector<const Node*> inputs() const override;
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  Status stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const override;
  bool tileable() const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override;
  const EwProgram& program() const { return program_; }

 private:
  EwProgram program_;
};

}  // namespace strata::detail
