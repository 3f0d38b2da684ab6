//===- Reference.h - the Mamba-2 recurrence in f64 --------------*- C++ -*-===//
//
// An independent reference for the forward pass: the sequential recurrence
// of each head, one time step at a time, in double precision,
//
//   h_t = exp(A dt_t) h_{t-1} + dt_t x_t B_t^T,   y_t = h_t C_t + D x_t,
//
// with h a headdim x dstate matrix. It shares no code with the chunked
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
  /// and finalStateScale the same for h_L[i][j] = the sum over s of
  /// exp(...) dt_s x_s[i] B_s[j] and the initial state's term. Roundings of
  /// independent terms add up like a random walk, so a result whose terms
  /// each carry a relative error of order u is off by order u * scale (see
  /// docs/testing.md). Same shapes as y and finalState.
  std::vector<double> yScale;
  std::vector<double> finalStateScale;
};

/// The forward pass by the recurrence, from inputs in host memory. Fails
/// when validateInputs does.
Status referenceForward(const Problem &problem, const Inputs &inputs,
                        ReferenceResult &result);

/// ||got - want||_2 / ||want||_2, with `got` a host f32 tensor read in
/// row-major order of its shape and `want` row-major of the same shape.
/// NaN when any element of `got` is NaN or the sizes differ; infinite when `want` is zero and
/// `got` is not.
double normwiseRelativeError(const Tensor &got, const std::vector<double> &want);

/// Host buffers for one problem, contiguous in mamba_ssm's layouts, with
/// random inputs in the ranges a Mamba-2 layer sees: x, B, C and the initial
/// state standard normal (x, B, C rounded to bf16); D uniform in [0.5, 1.5).
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
struct HostProblem {
  Problem problem;
  std::vector<uint16_t> x, B, C;
  std::vector<float> dt, A, D, initialState;
  std::vector<float> y, finalState;

  static HostProblem random(const Problem &problem, uint64_t seed);

  /// Descriptors of the buffers; `withInitialState` passes initialState.
  Inputs inputs(bool withInitialState);
  Outputs outputs();
  /// Fills y and finalState with NaN, so an element a pass leaves unwritten
  /// shows.
  void poisonOutputs();
};

} // namespace tilec::mamba2

#endif // TILEC_MAMBA2_REFERENCE_H
