//===- StateDtypeCheck.cpp - checking the bf16 states between chunks ------===//
//
// The bounds. With bf16 states the kernels run the same f32 recurrence and
// store each state entering a chunk rounded once to nearest even, so:
// - the chunk states are exactly bf16(the f32 run's), element by element;
// - the final state, never stored as bf16, is the f32 run's bit for bit;
// - y differs only in compute_out's state term exp(G_t) sum_j C_tj h_ij
//   (G_t = A sum of dt from the chunk's start to t; C, x and B are the same
//   bf16 values). The f32 run rounds h to tf32 as the operand of C h^T
//   (|d| <= 2^-11 relative); the bf16 run multiplies bf16(h) exactly
//   (|d| <= 2^-8: bf16 has 8 significant bits (7 stored and the implicit
//   one), so its spacing just above a power of two is 2^-7 relative and
//   round to nearest is off by at most half of it, u_bf16 = 2^-8). So
//     |y16 - y32| <= (2^-8 + 2^-11) exp(G_t) sum_j |C_tj| |h_ij|
//   per element, a worst case, plus the f32 sums (C h^T in k16 rather than
//   k8 products, the chunk's own term added to another accumulator: a few
//   roundings of 2^-24 of partial sums no larger than the terms; 2^-18 of
//   |y| + the state term + yScale covers them 64 times over).
// - Norm-wise the roundings of different state elements are independent,
//   of mean 0 and variance at most u^2/3 each, so E ||y16 - y32||^2 <=
//   (2^-16 + 2^-22) / 3 ||S||^2 with S_ti = exp(G_t) (sum_j (C_tj h_ij)^2)^1/2;
//   the bound is 1.5 times its root (ForwardCheck.cpp's kNormwiseFactor for
//   the same fluctuation). Rounding to nearest even sits at 0.49 of it: for
//   values spread evenly over a binade's logarithm its mean square relative
//   error is 0.54 u^2/3 (sqrt(0.54) / 1.5 = 0.49; measured 0.49 on every
//   case); truncating instead doubles the error, and the first check
//   catches any other rounding outright.
// - The varlen state of a sequence whose last chunk it entered with state
//   h_c is exp(G_e) h_c plus that chunk's own terms, formed in f32 from the
//   stored h_c: with exp(G_e) <= 1 the bf16 run's differs from the f32
//   run's by at most 2^-8 |h_c| per element, plus f32 sums (2^-20 of the
//   magnitudes); a sequence that starts in its last chunk takes no state
//   and agrees exactly.
// The f32 run itself must pass ForwardCheck's f64 check, so the bf16 run's
// error against f64 is at most that bound plus this one; both norm-wise
// errors are printed (docs/performance.md reports them).
//
//===----------------------------------------------------------------------===//

#include "StateDtypeCheck.h"

#include "../Support/TestSeed.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

constexpr double kBf16StateRoundoff = 0x1p-8;
constexpr double kTf32StateRoundoff = 0x1p-11;
constexpr double kSumSlack = 0x1p-18;
constexpr double kNormwiseFactor = 1.5;

float f32At(const std::vector<uint8_t> &bytes, size_t i) {
  float v;
  std::memcpy(&v, bytes.data() + 4 * i, sizeof v);
  return v;
}

uint16_t bf16At(const std::vector<uint8_t> &bytes, size_t i) {
  uint16_t v;
  std::memcpy(&v, bytes.data() + 2 * i, sizeof v);
  return v;
}

/// Runs `stateDtype`'s pass on `host` with poisoned outputs and chunk
/// states, keeping y and the final state.
::testing::AssertionResult runWith(const StateDtypeRun &run, HostProblem &host,
                                   DType stateDtype, size_t numStates,
                                   std::vector<uint8_t> &chunkStates,
                                   std::vector<float> &y,
                                   std::vector<float> &finalState) {
  host.poisonOutputs();
  chunkStates.assign(numStates * dtypeSize(stateDtype), 0xff); // NaN
  if (::testing::AssertionResult ran = run(host, stateDtype, chunkStates); !ran)
    return ran << " (state dtype " << dtypeName(stateDtype) << ")";
  y = host.y;
  finalState = host.finalState;
  return ::testing::AssertionSuccess();
}

} // namespace

::testing::AssertionResult
tilec::mamba2::testing::bf16StatesMatch(const Problem &p,
                                        const StateDtypeRun &run) {
  const uint64_t seed = tilec::testing::testSeed();
  HostProblem host = HostProblem::random(p, seed);
  const int64_t nchunks = p.numChunks();
  const size_t numStates =
      size_t(p.batch * nchunks * p.heads * p.headdim * p.dstate);
  std::vector<uint8_t> states32, states16;
  std::vector<float> y32, final32, y16, final16;
  if (auto ran =
          runWith(run, host, DType::F32, numStates, states32, y32, final32);
      !ran)
    return ran << "; " << tilec::testing::seedTrace(seed);
  // The f32 run against f64 (host holds its outputs).
  if (auto matched = matchesReference(host, true); !matched)
    return matched << " (f32 states); " << tilec::testing::seedTrace(seed);
  if (auto ran =
          runWith(run, host, DType::BF16, numStates, states16, y16, final16);
      !ran)
    return ran << "; " << tilec::testing::seedTrace(seed);

  auto failure = [&] {
    return ::testing::AssertionFailure()
           << tilec::testing::seedTrace(seed) << ": ";
  };
  for (size_t i = 0; i < numStates; ++i)
    if (bf16At(states16, i) != toBF16(f32At(states32, i)))
      return failure() << "bf16 chunk state " << i << " is "
                       << fromBF16(bf16At(states16, i))
                       << ", not the f32 state " << f32At(states32, i)
                       << " rounded to nearest even ("
                       << fromBF16(toBF16(f32At(states32, i))) << ")";
  if (std::memcmp(final16.data(), final32.data(),
                  final32.size() * sizeof(float)))
    return failure() << "the final state with bf16 states between chunks "
                        "differs from the f32 run's (the recurrence must stay "
                        "f32)";

  ReferenceResult reference;
  if (Status status = referenceForward(p, host.inputs(true), reference);
      !status)
    return failure() << "reference: " << status.message();
  const int64_t headsPerGroup = p.heads / p.groups;
  double errorSquares = 0, sSquares = 0, slackSquares = 0, worstRatio = 0,
         refSquares = 0, err32Squares = 0, err16Squares = 0;
  int64_t worst = -1;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t g = h / headsPerGroup;
      double exponent = 0;
      for (int64_t t = 0; t < p.seqlen; ++t) {
        const int64_t c = t / p.chunk;
        if (t % p.chunk == 0)
          exponent = 0;
        exponent +=
            double(host.A[h]) * host.dt[(b * p.seqlen + t) * p.heads + h];
        const double decay = std::exp(exponent);
        const uint16_t *C =
            &host.C[((b * p.seqlen + t) * p.groups + g) * p.dstate];
        for (int64_t i = 0; i < p.headdim; ++i) {
          const size_t state = size_t(
              (((b * nchunks + c) * p.heads + h) * p.headdim + i) * p.dstate);
          double absSum = 0, sqSum = 0;
          for (int64_t j = 0; j < p.dstate; ++j) {
            const double term =
                double(fromBF16(C[j])) * f32At(states32, state + size_t(j));
            absSum += std::fabs(term);
            sqSum += term * term;
          }
          const size_t at =
              size_t(((b * p.seqlen + t) * p.heads + h) * p.headdim + i);
          const double stateTerm = decay * absSum;
          const double slack = kSumSlack * (stateTerm + std::fabs(y32[at]) +
                                            reference.yScale[at]);
          const double bound =
              (kBf16StateRoundoff + kTf32StateRoundoff) * stateTerm + slack;
          const double error = std::fabs(double(y16[at]) - y32[at]);
          if (!(error <= bound))
            return failure()
                   << "y element " << at << " (batch " << b << ", step " << t
                   << ", head " << h << ", channel " << i << ") is " << y16[at]
                   << " with bf16 states, " << y32[at]
                   << " with f32 ones: more apart than the bound " << bound;
          if (bound > 0 && error / bound > worstRatio) {
            worstRatio = error / bound;
            worst = int64_t(at);
          }
          errorSquares += error * error;
          sSquares += decay * decay * sqSum;
          slackSquares += slack * slack;
          const double want = reference.y[at];
          refSquares += want * want;
          err32Squares += (y32[at] - want) * (y32[at] - want);
          err16Squares += (y16[at] - want) * (y16[at] - want);
        }
      }
    }
  const double normwise = std::sqrt(errorSquares);
  const double normwiseBound =
      kNormwiseFactor * std::sqrt((kBf16StateRoundoff * kBf16StateRoundoff +
                                   kTf32StateRoundoff * kTf32StateRoundoff) /
                                  3 * sSquares) +
      std::sqrt(slackSquares);
  std::printf("bf16 states: y against f64 %.3g norm-wise (f32 states %.3g); "
              "y16 - y32 %.3g of bound %.3g, worst element %.3g of its "
              "bound (element %lld)\n",
              std::sqrt(err16Squares / refSquares),
              std::sqrt(err32Squares / refSquares), normwise, normwiseBound,
              worstRatio, static_cast<long long>(worst));
  if (!(sSquares > 0))
    return failure() << "the state term is zero: the test does not exercise "
                        "the states between chunks";
  if (!(normwise <= normwiseBound))
    return failure() << "y with bf16 states is " << normwise
                     << " from y with f32 states norm-wise, above the bound "
                     << normwiseBound;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult
tilec::mamba2::testing::bf16VarlenStatesMatch(const Problem &p,
                                              const StateDtypeRun &run) {
  const uint64_t seed = tilec::testing::testSeed();
  HostProblem host = HostProblem::random(p, seed, sequenceOffsetFeatures());
  const size_t numStates =
      size_t(p.batch * p.numChunks() * p.heads * p.headdim * p.dstate);
  std::vector<uint8_t> states32, states16;
  std::vector<float> y, finalState;
  if (auto ran =
          runWith(run, host, DType::F32, numStates, states32, y, finalState);
      !ran)
    return ran << "; " << tilec::testing::seedTrace(seed);
  if (auto matched = varlenStatesMatchReference(host, true); !matched)
    return matched << " (f32 states); " << tilec::testing::seedTrace(seed);
  const std::vector<float> varlen32 = host.varlenStates;
  if (auto ran =
          runWith(run, host, DType::BF16, numStates, states16, y, finalState);
      !ran)
    return ran << "; " << tilec::testing::seedTrace(seed);
  const int64_t state = p.heads * p.headdim * p.dstate;
  double moved = 0;
  for (size_t s = 0; s + 1 < host.cuSeqlens.size(); ++s) {
    const int64_t c = (host.cuSeqlens[s + 1] - 1) / p.chunk;
    for (int64_t k = 0; k < state; ++k) {
      const double entering = f32At(states32, size_t(c * state + k));
      const double want = varlen32[s * state + k];
      const double got = host.varlenStates[s * state + k];
      const double bound = kBf16StateRoundoff * std::fabs(entering) +
                           0x1p-20 * (std::fabs(want) + std::fabs(entering));
      if (!(std::fabs(got - want) <= bound))
        return ::testing::AssertionFailure()
               << tilec::testing::seedTrace(seed) << ": varlen state of "
               << "sequence " << s << ", element " << k << " is " << got
               << " with bf16 states, " << want
               << " with f32 ones: more apart than " << bound;
      moved += std::fabs(got - want);
    }
  }
  if (!(moved > 0))
    return ::testing::AssertionFailure()
           << tilec::testing::seedTrace(seed)
           << ": no sequence took a state into its last chunk";
  return ::testing::AssertionSuccess();
}
