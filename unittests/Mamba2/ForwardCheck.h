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
#include <tuple>
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

/// Both structures of the forward pass (docs/mamba2.md), the default first.
const std::vector<ForwardStructure> &forwardStructures();

/// "four" or "three", for test names.
std::string structureName(ForwardStructure structure);

/// Whether the outputs of the four-kernel run (y4, final4) and of the
/// three-kernel run (y3, final3) on the same inputs agree: norm-wise, the
/// final states within 2^-16 and y within 2^-12 (ForwardCheck.cpp says
/// why). Prints both differences.
::testing::AssertionResult structuresAgree(const std::vector<float> &y4,
                                           const std::vector<float> &final4,
                                           const std::vector<float> &y3,
                                           const std::vector<float> &final3);

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
  /// The relative error the output's own arithmetic and rounding may add
  /// to every element (a gate, a bf16 y): part of the norm-wise bound.
  double relativeSlack = 0;

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
                        const std::vector<BatchHead> &sample = {},
                        const HostFeatures &features = {});

/// The options the feature tests run (CPU and GPU alike), each with a name
/// for the test: dt bias + softplus + a limit that clamps, D per channel, z
/// with D per head and per channel, bf16 y, and all of them at once.
struct FeatureCase {
  const char *name;
  HostFeatures features;
};
const std::vector<FeatureCase> &featureCases();
void PrintTo(const FeatureCase &feature, std::ostream *os);

/// The shapes the feature tests run: ragged, several chunks and one short
/// one, shared and per-group B and C.
const std::vector<Shape> &featureShapes();

/// Compares the states entering each chunk, (batch, nchunks, heads,
/// headdim, dstate) row-major in `chunkStates`, with the f64 recurrence run
/// over each chunk's prefix (its final state and error scale); chunk 0's
/// is the initial state (or zero) exactly.
::testing::AssertionResult
chunkStatesMatchReference(HostProblem &host, bool withInitialState,
                          const std::vector<float> &chunkStates);

/// Compares host.varlenStates (features.sequenceOffsets: the state at the
/// end of each sequence of cu_seqlens) with the f64 recurrence's, element
/// by element within the final state's bound; every element must be finite.
::testing::AssertionResult varlenStatesMatchReference(HostProblem &host,
                                                      bool withInitialState);

/// The features of the seq_idx tests: packed sequences
/// (HostFeatures::packedSequences), nothing else.
HostFeatures packedFeatures();

/// The features of the cu_seqlens tests: packed sequences given by offsets
/// too (HostFeatures::sequenceOffsets), nothing else.
HostFeatures sequenceOffsetFeatures();

/// Every option of featureCases() at once, with packed sequences, given by
/// offsets too when `offsets`: the packed tests' "every option" case.
HostFeatures everyOptionPacked(bool offsets);

/// The shapes of the packed tests (CPU and GPU): ragged, one chunk and
/// several, every chunk size, several groups, batch 1 and 2.
const std::vector<Shape> &packedShapes();

/// `shapes` with batch 1 (cu_seqlens packs one row).
std::vector<Shape> oneRow(std::vector<Shape> shapes);

/// The dtype tests' combinations (CPU and GPU): x's dtype (bf16, f16, f32),
/// dt's (f32, bf16, f16), y in x's dtype or f32; each test's features with
/// z, D per channel, dt bias and softplus.
using DTypeCombination = std::tuple<DType, DType, bool>;
const std::vector<DTypeCombination> &dtypeCombinations();
HostFeatures dtypeFeatures(const DTypeCombination &combination);
std::string
dtypeCombinationName(const ::testing::TestParamInfo<DTypeCombination> &info);

/// Replaces the random boundaries of `host` (drawn with sequenceOffsets) by
/// `offsets`, seq_idx included, and sizes its varlen states for them.
void setSequenceOffsets(HostProblem &host, std::vector<int32_t> offsets);

/// How many raw dt of `host` the limit clamps (below, above): a test of the
/// limit asserts both are positive, so the clamp is exercised.
std::pair<int64_t, int64_t> clampedSteps(const HostProblem &host);

} // namespace tilec::mamba2::testing

namespace tilec::mamba2 {
/// How gtest shows a structure in a failing case.
void PrintTo(ForwardStructure structure, std::ostream *os);
} // namespace tilec::mamba2

#endif // TILEC_UNITTESTS_MAMBA2_FORWARDCHECK_H
