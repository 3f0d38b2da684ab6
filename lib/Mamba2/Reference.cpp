//===- Reference.cpp - the Mamba-2 recurrence in f64 ------------*- C++ -*-===//

#include "tilec/mamba2/Reference.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <random>

using namespace tilec::mamba2;

namespace {

/// Element `index` of a validated host tensor (f32 or bf16) as a double.
double element(const Tensor &tensor, std::initializer_list<int64_t> index) {
  int64_t offset = 0;
  size_t d = 0;
  for (int64_t i : index)
    offset += i * tensor.strides[d++];
  if (tensor.dtype == DType::BF16)
    return fromBF16(static_cast<const uint16_t *>(tensor.data)[offset]);
  return static_cast<const float *>(tensor.data)[offset];
}

} // namespace

Status tilec::mamba2::referenceForward(const Problem &p, const Inputs &in,
                                       ReferenceResult &result) {
  if (Status status = validateInputs(p, in); !status)
    return status;
  const int64_t P = p.headdim, N = p.dstate;
  const int64_t headsPerGroup = p.heads / p.groups;
  result.y.assign(p.batch * p.seqlen * p.heads * P, 0.0);
  result.finalState.assign(p.batch * p.heads * P * N, 0.0);
  std::vector<double> x(P), b(N), c(N);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t g = h / headsPerGroup;
      double *state = &result.finalState[(bi * p.heads + h) * P * N];
      if (in.initialState)
        for (int64_t i = 0; i < P; ++i)
          for (int64_t j = 0; j < N; ++j)
            state[i * N + j] = element(*in.initialState, {bi, h, i, j});
      const double a = element(in.A, {h}), d = element(in.D, {h});
      for (int64_t t = 0; t < p.seqlen; ++t) {
        const double dt = element(in.dt, {bi, t, h});
        const double decay = std::exp(a * dt);
        for (int64_t i = 0; i < P; ++i)
          x[i] = element(in.x, {bi, t, h, i});
        for (int64_t j = 0; j < N; ++j) {
          b[j] = element(in.B, {bi, t, g, j});
          c[j] = element(in.C, {bi, t, g, j});
        }
        double *y = &result.y[((bi * p.seqlen + t) * p.heads + h) * P];
        for (int64_t i = 0; i < P; ++i) {
          double *row = &state[i * N];
          double acc = 0.0;
          for (int64_t j = 0; j < N; ++j) {
            row[j] = decay * row[j] + dt * x[i] * b[j];
            acc += row[j] * c[j];
          }
          y[i] = acc + d * x[i];
        }
      }
    }
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

HostProblem HostProblem::random(const Problem &p, uint64_t seed) {
  HostProblem data;
  data.problem = p;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::normal_distribution<float> dtLogit(-2.0f, 1.0f);
  std::uniform_real_distribution<float> logA(0.0f, std::log(16.0f));
  std::uniform_real_distribution<float> skip(0.5f, 1.5f);
  auto bf16Normal = [&](std::vector<uint16_t> &buffer, int64_t count) {
    buffer.resize(count);
    for (uint16_t &v : buffer)
      v = toBF16(normal(rng));
  };
  const int64_t tokens = p.batch * p.seqlen;
  bf16Normal(data.x, tokens * p.heads * p.headdim);
  bf16Normal(data.B, tokens * p.groups * p.dstate);
  bf16Normal(data.C, tokens * p.groups * p.dstate);
  data.dt.resize(tokens * p.heads);
  for (float &v : data.dt)
    v = std::log1p(std::exp(dtLogit(rng)));
  data.A.resize(p.heads);
  for (float &v : data.A)
    v = -std::exp(logA(rng));
  data.D.resize(p.heads);
  for (float &v : data.D)
    v = skip(rng);
  data.initialState.resize(p.batch * p.heads * p.headdim * p.dstate);
  for (float &v : data.initialState)
    v = normal(rng);
  data.y.resize(tokens * p.heads * p.headdim);
  data.finalState.resize(data.initialState.size());
  return data;
}

Inputs HostProblem::inputs(bool withInitialState) {
  const Problem &p = problem;
  Inputs in;
  in.x = Tensor::contiguous(x.data(), DType::BF16,
                            {p.batch, p.seqlen, p.heads, p.headdim});
  in.dt = Tensor::contiguous(dt.data(), DType::F32,
                             {p.batch, p.seqlen, p.heads});
  in.A = Tensor::contiguous(A.data(), DType::F32, {p.heads});
  in.B = Tensor::contiguous(B.data(), DType::BF16,
                            {p.batch, p.seqlen, p.groups, p.dstate});
  in.C = Tensor::contiguous(C.data(), DType::BF16,
                            {p.batch, p.seqlen, p.groups, p.dstate});
  in.D = Tensor::contiguous(D.data(), DType::F32, {p.heads});
  if (withInitialState)
    in.initialState =
        Tensor::contiguous(initialState.data(), DType::F32,
                           {p.batch, p.heads, p.headdim, p.dstate});
  return in;
}

Outputs HostProblem::outputs() {
  const Problem &p = problem;
  Outputs out;
  out.y = Tensor::contiguous(y.data(), DType::F32,
                             {p.batch, p.seqlen, p.heads, p.headdim});
  out.finalState = Tensor::contiguous(finalState.data(), DType::F32,
                                      {p.batch, p.heads, p.headdim, p.dstate});
  return out;
}

void HostProblem::poisonOutputs() {
  std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
  std::fill(finalState.begin(), finalState.end(),
            std::numeric_limits<float>::quiet_NaN());
}
