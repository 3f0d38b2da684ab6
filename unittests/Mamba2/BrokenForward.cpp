//===- BrokenForward.cpp - deliberately wrong forward passes ----*- C++ -*-===//

#include "BrokenForward.h"
#include "ForwardCheck.h"

#include <algorithm>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

const char *tilec::mamba2::testing::breakageName(Breakage breakage) {
  switch (breakage) {
  case Breakage::StateNotCarried:
    return "state not carried between chunks";
  case Breakage::InitialStateIgnored:
    return "initial state ignored";
  case Breakage::ChunkShifted:
    return "one chunk shifted by a time step";
  case Breakage::Bf16State:
    return "bf16 state between chunks";
  }
  return "?";
}

bool tilec::mamba2::testing::breakageApplies(Breakage breakage,
                                             const Problem &p,
                                             bool withInitialState) {
  switch (breakage) {
  case Breakage::StateNotCarried:
    return p.numChunks() > 1;
  case Breakage::InitialStateIgnored:
    return withInitialState;
  case Breakage::ChunkShifted:
  case Breakage::Bf16State:
    return true;
  }
  return false;
}

namespace {

/// One (batch, head) chunk by chunk: chunk c starts from the state after
/// chunk c-1 passed through carry, chunk 0 from the initial state; the final
/// state is the last chunk's passed through finish.
template <typename Carry, typename Finish>
void chunkByChunk(HostProblem &host, bool withInitialState, BatchHead at,
                  Carry carry, Finish finish) {
  const Problem &p = host.problem;
  std::vector<float> state;
  for (int64_t c = 0; c < p.numChunks(); ++c) {
    const int64_t begin = c * p.chunk,
                  end = std::min(p.seqlen, begin + p.chunk);
    Problem one;
    Inputs in = headInputs(host, withInitialState && c == 0, at, begin, end,
                           one);
    if (c > 0) {
      carry(state);
      in.initialState = Tensor::contiguous(state.data(), DType::F32,
                                           {1, 1, p.headdim, p.dstate});
    }
    ReferenceResult part;
    if (!referenceForward(one, in, part).ok())
      return;
    for (int64_t t = begin; t < end; ++t)
      std::copy_n(&part.y[(t - begin) * p.headdim], p.headdim,
                  &host.y[yOffset(p, at, t)]);
    state.assign(part.finalState.begin(), part.finalState.end());
  }
  finish(state);
  std::copy(state.begin(), state.end(), &host.finalState[stateOffset(p, at)]);
}

} // namespace

void tilec::mamba2::testing::brokenForward(HostProblem &host,
                                           bool withInitialState,
                                           Breakage breakage) {
  const Problem &p = host.problem;
  for (BatchHead at : allBatchHeads(p)) {
    switch (breakage) {
    case Breakage::StateNotCarried:
      chunkByChunk(
          host, withInitialState, at,
          [](std::vector<float> &state) {
            std::fill(state.begin(), state.end(), 0.0f);
          },
          [](std::vector<float> &) {});
      break;
    case Breakage::Bf16State: {
      auto round = [](std::vector<float> &state) {
        for (float &v : state)
          v = fromBF16(toBF16(v));
      };
      chunkByChunk(host, withInitialState, at, round, round);
      break;
    }
    case Breakage::InitialStateIgnored:
    case Breakage::ChunkShifted: {
      ReferenceResult want = headReference(
          host, withInitialState && breakage != Breakage::InitialStateIgnored,
          at);
      for (int64_t t = 0; t < p.seqlen; ++t)
        std::copy_n(&want.y[t * p.headdim], p.headdim,
                    &host.y[yOffset(p, at, t)]);
      std::copy(want.finalState.begin(), want.finalState.end(),
                &host.finalState[stateOffset(p, at)]);
      if (breakage == Breakage::ChunkShifted) {
        const int64_t begin = p.numChunks() / 2 * p.chunk,
                      end = std::min(p.seqlen, begin + p.chunk);
        for (int64_t t = begin; t + 1 < end; ++t)
          std::copy_n(&want.y[(t + 1) * p.headdim], p.headdim,
                      &host.y[yOffset(p, at, t)]);
      }
      break;
    }
    }
  }
}
