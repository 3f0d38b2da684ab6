//===- ForwardGpu.cpp - the Mamba-2 forward pass on the GPU -----*- C++ -*-===//
//
// Checks the arguments (the shared validation first, then what only the GPU
// needs), then enqueues chunk_cumsum, fwd_pass_state and compute_out on the
// caller's stream through their generated launchers. Every check that needs
// no driver comes before the first driver call, so invalid arguments are
// reported the same way on a machine without a GPU. Nothing synchronizes
// with the host: the pass can be captured in a CUDA graph.
//
//===----------------------------------------------------------------------===//

#include "Forward.h"

#include "DevicePointers.h"

#include "tilec/Runtime/Runtime.h"
#include "tilec_mamba2_kernels.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <mutex>
#include <type_traits>

using namespace tilec::mamba2;

namespace {

//===----------------------------------------------------------------------===//
// The compiled instantiations
//===----------------------------------------------------------------------===//

// The launchers' types, spelled out so that a kernel whose signature drifts
// from what this file passes fails to compile here rather than at run time.
using ChunkCumsumLauncher = tilec_status (*)(const tilec_view_f32_3d &dt,
                                             const tilec_view_f32_1d &A,
                                             const tilec_view_f32_4d &G,
                                             tilec_grid, CUstream);
using FwdPassStateLauncher =
    tilec_status (*)(const tilec_view_bf16_4d &x, const tilec_view_bf16_4d &B,
                     const tilec_view_f32_3d &dt, const tilec_view_f32_4d &G,
                     const tilec_view_f32_4d &init, int32_t hasInit,
                     const tilec_view_f32_5d &states,
                     const tilec_view_f32_4d &final, tilec_grid, CUstream);
using ComputeOutLauncher =
    tilec_status (*)(const tilec_view_bf16_4d &x, const tilec_view_bf16_4d &B,
                     const tilec_view_bf16_4d &C, const tilec_view_f32_3d &dt,
                     const tilec_view_f32_4d &G, const tilec_view_f32_1d &D,
                     const tilec_view_f32_5d &states,
                     const tilec_view_f32_4d &y, tilec_grid, CUstream);

using PrepareFunction = tilec_status (*)();

struct Instance {
  int64_t chunk;
  TileConfig tiles;
  ChunkCumsumLauncher chunkCumsum;
  FwdPassStateLauncher fwdPassState;
  ComputeOutLauncher computeOut;
  PrepareFunction prepare[3];
};

#define TILEC_MAMBA2_INSTANCE(chunk, suffix, blockH, blockP, blockN, blockM,   \
                              blockK)                                          \
  Instance{chunk,                                                              \
           TileConfig{blockH, blockP, blockN, blockM, blockK},                 \
           &tile_chunk_cumsum##suffix,                                         \
           &tile_fwd_pass_state##suffix,                                       \
           &tile_compute_out##suffix,                                          \
           {&tile_chunk_cumsum##suffix##_prepare,                              \
            &tile_fwd_pass_state##suffix##_prepare,                            \
            &tile_compute_out##suffix##_prepare}},
const Instance kInstances[] = {TILEC_MAMBA2_INSTANCES(TILEC_MAMBA2_INSTANCE)};
#undef TILEC_MAMBA2_INSTANCE

const Instance *findInstance(int64_t chunk) {
  for (const Instance &instance : kInstances)
    if (instance.chunk == chunk)
      return &instance;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

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
  auto optional = [](const std::optional<Tensor> &t) {
    return t ? &*t : nullptr;
  };
  return {
      {"x", &in.x, DType::BF16, tokens, false},
      {"dt", &in.dt, DType::F32, {p.batch, p.seqlen, p.heads}, false},
      {"A", &in.A, DType::F32, {p.heads}, false},
      {"B", &in.B, DType::BF16, groups, false},
      {"C", &in.C, DType::BF16, groups, false},
      {"D", &in.D, DType::F32, {p.heads}, false},
      {"initial state", optional(in.initialState), DType::F32, state, false},
      {"y", &out.y, DType::F32, tokens, true},
      {"final state", optional(out.finalState), DType::F32, state, true}};
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
    if (!role.tensor)
      continue;
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

/// The byte offset one past the last element of a validated tensor, when it
/// fits in int64_t (the kernels address elements with 64-bit offsets).
bool byteExtent(const Tensor &t, int64_t &bytes) {
  int64_t last = 0;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t step;
    if (mulOverflows(t.shape[d] - 1, t.strides[d], step) ||
        __builtin_add_overflow(last, step, &last))
      return false;
  }
  return !__builtin_add_overflow(last, 1, &last) &&
         !mulOverflows(last, int64_t(dtypeSize(t.dtype)), bytes);
}

constexpr int64_t kWorkspaceAlignment = 16;
// Each buffer of the workspace starts on this boundary, as a cudaMalloc'd
// one would.
constexpr int64_t kBufferAlignment = 256;

/// Where the intermediates live in the workspace, in bytes.
struct WorkspaceLayout {
  int64_t gOffset = 0, statesOffset = 0, finalOffset = 0, total = 0;
};

bool alignUp(int64_t value, int64_t alignment, int64_t &result) {
  return !__builtin_add_overflow(value, alignment - 1, &result) &&
         ((result = result / alignment * alignment), true);
}

/// The layout for a problem whose sizes are positive; false when a size
/// does not fit in int64_t.
bool workspaceLayout(const Problem &p, WorkspaceLayout &layout) {
  const int64_t nchunks = p.numChunks();
  int64_t g = 4, states = 4, final = 4;
  for (int64_t size : {p.batch, p.heads, nchunks, p.chunk})
    if (mulOverflows(g, size, g))
      return false;
  for (int64_t size : {p.batch, nchunks, p.heads, p.headdim, p.dstate})
    if (mulOverflows(states, size, states))
      return false;
  for (int64_t size : {p.batch, p.heads, p.headdim, p.dstate})
    if (mulOverflows(final, size, final))
      return false;
  layout.gOffset = 0;
  return alignUp(g, kBufferAlignment, layout.statesOffset) &&
         !__builtin_add_overflow(layout.statesOffset, states,
                                 &layout.finalOffset) &&
         alignUp(layout.finalOffset, kBufferAlignment, layout.finalOffset) &&
         !__builtin_add_overflow(layout.finalOffset, final, &layout.total);
}

struct Grids {
  tilec_grid chunkCumsum, fwdPassState, computeOut;
};

Grids computeGrids(const Problem &p, const TileConfig &tiles) {
  LaunchGrids grids = computeLaunchGrids(p, tiles);
  auto grid = [](const std::array<int64_t, 3> &g) {
    return tilec_grid{g[0], g[1], g[2]};
  };
  return {grid(grids.chunkCumsum), grid(grids.fwdPassState),
          grid(grids.computeOut)};
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

std::string tilesText(const TileConfig &t) {
  return "blockH " + std::to_string(t.blockH) + ", blockP " +
         std::to_string(t.blockP) + ", blockN " + std::to_string(t.blockN) +
         ", blockM " + std::to_string(t.blockM) + ", blockK " +
         std::to_string(t.blockK);
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

struct DriverApi {
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuCtxGetCurrent) ctxGetCurrent = nullptr;
  decltype(&::cuCtxGetId) ctxGetId = nullptr;
  decltype(&::cuPointerGetAttributes) pointerGetAttributes = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
};

struct DriverLoad {
  DriverApi api;
  tilec_mamba2_status code = TILEC_MAMBA2_SUCCESS;
  std::string message;
};

tilec_mamba2_status fromRuntimeInit(tilec_status status) {
  switch (status) {
  case TILEC_SUCCESS:
    return TILEC_MAMBA2_SUCCESS;
  case TILEC_ERROR_NO_DEVICE:
    return TILEC_MAMBA2_ERROR_NO_DEVICE;
  default:
    // The runtime could not load or initialize the driver.
    return TILEC_MAMBA2_ERROR_NO_DRIVER;
  }
}

/// The entry points, resolved once per process through the tilec runtime,
/// which loads and initializes the driver on first use.
const DriverLoad &driver() {
  static DriverLoad load;
  static std::once_flag once;
  std::call_once(once, [] {
    auto need = [&](auto &entry, const char *symbol) {
      if (load.code != TILEC_MAMBA2_SUCCESS)
        return;
      void *function = nullptr;
      tilec_status status = tilec_driver_entry_point(symbol, &function);
      if (status != TILEC_SUCCESS) {
        load.code = fromRuntimeInit(status);
        load.message = tilec_last_error();
        return;
      }
      entry =
          reinterpret_cast<std::remove_reference_t<decltype(entry)>>(function);
    };
    need(load.api.getErrorName, "cuGetErrorName");
    need(load.api.ctxGetCurrent, "cuCtxGetCurrent");
    need(load.api.ctxGetId, "cuCtxGetId");
    need(load.api.pointerGetAttributes, "cuPointerGetAttributes");
    need(load.api.memAllocAsync, "cuMemAllocAsync");
    need(load.api.memFreeAsync, "cuMemFreeAsync");
  });
  return load;
}

std::string describe(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  if (api.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(result);
  return name;
}

/// Enqueues the three kernels; on failure `message` names the kernel.
tilec_mamba2_status launch(const Problem &p, const Inputs &in,
                           const Outputs &out, const Instance &instance,
                           const Grids &grids, char *workspace,
                           const WorkspaceLayout &layout, CUstream stream,
                           std::string &message);

} // namespace

//===----------------------------------------------------------------------===//
// forward
//===----------------------------------------------------------------------===//

tilec_mamba2_status gpu::workspaceSize(const Problem &p, size_t &bytes,
                                       std::string &message) {
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
  WorkspaceLayout layout;
  if (!workspaceLayout(p, layout)) {
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

  // What the GPU needs on top, still without the driver.
  const Instance *instance = findInstance(p.chunk);
  if (!instance) {
    message =
        "problem: no kernels are built for chunk " + std::to_string(p.chunk);
    return TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK;
  }
  const TileConfig &compiled = instance->tiles;
  const int64_t asked[] = {options.tiles.blockH, options.tiles.blockP,
                           options.tiles.blockN, options.tiles.blockM,
                           options.tiles.blockK};
  const int64_t built[] = {compiled.blockH, compiled.blockP, compiled.blockN,
                           compiled.blockM, compiled.blockK};
  for (size_t i = 0; i < std::size(asked); ++i)
    if (asked[i] && asked[i] != built[i]) {
      message = "tile config: the kernels for chunk " +
                std::to_string(p.chunk) + " are compiled with " +
                tilesText(compiled) + "; leave a size 0 or ask for that one";
      return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
    }

  const Grids grids = computeGrids(p, compiled);
  const std::pair<const char *, const tilec_grid *> gridChecks[] = {
      {"chunk_cumsum", &grids.chunkCumsum},
      {"fwd_pass_state", &grids.fwdPassState},
      {"compute_out", &grids.computeOut}};
  for (auto [kernel, grid] : gridChecks)
    if (!gridFits(*grid)) {
      message = std::string("problem: ") + kernel + " would need grid " +
                gridText(*grid) +
                ", beyond the driver's 2^31-1 x 65535 x 65535 (batch and "
                "heads are at most 65535)";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }

  const std::vector<Role> tensors = roles(p, in, out);
  for (const Role &role : tensors) {
    int64_t bytes;
    if (role.tensor && !byteExtent(*role.tensor, bytes)) {
      message = std::string(role.name) +
                ": its elements span more bytes than a 64-bit offset "
                "addresses";
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    }
  }
  WorkspaceLayout layout;
  if (!workspaceLayout(p, layout)) {
    message = "problem: the workspace for these sizes does not fit in 64 bits";
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  }

  for (const Role &role : tensors) {
    if (!role.tensor)
      continue;
    const size_t size = dtypeSize(role.tensor->dtype);
    if (reinterpret_cast<uintptr_t>(role.tensor->data) % size) {
      message = std::string(role.name) + ": data pointer " +
                std::to_string(reinterpret_cast<uintptr_t>(role.tensor->data)) +
                " is not aligned to its element size (" + std::to_string(size) +
                " bytes)";
      return TILEC_MAMBA2_ERROR_UNALIGNED;
    }
  }
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
  const DriverLoad &load = driver();
  if (load.code != TILEC_MAMBA2_SUCCESS) {
    message = load.message;
    return load.code;
  }
  const DriverApi &api = load.api;
  CUcontext context = nullptr;
  if (CUresult result = api.ctxGetCurrent(&context);
      result != CUDA_SUCCESS || !context) {
    message = "no current CUDA context on this thread (make one current, "
              "e.g. cudaSetDevice or cuCtxSetCurrent)";
    if (result != CUDA_SUCCESS)
      message += ": cuCtxGetCurrent: " + describe(api, result);
    return TILEC_MAMBA2_ERROR_NO_CONTEXT;
  }
  gpu::PointerCheck mode;
  if (!gpu::pointerCheckMode(mode, message))
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  unsigned long long contextId = 0;
  if (CUresult result = api.ctxGetId(context, &contextId);
      result != CUDA_SUCCESS) {
    message = "cuCtxGetId failed: " + describe(api, result);
    return TILEC_MAMBA2_ERROR_NO_CONTEXT;
  }
  const gpu::PointerQueries queries{api.pointerGetAttributes,
                                    api.getErrorName};
  for (const Role &role : tensors)
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
                describe(api, result);
      return result == CUDA_ERROR_OUT_OF_MEMORY
                 ? TILEC_MAMBA2_ERROR_OUT_OF_MEMORY
                 : TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    }
    workspace = reinterpret_cast<char *>(allocated);
  }
  tilec_mamba2_status code =
      launch(p, in, out, *instance, grids, workspace, layout, stream, message);
  if (!options.workspace) {
    // Stream-ordered: freed once the kernels enqueued before it are done,
    // also when a later one failed to launch.
    if (CUresult result =
            api.memFreeAsync(reinterpret_cast<CUdeviceptr>(workspace), stream);
        result != CUDA_SUCCESS && code == TILEC_MAMBA2_SUCCESS) {
      message = "freeing the workspace on the stream (cuMemFreeAsync): " +
                describe(api, result);
      code = TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    }
  }
  return code;
}

namespace {

template <typename View>
View makeView(void *data, const std::vector<int64_t> &shape,
              const std::vector<int64_t> &strides) {
  View view;
  view.data = static_cast<decltype(view.data)>(data);
  for (size_t d = 0; d < std::size(view.shape); ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  return view;
}

template <typename View> View makeView(const Tensor &t) {
  return makeView<View>(t.data, t.shape, t.strides);
}

/// A row-major view of `shape` at `data`.
template <typename View>
View contiguousView(void *data, const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return makeView<View>(data, shape, strides);
}

tilec_mamba2_status launch(const Problem &p, const Inputs &in,
                           const Outputs &out, const Instance &instance,
                           const Grids &grids, char *workspace,
                           const WorkspaceLayout &layout, CUstream stream,
                           std::string &message) {
  const int64_t nchunks = p.numChunks();
  const auto x = makeView<tilec_view_bf16_4d>(in.x);
  const auto dt = makeView<tilec_view_f32_3d>(in.dt);
  const auto A = makeView<tilec_view_f32_1d>(in.A);
  const auto B = makeView<tilec_view_bf16_4d>(in.B);
  const auto C = makeView<tilec_view_bf16_4d>(in.C);
  const auto D = makeView<tilec_view_f32_1d>(in.D);
  const auto y = makeView<tilec_view_f32_4d>(out.y);
  const auto G = contiguousView<tilec_view_f32_4d>(
      workspace + layout.gOffset, {p.batch, p.heads, nchunks, p.chunk});
  const auto states = contiguousView<tilec_view_f32_5d>(
      workspace + layout.statesOffset,
      {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  const std::vector<int64_t> stateShape = {p.batch, p.heads, p.headdim,
                                           p.dstate};
  const auto final = out.finalState
                         ? makeView<tilec_view_f32_4d>(*out.finalState)
                         : contiguousView<tilec_view_f32_4d>(
                               workspace + layout.finalOffset, stateShape);
  // Without an initial state fwd_pass_state starts from zero and does not
  // read `init`: an empty view, which the launcher accepts with no data.
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
  if (tilec_mamba2_status code =
          check(instance.chunkCumsum(dt, A, G, grids.chunkCumsum, stream),
                "chunk_cumsum"))
    return code;
  if (tilec_mamba2_status code =
          check(instance.fwdPassState(x, B, dt, G, init, hasInit, states, final,
                                      grids.fwdPassState, stream),
                "fwd_pass_state"))
    return code;
  return check(instance.computeOut(x, B, C, dt, G, D, states, y,
                                   grids.computeOut, stream),
               "compute_out");
}

} // namespace

tilec_mamba2_status gpu::prepare(std::string &message) {
  for (const Instance &instance : kInstances)
    for (PrepareFunction prepare : instance.prepare)
      if (tilec_status status = prepare(); status != TILEC_SUCCESS) {
        message = std::string("loading the kernels for chunk ") +
                  std::to_string(instance.chunk) + " (" +
                  tilec_status_name(status) + "): " + tilec_last_error();
        switch (status) {
        case TILEC_ERROR_NO_DRIVER:
          return TILEC_MAMBA2_ERROR_NO_DRIVER;
        case TILEC_ERROR_NO_DEVICE:
          return TILEC_MAMBA2_ERROR_NO_DEVICE;
        case TILEC_ERROR_NO_CONTEXT:
          return TILEC_MAMBA2_ERROR_NO_CONTEXT;
        default:
          return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
        }
      }
  return TILEC_MAMBA2_SUCCESS;
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

Status tilec::mamba2::gpuWorkspaceSize(const Problem &problem, size_t &bytes) {
  std::string message;
  if (gpu::workspaceSize(problem, bytes, message) != TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}

Status tilec::mamba2::forwardGpu(const Problem &problem, const Inputs &inputs,
                                 const Outputs &outputs,
                                 const GpuOptions &options, CUstream stream) {
  std::string message;
  if (gpu::forward(problem, inputs, outputs, options, stream, message) !=
      TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}
