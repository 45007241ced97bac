// strata.Array's compiled half: lazy array handles, their operations, and compute().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <map>

#include "common.hpp"
#include "strata/array/ops.hpp"
#include "strata/exec/run.hpp"
#include "strata/io/store.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/zarr.hpp"

namespace strata::python {
namespace {

using Buffer = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using SliceSpec = std::tuple<std::optional<int64_t>, std::optional<int64_t>, int64_t>;

Array checked(Array a) {
  check(a.status());
  return a;
}

DType parse_dtype(const std::string& s) { return take(DType::parse(s)); }

// The numpy (or buffer / DLPack) memory itself, not a copy: the HostArray keeps a reference to
// the Python array (released with the GIL, by nanobind) as long as any lazy array reads it.
Array from_buffer(const Buffer& a, const std::string& dtype, const Shape& chunks) {
  Shape shape;
  for (size_t i = 0; i < a.ndim(); ++i) shape.push_back(static_cast<int64_t>(a.shape(i)));
  const DType t = parse_dtype(dtype);
  if (static_cast<int64_t>(a.itemsize()) != t.itemsize())
    throw StatusError(Status::Invalid("array of ", a.itemsize(), "-byte items does not match dtype ", dtype));
  auto owner = std::shared_ptr<void>(new Buffer(a), [](void* p) { delete static_cast<Buffer*>(p); });
  HostArray h = take(HostArray::wrap(const_cast<void*>(a.data()), std::move(shape), t, std::move(owner)));
  return checked(Array::from_host(std::move(h), chunks));
}

Array from_zarr(const std::string& path) {
  return released([&]() -> Result<Array> {
    STRATA_ASSIGN_OR_RETURN(io::StoreLocation loc, io::open_zarr_location(path));
    auto z = io::ZarrArray::open(loc.store, loc.node_path);
    if (!z.ok()) return z.status().with_context(path);
    return Array::from_zarr(*z).checked();
  });
}

using Binary = Array (*)(const Array&, const Array&);
using Unary = Array (*)(const Array&);

const std::map<std::string, Binary>& binary_ops() {
  static const std::map<std::string, Binary> ops = {
      {"add", &add}, {"subtract", &subtract}, {"multiply", &multiply}, {"divide", &divide},
      {"power", &power}, {"maximum", &maximum}, {"minimum", &minimum}, {"equal", &equal},
      {"not_equal", &not_equal}, {"less", &less}, {"less_equal", &less_equal}, {"greater", &greater},
      {"greater_equal", &greater_equal}, {"logical_and", &logical_and}, {"logical_or", &logical_or},
      {"matmul", &matmul}};
  return ops;
}
const std::map<std::string, Unary>& unary_ops() {
  static const std::map<std::string, Unary> ops = {
      {"abs", &strata::abs}, {"negative", &negative}, {"sqrt", &strata::sqrt}, {"exp", &strata::exp},
      {"log", &strata::log}, {"logical_not", &logical_not}};
  return ops;
}

Array reduce(const std::string& op, const Array& a, const std::vector<int64_t>& axes, bool keepdims, int64_t ddof) {
  if (op == "sum") return checked(sum(a, axes, keepdims));
  if (op == "mean") return checked(mean(a, axes, keepdims));
  if (op == "var") return checked(var(a, axes, ddof, keepdims));
  if (op == "std") return checked(stddev(a, axes, ddof, keepdims));
  if (op == "min") return checked(strata::min(a, axes, keepdims));
  if (op == "max") return checked(strata::max(a, axes, keepdims));
  if (op == "count_nonzero") return checked(count_nonzero(a, axes, keepdims));
  throw StatusError(Status::Invalid("unknown reduction '", op, "'"));
}

// A Python block function for map_blocks: called (with the GIL) as fn(inputs, shape, origin, out),
// where inputs are read-only memoryviews of the input blocks, shape the block's shape, origin its
// position in the array and out a writable memoryview of the output block; a Python exception
// becomes the block's error.
Array py_map_blocks(const std::vector<Array>& inputs, const std::string& dtype, nb::callable fn) {
  auto held = std::shared_ptr<nb::callable>(new nb::callable(std::move(fn)), [](nb::callable* p) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    delete p;
  });
  auto call = [held](std::span<const MapBlockInput> ins, const MapBlockOutput& out) -> Status {
    nb::gil_scoped_acquire gil;
    try {
      nb::list views;
      for (const MapBlockInput& in : ins) {
        const int64_t bytes = shape_numel(in.shape).value() * in.dtype.itemsize();
        views.append(nb::steal(PyMemoryView_FromMemory(static_cast<char*>(const_cast<void*>(in.data)), bytes,
                                                       PyBUF_READ)));
      }
      const int64_t bytes = shape_numel(out.shape).value() * out.dtype.itemsize();
      nb::object out_view = nb::steal(PyMemoryView_FromMemory(static_cast<char*>(out.data), bytes, PyBUF_WRITE));
      (*held)(views, nb::cast(out.shape), nb::cast(out.origin), out_view);
      // The block memory is freed after this call: views kept by the function must not outlive it.
      views.append(out_view);
      for (nb::handle v : views) {
        PyObject* r = PyObject_CallMethod(v.ptr(), "release", nullptr);
        if (r == nullptr) PyErr_Clear();
        Py_XDECREF(r);
      }
      return Status::OK();
    } catch (nb::python_error& e) {
      return Status::Invalid(nb::borrow<nb::str>(nb::str(e.type().attr("__name__"))).c_str(), ": ",
                             nb::str(e.value()).c_str());
    }
  };
  return checked(map_blocks(inputs, parse_dtype(dtype), std::move(call)));
}

nb::object compute_array(const PyContext& pc, const Array& a) {
  HostArray h = released(pc, [&] { return compute(pc.ctx(), a); });
  std::vector<size_t> shape;
  for (int64_t e : h.shape()) shape.push_back(static_cast<size_t>(e));
  void* data = h.raw();
  const DType t = h.dtype();
  nb::object out;
  check(visit_scalar(t.type, [&](auto tag) {
    using T = decltype(tag);
    out = nb::cast(owned_array<T>(h, static_cast<T*>(data), shape));
  }));
  return out;
}

}  // namespace

void bind_arrays(nb::module_& m) {
  nb::class_<Array>(m, "ArrayHandle")
      .def_prop_ro("shape", [](const Array& a) { return a.shape(); })
      .def_prop_ro("chunks", [](const Array& a) { return a.chunks(); })
      .def_prop_ro("dtype", [](const Array& a) { return a.dtype().numpy_str(); })
      .def("describe", &Array::describe);
  m.def("from_buffer", &from_buffer);
  m.def("from_zarr", &from_zarr);
  m.def("scalar_float", [](double v) { return Array(v); });
  m.def("scalar_int", [](int64_t v) { return Array(v); });
  m.def("scalar_bool", [](bool v) { return Array(v); });
  m.def("random_normal", [](const Shape& s, const Shape& c, double loc, double scale, uint64_t seed) {
    return checked(Array::random_normal(s, c, loc, scale, seed));
  });
  m.def("random_uniform", [](const Shape& s, const Shape& c, uint64_t seed) {
    return checked(Array::random_uniform(s, c, seed));
  });
  m.def("random_integers", [](const Shape& s, const Shape& c, int64_t low, int64_t high, uint64_t seed) {
    return checked(Array::random_integers(s, c, low, high, seed));
  });
  m.def("binary", [](const std::string& op, const Array& a, const Array& b) {
    auto it = binary_ops().find(op);
    if (it == binary_ops().end()) throw StatusError(Status::Invalid("unknown operation '", op, "'"));
    return checked(it->second(a, b));
  });
  m.def("unary", [](const std::string& op, const Array& a) {
    auto it = unary_ops().find(op);
    if (it == unary_ops().end()) throw StatusError(Status::Invalid("unknown operation '", op, "'"));
    return checked(it->second(a));
  });
  m.def("where", [](const Array& c, const Array& a, const Array& b) { return checked(where(c, a, b)); });
  m.def("clip", [](const Array& a, const Array& lo, const Array& hi) { return checked(clip(a, lo, hi)); });
  m.def("astype", [](const Array& a, const std::string& dtype) { return checked(astype(a, parse_dtype(dtype))); });
  m.def("slice", [](const Array& a, const std::vector<SliceSpec>& spec) {
    std::vector<Slice> s;
    for (const auto& [start, stop, step] : spec) s.push_back(Slice{start, stop, step});
    return checked(slice(a, s));
  });
  m.def("transpose", [](const Array& a, const std::vector<int64_t>& perm) { return checked(transpose(a, perm)); });
  m.def("rechunk", [](const Array& a, const Shape& chunks) { return checked(rechunk(a, chunks)); });
  m.def("reduce", &reduce, nb::arg("op"), nb::arg("a"), nb::arg("axes"), nb::arg("keepdims"), nb::arg("ddof") = 0);
  m.def("compute", &compute_array);
  m.def("map_blocks", &py_map_blocks);
  m.def("concatenate", [](const std::vector<Array>& arrays, int64_t axis) { return checked(concatenate(arrays, axis)); });
  m.def("reshape", [](const Array& a, const Shape& shape) { return checked(reshape(a, shape)); });
  m.def("write_zarr", [](const PyContext& pc, const Array& a, const std::string& path, const Shape& chunks, int format,
                         const std::string& codec, const std::vector<std::string>& dims, bool overwrite) {
    ZarrWriteOptions o;
    if (format != 2 && format != 3) throw StatusError(Status::Invalid("zarr_format must be 2 or 3, got ", format));
    o.format = format == 3 ? io::ZarrFormat::V3 : io::ZarrFormat::V2;
    o.chunks = chunks;
    o.codec = codec;
    o.dimension_names = dims;
    o.overwrite = overwrite;
    released(pc, [&] { return write_zarr(pc.ctx(), a, path, o); });
  });
}

}  // namespace strata::python
