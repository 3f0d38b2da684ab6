//===- tilec.cpp - the tilec compiler driver --------------------*- C++ -*-===//
//
// tilec KERNEL.mlir [-o OUT] [--emit=tile] [-D NAME=VALUE ...]
//
// Parses and verifies a tile-dialect file, binds its compile-time
// parameters and writes the result. Diagnostics carry file:line:col and any
// error gives a non-zero exit status.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit { Tile };

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<kernel.mlir>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("output file"),
                                    cl::value_desc("filename"), cl::init("-"));
cl::opt<Emit> emitKind(
    "emit", cl::desc("what to write"), cl::init(Emit::Tile),
    cl::values(clEnumValN(Emit::Tile, "tile",
                          "tile IR with parameters bound and canonicalized")));
cl::list<std::string> defines("D", cl::desc("bind a kernel parameter"),
                              cl::value_desc("NAME=VALUE"), cl::Prefix);

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      raw_ostream &os) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();
  pm.enableTiming(timing);
  tile::TileBindParamsOptions bind;
  bind.params.assign(defines.begin(), defines.end());
  pm.addPass(tile::createTileBindParams(bind));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    return failure();
  module->print(os);
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  tilec::registerPasses();
  cl::ParseCommandLineOptions(argc, argv, "tilec: the tile kernel compiler\n");

  DialectRegistry registry;
  tilec::registerKernelDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "tilec: " << error << "\n";
    return 1;
  }
  if (failed(compile(context, sourceMgr, output->os())))
    return 1;
  output->keep();
  return 0;
}
