//===- tile-opt.cpp - the tile dialect's opt tool ---------------*- C++ -*-===//

#include "tilec/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerKernelDialects(registry);
  tilec::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile dialect optimizer\n", registry));
}
