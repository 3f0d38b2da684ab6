//===- CApiFuzzer.cpp - libFuzzer target over tilec_mamba2_forward --------===//
//
// Decodes each input into a problem and the nine tensor descriptors of
// tilec_mamba2_forward (tilec_mamba2.h): mostly the shapes the problem
// implies, then mutated (rank, one extent, one stride, dtype, a null
// descriptor, shape or strides array, a misaligned or null data pointer),
// so that inputs reach every check in validation order. Data pointers are
// fake, never dereferenceable addresses: validation must not read through
// them. On a machine without a GPU (or without a current context) no call
// can succeed. Checked on every call:
//   - the status is a tilec_mamba2_status and not SUCCESS;
//   - a failure leaves a non-empty tilec_mamba2_last_error;
//   - INVALID_ARGUMENT (tile sizes, C++ API only) never comes from the C ABI;
//   - a call that got past the problem's checks agrees with
//     tilec_mamba2_workspace_size, which accepts the problem.
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/tilec_mamba2.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace {

/// Reports a broken invariant and aborts, which libFuzzer reports as a crash.
[[noreturn]] void broken(const char *what, int status) {
  std::fprintf(stderr, "tilec-fuzz-capi: %s (status %d, %s, last error \"%s\")\n",
               what, status, tilec_mamba2_status_name(status),
               tilec_mamba2_last_error());
  std::abort();
}

/// A size of the problem: mostly small valid ones, sometimes an edge.
int64_t pickSize(FuzzedDataProvider &in) {
  static constexpr int64_t kEdges[] = {
      0, -1, 1, 2, 3, 64, 128, 256, 65535, 65536, int64_t(1) << 31,
      int64_t(1) << 32, int64_t(1) << 62, std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min()};
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    return in.PickValueInArray(kEdges);
  case 1:
    return in.ConsumeIntegral<int64_t>();
  default:
    return in.ConsumeIntegralInRange<int64_t>(1, 8);
  }
}

int64_t pickChunk(FuzzedDataProvider &in) {
  static constexpr int64_t kChunks[] = {64, 128, 256};
  return in.ConsumeBool() ? in.PickValueInArray(kChunks) : pickSize(in);
}

/// One descriptor and the arrays it points to.
struct Descriptor {
  tilec_mamba2_tensor tensor{};
  std::array<int64_t, TILEC_MAMBA2_MAX_RANK + 2> shape{};
  std::array<int64_t, TILEC_MAMBA2_MAX_RANK + 2> strides{};
  bool present = true;
};

/// Fills `d` as the problem implies for a tensor of `dims` and `dtype`, then
/// applies a few mutations the input chooses.
void makeDescriptor(FuzzedDataProvider &in, Descriptor &d,
                    std::initializer_list<int64_t> dims, int32_t dtype,
                    uintptr_t address) {
  d.tensor.dtype = dtype;
  d.tensor.rank = int32_t(dims.size());
  std::copy(dims.begin(), dims.end(), d.shape.begin());
  // Row-major strides (wrapping is fine: mutations make worse ones anyway).
  uint64_t stride = 1;
  for (int i = d.tensor.rank - 1; i >= 0; --i) {
    d.strides[i] = int64_t(stride);
    stride *= uint64_t(d.shape[i]);
  }
  d.tensor.shape = d.shape.data();
  d.tensor.strides = in.ConsumeBool() ? d.strides.data() : nullptr;
  d.tensor.data = reinterpret_cast<void *>(address);

  const int mutations = in.ConsumeIntegralInRange<int>(0, 3);
  for (int m = 0; m < mutations && in.remaining_bytes(); ++m) {
    switch (in.ConsumeIntegralInRange<int>(0, 8)) {
    case 0:
      d.present = false;
      break;
    case 1:
      // Ranks outside [0, MAX] must be rejected before the arrays are read;
      // the arrays hold MAX + 2 entries so that MAX + 1 stays in bounds if
      // the check were off by one (ASan reports the rest).
      d.tensor.rank = in.ConsumeIntegralInRange<int32_t>(
          -2, TILEC_MAMBA2_MAX_RANK + 1);
      if (in.ConsumeBool())
        d.tensor.rank = in.ConsumeIntegral<int32_t>();
      break;
    case 2:
      d.shape[in.ConsumeIntegralInRange<size_t>(0, TILEC_MAMBA2_MAX_RANK)] =
          pickSize(in);
      break;
    case 3:
      d.strides[in.ConsumeIntegralInRange<size_t>(0, TILEC_MAMBA2_MAX_RANK)] =
          pickSize(in);
      d.tensor.strides = d.strides.data();
      break;
    case 4:
      d.tensor.dtype = in.ConsumeIntegralInRange<int32_t>(-1, 3);
      break;
    case 5:
      d.tensor.shape = nullptr;
      break;
    case 6:
      d.tensor.data = reinterpret_cast<void *>(
          address + in.ConsumeIntegralInRange<uintptr_t>(1, 3));
      break;
    case 7:
      d.tensor.data = nullptr;
      break;
    case 8:
      d.tensor.dtype = in.ConsumeIntegral<int32_t>();
      break;
    }
  }
  // A rank beyond the arrays would make the descriptor itself lie about its
  // memory; the C ABI can only check the rank's range.
  if (d.tensor.rank > int32_t(d.shape.size()))
    d.tensor.rank = int32_t(d.shape.size());
}

bool isStatus(int status) {
  return status >= TILEC_MAMBA2_SUCCESS &&
         status <= TILEC_MAMBA2_ERROR_INVALID_ARGUMENT;
}

/// The statuses forward returns only once the problem itself was accepted.
bool isPastProblemChecks(int status) {
  switch (status) {
  case TILEC_MAMBA2_ERROR_UNALIGNED:
  case TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER:
  case TILEC_MAMBA2_ERROR_NO_DRIVER:
  case TILEC_MAMBA2_ERROR_NO_DEVICE:
  case TILEC_MAMBA2_ERROR_NO_CONTEXT:
  case TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL:
  case TILEC_MAMBA2_ERROR_OUT_OF_MEMORY:
  case TILEC_MAMBA2_ERROR_LAUNCH_FAILURE:
    return true;
  default:
    return false;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  tilec_mamba2_problem problem;
  problem.batch = pickSize(in);
  problem.seqlen = pickSize(in);
  problem.heads = pickSize(in);
  problem.groups = in.ConsumeBool() ? 1 : pickSize(in);
  problem.headdim = pickSize(in);
  problem.dstate = pickSize(in);
  problem.chunk = pickChunk(in);
  const tilec_mamba2_problem &p = problem;

  // Fake device addresses, 256-byte aligned, far apart; never mapped.
  constexpr uintptr_t kBase = uintptr_t(0x7f00) << 32;
  auto address = [&](int i) { return kBase + (uintptr_t(i) << 36); };
  constexpr int32_t F32 = TILEC_MAMBA2_F32, BF16 = TILEC_MAMBA2_BF16;
  std::array<Descriptor, 9> t;
  makeDescriptor(in, t[0], {p.batch, p.seqlen, p.heads, p.headdim}, BF16,
                 address(0));
  makeDescriptor(in, t[1], {p.batch, p.seqlen, p.heads}, F32, address(1));
  makeDescriptor(in, t[2], {p.heads}, F32, address(2));
  makeDescriptor(in, t[3], {p.batch, p.seqlen, p.groups, p.dstate}, BF16,
                 address(3));
  makeDescriptor(in, t[4], {p.batch, p.seqlen, p.groups, p.dstate}, BF16,
                 address(4));
  makeDescriptor(in, t[5], {p.heads}, F32, address(5));
  makeDescriptor(in, t[6], {p.batch, p.heads, p.headdim, p.dstate}, F32,
                 address(6));
  makeDescriptor(in, t[7], {p.batch, p.seqlen, p.heads, p.headdim}, F32,
                 address(7));
  makeDescriptor(in, t[8], {p.batch, p.heads, p.headdim, p.dstate}, F32,
                 address(8));
  auto arg = [&](int i) { return t[i].present ? &t[i].tensor : nullptr; };

  size_t needed = 0;
  const int sizeStatus = tilec_mamba2_workspace_size(&problem, &needed);
  if (!isStatus(sizeStatus))
    broken("tilec_mamba2_workspace_size: not a status", sizeStatus);
  if (sizeStatus != TILEC_MAMBA2_SUCCESS && !*tilec_mamba2_last_error())
    broken("tilec_mamba2_workspace_size failed with no message", sizeStatus);

  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0: // allocated by forward
    break;
  case 1: // exactly what it needs
    workspace = reinterpret_cast<void *>(address(9));
    workspaceBytes = needed;
    break;
  case 2: // misaligned
    workspace = reinterpret_cast<void *>(
        address(9) + in.ConsumeIntegralInRange<uintptr_t>(1, 15));
    workspaceBytes = needed;
    break;
  default:
    workspace = reinterpret_cast<void *>(address(9));
    workspaceBytes = in.ConsumeIntegral<size_t>();
    break;
  }
  void *stream = in.ConsumeBool() ? nullptr
                                  : reinterpret_cast<void *>(address(10));
  const bool nullProblem = in.ConsumeIntegralInRange<int>(0, 31) == 0;

  const int status = tilec_mamba2_forward(
      nullProblem ? nullptr : &problem, arg(0), arg(1), arg(2), arg(3),
      arg(4), arg(5), arg(6), arg(7), arg(8), workspace, workspaceBytes,
      stream);
  if (!isStatus(status))
    broken("tilec_mamba2_forward: not a status", status);
  if (status == TILEC_MAMBA2_SUCCESS)
    broken("tilec_mamba2_forward accepted fake device pointers", status);
  if (!*tilec_mamba2_last_error())
    broken("tilec_mamba2_forward failed with no message", status);
  if (status == TILEC_MAMBA2_ERROR_INVALID_ARGUMENT)
    broken("tilec_mamba2_forward: INVALID_ARGUMENT from the C ABI", status);
  if (nullProblem && status != TILEC_MAMBA2_ERROR_NULL_POINTER)
    broken("tilec_mamba2_forward: a null problem is not NULL_POINTER",
           status);
  if (isPastProblemChecks(status) && sizeStatus != TILEC_MAMBA2_SUCCESS)
    broken("tilec_mamba2_forward got past a problem that "
           "tilec_mamba2_workspace_size rejects",
           status);
  if (status == TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL &&
      workspaceBytes >= needed)
    broken("tilec_mamba2_forward: WORKSPACE_TOO_SMALL with enough bytes",
           status);
  return 0;
}
