//===- RepeatedCall.cpp - a call identical to the last one ------*- C++ -*-===//

#include "RepeatedCall.h"

#include "DevicePointers.h"
#include "LaunchGroup.h"

#include "tilec/Runtime/Runtime.h"

#include <utility>

using namespace tilec::mamba2;

namespace {

thread_local unsigned long long replays = 0;

} // namespace

void gpu::CallKey::addTensor(const tilec_mamba2_tensor *t) {
  const bool present = t != nullptr;
  add(present);
  if (!present)
    return;
  add(t->data);
  add(t->dtype);
  add(t->rank);
  // A rank the C ABI refuses is keyed without its arrays: the call fails
  // and is never remembered.
  const bool arrays = t->rank > 0 && t->rank <= TILEC_MAMBA2_MAX_RANK;
  const bool shape = arrays && t->shape, strides = arrays && t->strides;
  add(shape);
  if (shape)
    add(t->shape, sizeof(int64_t) * size_t(t->rank));
  add(strides);
  if (strides)
    add(t->strides, sizeof(int64_t) * size_t(t->rank));
}

void gpu::CallKey::addTensor(const Tensor &t) {
  add(t.data);
  add(t.dtype);
  add(t.shape.size());
  add(t.shape.data(), sizeof(int64_t) * t.shape.size());
  add(t.strides.size());
  add(t.strides.data(), sizeof(int64_t) * t.strides.size());
}

void gpu::CallKey::addTensor(const std::optional<Tensor> &t) {
  add(t.has_value());
  if (t)
    addTensor(*t);
}

bool gpu::replayed(RepeatedCall &state, CUstream stream,
                   tilec_mamba2_status &status, std::string &message) {
  // Read before the call's own checks: a range another thread changes
  // meanwhile keeps this call from being remembered as checked.
  state.rangesAtStart = deviceRangesGeneration();
  state.groupsAtStart = groupsOpened();
  PointerCheck mode;
  std::string modeMessage;
  if (!state.group || !(state.key == state.last) ||
      !pointerCheckMode(mode, modeMessage) || mode != PointerCheck::PerRange ||
      state.rangesAtStart != state.ranges)
    return false;
  bool again = false;
  if (tilec_status result =
          tilec_replay_launch_group(stream, state.group, &again)) {
    if (!again)
      return false;
    // As LaunchGroup::end words a failed launch of the group.
    message = std::string("launching the kernels (") +
              tilec_status_name(result) + "): " + tilec_last_error();
    status = TILEC_MAMBA2_ERROR_LAUNCH_FAILURE;
    state.group = 0;
    return true;
  }
  if (!again)
    return false;
  ++replays;
  status = TILEC_MAMBA2_SUCCESS;
  return true;
}

void gpu::remember(RepeatedCall &state, tilec_mamba2_status status) {
  // Only the group this call opened: tilec_last_launch_group is the
  // thread's last replayable group, which a call that succeeds without
  // opening one (an early success, say) would otherwise bind to the
  // previous call's kernels. Since it is 0 once another group begins, a
  // non-zero id after this call opened one is that group's.
  const bool openedOne = groupsOpened() != state.groupsAtStart;
  state.group = status == TILEC_MAMBA2_SUCCESS && openedOne
                    ? tilec_last_launch_group()
                    : 0;
  if (!state.group)
    return;
  std::swap(state.key, state.last);
  state.ranges = state.rangesAtStart;
}

unsigned long long gpu::replayedCalls() { return replays; }
