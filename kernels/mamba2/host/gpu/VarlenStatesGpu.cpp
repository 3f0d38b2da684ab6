//===- VarlenStatesGpu.cpp - the varlen states on the GPU -------*- C++ -*-===//

#include "VarlenStatesGpu.h"

#include "Driver.h"
#include "KernelViews.h"
#include "VarlenStates.h"

#include "tilec/Runtime/Runtime.h"
#include "tilec_mamba2_kernels.h"

using namespace tilec::mamba2;

namespace {

/// The launcher's type for x and B of view type XView (one instance per
/// dtype), spelled out so that a kernel whose signature drifts from what
/// this file passes fails to compile here.
template <typename XView>
using VarlenStateLauncher = tilec_status (*)(
    const XView &x, const XView &B, const tilec_view_f32_4d &dt,
    const tilec_view_f32_4d &G, const tilec_view_f32_4d &entering,
    int32_t hasEntering, int32_t first, int32_t last,
    const tilec_view_f32_4d &varlen, tilec_grid, CUstream);

template <typename XView>
tilec_mamba2_status launchWith(VarlenStateLauncher<XView> launcher,
                               const Problem &p, const Inputs &in,
                               const Tensor &varlenStates,
                               const Tensor &dtChunks, const Tensor &G,
                               const Tensor &states, CUstream stream,
                               std::string &message) {
  using gpu::makeView;
  const std::array<int64_t, 3> g = detail::varlenStateGrid(
      p, TILEC_MAMBA2_VARLEN_STATE_BLOCK_P, TILEC_MAMBA2_VARLEN_STATE_BLOCK_N);
  const tilec_grid grid{g[0], g[1], g[2]};
  for (int64_t sequence = 0; sequence < in.numSequences(); ++sequence) {
    const detail::VarlenStateLaunch launch =
        detail::varlenStateLaunch(p, *in.cuSeqlens, sequence);
    const detail::VarlenStateViews views = detail::varlenStateViews(
        p, launch, sequence, in.x, in.B, dtChunks, G, states, varlenStates);
    const tilec_status status =
        launcher(makeView<XView>(views.x), makeView<XView>(views.B),
                makeView<tilec_view_f32_4d>(views.dtChunks),
                makeView<tilec_view_f32_4d>(views.G),
                makeView<tilec_view_f32_4d>(views.entering),
                launch.hasEntering ? 1 : 0, launch.first, launch.last,
                makeView<tilec_view_f32_4d>(views.varlen), grid, stream);
    if (status != TILEC_SUCCESS) {
      message = "launching varlen_state for sequence " +
                std::to_string(sequence) + " (" + tilec_status_name(status) +
                "): " + tilec_last_error();
      return TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    }
  }
  return TILEC_MAMBA2_SUCCESS;
}

} // namespace

tilec_mamba2_status gpu::launchVarlenStates(
    const Problem &p, const Inputs &in, const Tensor &varlenStates,
    const Tensor &dtChunks, const Tensor &G, const Tensor &states,
    CUstream stream, std::string &message) {
  // The instance for x's dtype (validate() took B in it).
  if (in.x.dtype == DType::F16)
    return launchWith<tilec_view_f16_4d>(&tile_varlen_state_xf16, p, in,
                                         varlenStates, dtChunks, G, states,
                                         stream, message);
  if (in.x.dtype == DType::F32)
    return launchWith<tilec_view_f32_4d>(&tile_varlen_state_xf32, p, in,
                                         varlenStates, dtChunks, G, states,
                                         stream, message);
  return launchWith<tilec_view_bf16_4d>(&tile_varlen_state, p, in,
                                        varlenStates, dtChunks, G, states,
                                        stream, message);
}

tilec_mamba2_status gpu::prepareVarlenStates(std::string &message) {
  for (auto prepare : {&tile_varlen_state_prepare,
                       &tile_varlen_state_xf16_prepare,
                       &tile_varlen_state_xf32_prepare})
    if (tilec_status status = prepare(); status != TILEC_SUCCESS) {
      message = std::string("loading the varlen_state kernels (") +
                tilec_status_name(status) + "): " + tilec_last_error();
      return fromKernelPrepare(status);
    }
  return TILEC_MAMBA2_SUCCESS;
}
