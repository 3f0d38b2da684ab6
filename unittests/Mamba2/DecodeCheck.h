//===- DecodeCheck.h - decode-step inputs and their f64 check ---*- C++ -*-===//
//
// What the CPU and GPU tests of the decode step share: random host inputs of
// one step (and of each next step), the f64 recurrence run beside the
// kernel over many steps, and the error bound the kernel's state and y must
// meet. Links only tilec_mamba2.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2_DECODECHECK_H
#define TILEC_UNITTESTS_MAMBA2_DECODECHECK_H

#include "tilec/Mamba2/StateUpdate.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <random>
#include <vector>

namespace tilec::mamba2::testing {

/// Which options of the step are on.
struct DecodeOptions {
  bool dtBias = false;
  bool dtSoftplus = false;
  bool z = false;
  enum class D { None, PerHead, PerChannel } d = D::None;
  /// State indices: a shuffled choice of rows of a larger state, with one
  /// padding entry when batch > 1.
  bool indices = false;
  /// The state's dtype: f32, bf16 or f16.
  DType stateDType = DType::F32;
  /// The dtype of x, B, C, z and y: bf16 or f16.
  DType xDType = DType::BF16;
};

/// Host buffers of one step, contiguous. x, B, C, z standard normal (in
/// options.xDType, as is y);
/// the state standard normal; D in [0.5, 1.5); dt_bias in [-1, 1) with
/// softplus, [0, 0.1) without. Decays
/// alternate between heads as in HostProblem: even heads slow (-A in
/// [0.01, 1], dt in [1e-3, 1e-1]), odd heads fast (-A in [1, 16), dt around
/// softplus(-2)). With dt_softplus dt is the pre-activation, and head 1 of
/// entry 0 gets 25, past softplus's threshold of 20.
struct DecodeData {
  DecodeProblem problem;
  DecodeOptions options;
  /// The state: `state` for an f32 one, `stateHalf` (the bits) for bf16 or
  /// f16, the other empty.
  std::vector<float> state;
  std::vector<uint16_t> stateHalf;
  std::vector<float> dt, A, D, dtBias;
  std::vector<uint16_t> x, B, C, z, y;
  std::vector<int64_t> indices;
  /// Steps drawn so far (random draws the first).
  int64_t steps = 0;
  std::mt19937_64 rng;

  static DecodeData random(const DecodeProblem &problem,
                           const DecodeOptions &options, uint64_t seed);
  /// Fresh x, dt, B, C and z for the next token.
  void drawStep();
  /// Descriptors of the buffers (host memory).
  StateUpdateArgs args();
  /// y := NaN, so that an element the step leaves unwritten shows.
  void poisonY();

  /// The state's elements, the value of element i, its storage.
  size_t stateSize() const;
  double stateValue(size_t i) const;
  void *stateData();
  size_t stateBytes() const;
};

/// The f64 recurrence from `data`'s initial state.
ReferenceDecodeState startReference(const DecodeData &data);

/// The kernel's state (in `data`, of its dtype) and y against the
/// reference. A step rounds each magnitude of the reference's scale a
/// handful of times (f32 products and sums, exp, log1p: at most about ten
/// roundings), so each state element must be within (K u + 2 s) stateScale,
/// u = 2^-24, K = 16, a worst-case bound, with s the unit roundoff of the
/// state's storage (0 for f32, 2^-8 for bf16, 2^-11 for f16: each step
/// rounds the stored state once, an error the scale's |new h| term covers as
/// it decays; twice over), plus, for f16, 2^-24 per step taken (twice the
/// absolute rounding of an f16 subnormal, below 2^-14, which a slow head
/// does not decay); each y element within 2^-7 |y| (its bf16
/// rounding, of relative error up to 2^-8, twice over) plus (2 (K + dstate)
/// u + 2 s) yScale (its f32 sum over dstate and the state's error); a y in
/// f16 rounds less than that (2^-11) and takes the same bound plus 2^-24
/// (twice an f16 subnormal's absolute rounding). A state row no entry
/// updates has scale 0, so it must keep its bits.
::testing::AssertionResult
matchesReference(const DecodeData &data, const ReferenceDecodeState &reference);

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_DECODECHECK_H
