//===- CApiTesting.h - C ABI arguments for the tests ------------*- C++ -*-===//
//
// A valid set of tilec_mamba2_forward arguments for a problem, whose tensors
// the tests then break one rule at a time. The data pointers are whatever
// the test puts there: distinct, aligned addresses that validation never
// dereferences, or device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2GPU_CAPITESTING_H
#define TILEC_UNITTESTS_MAMBA2GPU_CAPITESTING_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/tilec_mamba2.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tilec::mamba2::testing {

/// A descriptor with its own shape and stride arrays.
struct CTensor {
  tilec_mamba2_tensor descriptor{};
  std::vector<int64_t> shape, strides;
  bool nullStrides = false;

  CTensor() = default;
  CTensor(void *data, tilec_mamba2_dtype dtype, std::vector<int64_t> shape);
  /// The C descriptor of a C++ one, pointing at this object's arrays from
  /// the start: `&descriptor` serves as get() until the object is copied.
  explicit CTensor(const Tensor &t);
  /// The descriptor, pointing at this object's arrays.
  const tilec_mamba2_tensor *get();
};

struct CArguments {
  tilec_mamba2_problem problem{};
  CTensor x, dt, A, B, C, D, initialState, y, finalState;
  bool withInitialState = true, withFinalState = true;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  void *stream = nullptr;
  /// mamba_ssm's options (tilec_mamba2_forward_with_options): `options` has
  /// its size set and asks for nothing; z, dtBias, chunkStates and seqIdx
  /// are valid descriptors that it points to when withZ, withDtBias,
  /// withChunkStates and withSeqIdx say so.
  CTensor z, dtBias, chunkStates, seqIdx;
  bool withZ = false, withDtBias = false, withChunkStates = false,
       withSeqIdx = false;
  /// Version 3: cu_seqlens (host memory: a test points it at its own
  /// offsets) and the varlen states, passed when withCuSeqlens and
  /// withVarlenStates say so.
  CTensor cuSeqlens, varlenStates;
  bool withCuSeqlens = false, withVarlenStates = false;
  tilec_mamba2_options options{};

  /// Contiguous tensors of the problem's shapes at distinct fake addresses
  /// (4 KiB aligned, never dereferenced before the driver is used).
  static CArguments fake(const tilec_mamba2_problem &problem);
  /// tilec_mamba2_forward with these arguments.
  int forward();
  /// tilec_mamba2_forward_with_options with these arguments and `options`
  /// (null when `withOptions` is false).
  int forwardWithOptions(bool withOptions = true);
};

/// "TILEC_MAMBA2_X" for comparisons that print names.
inline std::string statusName(int status) {
  return tilec_mamba2_status_name(status);
}

#define EXPECT_MAMBA2_STATUS(call, expected)                                   \
  do {                                                                         \
    int tilec_status_got = (call);                                             \
    EXPECT_EQ(::tilec::mamba2::testing::statusName(tilec_status_got),          \
              ::tilec::mamba2::testing::statusName(expected))                  \
        << "last error: " << tilec_mamba2_last_error();                        \
  } while (0)

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2GPU_CAPITESTING_H
