//===- Mamba2.cpp - problem and argument validation -------------*- C++ -*-===//
//
// The checks every device's forward pass runs before touching memory, so the
// CPU and GPU paths accept and reject exactly the same arguments.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"

#include "TensorChecks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <sstream>

using namespace tilec::mamba2;

Tensor Tensor::contiguous(void *data, DType dtype, std::vector<int64_t> shape) {
  Tensor tensor;
  tensor.data = data;
  tensor.dtype = dtype;
  tensor.strides.assign(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    tensor.strides[d - 1] = tensor.strides[d] * shape[d];
  tensor.shape = std::move(shape);
  return tensor;
}

int64_t Tensor::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

namespace {

std::string formatShape(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "(";
  for (size_t d = 0; d < shape.size(); ++d)
    os << (d ? ", " : "") << shape[d];
  os << ")";
  return os.str();
}

/// The dtypes a check supports, in words: `supported` with its "%s", if
/// any, replaced by x's dtype (formatted only for a message).
std::string supportedText(const char *supported, DType xType) {
  char text[96];
  std::snprintf(text, sizeof text, supported, dtypeName(xType));
  return text;
}

/// One tensor argument against what the problem implies for it: the
/// `rank` extents at `shape` (a pointer, so that a valid call's checks
/// allocate nothing). `output` forbids stride 0 along a dimension of extent
/// above 1, where two elements would be written to one address.
/// `supported` words the dtypes supported for the message of a wrong one
/// (a "%s" in it names x's dtype, `xType`); null: `dtype` alone.
Status checkTensor(const char *name, const Tensor &tensor, DType dtype,
                   const int64_t *shape, size_t rank, const char *layout,
                   bool output, const char *supported = nullptr,
                   DType xType = DType::F32) {
  // Built only for an error: a valid call allocates no message.
  auto what = [&] { return std::string(name) + " " + layout; };
  if (!tensor.data)
    return Status::error(what() + ": the data pointer is null");
  if (tensor.dtype != dtype)
    return Status::error(what() + " is " + dtypeName(tensor.dtype) +
                         "; only " +
                         (supported ? supportedText(supported, xType)
                                    : std::string(dtypeName(dtype)) + " is") +
                         " supported");
  if (tensor.shape.size() != rank)
    return Status::error(what() + " has rank " +
                         std::to_string(tensor.shape.size()) + ", not " +
                         std::to_string(rank));
  if (!std::equal(tensor.shape.begin(), tensor.shape.end(), shape))
    return Status::error(what() + " has shape " + formatShape(tensor.shape) +
                         "; the problem needs " +
                         formatShape({shape, shape + rank}));
  if (tensor.strides.size() != rank)
    return Status::error(what() + " has " +
                         std::to_string(tensor.strides.size()) +
                         " strides for " + std::to_string(rank) +
                         " dimensions");
  for (size_t d = 0; d < rank; ++d) {
    if (tensor.strides[d] < 0)
      return Status::error(what() + " has a negative stride " +
                           std::to_string(tensor.strides[d]) +
                           " in dimension " + std::to_string(d));
    if (output && tensor.strides[d] == 0 && shape[d] > 1)
      return Status::error(what() + " has stride 0 in dimension " +
                           std::to_string(d) + " of extent " +
                           std::to_string(shape[d]) +
                           ": an output element would be written twice");
  }
  return Status::success();
}

Status checkTensor(const char *name, const Tensor &tensor, DType dtype,
                   std::initializer_list<int64_t> shape, const char *layout,
                   bool output, const char *supported = nullptr,
                   DType xType = DType::F32) {
  return checkTensor(name, tensor, dtype, shape.begin(), shape.size(), layout,
                     output, supported, xType);
}

Status checkTensor(const char *name, const Tensor &tensor, DType dtype,
                   const std::vector<int64_t> &shape, const char *layout,
                   bool output, const char *supported = nullptr) {
  return checkTensor(name, tensor, dtype, shape.data(), shape.size(), layout,
                     output, supported);
}

Status checkProblem(const Problem &p) {
  const std::pair<const char *, int64_t> sizes[] = {
      {"batch", p.batch},     {"seqlen", p.seqlen},   {"heads", p.heads},
      {"groups", p.groups},   {"headdim", p.headdim}, {"dstate", p.dstate},
      {"chunk", p.chunk}};
  for (auto [name, value] : sizes)
    if (value <= 0)
      return Status::error(std::string("problem: ") + name + " is " +
                           std::to_string(value) + "; it must be positive");
  if (p.heads % p.groups)
    return Status::error("problem: heads (" + std::to_string(p.heads) +
                         ") must be a multiple of groups (" +
                         std::to_string(p.groups) + ")");
  if (p.chunk != 64 && p.chunk != 128 && p.chunk != 256)
    return Status::error("problem: chunk is " + std::to_string(p.chunk) +
                         "; the kernels are built for 64, 128 and 256");
  return Status::success();
}

bool isPowerOfTwo(int64_t value) { return value > 0 && !(value & (value - 1)); }

/// cu_seqlens: the descriptor and what it needs of the problem and the other
/// inputs; not its values, which are in device memory on the GPU
/// (validateSequenceOffsetValues checks them in host memory).
Status checkSequenceOffsets(const Problem &p, const Inputs &in) {
  const Tensor &cu = *in.cuSeqlens;
  // Any extent passes the shape check here; the next one asks for two.
  const std::vector<int64_t> shape =
      cu.shape.size() == 1 ? cu.shape : std::vector<int64_t>{2};
  if (Status status = checkTensor("cu seqlens", cu, DType::I32, shape,
                                  "(nseq + 1)", false);
      !status)
    return status;
  if (cu.shape[0] < 2)
    return Status::error("cu seqlens (nseq + 1) has shape " +
                         formatShape(cu.shape) +
                         "; it needs two offsets or more (one sequence or "
                         "more)");
  if (p.batch != 1)
    return Status::error("cu seqlens: sequences packed by offsets take one "
                         "row (batch 1), as in mamba_ssm; the problem has "
                         "batch " +
                         std::to_string(p.batch));
  if (!in.seqIdx)
    return Status::error("cu seqlens: needs seq idx too (the sequence of "
                         "each step, consistent with the offsets), as in "
                         "mamba_ssm");
  return Status::success();
}

} // namespace

DType tilec::mamba2::inputElementType(const Inputs &in) {
  const DType x = in.x.dtype;
  return x == DType::F16 || x == DType::F32 ? x : DType::BF16;
}

Status tilec::mamba2::validateInputs(const Problem &p, const Inputs &in) {
  if (Status status = checkProblem(p); !status)
    return status;
  using Extents = std::array<int64_t, 4>;
  const Extents tokens4 = {p.batch, p.seqlen, p.heads, p.headdim};
  const Extents groups4 = {p.batch, p.seqlen, p.groups, p.dstate};
  // x in any of the kernels' input dtypes; B, C and z in x's (one instance
  // per dtype: mamba_ssm multiplies B by C, so they match, and a model's x,
  // z, B and C are slices of one projection).
  const DType xType = inputElementType(in);
  const char *const xSupported = "x's dtype (%s) is";
  struct Check {
    const char *name;
    const Tensor &tensor;
    DType dtype;
    Extents shape; // the first `rank` extents
    size_t rank;
    const char *layout;
    const char *supported;
  };
  const Check checks[] = {
      {"x", in.x, xType, tokens4, 4, "(batch, seqlen, heads, headdim)",
       "bf16, f16 and f32 are"},
      // dt in any of the dtypes (chunk_cumsum has an instance for each).
      {"dt", in.dt, in.dt.dtype, {p.batch, p.seqlen, p.heads}, 3,
       "(batch, seqlen, heads)", nullptr},
      {"A", in.A, DType::F32, {p.heads}, 1, "(heads)", nullptr},
      {"B", in.B, xType, groups4, 4, "(batch, seqlen, groups, dstate)",
       xSupported},
      {"C", in.C, xType, groups4, 4, "(batch, seqlen, groups, dstate)",
       xSupported}};
  for (const Check &check : checks)
    if (Status status = checkTensor(check.name, check.tensor, check.dtype,
                                    check.shape.data(), check.rank,
                                    check.layout, false, check.supported,
                                    xType);
        !status)
      return status;
  // D per head or per channel: its rank says which.
  const bool dPerChannel = in.D.shape.size() == 2;
  const int64_t dShape[] = {p.heads, p.headdim};
  if (Status status = checkTensor(
          "D", in.D, DType::F32, dShape, dPerChannel ? 2 : 1,
          dPerChannel ? "(heads, headdim)" : "(heads) or (heads, headdim)",
          false);
      !status)
    return status;
  if (in.initialState)
    if (Status status = checkTensor("initial state", *in.initialState,
                                    DType::F32,
                                    {p.batch, p.heads, p.headdim, p.dstate},
                                    "(batch, heads, headdim, dstate)", false);
        !status)
      return status;
  if (in.dtBias)
    if (Status status = checkTensor("dt bias", *in.dtBias, DType::F32,
                                    {p.heads}, "(heads)", false);
        !status)
      return status;
  if (in.z)
    if (Status status =
            checkTensor("z", *in.z, xType, tokens4.data(), 4,
                        "(batch, seqlen, heads, headdim)", false,
                        xSupported, xType);
        !status)
      return status;
  if (in.seqIdx)
    if (Status status = checkTensor("seq idx", *in.seqIdx, DType::I32,
                                    {p.batch, p.seqlen}, "(batch, seqlen)",
                                    false);
        !status)
      return status;
  if (in.cuSeqlens)
    if (Status status = checkSequenceOffsets(p, in); !status)
      return status;
  const DtLimit &limit = in.dtLimit;
  if (std::isnan(limit.low) || std::isnan(limit.high) ||
      limit.low > limit.high)
    return Status::error("dt limit: (" + std::to_string(limit.low) + ", " +
                         std::to_string(limit.high) +
                         ") is not an interval: it needs low <= high and no "
                         "NaN");
  if (in.stateDtype != DType::F32 &&
      (in.stateDtype != DType::BF16 || in.x.dtype != DType::BF16))
    return Status::error(
        std::string("state dtype: ") + dtypeName(in.stateDtype) +
        " with x in " + dtypeName(in.x.dtype) +
        " is not supported; the states between chunks are f32, or bf16 "
        "with x in bf16");
  return Status::success();
}

Status tilec::mamba2::validate(const Problem &p, const Inputs &in,
                               const Outputs &out) {
  if (Status status = validateInputs(p, in); !status)
    return status;
  // y in f32 or, rounded once by the kernel, in x's dtype.
  const DType xType = inputElementType(in);
  if (Status status = checkTensor(
          "y", out.y, out.y.dtype == xType ? xType : DType::F32,
          {p.batch, p.seqlen, p.heads, p.headdim},
          "(batch, seqlen, heads, headdim)", true,
          "f32 and x's dtype (%s) are", xType);
      !status)
    return status;
  if (out.finalState)
    if (Status status = checkTensor("final state", *out.finalState,
                                    DType::F32,
                                    {p.batch, p.heads, p.headdim, p.dstate},
                                    "(batch, heads, headdim, dstate)", true);
        !status)
      return status;
  if (out.chunkStates)
    if (Status status = checkTensor(
            "chunk states", *out.chunkStates, in.stateDtype,
            {p.batch, p.numChunks(), p.heads, p.headdim, p.dstate},
            "(batch, nchunks, heads, headdim, dstate)", true,
            in.stateDtype == DType::BF16 ? "the state dtype (bf16) is"
                                         : nullptr);
        !status)
      return status;
  if (out.varlenStates) {
    if (!in.cuSeqlens)
      return Status::error("varlen states: the states at the end of each "
                           "sequence need cu seqlens");
    return checkTensor("varlen states", *out.varlenStates, DType::F32,
                       {in.numSequences(), p.heads, p.headdim, p.dstate},
                       "(nseq, heads, headdim, dstate)", true);
  }
  return Status::success();
}

Status tilec::mamba2::validateTileConfig(const Problem &p,
                                         const TileConfig &config) {
  const std::pair<const char *, int64_t> sizes[] = {
      {"blockH", config.blockH},
      {"blockP", config.blockP},
      {"blockN", config.blockN},
      {"blockM", config.blockM},
      {"blockK", config.blockK},
      {"chunkStateBlockK", config.chunkStateBlockK},
      {"chunkStateBlockP", config.chunkStateBlockP},
      {"chunkStateBlockN", config.chunkStateBlockN},
      {"statePassingBlockP", config.statePassingBlockP},
      {"statePassingBlockN", config.statePassingBlockN}};
  for (auto [name, value] : sizes)
    if (value != 0 && !isPowerOfTwo(value))
      return Status::error(std::string("tile config: ") + name + " is " +
                           std::to_string(value) +
                           "; it must be 0 (chosen) or a power of two");
  for (auto [name, value] : {sizes[3], sizes[4], sizes[5]})
    if (value > p.chunk)
      return Status::error(std::string("tile config: ") + name + " (" +
                           std::to_string(value) +
                           ") must divide the chunk (" +
                           std::to_string(p.chunk) + ")");
  return Status::success();
}

Status tilec::mamba2::validateStructure(ForwardStructure structure) {
  if (structure == ForwardStructure::FourKernels ||
      structure == ForwardStructure::ThreeKernels)
    return Status::success();
  return Status::error("options: structure is " +
                       std::to_string(static_cast<int>(structure)) +
                       "; it must be ForwardStructure::FourKernels or "
                       "ForwardStructure::ThreeKernels");
}

Status tilec::mamba2::validateStructureFor(ForwardStructure structure,
                                           const Inputs &in) {
  if (in.seqIdx && structure != ForwardStructure::FourKernels)
    return Status::error(
        "seq idx: packed sequences need the four-kernel structure "
        "(ForwardStructure::FourKernels); fwd_pass_state does not reset the "
        "state at a sequence boundary");
  return Status::success();
}

Status tilec::mamba2::validateSequenceIndexValues(const Problem &p,
                                                  const Tensor &seqIdx) {
  const auto *data = static_cast<const int32_t *>(seqIdx.data);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t t = 1; t < p.seqlen; ++t) {
      const int32_t before =
          data[b * seqIdx.strides[0] + (t - 1) * seqIdx.strides[1]];
      const int32_t now = data[b * seqIdx.strides[0] + t * seqIdx.strides[1]];
      if (now < before)
        return Status::error(
            "seq idx (batch, seqlen) decreases in row " + std::to_string(b) +
            " at step " + std::to_string(t) + " (" + std::to_string(before) +
            " then " + std::to_string(now) +
            "); it must be non-decreasing along each row");
    }
  return Status::success();
}

Status tilec::mamba2::validateSequenceOffsetValues(const Problem &p,
                                                   const Tensor &seqIdx,
                                                   const Tensor &cu) {
  const auto *offsets = static_cast<const int32_t *>(cu.data);
  auto offset = [&](int64_t s) { return offsets[s * cu.strides[0]]; };
  if (offset(0) != 0)
    return Status::error("cu seqlens starts at " + std::to_string(offset(0)) +
                         "; the first offset must be 0");
  for (int64_t s = 1; s < cu.shape[0]; ++s)
    if (offset(s) <= offset(s - 1))
      return Status::error(
          "cu seqlens is not increasing: offset " + std::to_string(s) +
          " is " + std::to_string(offset(s)) + " after " +
          std::to_string(offset(s - 1)) +
          " (every sequence needs one step or more)");
  if (offset(cu.shape[0] - 1) != p.seqlen)
    return Status::error("cu seqlens ends at " +
                         std::to_string(offset(cu.shape[0] - 1)) +
                         "; the last offset must be seqlen (" +
                         std::to_string(p.seqlen) + ")");
  const auto *sequences = static_cast<const int32_t *>(seqIdx.data);
  for (int64_t s = 0; s + 1 < cu.shape[0]; ++s)
    for (int64_t t = offset(s); t < offset(s + 1); ++t)
      if (const int32_t got = sequences[t * seqIdx.strides[1]]; got != s)
        return Status::error(
            "seq idx (batch, seqlen) is " + std::to_string(got) +
            " at step " + std::to_string(t) + ", which cu seqlens puts in "
            "sequence " + std::to_string(s) +
            "; the two must describe the same sequences");
  return Status::success();
}

LaunchGrids tilec::mamba2::computeLaunchGrids(const Problem &p,
                                              const TileConfig &tiles) {
  // Without overflow for any valid problem (sizes up to INT64_MAX, found by
  // tilec-fuzz-capi): the quotient rounds up without a + b - 1, and a
  // product that overflows saturates, which the GPU path's grid check
  // rejects.
  auto ceilDiv = [](int64_t a, int64_t b) { return a / b + (a % b != 0); };
  auto product = [](int64_t a, int64_t b) {
    int64_t result;
    return __builtin_mul_overflow(a, b, &result)
               ? std::numeric_limits<int64_t>::max()
               : result;
  };
  // The blockP x blockN tiles that cover one head's headdim x dstate state.
  auto stateTiles = [&](int64_t blockP, int64_t blockN) {
    return product(ceilDiv(p.headdim, blockP), ceilDiv(p.dstate, blockN));
  };
  const int64_t numP = ceilDiv(p.headdim, tiles.blockP);
  LaunchGrids grids;
  grids.chunkCumsum = {p.numChunks(), p.batch, ceilDiv(p.heads, tiles.blockH)};
  grids.chunkState = {
      product(p.numChunks(),
              stateTiles(tiles.chunkStateBlockP, tiles.chunkStateBlockN)),
      p.heads, p.batch};
  grids.statePassing = {
      stateTiles(tiles.statePassingBlockP, tiles.statePassingBlockN), p.heads,
      p.batch};
  grids.fwdPassState = {stateTiles(tiles.blockP, tiles.blockN), p.heads,
                        p.batch};
  // bmm_chunk's tiles are square, blockM x blockM (its BLOCK_K bound to
  // blockM): those on and below the diagonal hold exactly the columns that
  // compute_out's row tiles read.
  const int64_t cbTiles = p.chunk / tiles.blockM;
  grids.bmmChunk = {product(p.numChunks(), cbTiles * cbTiles), p.groups,
                    p.batch};
  grids.computeOut = {product(ceilDiv(p.seqlen, tiles.blockM), numP), p.heads,
                      p.batch};
  return grids;
}

Status tilec::mamba2::detail::checkTensorArgument(
    const char *name, const Tensor &tensor, DType dtype,
    const std::vector<int64_t> &shape, const char *layout, bool output,
    const char *supported) {
  return checkTensor(name, tensor, dtype, shape, layout, output, supported);
}
