//===- Reference.cpp - the Mamba-2 recurrence in f64 ------------*- C++ -*-===//

#include "tilec/Mamba2/Reference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <random>
#include <thread>

using namespace tilec::mamba2;

namespace {

/// Element `index` of a validated host tensor as a double.
double element(const Tensor &tensor, std::initializer_list<int64_t> index) {
  int64_t offset = 0;
  size_t d = 0;
  for (int64_t i : index)
    offset += i * tensor.strides[d++];
  if (tensor.dtype == DType::BF16)
    return fromBF16(static_cast<const uint16_t *>(tensor.data)[offset]);
  if (tensor.dtype == DType::F16)
    return fromF16(static_cast<const uint16_t *>(tensor.data)[offset]);
  if (tensor.dtype == DType::I32)
    return static_cast<const int32_t *>(tensor.data)[offset];
  return static_cast<const float *>(tensor.data)[offset];
}

} // namespace

double tilec::mamba2::transformDt(double dt, double bias, bool softplus,
                                  const DtLimit &limit) {
  double v = dt + bias;
  if (softplus && v <= 20.0)
    v = std::log1p(std::exp(v));
  return std::min(std::max(v, double(limit.low)), double(limit.high));
}

Status tilec::mamba2::referenceForward(const Problem &p, const Inputs &in,
                                       ReferenceResult &result) {
  if (Status status = validateInputs(p, in); !status)
    return status;
  if (in.seqIdx)
    if (Status status = validateSequenceIndexValues(p, *in.seqIdx); !status)
      return status;
  if (in.cuSeqlens)
    if (Status status =
            validateSequenceOffsetValues(p, *in.seqIdx, *in.cuSeqlens);
        !status)
      return status;
  // The last step of each sequence of cu_seqlens (batch 1), whose state is
  // that sequence's varlen state.
  std::vector<int64_t> sequenceEnds;
  for (int64_t s = 1; s <= in.numSequences(); ++s)
    sequenceEnds.push_back(int64_t(element(*in.cuSeqlens, {s})) - 1);
  result.varlenStates.assign(sequenceEnds.size() * p.heads * p.headdim *
                                 p.dstate,
                             0.0);
  result.varlenStatesScale.assign(result.varlenStates.size(), 0.0);
  const int64_t P = p.headdim, N = p.dstate;
  const int64_t headsPerGroup = p.heads / p.groups;
  result.y.assign(p.batch * p.seqlen * p.heads * P, 0.0);
  result.finalState.assign(p.batch * p.heads * P * N, 0.0);
  result.yScale.assign(result.y.size(), 0.0);
  result.finalStateScale.assign(result.finalState.size(), 0.0);
  std::vector<double> x(P), b(N), c(N);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t g = h / headsPerGroup;
      double *state = &result.finalState[(bi * p.heads + h) * P * N];
      // The sums of the squares of the terms of each state element: they
      // decay as the squares of the terms do.
      double *squares = &result.finalStateScale[(bi * p.heads + h) * P * N];
      if (in.initialState)
        for (int64_t i = 0; i < P; ++i)
          for (int64_t j = 0; j < N; ++j) {
            state[i * N + j] = element(*in.initialState, {bi, h, i, j});
            squares[i * N + j] = state[i * N + j] * state[i * N + j];
          }
      const double a = element(in.A, {h});
      const double bias = in.dtBias ? element(*in.dtBias, {h}) : 0.0;
      const bool dPerChannel = in.D.shape.size() == 2;
      std::vector<double> d(P);
      for (int64_t i = 0; i < P; ++i)
        d[i] = dPerChannel ? element(in.D, {h, i}) : element(in.D, {h});
      // Packed sequences: the state restarts from zero at each step whose
      // sequence is not the one before it (sequence 0 before the first step,
      // which the initial state belongs to).
      double sequence = 0.0;
      for (int64_t t = 0; t < p.seqlen; ++t) {
        if (in.seqIdx) {
          const double now = element(*in.seqIdx, {bi, t});
          if (now != sequence)
            for (int64_t e = 0; e < P * N; ++e)
              state[e] = squares[e] = 0.0;
          sequence = now;
        }
        const double dt = transformDt(element(in.dt, {bi, t, h}), bias,
                                      in.dtSoftplus, in.dtLimit);
        const double decay = std::exp(a * dt);
        for (int64_t i = 0; i < P; ++i)
          x[i] = element(in.x, {bi, t, h, i});
        for (int64_t j = 0; j < N; ++j) {
          b[j] = element(in.B, {bi, t, g, j});
          c[j] = element(in.C, {bi, t, g, j});
        }
        const int64_t row0 = ((bi * p.seqlen + t) * p.heads + h) * P;
        for (int64_t i = 0; i < P; ++i) {
          double *row = &state[i * N], *rowSquares = &squares[i * N];
          double acc = 0.0, accSquares = 0.0;
          for (int64_t j = 0; j < N; ++j) {
            const double input = dt * x[i] * b[j];
            row[j] = decay * row[j] + input;
            rowSquares[j] = decay * decay * rowSquares[j] + input * input;
            acc += row[j] * c[j];
            accSquares += rowSquares[j] * c[j] * c[j];
          }
          // The gate silu(z) = z / (1 + exp(-z)) scales every term.
          double gate = 1.0;
          if (in.z) {
            const double zi = element(*in.z, {bi, t, h, i});
            gate = zi / (1.0 + std::exp(-zi));
          }
          result.y[row0 + i] = (acc + d[i] * x[i]) * gate;
          result.yScale[row0 + i] = std::sqrt(accSquares) * std::fabs(gate);
        }
        const auto end =
            std::find(sequenceEnds.begin(), sequenceEnds.end(), t);
        if (end != sequenceEnds.end()) {
          const int64_t at =
              ((end - sequenceEnds.begin()) * p.heads + h) * P * N;
          std::copy(state, state + P * N, &result.varlenStates[at]);
          std::copy(squares, squares + P * N, &result.varlenStatesScale[at]);
        }
      }
    }
  for (std::vector<double> *scales :
       {&result.finalStateScale, &result.varlenStatesScale})
    for (double &v : *scales)
      v = std::sqrt(v);
  return Status::success();
}

double tilec::mamba2::normwiseRelativeError(const Tensor &got,
                                            const std::vector<double> &want) {
  if (static_cast<int64_t>(want.size()) != got.numElements())
    return std::numeric_limits<double>::quiet_NaN();
  const size_t rank = got.shape.size();
  std::vector<int64_t> index(rank, 0);
  double diff2 = 0.0, want2 = 0.0;
  for (double w : want) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += index[d] * got.strides[d];
    const double value = static_cast<const float *>(got.data)[offset];
    if (std::isnan(value))
      return std::numeric_limits<double>::quiet_NaN();
    diff2 += (value - w) * (value - w);
    want2 += w * w;
    // Row-major successor of `index`.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < got.shape[d])
        break;
      index[d] = 0;
    }
  }
  if (want2 == 0.0)
    return diff2 == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff2 / want2);
}

namespace {

uint64_t splitMix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Calls draw(rng, begin, end) on blocks of [0, count), each block with a
/// generator of its own seeded from (seed, tensor, block), on every core:
/// the values depend on the seed only, not on the number of threads, and a
/// tensor of 2^31 elements takes seconds rather than a minute.
template <typename Draw>
void drawBlocks(uint64_t seed, uint64_t tensor, int64_t count, Draw draw) {
  constexpr int64_t kBlock = int64_t(1) << 16;
  const int64_t blocks = (count + kBlock - 1) / kBlock;
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t k; (k = next++) < blocks;) {
      std::mt19937_64 rng(splitMix64(seed ^ splitMix64(tensor << 40 | k)));
      draw(rng, k * kBlock, std::min(count, (k + 1) * kBlock));
    }
  };
  const int64_t threads = std::min<int64_t>(
      blocks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t i = 1; i < threads; ++i)
    pool.emplace_back(work);
  work();
  for (std::thread &thread : pool)
    thread.join();
}

} // namespace

HostProblem HostProblem::random(const Problem &p, uint64_t seed,
                                const HostFeatures &features) {
  HostProblem data;
  data.problem = p;
  data.features = features;
  auto slow = [](int64_t head) { return head % 2 == 0; };
  auto logUniform = [](std::mt19937_64 &rng, double low, double high) {
    std::uniform_real_distribution<double> u(std::log(low), std::log(high));
    return static_cast<float>(std::exp(u(rng)));
  };
  // Standard normal in the inputs' dtype: 16-bit bits in `narrow`, or f32
  // values in `wide`.
  const DType inputType = features.inputDType;
  auto inputNormal = [&](std::vector<uint16_t> &narrow,
                         std::vector<float> &wide, uint64_t tensor,
                         int64_t count) {
    if (inputType == DType::F32)
      wide.resize(count);
    else
      narrow.resize(count);
    drawBlocks(seed, tensor, count,
               [&](std::mt19937_64 &rng, int64_t begin, int64_t end) {
                 std::normal_distribution<float> normal(0.0f, 1.0f);
                 for (int64_t i = begin; i < end; ++i) {
                   const float v = normal(rng);
                   if (inputType == DType::F32)
                     wide[i] = v;
                   else
                     narrow[i] = inputType == DType::F16 ? toF16(v) : toBF16(v);
                 }
               });
  };
  const int64_t tokens = p.batch * p.seqlen;
  inputNormal(data.x, data.xWide, 0, tokens * p.heads * p.headdim);
  inputNormal(data.B, data.BWide, 1, tokens * p.groups * p.dstate);
  inputNormal(data.C, data.CWide, 2, tokens * p.groups * p.dstate);
  data.dt.resize(tokens * p.heads);
  drawBlocks(seed, 3, tokens * p.heads,
             [&](std::mt19937_64 &rng, int64_t begin, int64_t end) {
               std::normal_distribution<float> dtLogit(-2.0f, 1.0f);
               for (int64_t i = begin; i < end; ++i)
                 data.dt[i] = slow(i % p.heads)
                                  ? logUniform(rng, 1e-3, 1e-1)
                                  : std::log1p(std::exp(dtLogit(rng)));
             });
  data.A.resize(p.heads);
  data.D.resize(p.heads);
  drawBlocks(seed, 4, 1, [&](std::mt19937_64 &rng, int64_t, int64_t) {
    std::uniform_real_distribution<float> skip(0.5f, 1.5f);
    for (int64_t h = 0; h < p.heads; ++h) {
      data.A[h] = slow(h) ? -logUniform(rng, 0.01, 1.0)
                          : -logUniform(rng, 1.0, 16.0);
      data.D[h] = skip(rng);
    }
  });
  // The options' inputs come from generators of their own (tensors 6 to
  // 9), so the inputs above do not depend on which options are on.
  if (features.dPerChannel) {
    data.D.resize(p.heads * p.headdim);
    drawBlocks(seed, 6, data.D.size(),
               [&](std::mt19937_64 &rng, int64_t begin, int64_t end) {
                 std::uniform_real_distribution<float> skip(0.5f, 1.5f);
                 for (int64_t i = begin; i < end; ++i)
                   data.D[i] = skip(rng);
               });
  }
  if (features.dtBias) {
    data.dtBias.resize(p.heads);
    drawBlocks(seed, 7, 1, [&](std::mt19937_64 &rng, int64_t, int64_t) {
      const float spread = features.dtSoftplus ? 1.0f : 0.01f;
      std::uniform_real_distribution<float> bias(-spread, spread);
      for (int64_t h = 0; h < p.heads; ++h)
        data.dtBias[h] = bias(rng);
    });
  }
  // The raw dt whose transformation is the step drawn above: the inverse
  // softplus log(expm1(dt)), less the bias.
  for (size_t i = 0; i < data.dt.size(); ++i) {
    double raw = data.dt[i];
    if (features.dtSoftplus)
      raw = std::log(std::expm1(raw));
    if (features.dtBias)
      raw -= data.dtBias[i % p.heads];
    data.dt[i] = static_cast<float>(raw);
  }
  // A 16-bit dt: its values, and dt holds them as f32 (what the pass reads).
  if (features.dtDType != DType::F32) {
    data.dtHalf.resize(data.dt.size());
    for (size_t i = 0; i < data.dt.size(); ++i) {
      const bool bf16 = features.dtDType == DType::BF16;
      data.dtHalf[i] = bf16 ? toBF16(data.dt[i]) : toF16(data.dt[i]);
      data.dt[i] = bf16 ? fromBF16(data.dtHalf[i]) : fromF16(data.dtHalf[i]);
    }
  }
  if (features.z)
    inputNormal(data.z, data.zWide, 8, tokens * p.heads * p.headdim);
  data.initialState.resize(p.batch * p.heads * p.headdim * p.dstate);
  drawBlocks(seed, 5, data.initialState.size(),
             [&](std::mt19937_64 &rng, int64_t begin, int64_t end) {
               std::normal_distribution<float> normal(0.0f, 1.0f);
               for (int64_t i = begin; i < end; ++i)
                 data.initialState[i] = normal(rng);
             });
  if (features.packedSequences) {
    data.seqIdx.resize(tokens);
    drawBlocks(seed, 9, 1, [&](std::mt19937_64 &rng, int64_t, int64_t) {
      const int64_t nchunks = p.numChunks();
      for (int64_t b = 0; b < p.batch; ++b) {
        std::vector<bool> starts(p.seqlen, false);
        if (nchunks > 1)
          starts[p.chunk * std::uniform_int_distribution<int64_t>(
                               1, nchunks - 1)(rng)] = true;
        if (p.seqlen > 1)
          for (int k = 0; k < 3; ++k)
            starts[std::uniform_int_distribution<int64_t>(1, p.seqlen - 1)(
                rng)] = true;
        // cu_seqlens numbers the sequences 0, 1, 2, ...
        const int32_t maxRise = features.sequenceOffsets ? 1 : 2;
        int32_t sequence = features.sequenceOffsets ? 0 : int32_t(b % 2);
        for (int64_t t = 0; t < p.seqlen; ++t) {
          if (starts[t])
            sequence +=
                std::uniform_int_distribution<int32_t>(1, maxRise)(rng);
          data.seqIdx[b * p.seqlen + t] = sequence;
        }
      }
    });
  }
  if (features.sequenceOffsets) {
    data.cuSeqlens = {0};
    for (int64_t t = 1; t < p.seqlen; ++t)
      if (data.seqIdx[t] != data.seqIdx[t - 1])
        data.cuSeqlens.push_back(int32_t(t));
    data.cuSeqlens.push_back(int32_t(p.seqlen));
    data.varlenStates.resize((data.cuSeqlens.size() - 1) * p.heads *
                             p.headdim * p.dstate);
  }
  if (features.yInXType && inputType != DType::F32)
    data.yHalf.resize(tokens * p.heads * p.headdim);
  else
    data.y.resize(tokens * p.heads * p.headdim);
  data.finalState.resize(data.initialState.size());
  return data;
}

Inputs HostProblem::inputs(bool withInitialState) {
  const Problem &p = problem;
  Inputs in;
  const DType inputType = features.inputDType;
  in.x = Tensor::contiguous(storedData(x, xWide), inputType,
                            {p.batch, p.seqlen, p.heads, p.headdim});
  in.dt = features.dtDType == DType::F32
              ? Tensor::contiguous(dt.data(), DType::F32,
                                   {p.batch, p.seqlen, p.heads})
              : Tensor::contiguous(dtHalf.data(), features.dtDType,
                                   {p.batch, p.seqlen, p.heads});
  in.A = Tensor::contiguous(A.data(), DType::F32, {p.heads});
  in.B = Tensor::contiguous(storedData(B, BWide), inputType,
                            {p.batch, p.seqlen, p.groups, p.dstate});
  in.C = Tensor::contiguous(storedData(C, CWide), inputType,
                            {p.batch, p.seqlen, p.groups, p.dstate});
  in.D = features.dPerChannel
             ? Tensor::contiguous(D.data(), DType::F32, {p.heads, p.headdim})
             : Tensor::contiguous(D.data(), DType::F32, {p.heads});
  if (withInitialState)
    in.initialState =
        Tensor::contiguous(initialState.data(), DType::F32,
                           {p.batch, p.heads, p.headdim, p.dstate});
  if (features.dtBias)
    in.dtBias = Tensor::contiguous(dtBias.data(), DType::F32, {p.heads});
  in.dtSoftplus = features.dtSoftplus;
  in.dtLimit = features.dtLimit;
  if (features.z)
    in.z = Tensor::contiguous(storedData(z, zWide), inputType,
                              {p.batch, p.seqlen, p.heads, p.headdim});
  if (features.packedSequences)
    in.seqIdx =
        Tensor::contiguous(seqIdx.data(), DType::I32, {p.batch, p.seqlen});
  if (features.sequenceOffsets)
    in.cuSeqlens = Tensor::contiguous(cuSeqlens.data(), DType::I32,
                                      {int64_t(cuSeqlens.size())});
  return in;
}

Outputs HostProblem::outputs() {
  const Problem &p = problem;
  Outputs out;
  out.y = !yHalf.empty()
              ? Tensor::contiguous(yHalf.data(), features.inputDType,
                                   {p.batch, p.seqlen, p.heads, p.headdim})
              : Tensor::contiguous(y.data(), DType::F32,
                                   {p.batch, p.seqlen, p.heads, p.headdim});
  out.finalState = Tensor::contiguous(finalState.data(), DType::F32,
                                      {p.batch, p.heads, p.headdim, p.dstate});
  if (features.sequenceOffsets)
    out.varlenStates = Tensor::contiguous(
        varlenStates.data(), DType::F32,
        {int64_t(cuSeqlens.size()) - 1, p.heads, p.headdim, p.dstate});
  return out;
}

void HostProblem::poisonOutputs() {
  std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
  // A bf16 quiet NaN's bits are a NaN in f16 too.
  std::fill(yHalf.begin(), yHalf.end(),
            toBF16(std::numeric_limits<float>::quiet_NaN()));
  std::fill(finalState.begin(), finalState.end(),
            std::numeric_limits<float>::quiet_NaN());
  std::fill(varlenStates.begin(), varlenStates.end(),
            std::numeric_limits<float>::quiet_NaN());
}

std::vector<float> HostProblem::yValues() const {
  if (yHalf.empty())
    return y;
  std::vector<float> values(yHalf.size());
  for (size_t i = 0; i < yHalf.size(); ++i)
    values[i] = features.inputDType == DType::F16 ? fromF16(yHalf[i])
                                                  : fromBF16(yHalf[i]);
  return values;
}

void *HostProblem::storedData(std::vector<uint16_t> &narrow,
                              std::vector<float> &wide) const {
  return features.inputDType == DType::F32 ? static_cast<void *>(wide.data())
                                           : narrow.data();
}

size_t HostProblem::storedBytes(const std::vector<uint16_t> &narrow,
                                const std::vector<float> &wide) const {
  return features.inputDType == DType::F32 ? wide.size() * sizeof(float)
                                           : narrow.size() * sizeof(uint16_t);
}
