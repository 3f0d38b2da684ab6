//===- DecodeCheck.cpp - decode-step inputs and their f64 check -----------===//

#include "DecodeCheck.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kRoundings = 16;

/// The unit roundoff of a state stored in `dtype`, beyond f32's.
double storageRoundoff(DType dtype) {
  return dtype == DType::BF16 ? 0x1p-8 : dtype == DType::F16 ? 0x1p-11 : 0.0;
}

/// The bits of `value` in a 16-bit dtype (bf16 or f16), and back.
uint16_t toHalf(DType dtype, float value) {
  return dtype == DType::F16 ? toF16(value) : toBF16(value);
}
double fromHalf(DType dtype, uint16_t bits) {
  return dtype == DType::F16 ? fromF16(bits) : fromBF16(bits);
}

std::vector<uint16_t> normalHalf(std::mt19937_64 &rng, DType dtype,
                                 size_t count) {
  std::normal_distribution<float> normal;
  std::vector<uint16_t> values(count);
  for (uint16_t &v : values)
    v = toHalf(dtype, normal(rng));
  return values;
}

} // namespace

DecodeData DecodeData::random(const DecodeProblem &p,
                              const DecodeOptions &options, uint64_t seed) {
  DecodeData data;
  data.problem = p;
  data.options = options;
  data.rng.seed(seed);
  std::mt19937_64 &rng = data.rng;
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> unit;
  const size_t stateSize =
      size_t(p.stateRows * p.heads * p.headdim * p.dstate);
  if (options.stateDType == DType::F32) {
    data.state.resize(stateSize);
    for (float &v : data.state)
      v = normal(rng);
  } else {
    data.stateHalf.resize(stateSize);
    for (uint16_t &v : data.stateHalf)
      v = toHalf(options.stateDType, normal(rng));
  }
  data.A.resize(size_t(p.heads));
  for (int64_t h = 0; h < p.heads; ++h)
    data.A[h] = h % 2 ? -std::exp(unit(rng) * std::log(16.0f))
                      : -std::exp(std::log(0.01f) * unit(rng));
  if (options.d == DecodeOptions::D::PerHead)
    data.D.resize(size_t(p.heads));
  else if (options.d == DecodeOptions::D::PerChannel)
    data.D.resize(size_t(p.heads * p.headdim));
  for (float &v : data.D)
    v = 0.5f + unit(rng);
  if (options.dtBias) {
    // Before softplus any sign; without it a small positive shift, so that
    // dt stays a step forward (a negative one grows the state without end).
    data.dtBias.resize(size_t(p.heads));
    for (float &v : data.dtBias)
      v = options.dtSoftplus ? 2 * unit(rng) - 1 : 0.1f * unit(rng);
  }
  if (options.indices) {
    // A shuffled choice of distinct rows, and the padding index for the
    // last entry when there are two or more.
    std::vector<int64_t> rows(size_t(p.stateRows));
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    data.indices.assign(rows.begin(), rows.begin() + p.batch);
    if (p.batch > 1)
      data.indices.back() = -1;
  }
  data.y.resize(size_t(p.batch * p.heads * p.headdim));
  data.drawStep();
  return data;
}

void DecodeData::drawStep() {
  ++steps;
  const DecodeProblem &p = problem;
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> unit;
  const size_t rows = size_t(p.batch * p.heads * p.headdim);
  const size_t groups = size_t(p.batch * p.groups * p.dstate);
  const DType xType = options.xDType;
  x = normalHalf(rng, xType, rows);
  B = normalHalf(rng, xType, groups);
  C = normalHalf(rng, xType, groups);
  z = options.z ? normalHalf(rng, xType, rows) : std::vector<uint16_t>();
  dt.resize(size_t(p.batch * p.heads));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h) {
      float &v = dt[size_t(b * p.heads + h)];
      if (options.dtSoftplus)
        // The pre-activation: softplus of it is the step (about 0.02 to
        // 0.5; 25 stays 25).
        v = b == 0 && h == 1 ? 25.0f : normal(rng) - 2.0f;
      else if (h % 2)
        v = std::log1p(std::exp(normal(rng) - 2.0f));
      else
        v = std::exp(std::log(1e-3f) + unit(rng) * std::log(100.0f));
    }
}

StateUpdateArgs DecodeData::args() {
  const DecodeProblem &p = problem;
  StateUpdateArgs args;
  args.state = Tensor::contiguous(stateData(), options.stateDType,
                                  {p.stateRows, p.heads, p.headdim, p.dstate});
  const DType xType = options.xDType;
  args.x = Tensor::contiguous(x.data(), xType, {p.batch, p.heads, p.headdim});
  args.dt = Tensor::contiguous(dt.data(), DType::F32, {p.batch, p.heads});
  args.A = Tensor::contiguous(A.data(), DType::F32, {p.heads});
  args.B = Tensor::contiguous(B.data(), xType, {p.batch, p.groups, p.dstate});
  args.C = Tensor::contiguous(C.data(), xType, {p.batch, p.groups, p.dstate});
  if (options.d == DecodeOptions::D::PerHead)
    args.D = Tensor::contiguous(D.data(), DType::F32, {p.heads});
  else if (options.d == DecodeOptions::D::PerChannel)
    args.D = Tensor::contiguous(D.data(), DType::F32, {p.heads, p.headdim});
  if (options.z)
    args.z = Tensor::contiguous(z.data(), xType, {p.batch, p.heads, p.headdim});
  if (options.dtBias)
    args.dtBias = Tensor::contiguous(dtBias.data(), DType::F32, {p.heads});
  args.dtSoftplus = options.dtSoftplus;
  if (options.indices)
    args.stateIndices = indices.data();
  args.y = Tensor::contiguous(y.data(), xType, {p.batch, p.heads, p.headdim});
  return args;
}

void DecodeData::poisonY() {
  std::fill(y.begin(), y.end(),
            toHalf(options.xDType, std::numeric_limits<float>::quiet_NaN()));
}

size_t DecodeData::stateSize() const {
  return options.stateDType == DType::F32 ? state.size() : stateHalf.size();
}

double DecodeData::stateValue(size_t i) const {
  return options.stateDType == DType::F32
             ? state[i]
             : fromHalf(options.stateDType, stateHalf[i]);
}

void *DecodeData::stateData() {
  return options.stateDType == DType::F32
             ? static_cast<void *>(state.data())
             : static_cast<void *>(stateHalf.data());
}

size_t DecodeData::stateBytes() const {
  return options.stateDType == DType::F32 ? state.size() * 4
                                          : stateHalf.size() * 2;
}

ReferenceDecodeState
tilec::mamba2::testing::startReference(const DecodeData &data) {
  ReferenceDecodeState reference;
  reference.state.resize(data.stateSize());
  for (size_t i = 0; i < reference.state.size(); ++i)
    reference.state[i] = data.stateValue(i);
  reference.stateScale.assign(reference.state.size(), 0.0);
  return reference;
}

::testing::AssertionResult tilec::mamba2::testing::matchesReference(
    const DecodeData &data, const ReferenceDecodeState &reference) {
  const DecodeProblem &p = data.problem;
  size_t failures = 0;
  std::ostringstream report;
  auto fail = [&](const char *what, size_t i, double got, double want,
                  double bound) {
    if (failures++ < 8)
      report << "\n  " << what << "[" << i << "] = " << got << ", want " << want
             << " (error " << std::fabs(got - want) << ", bound " << bound
             << ")";
  };
  const double storage = 2 * storageRoundoff(data.options.stateDType);
  const double subnormals =
      data.options.stateDType == DType::F16 ? 0x1p-24 * double(data.steps) : 0;
  // An f16 y below 2^-14 is subnormal: its rounding is absolute, 2^-25.
  const double yFloor = data.options.xDType == DType::F16 ? 0x1p-24 : 0;
  double worstState = 0, worstY = 0;
  for (size_t i = 0; i < data.stateSize(); ++i) {
    const double bound =
        (kRoundings * kUnitRoundoff + storage) * reference.stateScale[i] +
        (reference.stateScale[i] > 0 ? subnormals : 0);
    const double got = data.stateValue(i);
    const double error = std::fabs(got - reference.state[i]);
    if (!(error <= bound))
      fail("state", i, got, reference.state[i], bound);
    else if (bound > 0)
      worstState = std::max(worstState, error / bound);
  }
  for (size_t i = 0; i < data.y.size(); ++i) {
    const double got = fromHalf(data.options.xDType, data.y[i]),
                 want = reference.y[i];
    const double bound =
        0x1p-7 * std::fabs(want) + yFloor +
        (2 * (kRoundings + double(p.dstate)) * kUnitRoundoff + storage) *
            reference.yScale[i];
    const double error = std::fabs(got - want);
    if (!(error <= bound))
      fail("y", i, got, want, bound);
    else if (bound > 0)
      worstY = std::max(worstY, error / bound);
  }
  if (failures)
    return ::testing::AssertionFailure()
           << failures << " elements outside the bound:" << report.str();
  return ::testing::AssertionSuccess()
         << "worst error / bound: state " << worstState << ", y " << worstY;
}
