// Array handle, HostArray, and the simple sources: constants (scalars, full) and host memory.
#include "strata/array/array.hpp"

#include <cstring>
#include <sstream>

#include "array/node.hpp"
#include "array/nodes.hpp"

namespace strata {

// ---- HostArray ----------------------------------------------------------------------------------

Result<HostArray> HostArray::allocate(Shape shape, DType dtype) {
  if (dtype.type == ScalarType::Float16) return Status::Unsupported("float16 arrays cannot be computed on");
  for (int64_t s : shape) {
    if (s < 0) return Status::Invalid("negative extent in shape ", shape_to_string(shape));
  }
  STRATA_ASSIGN_OR_RETURN(int64_t n, shape_numel(shape));
  STRATA_ASSIGN_OR_RETURN(int64_t bytes, checked_mul(n, dtype.itemsize()));
  STRATA_ASSIGN_OR_RETURN(Buffer buf, Buffer::allocate(std::max<int64_t>(bytes, 1)));
  HostArray h;
  h.shape_ = std::move(shape);
  h.dtype_ = dtype.native();
  h.numel_ = n;
  auto owned = std::make_shared<Buffer>(std::move(buf));
  h.data_ = owned->data();
  h.owner_ = std::move(owned);
  return h;
}

Result<HostArray> HostArray::wrap(void* data, Shape shape, DType dtype, std::shared_ptr<void> owner) {
  if (dtype.type == ScalarType::Float16) return Status::Unsupported("float16 arrays cannot be computed on");
  if (!owner) return Status::Invalid("HostArray::wrap: no owner");
  for (int64_t s : shape) {
    if (s < 0) return Status::Invalid("negative extent in shape ", shape_to_string(shape));
  }
  STRATA_ASSIGN_OR_RETURN(int64_t n, shape_numel(shape));
  if (n > 0 && data == nullptr) return Status::Invalid("HostArray::wrap: null data for ", n, " elements");
  HostArray h;
  h.shape_ = std::move(shape);
  h.dtype_ = dtype.native();
  h.numel_ = n;
  h.data_ = data;
  h.owner_ = std::move(owner);
  return h;
}

Result<HostArray> HostArray::zeros(Shape shape, DType dtype) {
  STRATA_ASSIGN_OR_RETURN(HostArray h, allocate(std::move(shape), dtype));
  std::memset(h.raw(), 0, static_cast<size_t>(std::max<int64_t>(h.nbytes(), 1)));
  return h;
}

double HostArray::value_as_double(int64_t i) const {
  double v = 0;
  Status st = visit_scalar(dtype_.type, [&](auto tag) {
    using T = decltype(tag);
    v = static_cast<double>(data<T>()[i]);
  });
  (void)st;
  return v;
}

// ---- Array --------------------------------------------------------------------------------------

namespace {
const Status& empty_array_status() {
  static const Status st = Status::Invalid("empty Array (default-constructed)");
  return st;
}
const Shape& empty_shape() {
  static const Shape s;
  return s;
}
}  // namespace

Array::Array() : error_(std::make_shared<const Status>(empty_array_status())) {}

Array Array::from_node(std::shared_ptr<const detail::Node> node) {
  Array a;
  a.node_ = std::move(node);
  a.error_.reset();
  return a;
}

Array Array::from_error(Status status) {
  Array a;
  if (status.ok()) status = Status::Internal("Array::from_error with OK status");
  a.error_ = std::make_shared<const Status>(std::move(status));
  return a;
}

const Status& Array::status() const {
  static const Status ok;
  return node_ ? ok : *error_;
}

Result<Array> Array::checked() const {
  if (!ok()) return status();
  return *this;
}

const Shape& Array::shape() const { return node_ ? node_->shape() : empty_shape(); }
DType Array::dtype() const { return node_ ? node_->dtype() : DType(); }
const Shape& Array::chunks() const { return node_ ? node_->chunks() : empty_shape(); }

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t s : shape()) n *= s;  // validated (overflow-checked) when the node was built
  return n;
}

ChunkGrid Array::chunk_grid() const {
  auto g = ChunkGrid::make(shape(), chunks());
  return g.ok() ? *g : ChunkGrid();
}

std::string Array::describe() const {
  if (!node_) return "error: " + status().to_string();
  std::ostringstream os;
  std::function<void(const detail::Node*, int)> rec = [&](const detail::Node* n, int depth) {
    os << std::string(2 * depth, ' ') << n->label() << " " << shape_to_string(n->shape()) << " "
       << n->dtype().name() << " chunks " << shape_to_string(n->chunks()) << "\n";
    for (const detail::Node* c : n->inputs()) rec(c, depth + 1);
  };
  rec(node_.get(), 0);
  return os.str();
}

Array Array::make_scalar(double value, int64_t int_value, ScalarKind kind) {
  DType dt(kind == ScalarKind::Bool ? ScalarType::Bool
                                    : kind == ScalarKind::Int ? ScalarType::Int64 : ScalarType::Float64);
  return from_node(std::make_shared<detail::ConstantNode>(Shape{}, Shape{}, dt, value, int_value, true));
}

Array Array::full(Shape shape, Shape chunks, double value, DType dtype) {
  auto c = detail::normalize_chunks(shape, std::move(chunks), dtype.itemsize());
  if (!c.ok()) return from_error(c.status().with_context("full"));
  if (dtype.type == ScalarType::Float16) return from_error(Status::Unsupported("full: float16"));
  return from_node(std::make_shared<detail::ConstantNode>(std::move(shape), std::move(*c), dtype.native(), value,
                                                          static_cast<int64_t>(value), false));
}

Array Array::from_host(HostArray data, Shape chunks) {
  if (data.empty_handle()) return from_error(Status::Invalid("from_host: empty HostArray"));
  auto c = detail::normalize_chunks(data.shape(), std::move(chunks), data.dtype().itemsize());
  if (!c.ok()) return from_error(c.status().with_context("from_host"));
  return from_node(std::make_shared<detail::HostNode>(std::move(data), std::move(*c)));
}

Array Array::rechunk(Shape chunks) const { return strata::rechunk(*this, std::move(chunks)); }

// ---- nodes ----------------------------------------------------------------------------------------

namespace detail {

ConstantNode::ConstantNode(Shape shape, Shape chunks, DType dtype, double value, int64_t int_value, bool weak)
    : Node(NodeKind::Scalar, std::move(shape), dtype, std::move(chunks)), weak_(weak) {
  Status st = visit_scalar(dtype.type, [&](auto tag) {
    using T = decltype(tag);
    T v = std::is_integral_v<T> && !std::is_same_v<T, bool> ? static_cast<T>(int_value) : static_cast<T>(value);
    std::memcpy(bytes_, &v, sizeof(T));
  });
  (void)st;
}

Status ConstantNode::read_box(const Box& box, void* out, EvalContext&) const {
  const int64_t isz = dtype().itemsize(), n = box.numel();
  auto* o = static_cast<uint8_t*>(out);
  for (int64_t i = 0; i < n; ++i) std::memcpy(o + i * isz, bytes_, isz);
  return Status::OK();
}

std::string ConstantNode::label() const {
  HostArray tmp;
  double v = 0;
  Status st = visit_scalar(dtype().type, [&](auto tag) {
    using T = decltype(tag);
    T t;
    std::memcpy(&t, bytes_, sizeof(T));
    v = static_cast<double>(t);
  });
  (void)st;
  return str_cat(shape().empty() ? "scalar(" : "full(", v, weak_ ? ", weak)" : ")");
}

HostNode::HostNode(HostArray data, Shape chunks)
    : Node(NodeKind::Host, data.shape(), data.dtype(), std::move(chunks)), data_(std::move(data)) {}

Status HostNode::read_box(const Box& box, void* out, EvalContext&) const {
  copy_strided(data_.raw(), data_.shape(), box.start, box.step, out, box.count, Shape(box.ndim(), 0), box.count,
               dtype().itemsize());
  return Status::OK();
}

std::string HostNode::label() const { return "host"; }

Status RechunkNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  return input_->read_box(box, out, ctx);
}
Status RechunkNode::stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const {
  return input_->stream_box(box, ctx, sink);
}

}  // namespace detail

Array rechunk(const Array& a, Shape chunks) {
  if (!a.ok()) return a;
  auto c = detail::normalize_chunks(a.shape(), std::move(chunks), a.dtype().itemsize());
  if (!c.ok()) return Array::from_error(c.status().with_context("rechunk"));
  return Array::from_node(std::make_shared<detail::RechunkNode>(a.node(), std::move(*c)));
}

}  // namespace strata
