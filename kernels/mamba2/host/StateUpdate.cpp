//===- StateUpdate.cpp - the decode step: checks, launches, f64 -*- C++ -*-===//
//
// What every device's decode step shares: the validation (so the CPU and GPU
// paths accept and reject the same arguments) and the recurrence in f64 that
// the tests compare with (it reads the state indices, from host memory).
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/StateUpdate.h"

#include "TensorChecks.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

using namespace tilec::mamba2;

namespace {

/// The bytes [first, last] a tensor with positive extents can touch, or
/// false when its offsets overflow 64 bits.
bool byteSpan(const Tensor &t, uintptr_t &first, uintptr_t &last) {
  int64_t extent = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t step;
    if (__builtin_mul_overflow(t.shape[d] - 1, t.strides[d], &step) ||
        __builtin_add_overflow(extent, step, &extent))
      return false;
  }
  int64_t bytes;
  if (__builtin_add_overflow(extent, 1, &extent) ||
      __builtin_mul_overflow(extent, int64_t(dtypeSize(t.dtype)), &bytes))
    return false;
  first = reinterpret_cast<uintptr_t>(t.data);
  last = first + uintptr_t(bytes) - 1;
  return last >= first;
}

Status checkProblem(const DecodeProblem &p, bool hasIndices) {
  const std::pair<const char *, int64_t> sizes[] = {
      {"batch", p.batch},     {"heads", p.heads},   {"groups", p.groups},
      {"headdim", p.headdim}, {"dstate", p.dstate}, {"stateRows", p.stateRows}};
  for (auto [name, value] : sizes)
    if (value <= 0)
      return Status::error(std::string("decode problem: ") + name + " is " +
                           std::to_string(value) + "; it must be positive");
  if (p.heads % p.groups)
    return Status::error("decode problem: heads (" + std::to_string(p.heads) +
                         ") must be a multiple of groups (" +
                         std::to_string(p.groups) + ")");
  if (!hasIndices && p.stateRows != p.batch)
    return Status::error(
        "decode problem: stateRows (" + std::to_string(p.stateRows) +
        ") must equal batch (" + std::to_string(p.batch) +
        ") without state indices: entry b updates state row b");
  return Status::success();
}

/// Element `index` of a validated host tensor (f32, bf16 or f16) as a
/// double.
double element(const Tensor &tensor, std::initializer_list<int64_t> index) {
  int64_t offset = 0;
  size_t d = 0;
  for (int64_t i : index)
    offset += i * tensor.strides[d++];
  if (tensor.dtype == DType::BF16)
    return fromBF16(static_cast<const uint16_t *>(tensor.data)[offset]);
  if (tensor.dtype == DType::F16)
    return fromF16(static_cast<const uint16_t *>(tensor.data)[offset]);
  return static_cast<const float *>(tensor.data)[offset];
}

} // namespace

Status tilec::mamba2::validateStateUpdate(const DecodeProblem &p,
                                          const StateUpdateArgs &args) {
  if (Status status = checkProblem(p, args.stateIndices != nullptr); !status)
    return status;
  const std::vector<int64_t> rows = {p.batch, p.heads, p.headdim};
  const std::vector<int64_t> groups = {p.batch, p.groups, p.dstate};
  struct Check {
    const char *name;
    const Tensor *tensor;
    DType dtype;
    std::vector<int64_t> shape;
    const char *layout;
    bool output;
    const char *supported = nullptr;
  };
  // D may be per head or per channel: its rank picks the layout.
  const bool dPerChannel = args.D && args.D->shape.size() == 2;
  // x in bf16 or f16, and B, C, z and y in x's dtype (one instance per
  // dtype; a model's x, z, B and C are slices of one projection).
  const DType xType = args.x.dtype == DType::F16 ? DType::F16 : DType::BF16;
  const std::string xSupported =
      std::string("x's dtype (") + dtypeName(xType) + ") is";
  const Check checks[] = {
      // The state in any of the kernel's dtypes (one instance per dtype).
      {"state",
       &args.state,
       args.state.dtype == DType::BF16 || args.state.dtype == DType::F16
           ? args.state.dtype
           : DType::F32,
       {p.stateRows, p.heads, p.headdim, p.dstate},
       "(stateRows, heads, headdim, dstate)",
       true,
       "f32, bf16 and f16 are"},
      {"x", &args.x, xType, rows, "(batch, heads, headdim)", false,
       "bf16 and f16 are"},
      {"dt", &args.dt, DType::F32, {p.batch, p.heads}, "(batch, heads)", false},
      {"A", &args.A, DType::F32, {p.heads}, "(heads)", false},
      {"B", &args.B, xType, groups, "(batch, groups, dstate)", false,
       xSupported.c_str()},
      {"C", &args.C, xType, groups, "(batch, groups, dstate)", false,
       xSupported.c_str()},
      {"D", args.D ? &*args.D : nullptr, DType::F32,
       dPerChannel ? std::vector<int64_t>{p.heads, p.headdim}
                   : std::vector<int64_t>{p.heads},
       dPerChannel ? "(heads, headdim)" : "(heads)", false},
      {"z", args.z ? &*args.z : nullptr, xType, rows,
       "(batch, heads, headdim)", false, xSupported.c_str()},
      {"dt_bias",
       args.dtBias ? &*args.dtBias : nullptr,
       DType::F32,
       {p.heads},
       "(heads)",
       false},
      {"y", &args.y, xType, rows, "(batch, heads, headdim)", true,
       xSupported.c_str()}};
  for (const Check &check : checks)
    if (check.tensor)
      if (Status status = detail::checkTensorArgument(
              check.name, *check.tensor, check.dtype, check.shape, check.layout,
              check.output, check.supported);
          !status)
        return status;

  // The state and y are written while the other tensors are read, by other
  // programs too: they may share no byte with anything.
  struct Span {
    const char *name;
    uintptr_t first = 0, last = 0;
  };
  std::vector<Span> spans;
  for (const Check &check : checks) {
    if (!check.tensor)
      continue;
    Span span{check.name};
    if (!byteSpan(*check.tensor, span.first, span.last))
      return Status::error(std::string(check.name) +
                           ": its elements span more bytes than a 64-bit "
                           "offset addresses");
    spans.push_back(span);
  }
  for (const Span &written : spans) {
    const bool isOutput = written.name == std::string("state") ||
                          written.name == std::string("y");
    if (!isOutput)
      continue;
    for (const Span &other : spans)
      if (&other != &written && other.first <= written.last &&
          written.first <= other.last)
        return Status::error(std::string(written.name) + " overlaps " +
                             other.name + " in memory; the decode step " +
                             "writes " + written.name +
                             " while it reads the others");
  }
  return Status::success();
}

Status tilec::mamba2::referenceStateUpdate(const DecodeProblem &p,
                                           const StateUpdateArgs &args,
                                           ReferenceDecodeState &r) {
  if (Status status = validateStateUpdate(p, args); !status)
    return status;
  const int64_t P = p.headdim, N = p.dstate;
  const size_t stateSize = size_t(p.stateRows * p.heads * P * N);
  if (r.state.size() != stateSize || r.stateScale.size() != stateSize)
    return Status::error("reference: the f64 state and its scale need " +
                         std::to_string(stateSize) + " elements");
  r.y.assign(size_t(p.batch * p.heads * P), 0.0);
  r.yScale.assign(r.y.size(), 0.0);
  const int64_t headsPerGroup = p.heads / p.groups;
  std::vector<double> zeroState(size_t(P * N)), zeroScale(size_t(P * N));
  for (int64_t b = 0; b < p.batch; ++b) {
    // The kernel's rule (state_update.mlir): a padding entry is one on
    // padSlotId or outside the state's rows.
    const int64_t row = args.stateIndices ? args.stateIndices[b] : b;
    const bool padding = args.stateIndices && (row == args.padSlotId ||
                                               row < 0 || row >= p.stateRows);
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t g = h / headsPerGroup;
      double dt = element(args.dt, {b, h});
      if (args.dtBias)
        dt += element(*args.dtBias, {h});
      if (args.dtSoftplus && dt <= 20.0)
        dt = std::log1p(std::exp(dt));
      const double decay = std::exp(element(args.A, {h}) * dt);
      const size_t base = size_t((row * p.heads + h) * P * N);
      // A padding entry steps a zero state of its own, which is dropped.
      if (padding) {
        std::fill(zeroState.begin(), zeroState.end(), 0.0);
        std::fill(zeroScale.begin(), zeroScale.end(), 0.0);
      }
      double *s = padding ? zeroState.data() : &r.state[base];
      double *scale = padding ? zeroScale.data() : &r.stateScale[base];
      for (int64_t i = 0; i < P; ++i) {
        const double x = element(args.x, {b, h, i});
        double acc = 0.0, accScale = 0.0;
        for (int64_t j = 0; j < N; ++j) {
          double &v = s[i * N + j];
          const double kept = decay * v;
          const double input = dt * x * element(args.B, {b, g, j});
          v = kept + input;
          scale[i * N + j] = decay * scale[i * N + j] + std::fabs(kept) +
                             std::fabs(input) + std::fabs(v);
          const double c = element(args.C, {b, g, j});
          acc += v * c;
          accScale += (std::fabs(v) + scale[i * N + j]) * std::fabs(c);
        }
        if (args.D) {
          const double d = args.D->shape.size() == 2 ? element(*args.D, {h, i})
                                                     : element(*args.D, {h});
          acc += x * d;
          accScale += std::fabs(x * d);
        }
        if (args.z) {
          const double z = element(*args.z, {b, h, i});
          const double silu = z / (1.0 + std::exp(-z));
          acc *= silu;
          accScale *= std::fabs(silu);
        }
        r.y[size_t((b * p.heads + h) * P + i)] = acc;
        r.yScale[size_t((b * p.heads + h) * P + i)] = accScale;
      }
    }
  }
  return Status::success();
}
