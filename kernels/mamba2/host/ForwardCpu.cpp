//===- ForwardCpu.cpp - the Mamba-2 forward pass in the interpreter -------===//
//
// Compiles the three kernels from their embedded text (parse, tile-bind-params
// with the chunk and tile sizes, Executable::compile), once per configuration,
// and runs them in order on host buffers:
//   chunk_cumsum -> G;  fwd_pass_state -> per-chunk states, final state;
//   compute_out -> y.
//
//===----------------------------------------------------------------------===//

#include "KernelSources.h"

#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Mamba2/Mamba2.h"

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

using namespace mlir;
using namespace tilec::mamba2;
namespace interp = tilec::interp;

namespace {

struct Kernels {
  std::unique_ptr<interp::Executable> chunkCumsum, fwdPassState, computeOut;
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
  return tiles;
}

std::string binding(const char *name, int64_t value) {
  return std::string(name) + "=" + std::to_string(value);
}

/// Parses kernel `name` from its embedded text, binds `params` and compiles
/// it for the interpreter.
Status compileKernel(const char *name, const std::vector<std::string> &params,
                     std::unique_ptr<interp::Executable> &executable) {
  // The dialects the three kernels use.
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

  const char *text = tilec::mamba2::detail::kernelSource(name);
  if (!text)
    return fail("not embedded in the library");
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context), std::string(name) + ".mlir");
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

/// The compiled kernels for a chunk size and tile sizes, compiled on first
/// use and kept for the life of the process.
Status getKernels(const Problem &p, const TileConfig &t,
                  const Kernels *&kernels) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::unique_ptr<Kernels>> cache;
  std::vector<int64_t> key = {p.chunk,  t.blockH, t.blockP,
                              t.blockN, t.blockM, t.blockK};
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Kernels> &entry = cache[key];
  if (!entry) {
    auto compiled = std::make_unique<Kernels>();
    std::string chunk = binding("CHUNK", p.chunk);
    if (Status s = compileKernel("chunk_cumsum",
                                 {chunk, binding("BLOCK_H", t.blockH)},
                                 compiled->chunkCumsum);
        !s)
      return s;
    if (Status s = compileKernel("fwd_pass_state",
                                 {chunk, binding("BLOCK_P", t.blockP),
                                  binding("BLOCK_N", t.blockN),
                                  binding("BLOCK_K", t.blockK)},
                                 compiled->fwdPassState);
        !s)
      return s;
    if (Status s = compileKernel(
            "compute_out",
            {chunk, binding("BLOCK_M", t.blockM), binding("BLOCK_K", t.blockK),
             binding("BLOCK_P", t.blockP), binding("BLOCK_N", t.blockN)},
            compiled->computeOut);
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
  view.dtype = tensor.dtype == DType::BF16  ? interp::DType::BF16
               : tensor.dtype == DType::F16 ? interp::DType::F16
                                            : interp::DType::F32;
  view.shape = tensor.shape;
  view.strides = tensor.strides;
  return view;
}

interp::HostView hostView(std::vector<float> &buffer,
                          std::vector<int64_t> shape) {
  Tensor tensor = Tensor::contiguous(nullptr, DType::F32, std::move(shape));
  buffer.resize(tensor.numElements());
  tensor.data = buffer.data();
  return hostView(tensor);
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
  const TileConfig t = chooseTiles(p, options.tiles);
  const Kernels *kernels = nullptr;
  if (Status s = getKernels(p, t, kernels); !s)
    return s;

  const int64_t nchunks = p.numChunks();
  std::vector<float> gBuffer, statesBuffer, finalBuffer;
  interp::HostView g =
      hostView(gBuffer, {p.batch, p.heads, nchunks, p.chunk});
  interp::HostView states = hostView(
      statesBuffer, {p.batch, nchunks, p.heads, p.headdim, p.dstate});
  interp::HostView finalState =
      out.finalState
          ? hostView(*out.finalState)
          : hostView(finalBuffer, {p.batch, p.heads, p.headdim, p.dstate});
  // Without an initial state the kernel does not read its `init` view; it
  // still needs one of the right rank and dtype.
  interp::HostView init =
      in.initialState ? hostView(*in.initialState) : finalState;
  interp::HostView x = hostView(in.x), dt = hostView(in.dt),
                   B = hostView(in.B);

  const LaunchGrids grids = computeLaunchGrids(p, t);
  const unsigned threads = options.numThreads;

  if (Status s = run("chunk_cumsum", *kernels->chunkCumsum,
                     {dt, hostView(in.A), g},
                     {grids.chunkCumsum}, threads);
      !s)
    return s;
  if (Status s = run("fwd_pass_state", *kernels->fwdPassState,
                     {x, B, dt, g, init,
                      interp::Scalar(int64_t(in.initialState ? 1 : 0)), states,
                      finalState},
                     {grids.fwdPassState}, threads);
      !s)
    return s;
  return run("compute_out", *kernels->computeOut,
             {x, B, hostView(in.C), dt, g, hostView(in.D), states,
              hostView(out.y)},
             {grids.computeOut}, threads);
}
