//===- CApiTesting.cpp - C ABI arguments for the tests ----------*- C++ -*-===//

#include "CApiTesting.h"

using namespace tilec::mamba2::testing;

CTensor::CTensor(void *data, tilec_mamba2_dtype dtype,
                 std::vector<int64_t> shape)
    : shape(std::move(shape)) {
  descriptor.data = data;
  descriptor.dtype = dtype;
  descriptor.rank = int32_t(this->shape.size());
  strides.assign(this->shape.size(), 1);
  for (size_t d = this->shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * this->shape[d];
}

CTensor::CTensor(const Tensor &t) : shape(t.shape), strides(t.strides) {
  descriptor.data = t.data;
  descriptor.dtype = t.dtype == DType::F32    ? TILEC_MAMBA2_F32
                     : t.dtype == DType::BF16 ? TILEC_MAMBA2_BF16
                                              : TILEC_MAMBA2_F16;
  descriptor.rank = int32_t(shape.size());
  get();
}

const tilec_mamba2_tensor *CTensor::get() {
  descriptor.shape = shape.data();
  descriptor.strides = nullStrides ? nullptr : strides.data();
  return &descriptor;
}

CArguments CArguments::fake(const tilec_mamba2_problem &p) {
  CArguments args;
  args.problem = p;
  uintptr_t next = uintptr_t(1) << 40;
  auto address = [&] {
    next += uintptr_t(1) << 32;
    return reinterpret_cast<void *>(next);
  };
  const std::vector<int64_t> tokens = {p.batch, p.seqlen, p.heads, p.headdim};
  const std::vector<int64_t> groups = {p.batch, p.seqlen, p.groups, p.dstate};
  const std::vector<int64_t> state = {p.batch, p.heads, p.headdim, p.dstate};
  args.x = CTensor(address(), TILEC_MAMBA2_BF16, tokens);
  args.dt = CTensor(address(), TILEC_MAMBA2_F32, {p.batch, p.seqlen, p.heads});
  args.A = CTensor(address(), TILEC_MAMBA2_F32, {p.heads});
  args.B = CTensor(address(), TILEC_MAMBA2_BF16, groups);
  args.C = CTensor(address(), TILEC_MAMBA2_BF16, groups);
  args.D = CTensor(address(), TILEC_MAMBA2_F32, {p.heads});
  args.initialState = CTensor(address(), TILEC_MAMBA2_F32, state);
  args.y = CTensor(address(), TILEC_MAMBA2_F32, tokens);
  args.finalState = CTensor(address(), TILEC_MAMBA2_F32, state);
  args.z = CTensor(address(), TILEC_MAMBA2_BF16, tokens);
  args.dtBias = CTensor(address(), TILEC_MAMBA2_F32, {p.heads});
  const int64_t nchunks = p.seqlen / p.chunk + (p.seqlen % p.chunk != 0);
  args.chunkStates = CTensor(address(), TILEC_MAMBA2_F32,
                             {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  args.seqIdx = CTensor(address(), TILEC_MAMBA2_I32, {p.batch, p.seqlen});
  args.options.size = sizeof(tilec_mamba2_options);
  return args;
}

int CArguments::forwardWithOptions(bool withOptions) {
  options.z = withZ ? z.get() : nullptr;
  options.dt_bias = withDtBias ? dtBias.get() : nullptr;
  options.chunk_states = withChunkStates ? chunkStates.get() : nullptr;
  options.seq_idx = withSeqIdx ? seqIdx.get() : nullptr;
  options.cu_seqlens = withCuSeqlens ? cuSeqlens.get() : nullptr;
  options.varlen_states = withVarlenStates ? varlenStates.get() : nullptr;
  return tilec_mamba2_forward_with_options(
      &problem, x.get(), dt.get(), A.get(), B.get(), C.get(), D.get(),
      withInitialState ? initialState.get() : nullptr, y.get(),
      withFinalState ? finalState.get() : nullptr,
      withOptions ? &options : nullptr, workspace, workspaceBytes, stream);
}

int CArguments::forward() {
  return tilec_mamba2_forward(
      &problem, x.get(), dt.get(), A.get(), B.get(), C.get(), D.get(),
      withInitialState ? initialState.get() : nullptr, y.get(),
      withFinalState ? finalState.get() : nullptr, workspace, workspaceBytes,
      stream);
}
