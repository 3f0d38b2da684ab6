//===- Mamba2.h - the Mamba-2 forward pass ----------------------*- C++ -*-===//
//
// The chunked Mamba-2 forward pass (docs/mamba2.md) on tensors in mamba_ssm's
// layouts. The problem description, the tensor descriptors and their
// validation are shared by every device: `forwardCpu` runs the tile kernels
// in the interpreter (library TilecMamba2Cpu); a GPU path takes the
// same arguments. This header depends on the C++ standard library (and
// tilec's plain C++ DType.h) only, so that a library built on it does not
// need LLVM or MLIR at run time.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_MAMBA2_MAMBA2_H
#define TILEC_MAMBA2_MAMBA2_H

#include "tilec/Support/DType.h"

#include <cstdint>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tilec::mamba2 {

/// Element types of the tensors in memory, tilec's (each tensor's
/// validation names the ones it takes; I32: the sequence index and offsets
/// only).
using tilec::DType;
using tilec::dtypeName;
using tilec::dtypeSize;

/// The sizes of one forward pass. Heads are split into `groups` groups of
/// heads / groups consecutive heads; the heads of a group share B and C.
struct Problem {
  int64_t batch = 0;
  int64_t seqlen = 0;
  int64_t heads = 0;
  int64_t groups = 0;
  /// P: the size of each head's input and output vectors.
  int64_t headdim = 0;
  /// N: the size of B, C and of the second axis of each head's state.
  int64_t dstate = 0;
  /// Time steps per chunk: 64, 128 or 256.
  int64_t chunk = 0;

  /// Chunks per sequence; the last one is partial when chunk does not divide
  /// seqlen. For positive sizes; no overflow up to seqlen = INT64_MAX.
  int64_t numChunks() const { return seqlen / chunk + (seqlen % chunk != 0); }
};

/// A strided array in the memory of the device that runs the pass. Shape and
/// strides are in elements; strides may be any non-negative values (a
/// broadcast input may use stride 0; an output may not).
struct Tensor {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  /// A row-major tensor of `shape` at `data`.
  static Tensor contiguous(void *data, DType dtype, std::vector<int64_t> shape);
  int64_t numElements() const;
};

/// The clamp of dt after bias and softplus (mamba_ssm's dt_limit): dt <-
/// min(max(dt, low), high). The default clamps nothing; mamba_ssm's default
/// is {0, +inf}.
struct DtLimit {
  float low = -std::numeric_limits<float>::infinity();
  float high = std::numeric_limits<float>::infinity();
};

/// What the forward pass reads (the dtypes are the ones supported).
struct Inputs {
  /// (batch, seqlen, heads, headdim) bf16, f16 or f32: the dtype of B, C and
  /// z too (the kernels have an instance for each).
  Tensor x;
  /// (batch, seqlen, heads) f32, bf16 or f16: the time steps, raw: the
  /// pass uses clamp(softplus(dt + dtBias)) (each part as asked for below),
  /// computed in f32.
  Tensor dt;
  /// (heads) f32: the (negative) decay rates.
  Tensor A;
  /// (batch, seqlen, groups, dstate), x's dtype.
  Tensor B;
  /// (batch, seqlen, groups, dstate), x's dtype.
  Tensor C;
  /// (heads) f32, one per head, or (heads, headdim) f32, one per channel:
  /// the skip connection y += D x.
  Tensor D;
  /// (batch, heads, headdim, dstate) f32: the state before the first time
  /// step; zero when absent.
  std::optional<Tensor> initialState;

  // mamba_ssm's options (docs/mamba2.md). The defaults change nothing.

  /// (heads) f32: added to dt before softplus; absent: no bias.
  std::optional<Tensor> dtBias;
  /// dt <- softplus(dt + dtBias), mamba_ssm's: log1p(exp(v)) for v <= 20,
  /// v above.
  bool dtSoftplus = false;
  /// Applied after bias and softplus.
  DtLimit dtLimit;
  /// (batch, seqlen, heads, headdim), x's dtype: the gate y <- y *
  /// silu(z), applied after D; absent: no gate.
  std::optional<Tensor> z;
  /// (batch, seqlen) i32, mamba_ssm's seq_idx: the sequence of each time
  /// step of a row that packs several, non-decreasing along each row. No
  /// state and no output mixes steps of two sequences; the initial state is
  /// that of sequence 0 (a row whose first step is of another sequence
  /// starts from zero). The four-kernel structure only. forwardCpu checks
  /// that it does not decrease; on the GPU that is the caller's contract,
  /// as in mamba_ssm (a decreasing one gives unspecified results, no fault).
  /// Absent: each row is one sequence.
  std::optional<Tensor> seqIdx;
  /// (nseq + 1) i32 in the memory of the device that runs the pass (host
  /// memory for forwardCpu, device memory for forwardGpu), mamba_ssm's
  /// cu_seqlens: the sequences packed into the one row (batch 1), sequence
  /// s being steps [cu[s], cu[s + 1]), with 0 = cu[0] < cu[1] < ... <
  /// cu[nseq] = seqlen. Needs seqIdx, consistent with it: seq_idx[0, t] = s
  /// on sequence s's steps. forwardCpu refuses offsets that break this; on
  /// the GPU the kernel reads them and writes NaN for the varlen state of
  /// a sequence whose offsets break it (no host read, so a pass with
  /// offsets can be captured in a CUDA graph). What Outputs::varlenStates
  /// needs.
  std::optional<Tensor> cuSeqlens;
  /// mamba_ssm's state_dtype: the dtype the state entering each chunk is
  /// stored in between the kernels that write it (state_passing,
  /// fwd_pass_state) and those that read it (compute_out, varlen_state),
  /// and so Outputs::chunkStates' dtype. F32 (the default) or BF16 (with x
  /// in bf16: the kernels are built for that pair), which halves those
  /// bytes: each stored state is the f32 recurrence's rounded once to
  /// nearest even, and compute_out's state term becomes a bf16 product.
  /// The recurrence itself, the final state and the varlen states stay f32.
  DType stateDtype = DType::F32;

  /// The number of sequences cuSeqlens gives (0 without it); for validated
  /// inputs.
  int64_t numSequences() const {
    return cuSeqlens && !cuSeqlens->shape.empty() ? cuSeqlens->shape[0] - 1
                                                  : 0;
  }
};

/// What the forward pass writes.
struct Outputs {
  /// (batch, seqlen, heads, headdim) f32, or x's dtype (as mamba_ssm
  /// returns it): the kernel rounds its f32 result once when it stores it.
  Tensor y;
  /// (batch, heads, headdim, dstate) f32: the state after the last time
  /// step; not computed into user memory when absent.
  std::optional<Tensor> finalState;
  /// (batch, nchunks, heads, headdim, dstate) in Inputs::stateDtype (f32
  /// by default): the state entering each chunk (mamba_ssm's `states`, what
  /// a backward pass needs); kept in the workspace, not in user memory, when
  /// absent.
  std::optional<Tensor> chunkStates;
  /// (nseq, heads, headdim, dstate) f32: the state after the last step of
  /// each sequence of Inputs::cuSeqlens (mamba_ssm's return_varlen_states),
  /// computed by the varlen_state kernel, one launch for every sequence.
  std::optional<Tensor> varlenStates;
};

/// Success, or an error with a message for the user.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  /// Empty on success.
  const std::string &message() const { return text; }

private:
  Status() = default;
  bool failed = false;
  std::string text;
};

/// Tile sizes of the kernels (docs/mamba2.md). Zero lets the device choose.
/// Every size is a power of two; blockM and blockK divide the chunk.
struct TileConfig {
  /// chunk_cumsum: heads per program.
  int64_t blockH = 0;
  /// fwd_pass_state and compute_out: head-dimension (P) tile.
  int64_t blockP = 0;
  /// fwd_pass_state and compute_out: state-dimension (N) tile.
  int64_t blockN = 0;
  /// compute_out: time steps (rows) per program.
  int64_t blockM = 0;
  /// fwd_pass_state and compute_out: time steps per step of the walk along
  /// a chunk (compute_out: columns).
  int64_t blockK = 0;
  /// chunk_state: the head-dimension (P) tile of a chunk's own state.
  int64_t chunkStateBlockP = 0;
  /// chunk_state: its state-dimension (N) tile.
  int64_t chunkStateBlockN = 0;
  /// chunk_state: time steps per step of its walk along the chunk.
  int64_t chunkStateBlockK = 0;
  /// state_passing: the head-dimension (P) extent of a program's block of
  /// the state.
  int64_t statePassingBlockP = 0;
  /// state_passing: the state-dimension (N) extent of that block.
  int64_t statePassingBlockN = 0;
};

/// How the state entering each chunk is computed (docs/mamba2.md); y and the
/// final state are the same function of the inputs either way, up to
/// rounding.
enum class ForwardStructure {
  /// chunk_cumsum, chunk_state (each chunk's own state, all chunks in
  /// parallel), state_passing (the states combined along the chunks,
  /// elementwise), compute_out. The default.
  FourKernels,
  /// chunk_cumsum, fwd_pass_state (one program per state tile walks every
  /// chunk in order), compute_out.
  ThreeKernels,
};

/// The dtype of x, B, C and z the kernels run with: x's when it is one of
/// theirs (bf16, f16, f32), else bf16 (and validation refuses x).
DType inputElementType(const Inputs &inputs);

/// Checks the problem (positive sizes, heads % groups == 0, chunk in
/// {64, 128, 256}) and every input, in the order x, dt, A, B, C, D, initial
/// state, dt bias, z, seq idx, cu seqlens: non-null data, supported dtype,
/// the rank and shape the problem implies, non-negative strides; cu seqlens'
/// values (host memory: 0 first, seqlen last, increasing), with batch 1 and
/// a seq idx; then the dt limit (no NaN, low <= high), then the state dtype
/// (f32, or bf16 with a bf16 x).
Status validateInputs(const Problem &problem, const Inputs &inputs);

/// validateInputs, and the same checks on the outputs, whose strides must
/// also be positive along every dimension of extent above 1 (no element may
/// be written twice).
Status validate(const Problem &problem, const Inputs &inputs,
                const Outputs &outputs);

/// Checks a tile configuration against a problem: sizes zero or powers of
/// two, blockM, blockK and chunkStateBlockK dividing the chunk.
Status validateTileConfig(const Problem &problem, const TileConfig &config);

/// Checks that `structure` is one of ForwardStructure's values (an integer
/// cast to the enum may be another).
Status validateStructure(ForwardStructure structure);

/// Checks that `structure` supports the inputs' options: packed sequences
/// (seqIdx) need the four-kernel structure.
Status validateStructureFor(ForwardStructure structure, const Inputs &inputs);

/// Checks the values of a validated sequence index in host memory: non-
/// decreasing along each row (its first offending step named).
Status validateSequenceIndexValues(const Problem &problem,
                                   const Tensor &seqIdx);

/// Checks the values of validated cu_seqlens and seq_idx in host memory:
/// 0 = cu[0] < cu[1] < ... < cu[nseq] = seqlen, and seq_idx[0, t] = s on
/// every step t of sequence s (the first offset or step that is not named).
/// forwardCpu and referenceForward call it; on the GPU the values are in
/// device memory, where varlen_state checks them (docs/mamba2.md).
Status validateSequenceOffsetValues(const Problem &problem,
                                    const Tensor &seqIdx,
                                    const Tensor &cuSeqlens);

/// The launch grid (x, y, z) of each kernel, for the CPU and the GPU paths
/// alike (the kernels' headers say what a program covers): the one place
/// they are computed. compute_out stops at ceil(seqlen / BLOCK_M) row
/// tiles: programs past the sequence would write nothing. bmm_chunk covers
/// every blockM x blockM tile of each chunk (its BLOCK_K is blockM; those
/// above the diagonal return at once). `tiles` must be resolved (no zero sizes).
struct LaunchGrids {
  std::array<int64_t, 3> chunkCumsum, chunkState, statePassing, fwdPassState,
      bmmChunk, computeOut;
};
LaunchGrids computeLaunchGrids(const Problem &problem, const TileConfig &tiles);

struct CpuOptions {
  TileConfig tiles;
  ForwardStructure structure = ForwardStructure::FourKernels;
  /// Threads the interpreter may use; 0: one per core.
  unsigned numThreads = 0;
};

/// Runs the forward pass on the CPU: the tile kernels of
/// `options.structure`, bound to the problem's chunk size and tiles, in the
/// interpreter, on host memory. Defined in TilecMamba2Cpu.
Status forwardCpu(const Problem &problem, const Inputs &inputs,
                  const Outputs &outputs, const CpuOptions &options = {});

/// The bf16 nearest to `x` (ties to even), as stored in memory.
inline uint16_t toBF16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u); // A quiet NaN.
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// The value of a bf16 stored in memory.
inline float fromBF16(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// The value of an IEEE f16 stored in memory.
inline float fromF16(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24); // Subnormal.
  else if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(float(1024 + mantissa), exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

/// The f16 nearest to `x` (ties to even, subnormals kept, overflow to
/// infinity), as stored in memory.
inline uint16_t toF16(float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(double(x));
  if (std::isnan(x))
    return 0x7e00;
  if (std::isinf(x))
    return sign | 0x7c00;
  if (a < 0x1p-14) // Subnormal, or the smallest normal after rounding.
    return sign | uint16_t(std::nearbyint(a * 0x1p24));
  int e;
  std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
  double q = std::nearbyint(std::ldexp(a, 11 - e)); // in [1024, 2048]
  if (q == 2048) {
    q = 1024;
    ++e;
  }
  if (e - 1 > 15)
    return sign | 0x7c00;
  return sign | uint16_t((e - 1 + 15) << 10) | uint16_t(q - 1024);
}

} // namespace tilec::mamba2

#endif // TILEC_MAMBA2_MAMBA2_H
