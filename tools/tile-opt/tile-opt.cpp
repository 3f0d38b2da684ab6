//===- tile-opt.cpp - the tile dialect's opt tool ---------------*- C++ -*-===//
//
// mlir-opt with the tile dialect and its passes, and tilec's input limits:
// input nesting deeper than kMaxNestingDepth is rejected before parsing, the
// parse and the passes run on a large stack, and an LLVM fatal error is an
// error message and exit status 1 (tilec/Target/InputLimits.h,
// FatalErrors.h).
//
//===----------------------------------------------------------------------===//

#include "tilec/InitAll.h"
#include "tilec/Target/FatalErrors.h"
#include "tilec/Target/InputLimits.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerKernelDialects(registry);
  tilec::registerLoweringDialects(registry);
  tilec::registerPasses();
  // After LLVM's banner, which names the LLVM and MLIR it was built with.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tile-opt from tilec " << TILEC_VERSION << "\n";
  });
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tile dialect optimizer\n", registry);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tile-opt: " << error << "\n";
    return 1;
  }
  // The check reads the buffer through a SourceMgr of its own, which must
  // not own it: MlirOptMain takes it.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  if (mlir::failed(tilec::checkInputLimits(sourceMgr)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "tile-opt: " << error << "\n";
    return 1;
  }

  tilec::ScopedFatalErrorDiagnostics fatalErrors(inputFilename);
  tilec::ScopedFatalErrorDiagnostics::setPhase("tile-opt");
  mlir::LogicalResult result = mlir::failure();
  tilec::runOnLargeStack(tilec::kToolStackBytes, [&] {
    result = mlir::MlirOptMain(output->os(), std::move(input), registry,
                               mlir::MlirOptMainConfig::createFromCLOptions());
  });
  if (mlir::succeeded(result))
    output->keep();
  return mlir::asMainReturnCode(result);
}
