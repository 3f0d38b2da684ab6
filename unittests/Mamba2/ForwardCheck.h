//===- ForwardCheck.h - checking a Mamba-2 forward pass ---------*- C++ -*-===//
//
// What the CPU and GPU forward tests share: the shapes they run, the f64
// reference per (batch, head) on every core, the checker (per element, then
// norm-wise, with bounds derived from the precision: docs/testing.md), and
// the whole check on fresh random inputs around a device-specific run.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_UNITTESTS_MAMBA2_FORWARDCHECK_H
#define TILEC_UNITTESTS_MAMBA2_FORWARDCHECK_H

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tilec::mamba2::testing {

/// (batch, seqlen, groups, heads, dstate, headdim, chunk).
struct Shape {
  int64_t batch, seqlen, groups, heads, dstate, headdim, chunk;
  Problem problem() const {
    return Problem{batch, seqlen, heads, groups, headdim, dstate, chunk};
  }
};

/// The shapes of the forward tests, CPU and GPU alike.
const std::vector<Shape> &forwardShapes();

/// A test name for a shape, e.g. b2_L128_g1_h4_N16_P32_c64_init.
std::string shapeName(const Shape &shape, bool withInitialState);

/// How gtest shows a shape in a failing case.
void PrintTo(const Shape &shape, std::ostream *os);

using BatchHead = std::pair<int64_t, int64_t>;

/// Every (batch, head) of a problem.
std::vector<BatchHead> allBatchHeads(const Problem &problem);

/// The heads the large tests check against the reference: those of every
/// batch whose index is 0, 1 (a slow and a fast one), heads - 2 or heads - 1.
std::vector<BatchHead> sampleBatchHeads(const Problem &problem);

/// The inputs of one (batch, head) over time steps [begin, end) as a problem
/// of its own (batch 1, one head, one group): descriptors into the host
/// buffers. `withInitialState` passes that head's initial state.
Inputs headInputs(HostProblem &host, bool withInitialState, BatchHead at,
                  int64_t begin, int64_t end, Problem &one);

/// referenceForward of one (batch, head): y (seqlen, headdim) and the final
/// state (headdim, dstate), with their error scales.
ReferenceResult headReference(HostProblem &host, bool withInitialState,
                              BatchHead at);

/// Where y and the final state of `at` start in the HostProblem's buffers.
int64_t yOffset(const Problem &problem, BatchHead at, int64_t t);
int64_t stateOffset(const Problem &problem, BatchHead at);

/// How far one output (y or the final state) is from the reference.
struct ErrorLine {
  /// The largest |got - want| / bound over the elements; > 1 fails.
  double worstRatio = 0;
  size_t violations = 0, notFinite = 0, checked = 0;
  /// The first element over its bound (or not finite).
  int64_t first = -1;
  double firstGot = 0, firstWant = 0, firstBound = 0;
  double errorSquares = 0, wantSquares = 0, scaleSquares = 0;

  double normwiseError() const;
  double normwiseBound() const;
  bool passed() const;
  void merge(const ErrorLine &other);
};

struct ErrorReport {
  ErrorLine y, finalState;
  bool passed() const { return y.passed() && finalState.passed(); }
  /// By how much the worse of the two lines misses its bound (> 1 fails):
  /// the larger of the worst element ratio and normwise error / bound.
  double missFactor() const;
  std::string describe() const;
};

/// Compares the HostProblem's y (and final state, when `withFinalState`)
/// with the f64 reference on the heads in `sample` (every head when empty);
/// every element of y and the final state must be finite wherever sampled
/// or not (outputs start as NaN, so an unwritten element shows).
ErrorReport compareWithReference(HostProblem &host, bool withInitialState,
                                 bool withFinalState,
                                 const std::vector<BatchHead> &sample = {});

/// compareWithReference as a gtest assertion; prints the report.
::testing::AssertionResult
matchesReference(HostProblem &host, bool withInitialState,
                 bool withFinalState = true,
                 const std::vector<BatchHead> &sample = {});

/// Runs a forward pass: fills host.y and host.finalState from host's
/// inputs (with the initial state when asked), or says why it failed.
using ForwardRun =
    std::function<::testing::AssertionResult(HostProblem &, bool)>;

/// The whole check: fresh random inputs (testSeed, named in any failure),
/// outputs poisoned with NaN, `run`, then matchesReference.
::testing::AssertionResult
forwardMatchesReference(const Problem &problem, bool withInitialState,
                        const ForwardRun &run,
                        const std::vector<BatchHead> &sample = {});

} // namespace tilec::mamba2::testing

#endif // TILEC_UNITTESTS_MAMBA2_FORWARDCHECK_H
