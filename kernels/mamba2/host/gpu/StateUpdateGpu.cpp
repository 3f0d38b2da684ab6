//===- StateUpdateGpu.cpp - the Mamba-2 decode step on the GPU --*- C++ -*-===//
//
// Checks the arguments (the shared validation, then what only the GPU
// needs), then enqueues the state_update kernel on the caller's stream, one
// launch for the whole batch: the kernel reads the state indices from device
// memory itself. As for the forward pass, every check that needs no driver
// comes first and nothing synchronizes with the host.
//
//===----------------------------------------------------------------------===//

#include "StateUpdateGpu.h"

#include "DevicePointers.h"
#include "Driver.h"
#include "ElementAlignment.h"
#include "KernelViews.h"
#include "LaunchGroup.h"
#include "RepeatedCall.h"

#include "tilec/Runtime/Runtime.h"
#include "tilec_mamba2_kernels.h"

#include <cstdint>

using namespace tilec::mamba2;

namespace {

using gpu::makeView;

/// The launcher's type for a state of view type StateView and x, B, C, z,
/// y of XView (one instance per pair of dtypes), spelled out so that a
/// kernel whose signature drifts from what this file passes fails to
/// compile here.
template <typename StateView, typename XView>
using StateUpdateLauncher = tilec_status (*)(
    const StateView &state, const XView &x, const tilec_view_f32_2d &dt,
    const tilec_view_f32_1d &dtBias, const tilec_view_f32_1d &A,
    const XView &B, const XView &C, const tilec_view_f32_2d &D,
    const XView &z, const XView &y,
    const tilec_view_i64_1d &stateIndices, int32_t hasIndices,
    int64_t padSlotId, int32_t hasDtBias, int32_t dtSoftplus, int32_t hasD,
    int32_t hasZ, tilec_grid, CUstream);
/// The instances for x, B, C, z and y of view type XView, by the state's
/// dtype.
template <typename XView> struct Instances {
  StateUpdateLauncher<tilec_view_f32_4d, XView> f32;
  StateUpdateLauncher<tilec_view_bf16_4d, XView> bf16;
  StateUpdateLauncher<tilec_view_f16_4d, XView> f16;
};
constexpr Instances<tilec_view_bf16_3d> kBf16Inputs{
    &tile_state_update, &tile_state_update_sbf16, &tile_state_update_sf16};
constexpr Instances<tilec_view_f16_3d> kF16Inputs{
    &tile_state_update_xf16, &tile_state_update_xf16_sbf16,
    &tile_state_update_xf16_sf16};

/// The views every instance takes alike, and the grid.
struct SharedViews {
  tilec_view_f32_2d dt, D;
  tilec_view_f32_1d dtBias, A;
  tilec_view_i64_1d indices;
  tilec_grid grid;
};

template <typename XView>
tilec_status launchWith(const Instances<XView> &instances,
                        const StateUpdateArgs &args, const SharedViews &v,
                        CUstream stream) {
  const XView noZ{nullptr, {0, 0, 0}, {0, 0, 0}};
  auto launch = [&](auto launcher, auto state) {
    return launcher(
        state, makeView<XView>(args.x), v.dt, v.dtBias, v.A,
        makeView<XView>(args.B), makeView<XView>(args.C), v.D,
        args.z ? makeView<XView>(*args.z) : noZ, makeView<XView>(args.y),
        v.indices, args.stateIndices ? 1 : 0,
        args.stateIndices ? args.padSlotId : int64_t(-1), args.dtBias ? 1 : 0,
        args.dtSoftplus ? 1 : 0, args.D ? 1 : 0, args.z ? 1 : 0, v.grid,
        stream);
  };
  if (args.state.dtype == DType::BF16)
    return launch(instances.bf16, makeView<tilec_view_bf16_4d>(args.state));
  if (args.state.dtype == DType::F16)
    return launch(instances.f16, makeView<tilec_view_f16_4d>(args.state));
  return launch(instances.f32, makeView<tilec_view_f32_4d>(args.state));
}

constexpr int64_t kBlockP = TILEC_MAMBA2_STATE_UPDATE_BLOCK_P;

struct Named {
  const char *name;
  const Tensor *tensor; // null for an absent optional tensor
};

std::vector<Named> tensors(const StateUpdateArgs &a) {
  auto optional = [](const std::optional<Tensor> &t) {
    return t ? &*t : nullptr;
  };
  return {{"state", &a.state},
          {"x", &a.x},
          {"dt", &a.dt},
          {"A", &a.A},
          {"B", &a.B},
          {"C", &a.C},
          {"D", optional(a.D)},
          {"z", optional(a.z)},
          {"dt_bias", optional(a.dtBias)},
          {"y", &a.y}};
}

/// The status naming the rule of validateStateUpdate that the arguments
/// break, in its order; the validation words the message.
tilec_mamba2_status classifyInvalid(const DecodeProblem &p,
                                    const StateUpdateArgs &a) {
  for (int64_t size :
       {p.batch, p.heads, p.groups, p.headdim, p.dstate, p.stateRows})
    if (size <= 0)
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  if (p.heads % p.groups)
    return TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS;
  if (!a.stateIndices && p.stateRows != p.batch)
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  const DType stateDType =
      a.state.dtype == DType::BF16 || a.state.dtype == DType::F16
          ? a.state.dtype
          : DType::F32;
  const DType xDType = a.x.dtype == DType::F16 ? DType::F16 : DType::BF16;
  const DType dtypes[] = {stateDType, xDType,     DType::F32, DType::F32,
                          xDType,     xDType,     DType::F32, xDType,
                          DType::F32, xDType};
  const std::vector<int64_t> rows = {p.batch, p.heads, p.headdim};
  const std::vector<int64_t> groups = {p.batch, p.groups, p.dstate};
  const std::vector<int64_t> shapes[] = {
      {p.stateRows, p.heads, p.headdim, p.dstate},
      rows,
      {p.batch, p.heads},
      {p.heads},
      groups,
      groups,
      a.D && a.D->shape.size() == 2 ? std::vector<int64_t>{p.heads, p.headdim}
                                    : std::vector<int64_t>{p.heads},
      rows,
      {p.heads},
      rows};
  size_t i = 0;
  for (const Named &named : tensors(a)) {
    const DType dtype = dtypes[i];
    const std::vector<int64_t> &shape = shapes[i++];
    if (!named.tensor)
      continue;
    const Tensor &t = *named.tensor;
    if (!t.data)
      return TILEC_MAMBA2_ERROR_NULL_POINTER;
    if (t.dtype != dtype)
      return TILEC_MAMBA2_ERROR_INVALID_DTYPE;
    if (t.shape != shape)
      return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
    if (t.strides.size() != t.shape.size())
      return TILEC_MAMBA2_ERROR_INVALID_STRIDE;
    const bool output = named.tensor == &a.state || named.tensor == &a.y;
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.strides[d] < 0 || (output && t.strides[d] == 0 && t.shape[d] > 1))
        return TILEC_MAMBA2_ERROR_INVALID_STRIDE;
  }
  // The rest: an overlap or offsets past 64 bits; the message says which.
  return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
}

} // namespace

tilec_mamba2_status gpu::stateUpdate(const DecodeProblem &p,
                                     const StateUpdateArgs &args,
                                     CUstream stream, std::string &message) {
  if (Status status = validateStateUpdate(p, args); !status) {
    message = status.message();
    return classifyInvalid(p, args);
  }
  // What the GPU needs on top, still without the driver: the grid
  // (ceil(headdim / BLOCK_P), heads, entries) and aligned pointers.
  if (p.heads > 65535 || p.batch > 65535) {
    message = "decode problem: heads (" + std::to_string(p.heads) +
              ") and batch (" + std::to_string(p.batch) +
              ") must be at most 65535, the driver's grid limit";
    return TILEC_MAMBA2_ERROR_INVALID_SHAPE;
  }
  const std::vector<Named> named = tensors(args);
  for (const Named &t : named)
    if (t.tensor)
      if (tilec_mamba2_status status =
              checkElementAlignment(t.name, *t.tensor, message))
        return status;
  if (reinterpret_cast<uintptr_t>(args.stateIndices) % alignof(int64_t)) {
    message = "state_indices: data pointer " +
              std::to_string(reinterpret_cast<uintptr_t>(args.stateIndices)) +
              " is not aligned to its element size (8 bytes)";
    return TILEC_MAMBA2_ERROR_UNALIGNED;
  }

  // Through the driver.
  const DriverLoad &load = driver();
  if (load.code != TILEC_MAMBA2_SUCCESS) {
    message = load.message;
    return load.code;
  }
  const DriverApi &api = load.api;
  // One launch, as a launch group: one graph launch once the step's shape
  // repeats, and the current context asked for once.
  unsigned long long contextId = 0;
  LaunchGroup group;
  if (tilec_mamba2_status code = group.open(stream, contextId, message))
    return code;
  PointerCheck mode;
  if (!pointerCheckMode(mode, message))
    return TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
  const PointerQueries queries{api.pointerGetAttributes, api.getErrorName};
  for (const Named &t : named)
    if (t.tensor)
      if (tilec_mamba2_status code = checkDevicePointer(
              queries, mode, contextId, t.name, t.tensor->data, message))
        return code;
  if (args.stateIndices)
    if (tilec_mamba2_status code =
            checkDevicePointer(queries, mode, contextId, "state_indices",
                               args.stateIndices, message))
      return code;

  // Absent tensors: empty views, which the kernel does not read (its flags
  // say so) and the launcher accepts without data.
  const tilec_view_f32_1d noBias{nullptr, {0}, {0}};
  const tilec_view_f32_2d noD{nullptr, {0, 0}, {0, 0}};
  SharedViews views;
  views.dt = makeView<tilec_view_f32_2d>(args.dt);
  views.dtBias =
      args.dtBias ? makeView<tilec_view_f32_1d>(*args.dtBias) : noBias;
  views.D = noD;
  if (args.D && args.D->shape.size() == 2)
    views.D = makeView<tilec_view_f32_2d>(*args.D);
  else if (args.D)
    // A D per head is the (heads, headdim) view that repeats it.
    views.D = tilec_view_f32_2d{static_cast<float *>(args.D->data),
                                {p.heads, p.headdim},
                                {args.D->strides[0], 0}};
  views.A = makeView<tilec_view_f32_1d>(args.A);
  // The indices (batch) i64; without them an empty view, not read.
  views.indices = tilec_view_i64_1d{const_cast<int64_t *>(args.stateIndices),
                                    {args.stateIndices ? p.batch : 0},
                                    {1}};
  views.grid = tilec_grid{p.headdim / kBlockP + (p.headdim % kBlockP != 0),
                          p.heads, p.batch};
  // The instances for x's dtype (validated), then the state's.
  const tilec_status status =
      args.x.dtype == DType::F16
          ? launchWith(kF16Inputs, args, views, stream)
          : launchWith(kBf16Inputs, args, views, stream);
  if (status != TILEC_SUCCESS) {
    message = std::string("launching state_update (") +
              tilec_status_name(status) + "): " + tilec_last_error();
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  }
  return group.end(message);
}

tilec_mamba2_status gpu::prepareStateUpdate(std::string &message) {
  for (auto prepare :
       {&tile_state_update_prepare, &tile_state_update_sbf16_prepare,
        &tile_state_update_sf16_prepare, &tile_state_update_xf16_prepare,
        &tile_state_update_xf16_sbf16_prepare,
        &tile_state_update_xf16_sf16_prepare})
    if (tilec_status status = prepare(); status != TILEC_SUCCESS) {
      message = std::string("loading the state_update kernels (") +
                tilec_status_name(status) + "): " + tilec_last_error();
      return fromKernelPrepare(status);
    }
  return TILEC_MAMBA2_SUCCESS;
}

static_assert(sizeof(DecodeProblem) == 6 * sizeof(int64_t),
              "DecodeProblem is keyed as a whole: no padding byte");

Status tilec::mamba2::stateUpdateGpu(const DecodeProblem &problem,
                                     const StateUpdateArgs &args,
                                     CUstream stream) {
  // Every field the checks and the launch read (RepeatedCall.h); the
  // indices are read on the device, so their pointer is the argument. A
  // field added to DecodeProblem or StateUpdateArgs must be added here.
  thread_local gpu::RepeatedCall repeated;
  gpu::CallKey &key = repeated.key;
  key.clear();
  key.add(problem);
  for (const Tensor *t :
       {&args.state, &args.x, &args.dt, &args.A, &args.B, &args.C, &args.y})
    key.addTensor(*t);
  for (const std::optional<Tensor> *t : {&args.D, &args.z, &args.dtBias})
    key.addTensor(*t);
  key.add(args.dtSoftplus);
  key.add(args.stateIndices);
  key.add(args.padSlotId);
  key.add(stream);
  tilec_mamba2_status status;
  std::string message;
  if (!gpu::replayed(repeated, stream, status, message)) {
    status = gpu::stateUpdate(problem, args, stream, message);
    gpu::remember(repeated, status);
  }
  if (status != TILEC_MAMBA2_SUCCESS)
    return Status::error(message);
  return Status::success();
}
