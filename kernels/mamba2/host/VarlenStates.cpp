//===- VarlenStates.cpp - the launches of varlen_state ----------*- C++ -*-===//

#include "VarlenStates.h"

using namespace tilec::mamba2;
using namespace tilec::mamba2::detail;

namespace {

/// `t` from element `offset` on, with `shape` and `strides`.
Tensor subView(const Tensor &t, int64_t offset, std::vector<int64_t> shape,
               std::vector<int64_t> strides) {
  Tensor view;
  view.data = static_cast<char *>(t.data) + offset * int64_t(dtypeSize(t.dtype));
  view.dtype = t.dtype;
  view.shape = std::move(shape);
  view.strides = std::move(strides);
  return view;
}

} // namespace

VarlenStateLaunch detail::varlenStateLaunch(const Problem &p,
                                            const Tensor &cuSeqlens,
                                            int64_t sequence) {
  const auto *offsets = static_cast<const int32_t *>(cuSeqlens.data);
  const int64_t start = offsets[sequence * cuSeqlens.strides[0]];
  const int64_t end = offsets[(sequence + 1) * cuSeqlens.strides[0]];
  VarlenStateLaunch launch;
  launch.chunk = (end - 1) / p.chunk;
  const int64_t chunkStart = launch.chunk * p.chunk;
  launch.hasEntering = start < chunkStart || start == 0;
  launch.first = int32_t(start > chunkStart ? start - chunkStart : 0);
  launch.last = int32_t(end - 1 - chunkStart);
  return launch;
}

VarlenStateViews detail::varlenStateViews(
    const Problem &p, const VarlenStateLaunch &launch, int64_t sequence,
    const Tensor &x, const Tensor &B, const Tensor &dtChunks, const Tensor &G,
    const Tensor &states, const Tensor &varlenStates) {
  const int64_t steps = int64_t(launch.last) + 1;
  const int64_t firstStep = launch.chunk * p.chunk;
  auto chunkOf = [&](const Tensor &t) {
    return subView(t, launch.chunk * t.strides[2],
                   {1, p.heads, 1, p.chunk}, t.strides);
  };
  const std::vector<int64_t> &s = states.strides;
  return {subView(x, firstStep * x.strides[1],
                  {1, steps, p.heads, p.headdim}, x.strides),
          subView(B, firstStep * B.strides[1],
                  {1, steps, p.groups, p.dstate}, B.strides),
          chunkOf(dtChunks),
          chunkOf(G),
          subView(states, launch.chunk * s[1],
                  {1, p.heads, p.headdim, p.dstate}, {s[0], s[2], s[3], s[4]}),
          subView(varlenStates, sequence * varlenStates.strides[0],
                  {1, p.heads, p.headdim, p.dstate}, varlenStates.strides)};
}

std::array<int64_t, 3> detail::varlenStateGrid(const Problem &p,
                                               int64_t blockP,
                                               int64_t blockN) {
  auto ceilDiv = [](int64_t a, int64_t b) { return a / b + (a % b != 0); };
  return {ceilDiv(p.headdim, blockP) * ceilDiv(p.dstate, blockN), p.heads, 1};
}
