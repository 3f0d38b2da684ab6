//===- BrokenForward.h - deliberately wrong forward passes ------*- C++ -*-===//
//
// The mistakes a chunked implementation can make, built from the f64
// reference in test code only, so that the power tests can show that the
// forward tests' checker rejects each of them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2_BROKENFORWARD_H
#define TILEC_UNITTESTS_MAMBA2_BROKENFORWARD_H

#include "tilec/Mamba2/Reference.h"

namespace tilec::mamba2::testing {

enum class Breakage {
  /// Each chunk starts from a zero state (the first from the initial
  /// state): the state is not carried between chunks.
  StateNotCarried,
  /// The initial state is taken as zero.
  InitialStateIgnored,
  /// The rows of one chunk (the middle one) come one time step late: y_t
  /// holds y_{t+1} (the chunk's last row stays).
  ChunkShifted,
  /// The state carried between chunks and the final state are rounded to
  /// bf16 (a bf16 state buffer between the kernels).
  Bf16State,
};

const char *breakageName(Breakage breakage);

/// Whether `breakage` changes anything on `problem`: a problem of one chunk
/// carries no state, one without initial state cannot lose it.
bool breakageApplies(Breakage breakage, const Problem &problem,
                     bool withInitialState);

/// Fills host.y and host.finalState with the broken pass's results.
void brokenForward(HostProblem &host, bool withInitialState,
                   Breakage breakage);

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_BROKENFORWARD_H
