//===- tile-opt.cpp - the tile dialect's opt tool ---------------*- C++ -*-===//

#include "tilec/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
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
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile dialect optimizer\n", registry));
}
