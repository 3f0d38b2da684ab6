//===- StateDtypeCheck.h - checking bf16 states between chunks -*- C++ -*-===//
//
// What the CPU and GPU tests of Inputs::stateDtype share: one problem run
// twice on the same fresh random inputs, with f32 and with bf16 states
// between chunks, and the bounds the bf16 run must meet against the f32 run
// and the f64 recurrence (StateDtypeCheck.cpp derives them).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2_STATEDTYPECHECK_H
#define TILEC_UNITTESTS_MAMBA2_STATEDTYPECHECK_H

#include "ForwardCheck.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tilec::mamba2::testing {

/// Runs a forward pass on host's inputs (with its initial state) with the
/// states between chunks in `stateDtype`: fills host.y and host.finalState
/// and `chunkStates` (sized for them, poisoned with NaN) with the bytes of
/// the states entering each chunk, (batch, nchunks, heads, headdim, dstate)
/// row-major in that dtype.
using StateDtypeRun = std::function<::testing::AssertionResult(
    HostProblem &host, DType stateDtype, std::vector<uint8_t> &chunkStates)>;

/// Both runs on fresh random inputs (testSeed, named in any failure): the
/// f32 one must match the f64 recurrence (matchesReference); the bf16 one's
/// chunk states must be the f32 ones rounded to nearest even, its final
/// state the f32 one bit for bit, and its y within the bf16 states' bound of
/// the f32 run's, element by element and norm-wise. Prints both runs'
/// norm-wise errors against f64.
::testing::AssertionResult bf16StatesMatch(const Problem &problem,
                                           const StateDtypeRun &run);

/// Both runs on fresh random sequences packed into one row and given by
/// offsets (sequenceOffsetFeatures): the f32 run's varlen states must match
/// the f64 recurrence (varlenStatesMatchReference), the bf16 run's must
/// differ from them by at most the rounding of the state each sequence
/// brought into its last chunk (StateDtypeCheck.cpp), and some must differ.
::testing::AssertionResult bf16VarlenStatesMatch(const Problem &problem,
                                                 const StateDtypeRun &run);

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_STATEDTYPECHECK_H
