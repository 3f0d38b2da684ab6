//===- RepeatedCall.h - a call identical to the last one --------*- C++ -*-===//
//
// A serving loop calls the forward with the same arguments call after call
// (the same tensors, shapes, options, workspace and stream). Such a call
// needs none of the checks and launches of the first one: they would find
// the same arguments valid and record the same launches, which the
// runtime's launch group enqueues again as they are
// (tilec_replay_launch_group). A C ABI function, or forwardGpu of the C++
// API, keys its arguments (every byte the checks and launches read:
// descriptors and tensors by content, options field by field) and, when the
// key is its thread's last successful call's, replays that call's launch
// group.
//
// What could change between two such calls without changing the key, and
// what guards it:
//   - the device memory behind the pointers: checked once per allocation
//     range (DevicePointers.h); the replay needs the range cache unchanged
//     since the call it repeats began, and the "range" pointer check mode
//     (a call that found new ranges is replayed from the one after it);
//   - the current context, the stream's capture state, graphs on or off,
//     forgotten kernel images: the runtime checks them on every replay;
//   - a call without a workspace allocates one on the stream: never keyed.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_REPEATEDCALL_H
#define TILEC_LIB_MAMBA2GPU_REPEATEDCALL_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <cuda.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>

namespace tilec::mamba2::gpu {

/// A call's arguments as bytes, in a buffer of fixed capacity (written and
/// compared with memcpy and memcmp; a key that does not fit equals none).
class CallKey {
public:
  void clear() { size = 0, overflow = false; }
  void add(const void *data, size_t n) {
    if (n == 0)
      return; // memcpy needs a valid pointer even for no bytes.
    if (n > bytes.size() - size) {
      overflow = true;
      return;
    }
    std::memcpy(bytes.data() + size, data, n);
    size += n;
  }
  template <typename T> void add(const T &value) { add(&value, sizeof value); }
  /// A descriptor by content (null: absent): data, dtype, rank, shape and
  /// strides (or none).
  void addTensor(const tilec_mamba2_tensor *t);
  /// A C++ tensor by content: data, dtype, shape and strides (with their
  /// lengths); an optional one as absent or present and its content.
  void addTensor(const Tensor &t);
  void addTensor(const std::optional<Tensor> &t);
  bool operator==(const CallKey &other) const {
    return !overflow && !other.overflow && size == other.size &&
           !std::memcmp(bytes.data(), other.bytes.data(), size);
  }

private:
  /// The forward's fifteen descriptors or tensors of rank 5 and its options
  /// fit.
  std::array<unsigned char, 2048> bytes;
  size_t size = 0;
  bool overflow = false;
};

/// A function's last successful call on a thread. `key` is scratch for
/// the call in progress.
struct RepeatedCall {
  CallKey key, last;
  unsigned long long group = 0; // its launch group (0: none to replay)
  /// The device range cache's generation when the last call began, and
  /// when this one did.
  unsigned long long ranges = 0, rangesAtStart = 0;
  /// groupsOpened() when this call began: the call is remembered only
  /// with a group it opened itself.
  unsigned long long groupsAtStart = 0;
};

/// Whether `state.key` repeats the last successful call and its launches
/// were enqueued again; `status` and `message` are then the call's result.
/// False: nothing was done, the caller checks and launches as usual.
bool replayed(RepeatedCall &state, CUstream stream,
              tilec_mamba2_status &status, std::string &message);

/// After the call of `state.key`: remembers it when it succeeded with a
/// launch group to replay, forgets the last call otherwise.
void remember(RepeatedCall &state, tilec_mamba2_status status);

/// How many calls were replayed on this thread (for tests).
unsigned long long replayedCalls();

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_REPEATEDCALL_H
