//===- TargetTest.cpp - targets and launcher generation -------------------===//

#include "tilec/Target/Launcher.h"
#include "tilec/Target/Target.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

TEST(GpuTargets, Parse) {
  SmallVector<const tilec::GpuTarget *> targets;
  std::string error;
  ASSERT_TRUE(
      succeeded(tilec::parseGpuTargets("sm_80, sm_90a", targets, error)))
      << error;
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0]->name, "sm_80");
  EXPECT_FALSE(targets[0]->archSpecific);
  EXPECT_EQ(targets[1]->loweringSm, 90u);
  EXPECT_TRUE(targets[1]->archSpecific);
  // Plain sm_90 takes the portable code path.
  EXPECT_EQ(tilec::lookupGpuTarget("sm_90")->loweringSm, 80u);
  EXPECT_EQ(tilec::lookupGpuTarget("sm_100a")->ptxVersion, 88u);
}

TEST(GpuTargets, Errors) {
  SmallVector<const tilec::GpuTarget *> targets;
  std::string error;
  EXPECT_TRUE(failed(tilec::parseGpuTargets("sm_75", targets, error)));
  EXPECT_NE(error.find("unknown target 'sm_75'"), std::string::npos) << error;
  targets.clear();
  EXPECT_TRUE(failed(tilec::parseGpuTargets("sm_80,sm_80", targets, error)));
  EXPECT_NE(error.find("given twice"), std::string::npos) << error;
  targets.clear();
  EXPECT_TRUE(failed(tilec::parseGpuTargets(",", targets, error)));
}

class Launchers : public ::testing::Test {
protected:
  Launchers() {
    DialectRegistry registry;
    registry.insert<tile::TileDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { diagnostics += diag.str() + "\n"; });
  }

  /// scale's tile signature, named after its source arguments.
  SmallVector<tilec::LauncherKernel> scaleKernels() {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(R"mlir(
      tile.kernel @scale(%x: !tile.view<1, f32>, %grid: !tile.view<2, bf16>,
                         %s: f32, %n: index)
          attributes {num_warps = 4 : i32} {
        tile.return
      }
    )mlir",
                                             "kernel.mlir"),
        llvm::SMLoc());
    tile = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!tile) {
      ADD_FAILURE() << "the kernel does not parse: " << diagnostics;
      return {};
    }
    auto kernels = tilec::collectLauncherKernels(*tile, &sourceMgr);
    if (failed(kernels)) {
      ADD_FAILURE() << "collectLauncherKernels failed: " << diagnostics;
      return {};
    }
    return *kernels;
  }

  OwningOpRef<ModuleOp> lowered(StringRef params, int64_t warps,
                                int64_t shared) {
    std::string text =
        "llvm.func @scale(" + params.str() +
        ") attributes {nvvm.kernel, tile.num_warps = " + std::to_string(warps) +
        " : i32, tile.shared_bytes = " + std::to_string(shared) +
        " : i64} { llvm.return }";
    return parseSourceString<ModuleOp>(text, &context);
  }

  static constexpr StringLiteral abi =
      "%a: !llvm.ptr<1>, %b: i64, %c: i64, %d: !llvm.ptr<1>, %e: i64, "
      "%f: i64, %g: i64, %h: i64, %s: f32, %n: i64";

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  OwningOpRef<ModuleOp> tile;
};

TEST_F(Launchers, EmitsTypedLaunchers) {
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels();
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].args.size(), 4u);
  EXPECT_EQ(kernels[0].args[0].name, "x");
  // `grid` is the launcher's own parameter.
  EXPECT_EQ(kernels[0].args[1].name, "grid_");

  OwningOpRef<ModuleOp> module = lowered(abi, 8, 65536);
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*module, "sm_80", kernels)))
      << diagnostics;
  EXPECT_EQ(kernels[0].numWarps, 8u);
  EXPECT_EQ(kernels[0].sharedBytes, 65536u);

  auto files = tilec::emitLaunchers(kernels, StringRef("\x01\xff", 2),
                                    "scale.h", "from a test");
  ASSERT_TRUE(succeeded(files));
  EXPECT_NE(files->header.find(
                "tilec_status tile_scale(const tilec_view_f32_1d &x, const "
                "tilec_view_bf16_2d &grid_, float s, int64_t n, tilec_grid "
                "grid, CUstream stream);"),
            std::string::npos)
      << files->header;
  EXPECT_NE(files->header.find("tilec_status tile_scale_prepare();"),
            std::string::npos);
  EXPECT_NE(files->source.find("#include \"scale.h\""), std::string::npos);
  EXPECT_NE(files->source.find("0x01, 0xff,"), std::string::npos);
  EXPECT_NE(files->source.find("{tilec_fatbin, \"scale\", 256, 65536}"),
            std::string::npos)
      << files->source;
  EXPECT_NE(files->source.find("tilec_arg(&grid_.strides[1])"),
            std::string::npos)
      << files->source;
}

TEST_F(Launchers, RejectsLoweringsOffTheABI) {
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels();
  OwningOpRef<ModuleOp> module =
      lowered("%a: !llvm.ptr<1>, %b: i64, %s: f32", 4, 0);
  ASSERT_TRUE(module);
  EXPECT_TRUE(failed(tilec::readLaunchConfig(*module, "sm_80", kernels)));
  EXPECT_NE(diagnostics.find("does not follow the kernel ABI"),
            std::string::npos)
      << diagnostics;
}

TEST_F(Launchers, RejectsLaunchConfigurationsThatDifferByTarget) {
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels();
  OwningOpRef<ModuleOp> sm80 = lowered(abi, 4, 0);
  OwningOpRef<ModuleOp> sm90a = lowered(abi, 4, 1024);
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*sm80, "sm_80", kernels)));
  EXPECT_TRUE(failed(tilec::readLaunchConfig(*sm90a, "sm_90a", kernels)));
  EXPECT_NE(diagnostics.find("1024 bytes of shared memory on sm_90a but 4 and "
                             "0 on sm_80"),
            std::string::npos)
      << diagnostics;
}

} // namespace
