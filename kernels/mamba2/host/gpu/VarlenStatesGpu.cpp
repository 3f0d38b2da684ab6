//===- VarlenStatesGpu.cpp - the varlen states on the GPU -------*- C++ -*-===//

#include "VarlenStatesGpu.h"

#include "Driver.h"
#include "KernelViews.h"
#include "VarlenStates.h"

#include "tilec_mamba2_kernels.h"

using namespace tilec::mamba2;

namespace {

/// The launcher's type for x and B of view type XView (one instance per
/// dtype), spelled out so that a kernel whose signature drifts from what
/// this file passes fails to compile here.
template <typename XView, typename StateView = tilec_view_f32_5d>
using VarlenStateLauncher = tilec_status (*)(
    const XView &x, const XView &B, const tilec_view_f32_4d &dt,
    const tilec_view_f32_4d &G, const StateView &states,
    const tilec_view_i32_2d &seqIdx, const tilec_view_i32_1d &cuSeqlens,
    const tilec_view_f32_4d &varlen, tilec_grid, CUstream);

template <typename XView, typename StateView>
tilec_status launchWith(VarlenStateLauncher<XView, StateView> launcher,
                        const Inputs &in, const Tensor &varlenStates,
                        const tilec_view_f32_4d &dtChunks,
                        const tilec_view_f32_4d &G, const StateView &states,
                        const tilec_grid &grid, CUstream stream) {
  using gpu::makeView;
  return launcher(makeView<XView>(in.x), makeView<XView>(in.B), dtChunks, G,
                  states, makeView<tilec_view_i32_2d>(*in.seqIdx),
                  makeView<tilec_view_i32_1d>(*in.cuSeqlens),
                  makeView<tilec_view_f32_4d>(varlenStates), grid, stream);
}

tilec_mamba2_status launched(tilec_status status, std::string &message) {
  if (status != TILEC_SUCCESS) {
    message = std::string("launching varlen_state (") +
              tilec_status_name(status) + "): " + tilec_last_error();
    return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
  }
  return TILEC_MAMBA2_SUCCESS;
}

} // namespace

tilec_grid gpu::varlenStatesGrid(const Problem &p, const Inputs &in) {
  const std::array<int64_t, 3> g = detail::varlenStateGrid(
      p, in.numSequences(), TILEC_MAMBA2_VARLEN_STATE_BLOCK_P,
      TILEC_MAMBA2_VARLEN_STATE_BLOCK_N);
  return {g[0], g[1], g[2]};
}

tilec_mamba2_status gpu::launchVarlenStates(
    const Inputs &in, const Tensor &varlenStates,
    const tilec_view_f32_4d &dtChunks, const tilec_view_f32_4d &G,
    const tilec_view_f32_5d &states, const tilec_grid &grid, CUstream stream,
    std::string &message) {
  // The instance for x's dtype (validate() took B in it).
  const tilec_status status =
      in.x.dtype == DType::F16
          ? launchWith<tilec_view_f16_4d>(&tile_varlen_state_xf16, in,
                                          varlenStates, dtChunks, G, states,
                                          grid, stream)
      : in.x.dtype == DType::F32
          ? launchWith<tilec_view_f32_4d>(&tile_varlen_state_xf32, in,
                                          varlenStates, dtChunks, G, states,
                                          grid, stream)
          : launchWith<tilec_view_bf16_4d>(&tile_varlen_state, in,
                                           varlenStates, dtChunks, G, states,
                                           grid, stream);
  return launched(status, message);
}

tilec_mamba2_status gpu::launchVarlenStates(
    const Inputs &in, const Tensor &varlenStates,
    const tilec_view_f32_4d &dtChunks, const tilec_view_f32_4d &G,
    const tilec_view_bf16_5d &states, const tilec_grid &grid, CUstream stream,
    std::string &message) {
  // validate() took x in bf16 with bf16 states.
  return launched(launchWith<tilec_view_bf16_4d>(&tile_varlen_state_sbf16, in,
                                                 varlenStates, dtChunks, G,
                                                 states, grid, stream),
                  message);
}

tilec_mamba2_status gpu::prepareVarlenStates(std::string &message) {
  for (auto prepare : {&tile_varlen_state_prepare,
                       &tile_varlen_state_xf16_prepare,
                       &tile_varlen_state_xf32_prepare,
                       &tile_varlen_state_sbf16_prepare})
    if (tilec_status status = prepare(); status != TILEC_SUCCESS) {
      message = std::string("loading the varlen_state kernels (") +
                tilec_status_name(status) + "): " + tilec_last_error();
      return fromKernelPrepare(status);
    }
  return TILEC_MAMBA2_SUCCESS;
}
