//===- Reference.h - the Mamba-2 recurrence in f64 --------------*- C++ -*-===//
//
// An independent reference for the forward pass: the sequential recurrence
// of each head, one time step at a time, in double precision,
//
//   h_t = exp(A dt_t) h_{t-1} + dt_t x_t B_t^T,   y_t = h_t C_t + D x_t,
//
// with h a headdim x dstate matrix, dt_t = clamp(softplus(dt + dt_bias))
// (each part as the Inputs ask), D per head or per channel, and y_t
// multiplied by silu(z_t) when there is a z. It shares no code with the chunked
// kernels, so agreement of the two checks the chunking, the kernels and the
// interpreter together.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_MAMBA2_REFERENCE_H
#define TILEC_MAMBA2_REFERENCE_H

#include "tilec/Mamba2/Mamba2.h"

#include <cstdint>

namespace tilec::mamba2 {

struct ReferenceResult {
  /// (batch, seqlen, heads, headdim), row-major.
  std::vector<double> y;
  /// (batch, heads, headdim, dstate), row-major.
  std::vector<double> finalState;
  /// The scale of each element's rounding error: the root-sum-square of the
  /// elementary terms the element sums. y_t[i] = sum over s <= t and j of
  /// exp(A (dt_{s+1} + ... + dt_t)) dt_s x_s[i] B_s[j] C_t[j], plus the
  /// initial state's terms exp(A (dt_1 + ... + dt_t)) h0[i][j] C_t[j], plus
  /// D x_t[i]; yScale is (sum of the squares of those terms, D x left out)^1/2
  /// (times |silu(z_t[i])| with a gate) and finalStateScale the same for
  /// h_L[i][j] = the sum over s of
  /// exp(...) dt_s x_s[i] B_s[j] and the initial state's term. Roundings of
  /// independent terms add up like a random walk, so a result whose terms
  /// each carry a relative error of order u is off by order u * scale (see
  /// docs/testing.md). Same shapes as y and finalState.
  std::vector<double> yScale;
  std::vector<double> finalStateScale;
  /// With Inputs::cuSeqlens: (nseq, heads, headdim, dstate), row-major, the
  /// state after each sequence's last step, and its error scale (as
  /// finalStateScale's); empty without.
  std::vector<double> varlenStates;
  std::vector<double> varlenStatesScale;
};

/// The forward pass by the recurrence, from inputs in host memory. Fails
/// when validateInputs does, or when seq idx decreases or does not match cu
/// seqlens.
Status referenceForward(const Problem &problem, const Inputs &inputs,
                        ReferenceResult &result);

/// ||got - want||_2 / ||want||_2, with `got` a host f32 tensor read in
/// row-major order of its shape and `want` row-major of the same shape.
/// NaN when any element of `got` is NaN or the sizes differ; infinite when `want` is zero and
/// `got` is not.
double normwiseRelativeError(const Tensor &got, const std::vector<double> &want);

/// mamba_ssm's options a HostProblem draws inputs for (each off by
/// default): the same transformed dt distribution either way, so that the
/// tests' bounds mean the same.
struct HostFeatures {
  /// A dt bias (uniform in [-1, 1) with softplus, [-0.01, 0.01) without);
  /// dt is drawn so that dt + bias is the value drawn below.
  bool dtBias = false;
  /// Softplus on: dt (+ bias) is drawn as the inverse softplus of the
  /// value drawn below.
  bool dtSoftplus = false;
  DtLimit dtLimit;
  /// D of shape (heads, headdim) rather than (heads).
  bool dPerChannel = false;
  /// A gate z, standard normal rounded to bf16.
  bool z = false;
  /// x, B, C and z stored in this dtype: bf16 or f16 (their bits in
  /// HostProblem::x, B, C, z) or f32 (in xWide, BWide, CWide, zWide),
  /// drawn as said below and rounded to it.
  DType inputDType = DType::BF16;
  /// y in x's dtype (HostProblem::yHalf for bf16 and f16, y for f32) rather
  /// than f32.
  bool yInXType = false;
  /// dt stored in this dtype (HostProblem::dtHalf for bf16 and f16; dt
  /// then holds the rounded values as f32).
  DType dtDType = DType::F32;
  /// Several sequences packed into each row (HostProblem::seqIdx): in every
  /// row a boundary at a chunk edge (with two chunks or more) and three at
  /// random steps, mostly inside chunks; sequence numbers rise by 1 or 2 at
  /// each, from 0 in even rows and 1 in odd rows (whose initial state,
  /// sequence 0's, is then not used).
  bool packedSequences = false;
  /// With packedSequences: the sequences numbered 0, 1, 2, ... (rising by 1)
  /// and given by offsets too, mamba_ssm's cu_seqlens
  /// (HostProblem::cuSeqlens; batch 1), with the state at the end of each
  /// asked for (HostProblem::varlenStates).
  bool sequenceOffsets = false;
};

/// Host buffers for one problem, contiguous in mamba_ssm's layouts, with
/// random inputs in the ranges a Mamba-2 layer sees: x, B, C and the initial
/// state standard normal (x, B, C rounded to features.inputDType); D uniform in [0.5, 1.5).
/// The decay alternates between heads, so that every problem of two heads
/// or more has both regimes:
///   - even heads decay slowly, as in trained models: -A log-uniform in
///     [0.01, 1], dt log-uniform in [1e-3, 1e-1] (mamba_ssm's dt_min,
///     dt_max). A chunk of 64 keeps between exp(-6.4) and all of the state,
///     so the state carried between chunks and the initial state shape y;
///   - odd heads decay fast, as mamba_ssm initialises them: -A = exp(u), u
///     uniform in [0, log 16), and dt = softplus(v), v normal around -2
///     (steps of about 0.1 to 1): a chunk keeps about 2e-5 of the state, so
///     y is mostly the chunk's own inputs.
/// These are the time steps after bias and softplus; HostFeatures says how
/// the raw dt is drawn around them.
struct HostProblem {
  Problem problem;
  HostFeatures features;
  std::vector<uint16_t> x, B, C, z;
  /// x, B, C, z when features.inputDType is f32 (then x, B, C, z are empty).
  std::vector<float> xWide, BWide, CWide, zWide;
  /// D is (heads) or (heads, headdim), as features.dPerChannel says.
  std::vector<float> dt, A, D, dtBias, initialState;
  std::vector<float> y, finalState;
  /// y when features.yInXType with a 16-bit x: its bits (then y is not
  /// written by a pass).
  std::vector<uint16_t> yHalf;
  /// dt when features.dtDType is bf16 or f16.
  std::vector<uint16_t> dtHalf;
  /// (batch, seqlen) when features.packedSequences.
  std::vector<int32_t> seqIdx;
  /// (nseq + 1) offsets and (nseq, heads, headdim, dstate) states when
  /// features.sequenceOffsets.
  std::vector<int32_t> cuSeqlens;
  std::vector<float> varlenStates;

  static HostProblem random(const Problem &problem, uint64_t seed,
                            const HostFeatures &features = {});

  /// Descriptors of the buffers; `withInitialState` passes initialState.
  Inputs inputs(bool withInitialState);
  Outputs outputs();
  /// Fills y (or yHalf), finalState and varlenStates with NaN, so an
  /// element a pass leaves unwritten shows.
  void poisonOutputs();
  /// y as f32 values, whichever dtype the pass wrote.
  std::vector<float> yValues() const;
  /// One of x, B, C, z as stored, given its 16-bit and its f32 buffer: the
  /// one features.inputDType says, and its size in bytes.
  void *storedData(std::vector<uint16_t> &narrow,
                   std::vector<float> &wide) const;
  size_t storedBytes(const std::vector<uint16_t> &narrow,
                     const std::vector<float> &wide) const;
};

/// mamba_ssm's transformation of one raw time step, in f64: dt + bias, then
/// softplus (log1p(exp(v)) for v <= 20, v above) when asked, then the
/// clamp.
double transformDt(double dt, double bias, bool softplus,
                   const DtLimit &limit);

} // namespace tilec::mamba2

#endif // TILEC_MAMBA2_REFERENCE_H
