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

#include "tilec/mamba2/Mamba2.h"

#include <cstdint>

namespace tilec::mamba2 {

struct ReferenceResult {
  /// (batch, seqlen, heads, headdim), row-major.
  std::vector<double> y;
  /// (batch, heads, headdim, dstate), row-major.
  std::vector<double> finalState;
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
/// state standard normal (x, B, C rounded to bf16); dt = softplus(u) with u
/// normal around -2 (steps of about 0.1 to 1); A = -exp(u), u uniform in
/// [0, log 16) (mamba_ssm's initialisation); D uniform in [0.5, 1.5).
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
