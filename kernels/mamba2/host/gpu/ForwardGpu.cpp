//===- ForwardGpu.cpp - the Mamba-2 forward pass on the GPU -----*- C++ -*-===//
//
// Checks the arguments (the shared validation first, then what only the GPU
// needs), then enqueues the kernels of the structure the options ask for
// (docs/mamba2.md: chunk_cumsum, chunk_state, state_passing, bmm_chunk and
// compute_out by default; chunk_cumsum, fwd_pass_state, bmm_chunk and
// compute_out as the three-kernel option) on the caller's stream through their
// generated launchers. Every check that needs no driver comes before the first
// driver call, so invalid arguments are reported the same way on a machine
// without a GPU. Nothing synchronizes with the host: the pass can be captured
// in a CUDA graph.
//
//===----------------------------------------------------------------------===//

#include "Forward.h"

#include "DevicePointers.h"
#include "Driver.h"
#include "ElementAlignment.h"
#include "KernelViews.h"
#include "LaunchGroup.h"
#include "RepeatedCall.h"
#include "StateUpdateGpu.h"
#include "VarlenStatesGpu.h"

#include "tilec/Runtime/Runtime.h"
#include "tilec/Support/ViewByteSpan.h"
#include "tilec_mamba2_kernels.h"

#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

using namespace tilec::mamba2;

namespace {

//===----------------------------------------------------------------------===//
// The compiled instantiations
//===----------------------------------------------------------------------===//

// The launchers' types, spelled out so that a kernel whose signature drifts
// from what this file passes fails to compile here rather than at run time.
/// chunk_cumsum for dt of view type DtView (one instantiation per dtype).
template <typename DtView>
using ChunkCumsumLauncher = tilec_status (*)(
    const DtView &dt, const tilec_view_f32_1d &A,
    const tilec_view_f32_1d &dtBias, int32_t softplus, float dtMin,
    float dtMax, const tilec_view_f32_4d &dtChunks,
    const tilec_view_f32_4d &G, tilec_grid, CUstream);
/// The kernels that read x, B, C or z for XView, their view type (one
/// instantiation per dtype of theirs: bf16, f16, f32).
template <typename XView>
using ChunkStateLauncher =
    tilec_status (*)(const XView &x, const XView &B,
                     const tilec_view_f32_4d &dt, const tilec_view_f32_4d &G,
                     const tilec_view_i32_2d &seqIdx,
                     const tilec_view_f32_5d &local, tilec_grid, CUstream);
/// The kernels that write or read the states between chunks, for
/// StateView, their view type (f32, or bf16: Inputs::stateDtype).
template <typename StateView = tilec_view_f32_5d>
using StatePassingLauncher =
    tilec_status (*)(const tilec_view_f32_5d &local, const tilec_view_f32_4d &G,
                     const tilec_view_i32_2d &seqIdx,
                     const tilec_view_f32_4d &init, int32_t hasInit,
                     const StateView &states, const tilec_view_f32_4d &final,
                     tilec_grid, CUstream);
template <typename XView, typename StateView = tilec_view_f32_5d>
using FwdPassStateLauncher =
    tilec_status (*)(const XView &x, const XView &B,
                     const tilec_view_f32_4d &dt, const tilec_view_f32_4d &G,
                     const tilec_view_f32_4d &init, int32_t hasInit,
                     const StateView &states, const tilec_view_f32_4d &final,
                     tilec_grid, CUstream);
template <typename XView>
using BmmChunkLauncher = tilec_status (*)(const XView &B, const XView &C,
                                          const tilec_view_f32_5d &CB,
                                          tilec_grid, CUstream);
template <typename XView, typename StateView = tilec_view_f32_5d>
using ComputeOutLauncher = tilec_status (*)(
    const XView &x, const XView &C, const tilec_view_f32_5d &CB,
    const tilec_view_f32_4d &dt, const tilec_view_f32_4d &G,
    const tilec_view_f32_2d &D, const XView &z, bool hasZ,
    const tilec_view_i32_2d &seqIdx, const StateView &states,
    const tilec_view_f32_4d &y, const XView &yXt, bool yIsXt, tilec_grid,
    CUstream);

using PrepareFunction = tilec_status (*)();

/// The launchers of the kernels that read x, B, C and z, for one dtype of
/// theirs and one of the states between chunks.
template <typename XView, typename StateView = tilec_view_f32_5d>
struct InputKernels {
  ChunkStateLauncher<XView> chunkState;
  FwdPassStateLauncher<XView, StateView> fwdPassState;
  BmmChunkLauncher<XView> bmmChunk;
  ComputeOutLauncher<XView, StateView> computeOut;
};

struct Instance {
  int64_t chunk;
  TileConfig tiles;
  /// chunk_cumsum for dt in f32, bf16 and f16.
  ChunkCumsumLauncher<tilec_view_f32_3d> chunkCumsum;
  ChunkCumsumLauncher<tilec_view_bf16_3d> chunkCumsumDtBf16;
  ChunkCumsumLauncher<tilec_view_f16_3d> chunkCumsumDtF16;
  StatePassingLauncher<> statePassing;
  /// For x, B, C and z in bf16, f16 and f32.
  InputKernels<tilec_view_bf16_4d> bf16;
  InputKernels<tilec_view_f16_4d> f16;
  InputKernels<tilec_view_f32_4d> f32;
  /// bf16 states between chunks (with x, B, C and z in bf16).
  StatePassingLauncher<tilec_view_bf16_5d> statePassingSbf16;
  InputKernels<tilec_view_bf16_4d, tilec_view_bf16_5d> bf16Sbf16;
  PrepareFunction prepare[19];
};

#define TILEC_MAMBA2_INPUT_KERNELS(suffix)                                     \
  {&tile_chunk_state##suffix, &tile_fwd_pass_state##suffix,                    \
   &tile_bmm_chunk##suffix, &tile_compute_out##suffix}
#define TILEC_MAMBA2_INPUT_PREPARES(suffix)                                    \
  &tile_chunk_state##suffix##_prepare, &tile_fwd_pass_state##suffix##_prepare, \
      &tile_bmm_chunk##suffix##_prepare, &tile_compute_out##suffix##_prepare
#define TILEC_MAMBA2_INSTANCE(chunk, suffix, blockH, blockP, blockN, blockM,   \
                              blockK, chunkStateP, chunkStateN, chunkStateK,   \
                              statePassingP, statePassingN)                    \
  Instance{chunk,                                                              \
           TileConfig{blockH, blockP, blockN, blockM, blockK, chunkStateP,     \
                      chunkStateN, chunkStateK, statePassingP, statePassingN}, \
           &tile_chunk_cumsum##suffix,                                         \
           &tile_chunk_cumsum##suffix##_dtbf16,                                \
           &tile_chunk_cumsum##suffix##_dtf16,                                 \
           &tile_state_passing##suffix,                                        \
           TILEC_MAMBA2_INPUT_KERNELS(suffix),                                 \
           TILEC_MAMBA2_INPUT_KERNELS(suffix##_xf16),                          \
           TILEC_MAMBA2_INPUT_KERNELS(suffix##_xf32),                          \
           &tile_state_passing##suffix##_sbf16,                                \
           {&tile_chunk_state##suffix, &tile_fwd_pass_state##suffix##_sbf16,   \
            &tile_bmm_chunk##suffix, &tile_compute_out##suffix##_sbf16},       \
           {&tile_chunk_cumsum##suffix##_prepare,                              \
            &tile_chunk_cumsum##suffix##_dtbf16_prepare,                       \
            &tile_chunk_cumsum##suffix##_dtf16_prepare,                        \
            &tile_state_passing##suffix##_prepare,                             \
            TILEC_MAMBA2_INPUT_PREPARES(suffix),                               \
            TILEC_MAMBA2_INPUT_PREPARES(suffix##_xf16),                        \
            TILEC_MAMBA2_INPUT_PREPARES(suffix##_xf32),                        \
            &tile_state_passing##suffix##_sbf16_prepare,                       \
            &tile_fwd_pass_state##suffix##_sbf16_prepare,                      \
            &tile_compute_out##suffix##_sbf16_prepare}},
const Instance kInstances[] = {TILEC_MAMBA2_INSTANCES(TILEC_MAMBA2_INSTANCE)};
#undef TILEC_MAMBA2_INSTANCE
#undef TILEC_MAMBA2_INPUT_PREPARES
#undef TILEC_MAMBA2_INPUT_KERNELS

const Instance *findInstance(int64_t chunk) {
  for (const Instance &instance : kInstances)
    if (instance.chunk == chunk)
      return &instance;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// A tensor argument by name; `tensor` is null for an absent optional one.
struct NamedTensor {
  const char *name;
  const Tensor *tensor;
};

/// The forward's tensor arguments, in the validation's order: the inputs,
/// then the outputs from index kFirstOutput. A fixed array: the checks of a
/// valid call walk it with no heap allocation.
constexpr size_t kTensorArguments = 15, kFirstOutput = 11;
std::array<NamedTensor, kTensorArguments> namedTensors(const Inputs &in,
                                                       const Outputs &out) {
  auto optional = [](const std::optional<Tensor> &t) {
    return t ? &*t : nullptr;
  };
  return {{{"x", &in.x},
           {"dt", &in.dt},
           {"A", &in.A},
           {"B", &in.B},
           {"C", &in.C},
           {"D", &in.D},
           {"initial state", optional(in.initialState)},
           {"dt bias", optional(in.dtBias)},
           {"z", optional(in.z)},
           {"seq idx", optional(in.seqIdx)},
           {"cu seqlens", optional(in.cuSeqlens)},
           {"y", &out.y},
           {"final state", optional(out.finalState)},
           {"chunk states", optional(out.chunkStates)},
           {"varlen states", optional(out.varlenStates)}}};
}

/// A tensor argument and what the problem implies for it.
struct Role {
  const char *name;
  const Tensor *tensor; // null for an absent optional tensor
  DType dtype;
  std::vector<int64_t> shape;
  bool output;
};

std::vector<Role> roles(const Problem &p, const Inputs &in,
                        const Outputs &out) {
  const std::vector<int64_t> tokens = {p.batch, p.seqlen, p.heads, p.headdim};
  const std::vector<int64_t> groups = {p.batch, p.seqlen, p.groups, p.dstate};
  const std::vector<int64_t> state = {p.batch, p.heads, p.headdim, p.dstate};
  const DType xType = inputElementType(in);
  const std::vector<int64_t> dShape =
      in.D.shape.size() == 2 ? std::vector<int64_t>{p.heads, p.headdim}
                             : std::vector<int64_t>{p.heads};
  // Any number of sequences, one or more.
  const std::vector<int64_t> offsetsShape =
      in.cuSeqlens && in.cuSeqlens->shape.size() == 1 &&
              in.cuSeqlens->shape[0] >= 2
          ? in.cuSeqlens->shape
          : std::vector<int64_t>{2};
  // What each argument of namedTensors' list needs, in its order.
  const std::pair<DType, std::vector<int64_t>> needs[kTensorArguments] = {
      {xType, tokens},
      {in.dt.dtype, {p.batch, p.seqlen, p.heads}},
      {DType::F32, {p.heads}},
      {xType, groups},
      {xType, groups},
      {DType::F32, dShape},
      {DType::F32, state},
      {DType::F32, {p.heads}},
      {xType, tokens},
      {DType::I32, {p.batch, p.seqlen}},
      {DType::I32, offsetsShape},
      {out.y.dtype == xType ? xType : DType::F32, tokens},
      {DType::F32, state},
      {in.stateDtype, {p.batch, p.numChunks(), p.heads, p.headdim, p.dstate}},
      {DType::F32, {in.numSequences(), p.heads, p.headdim, p.dstate}}};
  const std::array<NamedTensor, kTensorArguments> tensors =
      namedTensors(in, out);
  std::vector<Role> result;
  for (size_t i = 0; i < kTensorArguments; ++i)
    result.push_back({tensors[i].name, tensors[i].tensor, needs[i].first,
                      needs[i].second, i >= kFirstOutput});
  return result;
}

/// The status naming the rule of validate() (Mamba2.h) that the arguments
/// break, walking the rules in validate's order. validate decides and words
/// the error; this only names it for the C ABI.
tilec_mamba2_status classifyInvalid(const Problem &p, const Inputs &in,
                                    const Outputs &out) {
  for (int64_t size :
       {p.batch, p.seqlen, p.heads, p.groups, p.headdim, p.dstate, p.chunk})
    if (size <= 0)
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  if (p.heads % p.groups)
    return TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS;
  if (p.chunk != 64 && p.chunk != 128 && p.chunk != 256)
    return TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK;
  for (const Role &role : roles(p, in, out)) {
    // Every input's descriptor is right and validateInputs failed: a rule
    // on values (the dt limit) or between inputs.
    if (role.output && !validateInputs(p, in).ok())
      return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
    if (!role.tensor)
      continue;
    // The varlen states without the offsets they need.
    if (out.varlenStates && role.tensor == &*out.varlenStates &&
        !in.cuSeqlens)
      return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
    const Tensor &t = *role.tensor;
    if (!t.data)
      return TILEC_MAMBA2_ERROR_NULL_POINTER;
    if (t.dtype != role.dtype)
      return TILEC_MAMBA2_ERROR_INVALID_DTYPE;
    if (t.shape != role.shape)
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    if (t.strides.size() != t.shape.size())
      return TILEC_MAMBA2_ERROR_INVALID_STRIDE;
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.strides[d] < 0 ||
          (role.output && t.strides[d] == 0 && t.shape[d] > 1))
        return TILEC_MAMBA2_ERROR_INVALID_STRIDE;
  }
  return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
}

bool mulOverflows(int64_t a, int64_t b, int64_t &result) {
  return __builtin_mul_overflow(a, b, &result);
}

constexpr int64_t kWorkspaceAlignment = 16;
// Each buffer of the workspace starts on this boundary, as a cudaMalloc'd
// one would.
constexpr int64_t kBufferAlignment = 256;

/// Where the intermediates live in the workspace, in bytes: dt_chunks and
/// G (the same size), the states entering each chunk, the chunks' own states
/// (chunk_state's output, state_passing's input; in the four-kernel
/// structure only), the final state, C B^T per chunk and group (bmm_chunk's
/// output, compute_out's input).
struct WorkspaceLayout {
  int64_t dtChunksOffset = 0, gOffset = 0, statesOffset = 0, localOffset = 0,
          finalOffset = 0, cbOffset = 0, total = 0;
};

bool alignUp(int64_t value, int64_t alignment, int64_t &result) {
  return !__builtin_add_overflow(value, alignment - 1, &result) &&
         ((result = result / alignment * alignment), true);
}

/// The layout for a problem whose sizes are positive; false when a size
/// does not fit in int64_t.
bool workspaceLayout(const Problem &p, ForwardStructure structure,
                     WorkspaceLayout &layout) {
  const int64_t nchunks = p.numChunks();
  int64_t g = 4, states = 4, final = 4, cb = 4;
  for (int64_t size : {p.batch, p.heads, nchunks, p.chunk})
    if (mulOverflows(g, size, g))
      return false;
  for (int64_t size : {p.batch, nchunks, p.heads, p.headdim, p.dstate})
    if (mulOverflows(states, size, states))
      return false;
  for (int64_t size : {p.batch, p.heads, p.headdim, p.dstate})
    if (mulOverflows(final, size, final))
      return false;
  for (int64_t size : {p.batch, nchunks, p.groups, p.chunk, p.chunk})
    if (mulOverflows(cb, size, cb))
      return false;
  const int64_t local =
      structure == ForwardStructure::FourKernels ? states : 0;
  layout.dtChunksOffset = 0;
  return alignUp(g, kBufferAlignment, layout.gOffset) &&
         !__builtin_add_overflow(layout.gOffset, g, &layout.statesOffset) &&
         alignUp(layout.statesOffset, kBufferAlignment, layout.statesOffset) &&
         !__builtin_add_overflow(layout.statesOffset, states,
                                 &layout.localOffset) &&
         alignUp(layout.localOffset, kBufferAlignment, layout.localOffset) &&
         !__builtin_add_overflow(layout.localOffset, local,
                                 &layout.finalOffset) &&
         alignUp(layout.finalOffset, kBufferAlignment, layout.finalOffset) &&
         !__builtin_add_overflow(layout.finalOffset, final, &layout.cbOffset) &&
         alignUp(layout.cbOffset, kBufferAlignment, layout.cbOffset) &&
         !__builtin_add_overflow(layout.cbOffset, cb, &layout.total);
}

struct Grids {
  tilec_grid chunkCumsum, chunkState, statePassing, fwdPassState, bmmChunk,
      computeOut;
  /// With cu_seqlens only.
  tilec_grid varlenState;
};

Grids computeGrids(const Problem &p, const Inputs &in,
                   const TileConfig &tiles) {
  LaunchGrids grids = computeLaunchGrids(p, tiles);
  auto grid = [](const std::array<int64_t, 3> &g) {
    return tilec_grid{g[0], g[1], g[2]};
  };
  return {grid(grids.chunkCumsum),  grid(grids.chunkState),
          grid(grids.statePassing), grid(grids.fwdPassState),
          grid(grids.bmmChunk),     grid(grids.computeOut),
          in.cuSeqlens ? gpu::varlenStatesGrid(p, in) : tilec_grid{1, 1, 1}};
}

/// Whether the driver takes the grid: x up to 2^31 - 1, y and z up to
/// 65535 on every GPU.
bool gridFits(const tilec_grid &grid) {
  return grid.x <= INT32_MAX && grid.y <= 65535 && grid.z <= 65535;
}

std::string gridText(const tilec_grid &grid) {
  return "(" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
         std::to_string(grid.z) + ")";
}

/// Every size of a TileConfig and its name.
const std::pair<const char *, int64_t TileConfig::*> kTileSizes[] = {
    {"blockH", &TileConfig::blockH},
    {"blockP", &TileConfig::blockP},
    {"blockN", &TileConfig::blockN},
    {"blockM", &TileConfig::blockM},
    {"blockK", &TileConfig::blockK},
    {"chunkStateBlockP", &TileConfig::chunkStateBlockP},
    {"chunkStateBlockN", &TileConfig::chunkStateBlockN},
    {"chunkStateBlockK", &TileConfig::chunkStateBlockK},
    {"statePassingBlockP", &TileConfig::statePassingBlockP},
    {"statePassingBlockN", &TileConfig::statePassingBlockN}};

std::string tilesText(const TileConfig &t) {
  std::string text;
  for (auto [name, size] : kTileSizes)
    text += (text.empty() ? "" : ", ") + std::string(name) + " " +
            std::to_string(t.*size);
  return text;
}

/// Enqueues the kernels of `structure`; on failure `message` names the
/// kernel.
tilec_mamba2_status launch(const Problem &p, const Inputs &in,
                           const Outputs &out, const Instance &instance,
                           ForwardStructure structure, const Grids &grids,
                           char *workspace,
                           const WorkspaceLayout &layout, CUstream stream,
                           std::string &message);

} // namespace

//===----------------------------------------------------------------------===//
// forward
//===----------------------------------------------------------------------===//

tilec_mamba2_status gpu::workspaceSize(const Problem &p,
                                       ForwardStructure structure,
                                       size_t &bytes, std::string &message) {
  const std::pair<const char *, int64_t> sizes[] = {
      {"batch", p.batch},   {"seqlen", p.seqlen},   {"heads", p.heads},
      {"groups", p.groups}, {"headdim", p.headdim}, {"dstate", p.dstate},
      {"chunk", p.chunk}};
  for (auto [name, value] : sizes)
    if (value <= 0) {
      message = std::string("problem: ") + name + " is " +
                std::to_string(value) + "; it must be positive";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }
  if (p.heads % p.groups) {
    message = "problem: heads (" + std::to_string(p.heads) +
              ") must be a multiple of groups (" + std::to_string(p.groups) +
              ")";
    return TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS;
  }
  if (!findInstance(p.chunk)) {
    message = "problem: chunk is " + std::to_string(p.chunk) +
              "; the kernels are built for 64, 128 and 256";
    return TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK;
  }
  if (Status status = validateStructure(structure); !status) {
    message = status.message();
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  }
  WorkspaceLayout layout;
  if (!workspaceLayout(p, structure, layout)) {
    message = "problem: the workspace for these sizes does not fit in 64 bits";
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  }
  bytes = size_t(layout.total);
  return TILEC_MAMBA2_SUCCESS;
}

tilec_mamba2_status gpu::forward(const Problem &p, const Inputs &in,
                                 const Outputs &out, const GpuOptions &options,
                                 CUstream stream, std::string &message) {
  // The arguments, as every device checks them.
  if (Status status = validate(p, in, out); !status) {
    message = status.message();
    return classifyInvalid(p, in, out);
  }
  if (Status status = validateTileConfig(p, options.tiles); !status) {
    message = status.message();
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  }
  if (Status status = validateStructure(options.structure); !status) {
    message = status.message();
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  }
  // seq_idx's values are in device memory: that they do not decrease is the
  // caller's contract, as in mamba_ssm (docs/mamba2.md); reading them here
  // would wait for the stream.
  if (Status status = validateStructureFor(options.structure, in); !status) {
    message = status.message();
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  }

  // What the GPU needs on top, still without the driver.
  const Instance *instance = findInstance(p.chunk);
  if (!instance) {
    message =
        "problem: no kernels are built for chunk " + std::to_string(p.chunk);
    return TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK;
  }
  const TileConfig &compiled = instance->tiles;
  for (const auto &entry : kTileSizes)
    if (int64_t TileConfig::*size = entry.second;
        options.tiles.*size && options.tiles.*size != compiled.*size) {
      message = "tile config: the kernels for chunk " +
                std::to_string(p.chunk) + " are compiled with " +
                tilesText(compiled) + "; leave a size 0 or ask for that one";
      return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
    }

  // The grids of the kernels this structure launches.
  const ForwardStructure structure = options.structure;
  const bool fourKernels = structure == ForwardStructure::FourKernels;
  const Grids grids = computeGrids(p, in, compiled);
  const std::pair<const char *, const tilec_grid *> gridChecks[] = {
      {"chunk_cumsum", &grids.chunkCumsum},
      {"chunk_state", fourKernels ? &grids.chunkState : nullptr},
      {"state_passing", fourKernels ? &grids.statePassing : nullptr},
      {"fwd_pass_state", fourKernels ? nullptr : &grids.fwdPassState},
      {"bmm_chunk", &grids.bmmChunk},
      {"compute_out", &grids.computeOut},
      {"varlen_state", out.varlenStates ? &grids.varlenState : nullptr}};
  for (auto [kernel, grid] : gridChecks)
    if (grid && !gridFits(*grid)) {
      message = std::string("problem: ") + kernel + " would need grid " +
                gridText(*grid) +
                ", beyond the driver's 2^31-1 x 65535 x 65535 (batch and "
                "heads are at most 65535)";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }

  const std::array<NamedTensor, kTensorArguments> tensors =
      namedTensors(in, out);
  for (const NamedTensor &role : tensors) {
    // The kernels address elements with 64-bit byte offsets.
    if (role.tensor &&
        !tilec::viewByteSpan(role.tensor->shape.data(),
                             role.tensor->strides.data(),
                             role.tensor->shape.size(),
                             dtypeSize(role.tensor->dtype))) {
      message = std::string(role.name) +
                ": its elements span more bytes than a 64-bit offset "
                "addresses";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }
  }
  WorkspaceLayout layout;
  if (!workspaceLayout(p, structure, layout)) {
    message = "problem: the workspace for these sizes does not fit in 64 bits";
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  }

  for (const NamedTensor &role : tensors)
    if (role.tensor)
      if (tilec_mamba2_status status =
              checkElementAlignment(role.name, *role.tensor, message))
        return status;
  if (options.workspace) {
    if (reinterpret_cast<uintptr_t>(options.workspace) % kWorkspaceAlignment) {
      message = "workspace: pointer is not " +
                std::to_string(kWorkspaceAlignment) + "-byte aligned";
      return TILEC_MAMBA2_ERROR_UNALIGNED;
    }
    if (options.workspaceBytes < size_t(layout.total)) {
      message = "workspace: " + std::to_string(options.workspaceBytes) +
                " bytes given; the problem needs " +
                std::to_string(layout.total);
      return TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL;
    }
  }

  // Through the driver.
  const gpu::DriverLoad &load = gpu::driver();
  if (load.code != TILEC_MAMBA2_SUCCESS) {
    message = load.message;
    return load.code;
  }
  const gpu::DriverApi &api = load.api;
  // The kernels go to the stream as one launch group (one CUDA graph
  // launch), which asks for the current context once for the call.
  unsigned long long contextId = 0;
  gpu::LaunchGroup group;
  if (tilec_mamba2_status code = group.open(stream, contextId, message))
    return code;
  gpu::PointerCheck mode;
  if (!gpu::pointerCheckMode(mode, message))
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  const gpu::PointerQueries queries{api.pointerGetAttributes,
                                    api.getErrorName};
  for (const NamedTensor &role : tensors)
    if (role.tensor)
      if (tilec_mamba2_status code = gpu::checkDevicePointer(
              queries, mode, contextId, role.name, role.tensor->data,
              message))
        return code;
  if (options.workspace)
    if (tilec_mamba2_status code = gpu::checkDevicePointer(
            queries, mode, contextId, "workspace", options.workspace,
            message))
      return code;

  char *workspace = static_cast<char *>(options.workspace);
  if (!workspace) {
    CUdeviceptr allocated = 0;
    if (CUresult result =
            api.memAllocAsync(&allocated, size_t(layout.total), stream);
        result != CUDA_SUCCESS) {
      message = "allocating " + std::to_string(layout.total) +
                " bytes of workspace on the stream (cuMemAllocAsync): " +
                gpu::describe(api, result);
      return result == CUDA_ERROR_OUT_OF_MEMORY
                 ? TILEC_MAMBA2_ERROR_OUT_OF_MEMORY
                 : TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    }
    workspace = reinterpret_cast<char *>(allocated);
  }
  tilec_mamba2_status code = launch(p, in, out, *instance, structure, grids,
                                    workspace, layout, stream, message);
  if (code == TILEC_MAMBA2_SUCCESS)
    code = group.end(message);
  if (!options.workspace) {
    // Stream-ordered: freed once the kernels enqueued before it are done,
    // also when a later one failed to launch.
    if (CUresult result =
            api.memFreeAsync(reinterpret_cast<CUdeviceptr>(workspace), stream);
        result != CUDA_SUCCESS && code == TILEC_MAMBA2_SUCCESS) {
      message = "freeing the workspace on the stream (cuMemFreeAsync): " +
                gpu::describe(api, result);
      code = TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    }
  }
  return code;
}

namespace {

using gpu::makeView;

/// A row-major view of `shape` (View's rank) at `data`, with no heap
/// allocation.
template <typename View, size_t Rank>
View contiguousView(void *data, const int64_t (&shape)[Rank]) {
  static_assert(Rank == std::size(View{}.shape), "shape of the view's rank");
  int64_t strides[Rank];
  strides[Rank - 1] = 1;
  for (size_t d = Rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  return makeView<View>(data, shape, strides);
}

/// launch() with the kernels for x, B, C and z of view type XView and
/// states between chunks of view type StateView.
template <typename XView, typename StateView>
tilec_mamba2_status
launchWith(const Problem &p, const Inputs &in, const Outputs &out,
           const Instance &instance,
           const InputKernels<XView, StateView> &inputKernels,
           StatePassingLauncher<StateView> statePassing,
           ForwardStructure structure, const Grids &grids, char *workspace,
           const WorkspaceLayout &layout, CUstream stream,
           std::string &message) {
  const int64_t nchunks = p.numChunks();
  const auto x = makeView<XView>(in.x);
  const auto A = makeView<tilec_view_f32_1d>(in.A);
  const auto B = makeView<XView>(in.B);
  const auto C = makeView<XView>(in.C);
  // D per head is D per channel with stride 0 along headdim.
  const int64_t perHeadShape[] = {p.heads, p.headdim};
  const int64_t perHeadStrides[] = {in.D.strides[0], 0};
  const auto D =
      in.D.shape.size() == 2
          ? makeView<tilec_view_f32_2d>(in.D)
          : makeView<tilec_view_f32_2d>(in.D.data, perHeadShape,
                                        perHeadStrides);
  // Absent options as the kernels take them: an empty dt bias reads as
  // zeros; an absent z is not read (an empty view); compute_out writes one
  // of y (f32) and y_xt (x's dtype), and the other is empty.
  const auto dtBias = in.dtBias ? makeView<tilec_view_f32_1d>(*in.dtBias)
                                : tilec_view_f32_1d{nullptr, {0}, {0}};
  const XView noX{nullptr, {0, 0, 0, 0}, {0, 0, 0, 0}};
  const auto z = in.z ? makeView<XView>(*in.z) : noX;
  // Without packed sequences an empty seq_idx, which reads as zeros: one
  // sequence per row.
  const auto seqIdx = in.seqIdx ? makeView<tilec_view_i32_2d>(*in.seqIdx)
                                : tilec_view_i32_2d{nullptr, {0, 0}, {0, 0}};
  // With x in f32 the two coincide: y is written as f32.
  const bool yIsXt = out.y.dtype != DType::F32;
  const auto y = yIsXt
                     ? tilec_view_f32_4d{nullptr, {0, 0, 0, 0}, {0, 0, 0, 0}}
                     : makeView<tilec_view_f32_4d>(out.y);
  const auto yXt = yIsXt ? makeView<XView>(out.y) : noX;
  const int64_t chunkedShape[] = {p.batch, p.heads, nchunks, p.chunk};
  const auto dtChunks = contiguousView<tilec_view_f32_4d>(
      workspace + layout.dtChunksOffset, chunkedShape);
  const auto G = contiguousView<tilec_view_f32_4d>(workspace + layout.gOffset,
                                                   chunkedShape);
  // The states entering each chunk, in the state dtype: the caller's when
  // asked for (the workspace keeps room for f32 ones either way).
  const auto states =
      out.chunkStates ? makeView<StateView>(*out.chunkStates)
                      : contiguousView<StateView>(
                            workspace + layout.statesOffset,
                            {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  const int64_t stateShape[] = {p.batch, p.heads, p.headdim, p.dstate};
  const auto final = out.finalState
                         ? makeView<tilec_view_f32_4d>(*out.finalState)
                         : contiguousView<tilec_view_f32_4d>(
                               workspace + layout.finalOffset, stateShape);
  // Without an initial state fwd_pass_state and state_passing start from
  // zero and do not read `init`: an empty view, which the launcher accepts
  // with no data.
  const auto init =
      in.initialState ? makeView<tilec_view_f32_4d>(*in.initialState)
                      : tilec_view_f32_4d{nullptr, {0, 0, 0, 0}, {0, 0, 0, 0}};
  const int32_t hasInit = in.initialState ? 1 : 0;

  // The driver, a device and a current context were there a moment ago:
  // whatever fails now is the launch (a stream of another context, a kernel
  // image the device cannot run, resources, an earlier kernel's fault).
  auto check = [&](tilec_status status, const char *kernel) {
    if (status == TILEC_SUCCESS)
      return TILEC_MAMBA2_SUCCESS;
    message = std::string("launching ") + kernel + " (" +
              tilec_status_name(status) + "): " + tilec_last_error();
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  };
  // chunk_cumsum's instantiation for dt's dtype.
  auto chunkCumsum = [&](auto launcher, auto dt) {
    return launcher(dt, A, dtBias, in.dtSoftplus ? 1 : 0, in.dtLimit.low,
                    in.dtLimit.high, dtChunks, G, grids.chunkCumsum, stream);
  };
  const tilec_status cumsum =
      in.dt.dtype == DType::BF16
          ? chunkCumsum(instance.chunkCumsumDtBf16,
                        makeView<tilec_view_bf16_3d>(in.dt))
      : in.dt.dtype == DType::F16
          ? chunkCumsum(instance.chunkCumsumDtF16,
                        makeView<tilec_view_f16_3d>(in.dt))
          : chunkCumsum(instance.chunkCumsum,
                        makeView<tilec_view_f32_3d>(in.dt));
  if (tilec_mamba2_status code = check(cumsum, "chunk_cumsum"))
    return code;
  if (structure == ForwardStructure::ThreeKernels) {
    if (tilec_mamba2_status code = check(
            inputKernels.fwdPassState(x, B, dtChunks, G, init, hasInit,
                                      states, final, grids.fwdPassState,
                                      stream),
            "fwd_pass_state"))
      return code;
  } else {
    const auto local = contiguousView<tilec_view_f32_5d>(
        workspace + layout.localOffset,
        {p.batch, nchunks, p.heads, p.headdim, p.dstate});
    if (tilec_mamba2_status code =
            check(inputKernels.chunkState(x, B, dtChunks, G, seqIdx, local,
                                          grids.chunkState, stream),
                  "chunk_state"))
      return code;
    if (tilec_mamba2_status code =
            check(statePassing(local, G, seqIdx, init, hasInit, states,
                               final, grids.statePassing, stream),
                  "state_passing"))
      return code;
  }
  // Right before compute_out, so that C B^T is still in L2 when it is read.
  const auto cb = contiguousView<tilec_view_f32_5d>(
      workspace + layout.cbOffset,
      {p.batch, nchunks, p.groups, p.chunk, p.chunk});
  if (tilec_mamba2_status code = check(
          inputKernels.bmmChunk(B, C, cb, grids.bmmChunk, stream),
          "bmm_chunk"))
    return code;
  if (tilec_mamba2_status code = check(
          inputKernels.computeOut(x, C, cb, dtChunks, G, D, z, bool(in.z),
                                  seqIdx, states, y, yXt, yIsXt,
                                  grids.computeOut, stream),
          "compute_out"))
    return code;
  if (!out.varlenStates)
    return TILEC_MAMBA2_SUCCESS;
  return gpu::launchVarlenStates(in, *out.varlenStates, dtChunks, G, states,
                                 grids.varlenState, stream, message);
}

tilec_mamba2_status launch(const Problem &p, const Inputs &in,
                           const Outputs &out, const Instance &instance,
                           ForwardStructure structure, const Grids &grids,
                           char *workspace,
                           const WorkspaceLayout &layout, CUstream stream,
                           std::string &message) {
  // The instance for x's dtype (validate() took B, C and z in it) and the
  // state dtype (bf16 with a bf16 x only).
  if (in.stateDtype == DType::BF16)
    return launchWith(p, in, out, instance, instance.bf16Sbf16,
                      instance.statePassingSbf16, structure, grids, workspace,
                      layout, stream, message);
  if (in.x.dtype == DType::F16)
    return launchWith(p, in, out, instance, instance.f16,
                      instance.statePassing, structure, grids, workspace,
                      layout, stream, message);
  if (in.x.dtype == DType::F32)
    return launchWith(p, in, out, instance, instance.f32,
                      instance.statePassing, structure, grids, workspace,
                      layout, stream, message);
  return launchWith(p, in, out, instance, instance.bf16, instance.statePassing,
                    structure, grids, workspace, layout, stream, message);
}

} // namespace

tilec_mamba2_status gpu::prepare(std::string &message) {
  for (const Instance &instance : kInstances)
    for (PrepareFunction prepare : instance.prepare)
      if (tilec_status status = prepare(); status != TILEC_SUCCESS) {
        message = std::string("loading the kernels for chunk ") +
                  std::to_string(instance.chunk) + " (" +
                  tilec_status_name(status) + "): " + tilec_last_error();
        return fromKernelPrepare(status);
      }
  if (tilec_mamba2_status status = prepareVarlenStates(message))
    return status;
  return prepareStateUpdate(message);
}

//===----------------------------------------------------------------------===//
// The C++ API
//===----------------------------------------------------------------------===//

Status tilec::mamba2::prepareGpu() {
  std::string message;
  if (gpu::prepare(message) != TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}

TileConfig tilec::mamba2::gpuTileConfig(int64_t chunk) {
  const Instance *instance = findInstance(chunk);
  return instance ? instance->tiles : TileConfig{};
}

Status tilec::mamba2::gpuWorkspaceSize(const Problem &problem, size_t &bytes,
                                       ForwardStructure structure) {
  std::string message;
  if (gpu::workspaceSize(problem, structure, bytes, message) !=
      TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}

namespace {

// Keyed as whole structs below: all int64_t, so no padding byte.
static_assert(sizeof(Problem) == 7 * sizeof(int64_t));
static_assert(sizeof(TileConfig) == 10 * sizeof(int64_t));

/// Every field of a forwardGpu call that its checks and launches read
/// (RepeatedCall.h), tensors by content. A field added to Problem, Inputs,
/// Outputs or GpuOptions must be added here.
void forwardKey(gpu::CallKey &key, const Problem &problem, const Inputs &in,
                const Outputs &out, const GpuOptions &options,
                CUstream stream) {
  key.clear();
  key.add(problem);
  for (const Tensor *t : {&in.x, &in.dt, &in.A, &in.B, &in.C, &in.D, &out.y})
    key.addTensor(*t);
  for (const std::optional<Tensor> *t :
       {&in.initialState, &in.dtBias, &in.z, &in.seqIdx, &in.cuSeqlens,
        &out.finalState, &out.chunkStates, &out.varlenStates})
    key.addTensor(*t);
  key.add(in.dtSoftplus);
  key.add(in.dtLimit.low);
  key.add(in.dtLimit.high);
  key.add(in.stateDtype);
  key.add(options.tiles);
  key.add(options.structure);
  key.add(options.workspace);
  key.add(options.workspaceBytes);
  key.add(stream);
}

} // namespace

Status tilec::mamba2::forwardGpu(const Problem &problem, const Inputs &inputs,
                                 const Outputs &outputs,
                                 const GpuOptions &options, CUstream stream) {
  std::string message;
  // A call without a workspace allocates one: never the same twice.
  if (!options.workspace) {
    if (gpu::forward(problem, inputs, outputs, options, stream, message) !=
        TILEC_MAMBA2_SUCCESS)
      return Status::error(message);
    return Status::success();
  }
  thread_local gpu::RepeatedCall repeated;
  forwardKey(repeated.key, problem, inputs, outputs, options, stream);
  tilec_mamba2_status status;
  if (!gpu::replayed(repeated, stream, status, message)) {
    status = gpu::forward(problem, inputs, outputs, options, stream, message);
    gpu::remember(repeated, status);
  }
  if (status != TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}
