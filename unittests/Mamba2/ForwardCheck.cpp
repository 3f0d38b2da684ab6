//===- ForwardCheck.cpp - checking a Mamba-2 forward pass -------*- C++ -*-===//
//
// The bounds. x, B and C are bf16 and the reference computes with exactly
// those values, so only the kernels' own roundings count. An output element
// is a sum of elementary terms t_k (ReferenceResult::yScale lists them);
// on its way to the output a term passes at most R = 3 tf32 roundings (u =
// 2^-11): its decayed input B dt exp(.) or weight (C B^T . decay . dt)
// rounded to an mma operand; the chunk's state rounded when it enters the
// next chunk; the state rounded as the operand of C h^T. Each is a relative
// error d, |d| <= u, of mean 0 and variance u^2/3 (round to nearest of a
// value independent of the grid). f32 sums, the f32 cumsum of A dt (its
// error in the exponent is below 2^-24 * 800 even for fast heads) and
// exp2's 2 ulp are below 2^-22 relative: kFloatSlack. So an element's error
// is sum_k t_k e_k with e_k the sum of at most R independent d's:
//   mean 0, standard deviation sigma <= u sqrt(R/3) (sum t_k^2)^1/2
//                                     = u * scale.
// - Per element: 8 sigma. The error is a sum of many small independent
//   roundings, close to normal, and bounded (a single term cannot pass
//   sqrt(3) sigma), so P(|error| > 8 sigma) < 1e-15: no false failure in
//   the 1e9 elements the largest test checks.
// - Norm-wise: E ||error||^2 <= u^2 ||scale||^2 with R = 3. The realized
//   sum of squares of n elements fluctuates around its mean by sqrt(2/n)
//   relative (for normal errors of equal weight); the smallest test has
//   n = 320, so 5 such deviations are a factor 1.4 on the squares, 1.2 on
//   the norm, and uneven weights make the effective n smaller: the bound
//   is 1.5 times the root of the mean at R = 3 (kNormwiseFactor). Measured
//   real passes reach 0.9 of the mean (R close to 3 on short sequences). A
//   bf16 state (u_bf16 = 4u) exceeds the bound by 2x or more.
// - mamba_ssm's options. Bias, softplus and clamp of dt run in f32 (log1p,
//   exp: a few ulp): a relative error of dt of order 2^-22, inside
//   kFloatSlack's share. The gate multiplies y by silu(z) = z / (1 +
//   exp(-z)) in f32: exp's 2 ulp (libdevice, the C library), the sum and
//   the quotient, at most 2^-20 relative (kGateSlack), on the whole
//   element; the reference scales each element's scale by |silu(z)|. A bf16
//   y rounds each element once more, by at most u_bf16 = 2^-8 of its value
//   (kBf16Roundoff): the per-element bound grows by 2^-8 (|want| + bound),
//   the norm-wise one by 2^-8.
//
//===----------------------------------------------------------------------===//

#include "ForwardCheck.h"

#include "../Support/TestSeed.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

constexpr double kTf32Roundoff = 0x1p-11;
constexpr double kElementSigmas = 8.0;
constexpr double kNormwiseFactor = 1.5;
constexpr double kFloatSlack = 0x1p-22;
constexpr double kGateSlack = 0x1p-20;
constexpr double kBf16Roundoff = 0x1p-8;
constexpr double kF16Roundoff = 0x1p-11;
constexpr double kF16SubnormalRoundoff = 0x1p-25;

/// The relative errors a HostProblem's options add to each element of y:
/// the gate's f32 arithmetic and the rounding of a bf16 y.
struct OutputSlack {
  double relative = kFloatSlack, roundoff = 0;
  /// The rounding of a value below the dtype's normal range, absolute: half
  /// its subnormals' spacing.
  double absolute = 0;
};

OutputSlack outputSlack(const HostFeatures &features) {
  OutputSlack slack;
  if (features.z)
    slack.relative += kGateSlack;
  // y rounded to x's dtype: bf16 (2^-8) or f16 (2^-11); an f32 x's is f32.
  if (features.yInXType && features.inputDType == DType::BF16)
    slack.roundoff = kBf16Roundoff;
  if (features.yInXType && features.inputDType == DType::F16) {
    slack.roundoff = kF16Roundoff;
    slack.absolute = kF16SubnormalRoundoff;
  }
  return slack;
}

/// `tensor` restricted to `shape`, starting at `index`.
Tensor slice(const Tensor &tensor, const std::vector<int64_t> &index,
             std::vector<int64_t> shape) {
  Tensor s = tensor;
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d)
    offset += index[d] * tensor.strides[d];
  s.data = static_cast<char *>(tensor.data) +
           offset * static_cast<int64_t>(dtypeSize(tensor.dtype));
  s.shape = std::move(shape);
  return s;
}

/// Runs work(i) for i in [0, count) on every core.
template <typename Work> void onEveryCore(int64_t count, Work work) {
  std::atomic<int64_t> next{0};
  auto loop = [&] {
    for (int64_t i; (i = next++) < count;)
      work(i);
  };
  const int64_t threads = std::min<int64_t>(
      count, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t i = 1; i < threads; ++i)
    pool.emplace_back(loop);
  loop();
  for (std::thread &thread : pool)
    thread.join();
}

void compareElement(ErrorLine &line, int64_t index, float got, double want,
                    double scale, const OutputSlack &slack = {}) {
  ++line.checked;
  const double computed = kElementSigmas * kTf32Roundoff * scale +
                          slack.relative * std::fabs(want);
  const double bound = computed +
                       slack.roundoff * (std::fabs(want) + computed) +
                       slack.absolute;
  line.relativeSlack = std::max(line.relativeSlack,
                                slack.relative + slack.roundoff);
  const double error = std::fabs(static_cast<double>(got) - want);
  line.errorSquares += error * error;
  line.wantSquares += want * want;
  line.scaleSquares += scale * scale;
  const double ratio = bound > 0 ? error / bound : (error > 0 ? INFINITY : 0);
  line.worstRatio = std::max(line.worstRatio, std::isnan(ratio) ? INFINITY
                                                                : ratio);
  if (!(error <= bound) && line.violations++ == 0) {
    line.first = index;
    line.firstGot = got;
    line.firstWant = want;
    line.firstBound = bound;
  }
}

void countNotFinite(ErrorLine &line, const std::vector<float> &values) {
  std::atomic<size_t> count{0};
  std::atomic<int64_t> first{-1};
  const int64_t blocks = (static_cast<int64_t>(values.size()) + 65535) / 65536;
  onEveryCore(blocks, [&](int64_t block) {
    const size_t end = std::min(values.size(), size_t(block + 1) * 65536);
    for (size_t i = size_t(block) * 65536; i < end; ++i)
      if (!std::isfinite(values[i]) && count++ == 0)
        first = static_cast<int64_t>(i);
  });
  line.notFinite = count;
  if (count && line.first < 0) {
    line.first = first;
    line.firstGot = values[first];
  }
}

} // namespace

const std::vector<Shape> &tilec::mamba2::testing::forwardShapes() {
  // One chunk and several, shared and per-group B and C, ragged last chunks
  // (100, 300, 600), a sequence shorter than a chunk, every chunk size, and
  // headdim and dstate that are no multiples of the tiles.
  static const std::vector<Shape> shapes = {
      {1, 64, 1, 4, 16, 32, 64},   {2, 128, 1, 4, 16, 32, 64},
      {1, 64, 2, 4, 16, 32, 64},   {2, 128, 2, 8, 32, 64, 64},
      {1, 192, 1, 4, 16, 32, 64},  {1, 256, 4, 4, 128, 64, 128},
      {2, 100, 1, 4, 16, 32, 64},  {1, 300, 2, 4, 64, 64, 128},
      {1, 512, 1, 2, 32, 32, 256}, {1, 10, 1, 2, 16, 16, 64},
      {2, 600, 2, 4, 64, 64, 256}, {1, 77, 1, 2, 24, 40, 128}};
  return shapes;
}

std::string tilec::mamba2::testing::shapeName(const Shape &s,
                                              bool withInitialState) {
  return "b" + std::to_string(s.batch) + "_L" + std::to_string(s.seqlen) +
         "_g" + std::to_string(s.groups) + "_h" + std::to_string(s.heads) +
         "_N" + std::to_string(s.dstate) + "_P" + std::to_string(s.headdim) +
         "_c" + std::to_string(s.chunk) + (withInitialState ? "_init" : "");
}

void tilec::mamba2::testing::PrintTo(const Shape &s, std::ostream *os) {
  *os << "(batch " << s.batch << ", seqlen " << s.seqlen << ", groups "
      << s.groups << ", heads " << s.heads << ", dstate " << s.dstate
      << ", headdim " << s.headdim << ", chunk " << s.chunk << ")";
}

const std::vector<ForwardStructure> &
tilec::mamba2::testing::forwardStructures() {
  static const std::vector<ForwardStructure> structures = {
      ForwardStructure::FourKernels, ForwardStructure::ThreeKernels};
  return structures;
}

std::string tilec::mamba2::testing::structureName(ForwardStructure structure) {
  return structure == ForwardStructure::FourKernels ? "four" : "three";
}

void tilec::mamba2::PrintTo(ForwardStructure structure, std::ostream *os) {
  *os << testing::structureName(structure) << " kernels";
}

// How closely the two structures agree. chunk_state and fwd_pass_state form
// the same products (the same x, the same B * dt * exp2(...) rounded to
// tf32, in the same order along the chunk); they differ only in where the
// decayed state is added, before the chunk's products (fwd_pass_state
// accumulates onto it) or after them (state_passing adds chunk_state's
// sum). That is an f32 reassociation: each chunk's state differs by a few
// f32 roundings of its own magnitude, 2^-24 relative, and those add up over
// the chunks, so the final states differ by about nchunks * 2^-24
// relative, norm-wise (measured on the CPU: 1e-7 to 6e-7). The bound is
// 2^-16 (1.5e-5, against the tf32 check's 2e-4 to 8e-4): a state that lost
// a chunk's term or a decay misses it by orders of magnitude, one that
// gained a tf32 rounding (2^-11) by 30x. y passes the states through a tf32
// rounding (the operand of C h^T), where a state one f32 ulp apart lands on
// the other tf32 neighbour now and then, a 2^-11 change in one term of one
// element (measured: 0 to 3e-5 norm-wise): y agrees within 2^-12,
// half of one tf32 rounding of every term, where the two checks against
// f64 together would allow three.
namespace {
constexpr double kStateAgreement = 0x1p-16;
constexpr double kOutputAgreement = 0x1p-12;

/// ||a - b|| / ||b||.
double relativeDifference(const std::vector<float> &a,
                          const std::vector<float> &b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / norm);
}
} // namespace

::testing::AssertionResult tilec::mamba2::testing::structuresAgree(
    const std::vector<float> &y4, const std::vector<float> &final4,
    const std::vector<float> &y3, const std::vector<float> &final3) {
  const double state = relativeDifference(final4, final3);
  const double output = relativeDifference(y4, y3);
  std::printf("four vs three kernels: final state %.3g (bound %.3g), "
              "y %.3g (bound %.3g)\n",
              state, kStateAgreement, output, kOutputAgreement);
  if (y4.size() != y3.size() || final4.size() != final3.size() ||
      !(state <= kStateAgreement) || !(output <= kOutputAgreement))
    return ::testing::AssertionFailure()
           << "the structures disagree: final state " << state << " (bound "
           << kStateAgreement << "), y " << output << " (bound "
           << kOutputAgreement << ")";
  return ::testing::AssertionSuccess();
}

std::vector<BatchHead>
tilec::mamba2::testing::allBatchHeads(const Problem &p) {
  std::vector<BatchHead> all;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      all.emplace_back(b, h);
  return all;
}

std::vector<BatchHead>
tilec::mamba2::testing::sampleBatchHeads(const Problem &p) {
  std::vector<BatchHead> sample;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h)
      if (h < 2 || h >= p.heads - 2)
        sample.emplace_back(b, h);
  return sample;
}

Inputs tilec::mamba2::testing::headInputs(HostProblem &host,
                                          bool withInitialState, BatchHead at,
                                          int64_t begin, int64_t end,
                                          Problem &one) {
  const Problem &p = host.problem;
  const Inputs in = host.inputs(withInitialState);
  const auto [b, h] = at;
  const int64_t g = h / (p.heads / p.groups), steps = end - begin;
  one = p;
  one.batch = one.heads = one.groups = 1;
  one.seqlen = steps;
  Inputs sub;
  sub.x = slice(in.x, {b, begin, h, 0}, {1, steps, 1, p.headdim});
  sub.dt = slice(in.dt, {b, begin, h}, {1, steps, 1});
  sub.A = slice(in.A, {h}, {1});
  sub.B = slice(in.B, {b, begin, g, 0}, {1, steps, 1, p.dstate});
  sub.C = slice(in.C, {b, begin, g, 0}, {1, steps, 1, p.dstate});
  sub.D = in.D.shape.size() == 2 ? slice(in.D, {h, 0}, {1, p.headdim})
                                  : slice(in.D, {h}, {1});
  if (in.initialState)
    sub.initialState =
        slice(*in.initialState, {b, h, 0, 0}, {1, 1, p.headdim, p.dstate});
  if (in.dtBias)
    sub.dtBias = slice(*in.dtBias, {h}, {1});
  sub.dtSoftplus = in.dtSoftplus;
  sub.dtLimit = in.dtLimit;
  if (in.z)
    sub.z = slice(*in.z, {b, begin, h, 0}, {1, steps, 1, p.headdim});
  if (in.seqIdx)
    sub.seqIdx = slice(*in.seqIdx, {b, begin}, {1, steps});
  return sub;
}

ReferenceResult tilec::mamba2::testing::headReference(HostProblem &host,
                                                      bool withInitialState,
                                                      BatchHead at) {
  Problem one;
  Inputs in =
      headInputs(host, withInitialState, at, 0, host.problem.seqlen, one);
  ReferenceResult result;
  if (!referenceForward(one, in, result).ok())
    return {};
  return result;
}

int64_t tilec::mamba2::testing::yOffset(const Problem &p, BatchHead at,
                                        int64_t t) {
  return ((at.first * p.seqlen + t) * p.heads + at.second) * p.headdim;
}

int64_t tilec::mamba2::testing::stateOffset(const Problem &p, BatchHead at) {
  return (at.first * p.heads + at.second) * p.headdim * p.dstate;
}

double ErrorLine::normwiseError() const {
  if (wantSquares == 0)
    return errorSquares == 0 ? 0 : INFINITY;
  return std::sqrt(errorSquares / wantSquares);
}

double ErrorLine::normwiseBound() const {
  if (wantSquares == 0)
    return 0;
  return kNormwiseFactor * kTf32Roundoff * std::sqrt(scaleSquares / wantSquares) +
         std::max(relativeSlack, kFloatSlack);
}

bool ErrorLine::passed() const {
  return violations == 0 && notFinite == 0 &&
         normwiseError() <= normwiseBound();
}

void ErrorLine::merge(const ErrorLine &other) {
  worstRatio = std::max(worstRatio, other.worstRatio);
  relativeSlack = std::max(relativeSlack, other.relativeSlack);
  if (other.violations && (violations == 0 || other.first < first)) {
    first = other.first;
    firstGot = other.firstGot;
    firstWant = other.firstWant;
    firstBound = other.firstBound;
  }
  violations += other.violations;
  checked += other.checked;
  errorSquares += other.errorSquares;
  wantSquares += other.wantSquares;
  scaleSquares += other.scaleSquares;
}

double ErrorReport::missFactor() const {
  double factor = 0;
  for (const ErrorLine *line : {&y, &finalState}) {
    if (line->notFinite)
      return INFINITY;
    if (line->checked == 0)
      continue;
    factor = std::max({factor, line->worstRatio,
                       line->normwiseError() / line->normwiseBound()});
  }
  return factor;
}

std::string ErrorReport::describe() const {
  std::ostringstream os;
  os.precision(3);
  const std::pair<const char *, const ErrorLine *> lines[] = {
      {"y", &y}, {"final state", &finalState}};
  for (auto [name, line] : lines) {
    if (line->checked == 0 && line->notFinite == 0)
      continue;
    os << name << ": " << line->checked << " elements, worst error/bound "
       << line->worstRatio << ", norm-wise " << line->normwiseError()
       << " (bound " << line->normwiseBound() << ")";
    if (line->notFinite)
      os << "; " << line->notFinite << " not finite (NaN: not written), the "
         << "first at " << line->first << ": " << line->firstGot;
    else if (line->violations)
      os << "; " << line->violations << " over the element bound, the first "
         << "at " << line->first << ": " << line->firstGot << " instead of "
         << line->firstWant << " (bound " << line->firstBound << ")";
    os << "\n";
  }
  return os.str();
}

ErrorReport tilec::mamba2::testing::compareWithReference(
    HostProblem &host, bool withInitialState, bool withFinalState,
    const std::vector<BatchHead> &sample) {
  const Problem &p = host.problem;
  const std::vector<BatchHead> heads = sample.empty() ? allBatchHeads(p)
                                                      : sample;
  ErrorReport report;
  std::mutex merging;
  bool referenceFailed = false;
  const std::vector<float> y = host.yValues();
  const OutputSlack slack = outputSlack(host.features);
  onEveryCore(static_cast<int64_t>(heads.size()), [&](int64_t task) {
    const BatchHead at = heads[task];
    ReferenceResult want = headReference(host, withInitialState, at);
    ErrorReport part;
    if (!want.y.empty()) {
      for (int64_t t = 0; t < p.seqlen; ++t) {
        const int64_t offset = yOffset(p, at, t);
        for (int64_t i = 0; i < p.headdim; ++i)
          compareElement(part.y, offset + i, y[offset + i],
                         want.y[t * p.headdim + i],
                         want.yScale[t * p.headdim + i], slack);
      }
      if (withFinalState) {
        const int64_t offset = stateOffset(p, at);
        for (size_t k = 0; k < want.finalState.size(); ++k)
          compareElement(part.finalState, offset + k,
                         host.finalState[offset + k], want.finalState[k],
                         want.finalStateScale[k]);
      }
    }
    std::lock_guard<std::mutex> lock(merging);
    referenceFailed |= want.y.empty();
    report.y.merge(part.y);
    report.finalState.merge(part.finalState);
  });
  if (referenceFailed)
    report.y.notFinite = 1;
  countNotFinite(report.y, y);
  if (withFinalState)
    countNotFinite(report.finalState, host.finalState);
  return report;
}

::testing::AssertionResult tilec::mamba2::testing::matchesReference(
    HostProblem &host, bool withInitialState, bool withFinalState,
    const std::vector<BatchHead> &sample) {
  ErrorReport report =
      compareWithReference(host, withInitialState, withFinalState, sample);
  std::printf("%s", report.describe().c_str());
  if (report.passed())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.describe();
}

::testing::AssertionResult tilec::mamba2::testing::forwardMatchesReference(
    const Problem &p, bool withInitialState, const ForwardRun &run,
    const std::vector<BatchHead> &sample, const HostFeatures &features) {
  std::printf("problem: batch %lld, seqlen %lld, heads %lld, groups %lld, "
              "headdim %lld, dstate %lld, chunk %lld, %s initial state\n",
              (long long)p.batch, (long long)p.seqlen, (long long)p.heads,
              (long long)p.groups, (long long)p.headdim, (long long)p.dstate,
              (long long)p.chunk, withInitialState ? "with" : "without");
  const uint64_t seed = tilec::testing::testSeed();
  HostProblem host = HostProblem::random(p, seed, features);
  host.poisonOutputs();
  if (auto result = run(host, withInitialState); !result)
    return result << "\n" << tilec::testing::seedTrace(seed);
  if (auto result = matchesReference(host, withInitialState, true, sample);
      !result)
    return result << tilec::testing::seedTrace(seed);
  return ::testing::AssertionSuccess();
}

const std::vector<FeatureCase> &tilec::mamba2::testing::featureCases() {
  // The limit clamps the slow heads' smallest steps (below 2e-3: about 15%
  // of them) and the fast heads' largest (above 0.5: about 6%).
  const DtLimit clamping{2e-3f, 0.5f};
  auto with = [](auto set) {
    HostFeatures features;
    set(features);
    return features;
  };
  static const std::vector<FeatureCase> cases = {
      {"DtBiasSoftplusLimit", with([&](HostFeatures &f) {
         f.dtBias = f.dtSoftplus = true;
         f.dtLimit = clamping;
       })},
      {"DtBias", with([](HostFeatures &f) { f.dtBias = true; })},
      {"DtSoftplus", with([](HostFeatures &f) { f.dtSoftplus = true; })},
      {"DPerChannel", with([](HostFeatures &f) { f.dPerChannel = true; })},
      {"Z", with([](HostFeatures &f) { f.z = true; })},
      {"ZDPerChannel", with([](HostFeatures &f) {
         f.z = f.dPerChannel = true;
       })},
      {"YBf16", with([](HostFeatures &f) { f.yInXType = true; })},
      {"DtBf16", with([&](HostFeatures &f) {
         f.dtBias = f.dtSoftplus = true;
         f.dtLimit = clamping;
         f.dtDType = DType::BF16;
       })},
      {"DtF16", with([](HostFeatures &f) { f.dtDType = DType::F16; })},
      {"All", with([&](HostFeatures &f) {
         f.dtBias = f.dtSoftplus = f.dPerChannel = f.z = f.yInXType = true;
         f.dtLimit = clamping;
       })}};
  return cases;
}

void tilec::mamba2::testing::PrintTo(const FeatureCase &feature,
                                     std::ostream *os) {
  *os << feature.name;
}

::testing::AssertionResult tilec::mamba2::testing::chunkStatesMatchReference(
    HostProblem &host, bool withInitialState,
    const std::vector<float> &chunkStates) {
  const Problem &p = host.problem;
  const int64_t nchunks = p.numChunks(), size = p.headdim * p.dstate;
  if (int64_t(chunkStates.size()) != p.batch * nchunks * p.heads * size)
    return ::testing::AssertionFailure() << "chunk states of the wrong size";
  ErrorLine line;
  std::mutex merging;
  bool failed = false;
  const std::vector<BatchHead> heads = allBatchHeads(p);
  onEveryCore(int64_t(heads.size()) * nchunks, [&](int64_t task) {
    const BatchHead at = heads[task / nchunks];
    const int64_t c = task % nchunks;
    const int64_t offset =
        ((at.first * nchunks + c) * p.heads + at.second) * size;
    ErrorLine part;
    if (c == 0) {
      // The initial state passes through unrounded.
      for (int64_t k = 0; k < size; ++k) {
        const double want =
            withInitialState ? host.initialState[stateOffset(p, at) + k] : 0;
        compareElement(part, offset + k, chunkStates[offset + k], want, 0);
      }
    } else {
      Problem one;
      Inputs in =
          headInputs(host, withInitialState, at, 0, c * p.chunk, one);
      ReferenceResult want;
      if (!referenceForward(one, in, want).ok()) {
        std::lock_guard<std::mutex> lock(merging);
        failed = true;
        return;
      }
      for (int64_t k = 0; k < size; ++k)
        compareElement(part, offset + k, chunkStates[offset + k],
                       want.finalState[k], want.finalStateScale[k]);
    }
    std::lock_guard<std::mutex> lock(merging);
    line.merge(part);
  });
  countNotFinite(line, chunkStates);
  ErrorReport report;
  report.finalState = line;
  std::printf("chunk states as %s", report.describe().c_str());
  if (!failed && line.passed())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << (failed ? "the reference failed\n" : "") << report.describe();
}

::testing::AssertionResult tilec::mamba2::testing::varlenStatesMatchReference(
    HostProblem &host, bool withInitialState) {
  const Problem &p = host.problem;
  const int64_t nseq = int64_t(host.cuSeqlens.size()) - 1;
  const int64_t size = p.headdim * p.dstate;
  if (nseq < 1 || int64_t(host.varlenStates.size()) != nseq * p.heads * size)
    return ::testing::AssertionFailure()
           << "no varlen states (features.sequenceOffsets is off)";
  ErrorLine line;
  std::mutex merging;
  bool failed = false;
  onEveryCore(p.heads, [&](int64_t h) {
    Problem one;
    Inputs in =
        headInputs(host, withInitialState, {0, h}, 0, p.seqlen, one);
    in.cuSeqlens = host.inputs(withInitialState).cuSeqlens;
    ReferenceResult want;
    ErrorLine part;
    const bool ok = referenceForward(one, in, want).ok();
    for (int64_t s = 0; ok && s < nseq; ++s)
      for (int64_t k = 0; k < size; ++k) {
        const int64_t offset = (s * p.heads + h) * size + k;
        compareElement(part, offset, host.varlenStates[offset],
                       want.varlenStates[s * size + k],
                       want.varlenStatesScale[s * size + k]);
      }
    std::lock_guard<std::mutex> lock(merging);
    failed |= !ok;
    line.merge(part);
  });
  countNotFinite(line, host.varlenStates);
  ErrorReport report;
  report.finalState = line;
  std::printf("varlen states (%lld sequences) as %s", (long long)nseq,
              report.describe().c_str());
  if (!failed && line.passed())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << (failed ? "the reference failed\n" : "") << report.describe();
}

HostFeatures tilec::mamba2::testing::packedFeatures() {
  HostFeatures features;
  features.packedSequences = true;
  return features;
}

HostFeatures tilec::mamba2::testing::everyOptionPacked(bool offsets) {
  HostFeatures features = featureCases().back().features;
  features.packedSequences = true;
  features.sequenceOffsets = offsets;
  return features;
}

const std::vector<Shape> &tilec::mamba2::testing::packedShapes() {
  static const std::vector<Shape> shapes = {
      {2, 100, 1, 4, 16, 32, 64}, {1, 300, 2, 4, 64, 64, 128},
      {1, 77, 1, 2, 24, 40, 128}, {2, 600, 2, 4, 64, 64, 256},
      {2, 256, 1, 4, 32, 32, 64}, {1, 10, 1, 2, 16, 16, 64}};
  return shapes;
}

std::vector<Shape> tilec::mamba2::testing::oneRow(std::vector<Shape> shapes) {
  for (Shape &shape : shapes)
    shape.batch = 1;
  return shapes;
}

const std::vector<DTypeCombination> &
tilec::mamba2::testing::dtypeCombinations() {
  static const std::vector<DTypeCombination> combinations = [] {
    std::vector<DTypeCombination> all;
    for (DType x : {DType::BF16, DType::F16, DType::F32})
      for (DType dt : {DType::F32, DType::BF16, DType::F16})
        for (bool yInX : {false, true})
          all.emplace_back(x, dt, yInX);
    return all;
  }();
  return combinations;
}

HostFeatures
tilec::mamba2::testing::dtypeFeatures(const DTypeCombination &combination) {
  HostFeatures f;
  std::tie(f.inputDType, f.dtDType, f.yInXType) = combination;
  f.z = f.dPerChannel = f.dtBias = f.dtSoftplus = true;
  return f;
}

std::string tilec::mamba2::testing::dtypeCombinationName(
    const ::testing::TestParamInfo<DTypeCombination> &info) {
  return std::string("x") + dtypeName(std::get<0>(info.param)) + "_dt" +
         dtypeName(std::get<1>(info.param)) +
         (std::get<2>(info.param) ? "_yx" : "_yf32");
}

HostFeatures tilec::mamba2::testing::sequenceOffsetFeatures() {
  HostFeatures features;
  features.packedSequences = true;
  features.sequenceOffsets = true;
  return features;
}

void tilec::mamba2::testing::setSequenceOffsets(HostProblem &host,
                                                std::vector<int32_t> offsets) {
  const Problem &p = host.problem;
  host.cuSeqlens = std::move(offsets);
  for (size_t s = 0; s + 1 < host.cuSeqlens.size(); ++s)
    std::fill(host.seqIdx.begin() + host.cuSeqlens[s],
              host.seqIdx.begin() + host.cuSeqlens[s + 1], int32_t(s));
  host.varlenStates.resize((host.cuSeqlens.size() - 1) * p.heads *
                           p.headdim * p.dstate);
}

const std::vector<Shape> &tilec::mamba2::testing::featureShapes() {
  static const std::vector<Shape> shapes = {{2, 100, 1, 4, 16, 32, 64},
                                            {1, 300, 2, 4, 64, 64, 128},
                                            {1, 77, 1, 2, 24, 40, 128}};
  return shapes;
}

std::pair<int64_t, int64_t>
tilec::mamba2::testing::clampedSteps(const HostProblem &host) {
  const HostFeatures &f = host.features;
  const int64_t heads = host.problem.heads;
  int64_t below = 0, above = 0;
  for (size_t i = 0; i < host.dt.size(); ++i) {
    const double v = transformDt(host.dt[i],
                                 f.dtBias ? host.dtBias[i % heads] : 0.0,
                                 f.dtSoftplus, DtLimit{});
    below += v < f.dtLimit.low;
    above += v > f.dtLimit.high;
  }
  return {below, above};
}
