//===- KernelTest.cpp - Mamba-2 kernels alone in the interpreter ---------===//
//
// chunk_state, state_passing, bmm_chunk and varlen_state (kernels/mamba2),
// each bound to tiles smaller than the problem and run in the interpreter on
// fresh random inputs (seed printed; TILEC_TEST_SEED replays it) with
// outputs poisoned, and compared element by element with what it must
// produce:
//   - chunk_state: each chunk's own state is the f64 recurrence
//     (referenceForward) run over that chunk's steps alone, from a zero
//     state; dt_chunks and G come from chunk_cumsum (dt as given), run
//     before it as in the forward pass. Ragged last chunk, several groups.
//   - state_passing: the recurrence over chunks h_{c+1} = exp2(G_last,c) h_c
//     + local_c, in f64, from random chunk states, decay exponents and an
//     initial state (or none).
//   - bmm_chunk: C B^T per chunk and group (f64 sums of the inputs'
//     values), bf16 and f32 inputs, several groups, a ragged last chunk
//     (zeros past seqlen), tiles cut by the diagonal; the tiles compute_out
//     does not read stay as poisoned.
//   - varlen_state: its check of the offsets it reads on the device. Each
//     way cu_seqlens can break the rules (or disagree with seq_idx) makes
//     the state of the sequences it concerns NaN, over outputs poisoned
//     with a finite value, and leaves every other sequence's bit for bit as
//     with good offsets (the values themselves are checked against the f64
//     recurrence by the forward tests, VarlenStatesTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/Reference.h"

#include "../Support/TestSeed.h"
#include "ForwardCheck.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;
namespace interp = tilec::interp;

namespace {

/// kernels/mamba2/<name>.mlir bound with `params`, compiled for the
/// interpreter; null (and a test failure) when any step fails.
std::unique_ptr<interp::Executable>
compileKernel(const std::string &name, const std::vector<std::string> &params) {
  std::ifstream file(std::string(TILEC_MAMBA2_KERNEL_DIR) + "/" + name +
                     ".mlir");
  std::stringstream text;
  text << file.rdbuf();
  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      text.str(), mlir::ParserConfig(&context));
  EXPECT_TRUE(module) << name << " does not parse";
  if (!module)
    return nullptr;
  mlir::PassManager pm(&context);
  mlir::tile::TileBindParamsOptions bind;
  bind.params.assign(params.begin(), params.end());
  pm.addPass(mlir::tile::createTileBindParams(bind));
  EXPECT_TRUE(mlir::succeeded(pm.run(*module))) << name << ": binding failed";
  auto kernel = module->lookupSymbol<mlir::tile::KernelOp>(name);
  EXPECT_TRUE(kernel) << name;
  if (!kernel)
    return nullptr;
  std::string error;
  auto executable = interp::Executable::compile(kernel, error);
  EXPECT_TRUE(executable) << error;
  return executable;
}

interp::HostView view(void *data, interp::DType dtype,
                      std::vector<int64_t> shape) {
  interp::HostView v;
  v.data = data;
  v.dtype = dtype;
  v.strides = interp::HostView::contiguousStrides(shape);
  v.shape = std::move(shape);
  return v;
}

interp::HostView f32View(std::vector<float> &buffer,
                         const std::vector<int64_t> &shape) {
  return view(buffer.data(), interp::DType::F32, shape);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// chunk_state's SCALED: the operand its weights scale (1: B, 2: x).
class ChunkStateKernel : public ::testing::TestWithParam<int> {};

TEST_P(ChunkStateKernel, EachChunkFromZero) {
  // batch, seqlen, heads, groups, headdim, dstate, chunk: 5 chunks, the last
  // one 44 steps; tiles smaller than headdim and dstate, ragged at both.
  const Problem p{2, 300, 4, 2, 40, 48, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  HostProblem host = HostProblem::random(p, seed);
  TileConfig tiles;
  tiles.blockH = 4;
  tiles.blockP = tiles.blockN = tiles.blockK = tiles.blockM = 16;
  tiles.chunkStateBlockP = 16;
  tiles.chunkStateBlockN = 32;
  tiles.chunkStateBlockK = 16;
  tiles.statePassingBlockP = tiles.statePassingBlockN = 16;
  const LaunchGrids grids = computeLaunchGrids(p, tiles);
  const std::string chunk = "CHUNK=" + std::to_string(p.chunk);
  auto cumsum = compileKernel(
      "chunk_cumsum", {chunk, "BLOCK_H=" + std::to_string(tiles.blockH)});
  auto chunkState = compileKernel(
      "chunk_state",
      {chunk, "BLOCK_P=" + std::to_string(tiles.chunkStateBlockP),
       "BLOCK_N=" + std::to_string(tiles.chunkStateBlockN),
       "BLOCK_K=" + std::to_string(tiles.chunkStateBlockK),
       "SCALED=" + std::to_string(GetParam())});
  ASSERT_TRUE(cumsum && chunkState);

  const int64_t nchunks = p.numChunks();
  std::vector<float> G(p.batch * p.heads * nchunks * p.chunk, kNaN);
  std::vector<float> dtChunks(G.size(), kNaN);
  std::vector<float> local(p.batch * nchunks * p.heads * p.headdim * p.dstate,
                           kNaN);
  const auto gView = f32View(G, {p.batch, p.heads, nchunks, p.chunk});
  const auto dtChunksView =
      f32View(dtChunks, {p.batch, p.heads, nchunks, p.chunk});
  const auto localView =
      f32View(local, {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  const auto x = view(host.x.data(), interp::DType::BF16,
                      {p.batch, p.seqlen, p.heads, p.headdim});
  const auto B = view(host.B.data(), interp::DType::BF16,
                      {p.batch, p.seqlen, p.groups, p.dstate});
  const auto dt = f32View(host.dt, {p.batch, p.seqlen, p.heads});
  // dt as given: no bias (an empty view), no softplus, no limit.
  const auto noBias = view(nullptr, interp::DType::F32, {0});
  const double inf = std::numeric_limits<double>::infinity();
  std::string error;
  ASSERT_TRUE(mlir::succeeded(cumsum->run(
      {dt, f32View(host.A, {p.heads}), noBias, interp::Scalar(int64_t(0)),
       interp::Scalar(-inf), interp::Scalar(inf), dtChunksView, gView},
      {grids.chunkCumsum}, error)))
      << error;
  ASSERT_TRUE(mlir::succeeded(chunkState->run(
      {x, B, dtChunksView, gView, view(nullptr, interp::DType::I32, {0, 0}),
       localView},
      {grids.chunkState}, error)))
      << error;

  // Per element within 8 sigma of one tf32 rounding per term (the scaled
  // operand, B or x times dt decay, as the mma operand; the other converts
  // exactly), the bound of ForwardCheck.h, which counts three; an element that lost or misplaced a term misses it by 10^3.
  const double elementBound = 8 * 0x1p-11;
  double worst = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t c = 0; c < nchunks; ++c)
      for (int64_t h = 0; h < p.heads; ++h) {
        Problem one;
        const int64_t begin = c * p.chunk;
        const int64_t end = std::min(begin + p.chunk, p.seqlen);
        Inputs in = headInputs(host, false, {b, h}, begin, end, one);
        ReferenceResult want;
        ASSERT_TRUE(referenceForward(one, in, want).ok());
        const float *got =
            &local[((b * nchunks + c) * p.heads + h) * p.headdim * p.dstate];
        for (int64_t i = 0; i < p.headdim * p.dstate; ++i) {
          const double error = std::abs(got[i] - want.finalState[i]);
          const double bound = elementBound * want.finalStateScale[i] +
                               0x1p-22 * std::abs(want.finalState[i]);
          ASSERT_TRUE(std::isfinite(got[i]) && error <= bound)
              << "local[" << b << ", " << c << ", " << h << "] element " << i
              << ": " << got[i] << ", want " << want.finalState[i]
              << " (bound " << bound << ")";
          worst = std::max(worst, error / bound);
        }
      }
  std::printf("worst element error / bound: %.3g\n", worst);
}

INSTANTIATE_TEST_SUITE_P(Scaled, ChunkStateKernel, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return info.param == 1 ? "B" : "x";
                         });

class StatePassingKernel : public ::testing::TestWithParam<bool> {};

TEST_P(StatePassingKernel, RecurrenceOverChunks) {
  const bool withInit = GetParam();
  // batch, heads, nchunks, chunk, headdim, dstate: blocks of 8 x 16 over
  // 20 x 40, ragged along both.
  const int64_t batch = 2, heads = 3, nchunks = 7, chunk = 64, headdim = 20,
                dstate = 40;
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> exponent(-4.f, 0.f);
  const int64_t stateSize = headdim * dstate;
  std::vector<float> local(batch * nchunks * heads * stateSize);
  std::vector<float> G(batch * heads * nchunks * chunk);
  std::vector<float> init(batch * heads * stateSize);
  for (float &v : local)
    v = normal(rng);
  for (float &v : G)
    v = exponent(rng);
  for (float &v : init)
    v = normal(rng);
  std::vector<float> states(local.size(), kNaN), final(init.size(), kNaN);

  TileConfig tiles;
  tiles.blockH = tiles.blockP = tiles.blockN = tiles.blockM = tiles.blockK =
      tiles.chunkStateBlockP = tiles.chunkStateBlockN =
          tiles.chunkStateBlockK = 16;
  tiles.statePassingBlockP = 8;
  tiles.statePassingBlockN = 16;
  const Problem p{batch, nchunks * chunk, heads, 1, headdim, dstate, chunk};
  auto statePassing = compileKernel(
      "state_passing",
      {"CHUNK=" + std::to_string(chunk),
       "BLOCK_P=" + std::to_string(tiles.statePassingBlockP),
       "BLOCK_N=" + std::to_string(tiles.statePassingBlockN)});
  ASSERT_TRUE(statePassing);
  const auto finalView = f32View(final, {batch, heads, headdim, dstate});
  std::string error;
  ASSERT_TRUE(mlir::succeeded(statePassing->run(
      {f32View(local, {batch, nchunks, heads, headdim, dstate}),
       f32View(G, {batch, heads, nchunks, chunk}),
       // No packed sequences: an empty seq_idx reads as one sequence.
       view(nullptr, interp::DType::I32, {0, 0}),
       withInit ? f32View(init, {batch, heads, headdim, dstate}) : finalView,
       interp::Scalar(int64_t(withInit)),
       f32View(states, {batch, nchunks, heads, headdim, dstate}), finalView},
      {computeLaunchGrids(p, tiles).statePassing}, error)))
      << error;

  // f64, with the sum of the terms' magnitudes beside each element: an f32
  // step (exp2, a product, a sum) adds at most 3 roundings of 2^-24 relative
  // to that sum, so after c chunks an element is within 4 c 2^-24 of it.
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < stateSize; ++i) {
        double want = withInit ? init[(b * heads + h) * stateSize + i] : 0;
        double magnitude = std::abs(want);
        for (int64_t c = 0; c <= nchunks; ++c) {
          const float got =
              c < nchunks
                  ? states[((b * nchunks + c) * heads + h) * stateSize + i]
                  : final[(b * heads + h) * stateSize + i];
          const double bound = 4 * (c + 1) * 0x1p-24 * magnitude;
          ASSERT_TRUE(std::isfinite(got) && std::abs(got - want) <= bound)
              << "batch " << b << ", head " << h << ", element " << i
              << (c < nchunks ? ", entering chunk " : ", final after chunk ")
              << c << ": " << got << ", want " << want;
          if (c == nchunks)
            break;
          const double decay =
              std::exp2(double(G[((b * heads + h) * nchunks + c) * chunk +
                                 chunk - 1]));
          const double term =
              local[((b * nchunks + c) * heads + h) * stateSize + i];
          want = decay * want + term;
          magnitude = decay * magnitude + std::abs(term);
        }
      }
}

INSTANTIATE_TEST_SUITE_P(InitialState, StatePassingKernel, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "with" : "without";
                         });


/// bmm_chunk alone with x, B and C in bf16 (false) or f32 (true).
class BmmChunkKernel : public ::testing::TestWithParam<bool> {};

TEST_P(BmmChunkKernel, CBOnAndBelowTheDiagonal) {
  const bool f32Inputs = GetParam();
  // batch, seqlen, heads, groups, headdim, dstate, chunk: 3 chunks, the last
  // one 22 steps; tiles of 32 x 16 rows x columns (BLOCK_M != BLOCK_K, so
  // the diagonal cuts tiles), dstate 40 walked in steps of 16 (ragged).
  const Problem p{2, 150, 4, 2, 8, 40, 64};
  const uint64_t seed = tilec::testing::testSeed();
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  // The kernel's grid for BLOCK_M x BLOCK_K tiles (the library binds
  // BLOCK_K = BLOCK_M; the kernel takes any BLOCK_K dividing the chunk).
  TileConfig tiles;
  tiles.blockM = 32;
  tiles.blockK = 16;
  const int64_t blockN = 16;
  auto bmm = compileKernel(
      "bmm_chunk",
      {"CHUNK=" + std::to_string(p.chunk),
       "BLOCK_M=" + std::to_string(tiles.blockM),
       "BLOCK_K=" + std::to_string(tiles.blockK),
       "BLOCK_N=" + std::to_string(blockN),
       std::string("XT=") + (f32Inputs ? "f32" : "bf16")});
  ASSERT_TRUE(bmm);

  // B and C as the kernel reads them (f32 or bf16 bits) and their values.
  const int64_t size = p.batch * p.seqlen * p.groups * p.dstate;
  std::vector<float> bValues(size), cValues(size);
  std::vector<float> bF32(size), cF32(size);
  std::vector<uint16_t> bBf16(size), cBf16(size);
  for (int64_t i = 0; i < size; ++i) {
    bF32[i] = normal(rng);
    cF32[i] = normal(rng);
    bBf16[i] = toBF16(bF32[i]);
    cBf16[i] = toBF16(cF32[i]);
    bValues[i] = f32Inputs ? bF32[i] : fromBF16(bBf16[i]);
    cValues[i] = f32Inputs ? cF32[i] : fromBF16(cBf16[i]);
  }
  const interp::DType dtype =
      f32Inputs ? interp::DType::F32 : interp::DType::BF16;
  const std::vector<int64_t> shape = {p.batch, p.seqlen, p.groups, p.dstate};
  const auto B = view(f32Inputs ? (void *)bF32.data() : bBf16.data(), dtype,
                      shape);
  const auto C = view(f32Inputs ? (void *)cF32.data() : cBf16.data(), dtype,
                      shape);
  const int64_t nchunks = p.numChunks();
  std::vector<float> cb(p.batch * nchunks * p.groups * p.chunk * p.chunk,
                        kNaN);
  std::string error;
  ASSERT_TRUE(mlir::succeeded(bmm->run(
      {B, C, f32View(cb, {p.batch, nchunks, p.groups, p.chunk, p.chunk})},
      {{nchunks * (p.chunk / tiles.blockM) * (p.chunk / tiles.blockK),
        p.groups, p.batch}},
      error)))
      << error;

  // compute_out's column tiles of row i: those below the end of i's row
  // tile. Every element there is the f64 sum within (dstate + 1) f32
  // roundings of the terms' magnitudes (bf16 products are exact, f32 ones
  // round once); 0 past seqlen. Every other element is not written.
  auto value = [&](const std::vector<float> &v, int64_t b, int64_t t,
                   int64_t g, int64_t n) {
    return double(v[((b * p.seqlen + t) * p.groups + g) * p.dstate + n]);
  };
  int64_t checked = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t c = 0; c < nchunks; ++c)
      for (int64_t g = 0; g < p.groups; ++g)
        for (int64_t i = 0; i < p.chunk; ++i) {
          const int64_t rowEnd = (i / tiles.blockM + 1) * tiles.blockM;
          const int64_t readEnd =
              (rowEnd + tiles.blockK - 1) / tiles.blockK * tiles.blockK;
          ASSERT_GT(readEnd, i) << "the diagonal is read";
          for (int64_t j = 0; j < p.chunk; ++j) {
            const float got =
                cb[(((b * nchunks + c) * p.groups + g) * p.chunk + i) *
                       p.chunk +
                   j];
            const std::string where =
                "CB[" + std::to_string(b) + ", " + std::to_string(c) + ", " +
                std::to_string(g) + ", " + std::to_string(i) + ", " +
                std::to_string(j) + "]";
            if (j >= readEnd) {
              ASSERT_TRUE(std::isnan(got)) << where << " written: " << got;
              continue;
            }
            const int64_t ti = c * p.chunk + i, tj = c * p.chunk + j;
            double want = 0, magnitude = 0;
            if (ti < p.seqlen && tj < p.seqlen)
              for (int64_t n = 0; n < p.dstate; ++n) {
                const double term =
                    value(cValues, b, ti, g, n) * value(bValues, b, tj, g, n);
                want += term;
                magnitude += std::abs(term);
              }
            const double bound = (p.dstate + 1) * 0x1p-24 * magnitude;
            ASSERT_TRUE(std::isfinite(got) && std::abs(got - want) <= bound)
                << where << ": " << got << ", want " << want << " (bound "
                << bound << ")";
            ++checked;
          }
        }
  // The tiles on and below the diagonal: 32 x 16 tiles, row tile r reads
  // column tiles 0 .. 2 r + 1, i.e. 3/4 of each 64 x 64 chunk.
  EXPECT_EQ(checked, p.batch * nchunks * p.groups * p.chunk * p.chunk * 3 / 4);
}

INSTANTIATE_TEST_SUITE_P(Inputs, BmmChunkKernel, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "f32" : "bf16";
                         });


/// varlen_state alone on random f32 inputs of one packed row (seqlen 100,
/// chunk 64), tiles of 16 over headdim 20 and dstate 24.
class VarlenStateKernel : public ::testing::Test {
protected:
  static constexpr int64_t seqlen = 100, heads = 2, headdim = 20, dstate = 24,
                           chunk = 64, nchunks = 2, tile = 16;
  /// Written over the outputs before each run: finite, so that a NaN in
  /// the result was written by the kernel.
  static constexpr float kPoison = 12345.0f;

  VarlenStateKernel() : rng(seed) {
    std::normal_distribution<float> normal;
    std::uniform_real_distribution<float> step(0.01f, 0.1f);
    x.resize(seqlen * heads * headdim);
    B.resize(seqlen * dstate);
    dt.resize(heads * nchunks * chunk);
    G.resize(dt.size());
    states.resize(nchunks * heads * headdim * dstate);
    for (std::vector<float> *v : {&x, &B, &states})
      for (float &e : *v)
        e = normal(rng);
    // G falls along each chunk (A dt log2 e with A < 0).
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t c = 0; c < nchunks; ++c) {
        float g = 0;
        for (int64_t t = 0; t < chunk; ++t) {
          const int64_t i = (h * nchunks + c) * chunk + t;
          dt[i] = step(rng);
          g -= dt[i];
          G[i] = g;
        }
      }
    kernel = compileKernel("varlen_state",
                           {"BLOCK_P=16", "BLOCK_N=16", "BLOCK_K=16",
                            "XT=f32"});
  }

  /// The kernel's states for `offsets` and `sequences` (seq_idx).
  std::vector<float> run(std::vector<int32_t> offsets,
                         std::vector<int32_t> sequences) {
    const int64_t nseq = int64_t(offsets.size()) - 1;
    std::vector<float> varlen(nseq * heads * headdim * dstate, kPoison);
    const int64_t tiles = ((headdim + tile - 1) / tile) *
                          ((dstate + tile - 1) / tile);
    std::string error;
    EXPECT_TRUE(mlir::succeeded(kernel->run(
        {f32View(x, {1, seqlen, heads, headdim}),
         f32View(B, {1, seqlen, 1, dstate}),
         f32View(dt, {1, heads, nchunks, chunk}),
         f32View(G, {1, heads, nchunks, chunk}),
         f32View(states, {1, nchunks, heads, headdim, dstate}),
         view(sequences.data(), interp::DType::I32, {1, seqlen}),
         view(offsets.data(), interp::DType::I32, {nseq + 1}),
         f32View(varlen, {nseq, heads, headdim, dstate})},
        {{nseq * tiles, heads, 1}}, error)))
        << error;
    return varlen;
  }

  /// seq_idx for `offsets` that keep the rules.
  static std::vector<int32_t> sequencesOf(const std::vector<int32_t> &offsets) {
    std::vector<int32_t> sequences(seqlen);
    for (size_t s = 0; s + 1 < offsets.size(); ++s)
      for (int32_t t = offsets[s]; t < offsets[s + 1]; ++t)
        sequences[t] = int32_t(s);
    return sequences;
  }

  /// Sequence `s` of `got` is NaN throughout (`nan`) or, bit for bit,
  /// sequence `s` of `want`.
  static ::testing::AssertionResult
  sequenceIs(const std::vector<float> &got, const std::vector<float> &want,
             int64_t s, bool nan) {
    const int64_t size = heads * headdim * dstate;
    for (int64_t i = s * size; i < (s + 1) * size; ++i) {
      const bool ok = nan ? std::isnan(got[i])
                          : std::memcmp(&got[i], &want[i], 4) == 0;
      if (!ok)
        return ::testing::AssertionFailure()
               << "sequence " << s << ", element " << i - s * size << ": "
               << got[i] << (nan ? ", want NaN" : ", want ") << want[i];
    }
    return ::testing::AssertionSuccess();
  }

  const uint64_t seed = tilec::testing::testSeed();
  std::mt19937_64 rng;
  std::vector<float> x, B, dt, G, states;
  std::unique_ptr<interp::Executable> kernel;
};

TEST_F(VarlenStateKernel, BadOffsetsGiveNaNStates) {
  SCOPED_TRACE(tilec::testing::seedTrace(seed));
  ASSERT_TRUE(kernel);
  const std::vector<int32_t> good = {0, 30, 64, 100};
  const std::vector<int32_t> goodSequences = sequencesOf(good);
  const std::vector<float> want = run(good, goodSequences);
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t i = 0; i < heads * headdim * dstate; ++i)
      ASSERT_TRUE(std::isfinite(want[s * heads * headdim * dstate + i]) &&
                  want[s * heads * headdim * dstate + i] != kPoison)
          << "good offsets: sequence " << s << " element " << i;

  struct Case {
    const char *what;
    std::vector<int32_t> offsets;
    /// seq_idx: good's unless given.
    std::vector<int32_t> sequences;
    /// The sequences whose state must be NaN.
    std::vector<bool> nan;
  };
  std::vector<int32_t> startMismatch = goodSequences;
  startMismatch[64] = 1;
  std::vector<int32_t> endMismatch = goodSequences;
  endMismatch[29] = 1;
  const Case cases[] = {
      {"first offset not 0", {5, 30, 64, 100}, {}, {true, false, false}},
      {"last offset not seqlen", {0, 30, 64, 99}, {}, {false, false, true}},
      {"last offset past seqlen", {0, 30, 64, 101}, {}, {false, false, true}},
      {"an empty sequence", {0, 30, 30, 100}, {}, {false, true, true}},
      {"decreasing", {0, 64, 30, 100}, {}, {true, true, true}},
      {"negative", {0, -5, 64, 100}, {}, {true, true, false}},
      {"seq_idx differs at a sequence's first step", good, startMismatch,
       {false, false, true}},
      {"seq_idx differs at a sequence's last step", good, endMismatch,
       {true, false, false}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    const std::vector<float> got =
        run(c.offsets, c.sequences.empty() ? goodSequences : c.sequences);
    for (int64_t s = 0; s < 3; ++s)
      EXPECT_TRUE(sequenceIs(got, want, s, c.nan[s]));
  }
}

} // namespace
