//===- ForwardCpu.cpp - the Mamba-2 forward pass in the interpreter -------===//
//
// Compiles the kernels from their embedded text (parse, tile-bind-params
// with the chunk and tile sizes, Executable::compile), once per configuration,
// and runs them in order on host buffers, in the structure the options ask
// for (docs/mamba2.md):
//   four kernels (default): chunk_cumsum -> dt_chunks (dt transformed), G;
//     chunk_state -> each chunk's own state; state_passing -> per-chunk
//     states, final state; bmm_chunk -> C B^T per chunk; compute_out -> y;
//   three kernels: chunk_cumsum -> dt_chunks, G; fwd_pass_state -> per-chunk
//     states, final state; bmm_chunk -> C B^T; compute_out -> y.
// (bmm_chunk, in both, is the part of compute_out that depends on the
// group only: the structures are named by how they form the states.)
// The decode step's state_update kernel is compiled and run the same way.
//
//===----------------------------------------------------------------------===//

#include "KernelSources.h"
#include "VarlenStates.h"

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Mamba2/Mamba2.h"
#include "tilec/Mamba2/StateUpdate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

using namespace mlir;
using namespace tilec::mamba2;
namespace interp = tilec::interp;

namespace {

struct Kernels {
  std::unique_ptr<interp::Executable> chunkCumsum, chunkState, statePassing,
      fwdPassState, bmmChunk, computeOut, varlenState;
};

/// The tile sizes the CPU uses where the caller leaves them to it: large
/// tiles, since the interpreter's cost is per op more than per element, and
/// a state tile that covers dstate so compute_out walks it in one step.
TileConfig chooseTiles(const Problem &p, TileConfig tiles) {
  auto pick = [](int64_t &size, int64_t extent, int64_t limit) {
    if (!size)
      size = std::min<int64_t>(llvm::PowerOf2Ceil(extent), limit);
  };
  pick(tiles.blockH, p.heads, 16);
  pick(tiles.blockP, p.headdim, 64);
  pick(tiles.blockN, p.dstate, 128);
  pick(tiles.blockM, p.chunk, 64);
  pick(tiles.blockK, p.chunk, 64);
  pick(tiles.chunkStateBlockP, p.headdim, 64);
  pick(tiles.chunkStateBlockN, p.dstate, 128);
  pick(tiles.chunkStateBlockK, p.chunk, 64);
  pick(tiles.statePassingBlockP, p.headdim, 64);
  pick(tiles.statePassingBlockN, p.dstate, 128);
  return tiles;
}

std::string binding(const char *name, int64_t value) {
  return std::string(name) + "=" + std::to_string(value);
}

/// The binding of type parameter `name` to `dtype` (as
/// kernels/mamba2/CMakeLists.txt binds it for the GPU).
std::string typeBinding(const char *name, DType dtype) {
  return std::string(name) + "=" + dtypeName(dtype);
}

/// Parses kernel `name` from its embedded text, binds `params` (extents and
/// element types) and compiles it for the interpreter.
Status compileKernel(const char *name, const std::vector<std::string> &params,
                     std::unique_ptr<interp::Executable> &executable) {
  // The dialects the kernels use.
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  auto fail = [&](const std::string &what) {
    return Status::error("mamba2: kernel " + std::string(name) + ": " + what +
                         (diagnostics.empty() ? "" : "\n" + diagnostics));
  };

  const char *embedded = tilec::mamba2::detail::kernelSource(name);
  if (!embedded)
    return fail("not embedded in the library");
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      embedded, ParserConfig(&context), std::string(name) + ".mlir");
  if (!module)
    return fail("does not parse");
  PassManager pm(&context);
  tile::TileBindParamsOptions bind;
  bind.params.assign(params.begin(), params.end());
  pm.addPass(tile::createTileBindParams(bind));
  if (failed(pm.run(*module)))
    return fail("binding " + llvm::join(params, ",") + " failed");
  auto kernel = module->lookupSymbol<tile::KernelOp>(name);
  if (!kernel)
    return fail("the module has no tile.kernel @" + std::string(name));
  std::string error;
  executable = interp::Executable::compile(kernel, error);
  if (!executable)
    return fail(error);
  return Status::success();
}

/// The compiled kernels for a chunk size, tile sizes, dt's dtype, that of
/// x, B, C and z and that of the states between chunks, compiled on first
/// use and kept for the life of the process.
Status getKernels(const Problem &p, const TileConfig &t, DType dtDType,
                  DType xDType, DType stateDType, const Kernels *&kernels) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::unique_ptr<Kernels>> cache;
  std::vector<int64_t> key = {p.chunk,
                              t.blockH,
                              t.blockP,
                              t.blockN,
                              t.blockM,
                              t.blockK,
                              t.chunkStateBlockP,
                              t.chunkStateBlockN,
                              t.chunkStateBlockK,
                              t.statePassingBlockP,
                              t.statePassingBlockN,
                              int64_t(dtDType),
                              int64_t(xDType),
                              int64_t(stateDType)};
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Kernels> &entry = cache[key];
  if (!entry) {
    auto compiled = std::make_unique<Kernels>();
    std::string chunk = binding("CHUNK", p.chunk);
    const std::string xType = typeBinding("XT", xDType);
    const std::string stateType = typeBinding("ST", stateDType);
    if (Status s = compileKernel("chunk_cumsum",
                                 {chunk, binding("BLOCK_H", t.blockH),
                                  typeBinding("DT", dtDType)},
                                 compiled->chunkCumsum);
        !s)
      return s;
    if (Status s = compileKernel(
            "chunk_state",
            {chunk, binding("BLOCK_P", t.chunkStateBlockP),
             binding("BLOCK_N", t.chunkStateBlockN),
             binding("BLOCK_K", t.chunkStateBlockK), xType},
            compiled->chunkState);
        !s)
      return s;
    if (Status s = compileKernel(
            "state_passing",
            {chunk, binding("BLOCK_P", t.statePassingBlockP),
             binding("BLOCK_N", t.statePassingBlockN), stateType},
            compiled->statePassing);
        !s)
      return s;
    if (Status s = compileKernel("fwd_pass_state",
                                 {chunk, binding("BLOCK_P", t.blockP),
                                  binding("BLOCK_N", t.blockN),
                                  binding("BLOCK_K", t.blockK), xType,
                                  stateType},
                                 compiled->fwdPassState);
        !s)
      return s;
    // C B^T in square BLOCK_M tiles (computeLaunchGrids): those on and
    // below the diagonal cover the columns compute_out reads.
    if (Status s = compileKernel(
            "bmm_chunk",
            {chunk, binding("BLOCK_M", t.blockM), binding("BLOCK_K", t.blockM),
             binding("BLOCK_N", t.blockN), xType},
            compiled->bmmChunk);
        !s)
      return s;
    if (Status s = compileKernel(
            "compute_out",
            {chunk, binding("BLOCK_M", t.blockM), binding("BLOCK_K", t.blockK),
             binding("BLOCK_P", t.blockP), binding("BLOCK_N", t.blockN),
             xType, stateType},
            compiled->computeOut);
        !s)
      return s;
    // With chunk_state's tiles: it forms the same products on one chunk.
    if (Status s = compileKernel("varlen_state",
                                 {binding("BLOCK_P", t.chunkStateBlockP),
                                  binding("BLOCK_N", t.chunkStateBlockN),
                                  binding("BLOCK_K", t.chunkStateBlockK),
                                  xType, stateType},
                                 compiled->varlenState);
        !s)
      return s;
    entry = std::move(compiled);
  }
  kernels = entry.get();
  return Status::success();
}

interp::HostView hostView(const Tensor &tensor) {
  interp::HostView view;
  view.data = tensor.data;
  view.dtype = tensor.dtype;
  view.shape = tensor.shape;
  view.strides = tensor.strides;
  return view;
}

/// `buffer`, sized for it, as a row-major f32 tensor of `shape`.
Tensor bufferTensor(std::vector<float> &buffer, std::vector<int64_t> shape) {
  Tensor tensor = Tensor::contiguous(nullptr, DType::F32, std::move(shape));
  buffer.resize(tensor.numElements());
  tensor.data = buffer.data();
  return tensor;
}

/// `buffer`, sized for it, as a row-major tensor of `shape` in `dtype` (f32
/// or a 16-bit float: the states between chunks).
Tensor bufferTensor(std::vector<uint32_t> &buffer, DType dtype,
                    std::vector<int64_t> shape) {
  Tensor tensor = Tensor::contiguous(nullptr, dtype, std::move(shape));
  const int64_t bytes = tensor.numElements() * int64_t(dtypeSize(dtype));
  buffer.resize((bytes + 3) / 4);
  tensor.data = buffer.data();
  return tensor;
}

Status run(const char *name, const interp::Executable &kernel,
           const std::vector<interp::KernelArg> &args, interp::Grid grid,
           unsigned numThreads) {
  std::string error;
  if (failed(kernel.run(args, grid, error, numThreads)))
    return Status::error("mamba2: running " + std::string(name) + ": " + error);
  return Status::success();
}

} // namespace

Status tilec::mamba2::forwardCpu(const Problem &p, const Inputs &in,
                                 const Outputs &out,
                                 const CpuOptions &options) {
  if (Status s = validate(p, in, out); !s)
    return s;
  if (Status s = validateTileConfig(p, options.tiles); !s)
    return s;
  if (Status s = validateStructure(options.structure); !s)
    return s;
  if (Status s = validateStructureFor(options.structure, in); !s)
    return s;
  // The values are in host memory here: a decreasing index is refused.
  if (in.seqIdx)
    if (Status s = validateSequenceIndexValues(p, *in.seqIdx); !s)
      return s;
  if (in.cuSeqlens)
    if (Status s = validateSequenceOffsetValues(p, *in.seqIdx, *in.cuSeqlens);
        !s)
      return s;
  const TileConfig t = chooseTiles(p, options.tiles);
  const Kernels *kernels = nullptr;
  if (Status s = getKernels(p, t, in.dt.dtype, in.x.dtype, in.stateDtype,
                            kernels);
      !s)
    return s;

  const int64_t nchunks = p.numChunks();
  std::vector<float> dtChunksBuffer, gBuffer, localBuffer, finalBuffer,
      cbBuffer;
  std::vector<uint32_t> statesBuffer;
  const Tensor dtChunksTensor =
      bufferTensor(dtChunksBuffer, {p.batch, p.heads, nchunks, p.chunk});
  const Tensor gTensor =
      bufferTensor(gBuffer, {p.batch, p.heads, nchunks, p.chunk});
  // The states entering each chunk, in the state dtype: the caller's when
  // asked for.
  const Tensor statesTensor =
      out.chunkStates
          ? *out.chunkStates
          : bufferTensor(statesBuffer, in.stateDtype,
                         {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  interp::HostView dtChunks = hostView(dtChunksTensor);
  interp::HostView g = hostView(gTensor);
  interp::HostView states = hostView(statesTensor);
  interp::HostView finalState =
      hostView(out.finalState ? *out.finalState
                              : bufferTensor(finalBuffer, {p.batch, p.heads,
                                                           p.headdim,
                                                           p.dstate}));
  // Without an initial state the kernel does not read its `init` view; it
  // still needs one of the right rank and dtype.
  interp::HostView init =
      in.initialState ? hostView(*in.initialState) : finalState;
  interp::HostView x = hostView(in.x), B = hostView(in.B);
  // Absent options as the kernels take them: an empty dt bias reads as
  // zeros; an absent z is not read (x stands in, of its rank and dtype).
  interp::HostView dtBias;
  dtBias.shape = {0};
  dtBias.strides = {1};
  if (in.dtBias)
    dtBias = hostView(*in.dtBias);
  const interp::HostView z = in.z ? hostView(*in.z) : x;
  // Without packed sequences an empty seq_idx, which reads as zeros: one
  // sequence per row.
  interp::HostView seqIdx;
  seqIdx.dtype = interp::DType::I32;
  seqIdx.shape = {0, 0};
  seqIdx.strides = {0, 1};
  if (in.seqIdx)
    seqIdx = hostView(*in.seqIdx);
  // D per head is D per channel with stride 0 along headdim.
  interp::HostView D = hostView(in.D);
  if (D.shape.size() == 1) {
    D.shape = {p.heads, p.headdim};
    D.strides = {D.strides[0], 0};
  }
  // compute_out writes one of y (f32) and y_xt (x's dtype); the other is an
  // empty view it does not touch. With x in f32 y is written as f32.
  const bool yIsXt = out.y.dtype != DType::F32;
  const interp::HostView y = hostView(out.y);
  interp::HostView yUnused = y;
  yUnused.data = nullptr;
  yUnused.dtype = yIsXt ? DType::F32 : in.x.dtype;
  yUnused.shape = {0, 0, 0, 0};

  const LaunchGrids grids = computeLaunchGrids(p, t);
  const unsigned threads = options.numThreads;

  auto flag = [](bool on) { return interp::Scalar(int64_t(on ? 1 : 0)); };
  if (Status s = run("chunk_cumsum", *kernels->chunkCumsum,
                     {hostView(in.dt), hostView(in.A), dtBias,
                      flag(in.dtSoftplus),
                      interp::Scalar(double(in.dtLimit.low)),
                      interp::Scalar(double(in.dtLimit.high)), dtChunks, g},
                     {grids.chunkCumsum}, threads);
      !s)
    return s;
  const interp::Scalar hasInit = flag(bool(in.initialState));
  if (options.structure == ForwardStructure::ThreeKernels) {
    if (Status s = run("fwd_pass_state", *kernels->fwdPassState,
                       {x, B, dtChunks, g, init, hasInit, states, finalState},
                       {grids.fwdPassState}, threads);
        !s)
      return s;
  } else {
    interp::HostView local = hostView(bufferTensor(
        localBuffer, {p.batch, nchunks, p.heads, p.headdim, p.dstate}));
    if (Status s = run("chunk_state", *kernels->chunkState,
                       {x, B, dtChunks, g, seqIdx, local}, {grids.chunkState},
                       threads);
        !s)
      return s;
    if (Status s = run("state_passing", *kernels->statePassing,
                       {local, g, seqIdx, init, hasInit, states, finalState},
                       {grids.statePassing}, threads);
        !s)
      return s;
  }
  const interp::HostView C = hostView(in.C);
  const interp::HostView cb = hostView(bufferTensor(
      cbBuffer, {p.batch, nchunks, p.groups, p.chunk, p.chunk}));
  if (Status s = run("bmm_chunk", *kernels->bmmChunk, {B, C, cb},
                     {grids.bmmChunk}, threads);
      !s)
    return s;
  if (Status s = run("compute_out", *kernels->computeOut,
                     {x, C, cb, dtChunks, g, D, z,
                      flag(bool(in.z)), seqIdx, states, yIsXt ? yUnused : y,
                      yIsXt ? y : yUnused, flag(yIsXt)},
                     {grids.computeOut}, threads);
      !s)
    return s;
  if (!out.varlenStates)
    return Status::success();
  // One launch for every sequence: each program reads its offsets.
  const std::array<int64_t, 3> varlenGrid =
      detail::varlenStateGrid(p, in.numSequences(), t.chunkStateBlockP,
                              t.chunkStateBlockN);
  if (Status s = run("varlen_state", *kernels->varlenState,
                     {x, B, dtChunks, g, states, seqIdx,
                      hostView(*in.cuSeqlens), hostView(*out.varlenStates)},
                     {varlenGrid}, threads);
      !s)
    return s;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The decode step (StateUpdate.h)
//===----------------------------------------------------------------------===//

namespace {

/// The compiled state_update kernel for a tile configuration and the
/// dtypes of the state and of x, compiled on first use and kept for the
/// life of the process.
Status getStateUpdateKernel(const StateUpdateTiles &t, DType stateDType,
                            DType xDType, const interp::Executable *&kernel) {
  static std::mutex mutex;
  static std::map<std::tuple<int64_t, int64_t, DType, DType>,
                  std::unique_ptr<interp::Executable>>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<interp::Executable> &entry =
      cache[{t.blockP, t.blockN, stateDType, xDType}];
  if (!entry)
    if (Status s = compileKernel("state_update",
                                 {binding("BLOCK_P", t.blockP),
                                  binding("BLOCK_N", t.blockN),
                                  typeBinding("ST", stateDType),
                                  typeBinding("XT", xDType)},
                                 entry);
        !s)
      return s;
  kernel = entry.get();
  return Status::success();
}

} // namespace

Status tilec::mamba2::stateUpdateCpu(const DecodeProblem &p,
                                     const StateUpdateArgs &args,
                                     const StateUpdateCpuOptions &options) {
  if (Status s = validateStateUpdate(p, args); !s)
    return s;
  StateUpdateTiles t = options.tiles;
  for (auto [name, value] :
       {std::pair{"blockP", t.blockP}, {"blockN", t.blockN}})
    if (value != 0 && !llvm::isPowerOf2_64(uint64_t(value)))
      return Status::error(std::string("tile config: ") + name + " is " +
                           std::to_string(value) +
                           "; it must be 0 (chosen) or a power of two");
  // As for the forward: large tiles, the interpreter's cost being per op.
  if (!t.blockP)
    t.blockP = std::min<int64_t>(llvm::PowerOf2Ceil(p.headdim), 64);
  if (!t.blockN)
    t.blockN = std::min<int64_t>(llvm::PowerOf2Ceil(p.dstate), 128);
  const interp::Executable *kernel = nullptr;
  if (Status s =
          getStateUpdateKernel(t, args.state.dtype, args.x.dtype, kernel);
      !s)
    return s;

  // Absent optional tensors: the kernel does not read their views, which
  // still need the right rank and dtype.
  const interp::HostView dtBias =
      args.dtBias ? hostView(*args.dtBias) : hostView(args.A);
  interp::HostView D = hostView(args.D ? *args.D : args.dt);
  if (args.D && args.D->shape.size() == 1) {
    // A D per head is the (heads, headdim) view that repeats it.
    D.shape = {p.heads, p.headdim};
    D.strides = {args.D->strides[0], 0};
  }
  // The kernel reads the state indices itself; without them, an empty
  // view it does not read.
  interp::HostView indices;
  indices.data = const_cast<int64_t *>(args.stateIndices);
  indices.dtype = interp::DType::I64;
  indices.shape = {args.stateIndices ? p.batch : 0};
  indices.strides = {1};
  const int64_t numP = p.headdim / t.blockP + (p.headdim % t.blockP != 0);
  const interp::HostView x = hostView(args.x);
  const std::vector<interp::KernelArg> kernelArgs = {
      hostView(args.state),
      x,
      hostView(args.dt),
      dtBias,
      hostView(args.A),
      hostView(args.B),
      hostView(args.C),
      D,
      args.z ? hostView(*args.z) : x,
      hostView(args.y),
      indices,
      interp::Scalar(int64_t(args.stateIndices ? 1 : 0)),
      interp::Scalar(args.stateIndices ? args.padSlotId : int64_t(-1)),
      interp::Scalar(int64_t(args.dtBias ? 1 : 0)),
      interp::Scalar(int64_t(args.dtSoftplus ? 1 : 0)),
      interp::Scalar(int64_t(args.D ? 1 : 0)),
      interp::Scalar(int64_t(args.z ? 1 : 0))};
  if (Status s = run("state_update", *kernel, kernelArgs,
                     {{numP, p.heads, p.batch}}, options.numThreads);
      !s)
    return s;
  return Status::success();
}
