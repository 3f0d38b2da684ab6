//===- TargetTest.cpp - targets and launcher generation -------------------===//

#include "tilec/Target/Launcher.h"
#include "tilec/Target/Target.h"
#include "tilec/Target/Variants.h"

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

  /// scale's tile signature, named after its source arguments, with an
  /// image per variant of `variants`.
  SmallVector<tilec::LauncherKernel>
  scaleKernels(ArrayRef<const tilec::KernelVariant *> variants = {}) {
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
    auto kernels = tilec::collectLauncherKernels(*tile, &sourceMgr, variants);
    if (failed(kernels)) {
      ADD_FAILURE() << "collectLauncherKernels failed: " << diagnostics;
      return {};
    }
    return *kernels;
  }

  OwningOpRef<ModuleOp> lowered(StringRef params, int64_t warps,
                                int64_t shared, StringRef name = "scale") {
    std::string text =
        "llvm.func @" + name.str() + "(" + params.str() +
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
  ASSERT_EQ(kernels[0].images.size(), 1u);
  EXPECT_EQ(kernels[0].images[0].numWarps, 8u);
  EXPECT_EQ(kernels[0].images[0].sharedBytes, 65536u);

  // Bytes that a C string literal must escape: non-printable ones, the
  // backslash, the quote and '?' (trigraphs), and a digit after an escape.
  const tilec::LauncherFatbin fatbin = {"tilec_fatbin",
                                        StringRef("\x01\xff\\?\"a\x07" "1", 8)};
  auto files = tilec::emitLaunchers(kernels, fatbin, "scale.h", "from a test");
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
  EXPECT_NE(files->source.find("const unsigned char tilec_fatbin[9] =\n"
                               "    \"\\001\\377\\\\\\?\\\"a\\0071\";"),
            std::string::npos)
      << files->source;
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

TEST_F(Launchers, RejectsWarpCountsThatDifferByTarget) {
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels();
  OwningOpRef<ModuleOp> sm80 = lowered(abi, 4, 0);
  OwningOpRef<ModuleOp> sm90a = lowered(abi, 8, 0);
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*sm80, "sm_80", kernels)));
  EXPECT_TRUE(failed(tilec::readLaunchConfig(*sm90a, "sm_90a", kernels)));
  EXPECT_NE(diagnostics.find("launches with 8 warps on sm_90a but 4 on sm_80"),
            std::string::npos)
      << diagnostics;
}

// One launch reserves the most shared memory any target's image needs.
TEST_F(Launchers, ReservesTheLargestSharedMemoryOfTheTargets) {
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels();
  OwningOpRef<ModuleOp> sm80 = lowered(abi, 4, 512);
  OwningOpRef<ModuleOp> sm90a = lowered(abi, 4, 1024);
  OwningOpRef<ModuleOp> sm90 = lowered(abi, 4, 0);
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*sm80, "sm_80", kernels)));
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*sm90a, "sm_90a", kernels)));
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*sm90, "sm_90", kernels)));
  EXPECT_EQ(kernels[0].images[0].sharedBytes, 1024u) << diagnostics;
}

TEST(KernelVariants, Parse) {
  SmallVector<const tilec::KernelVariant *> variants;
  std::string error;
  // Listed in the order of getKernelVariants, whatever the order given.
  ASSERT_TRUE(succeeded(
      tilec::parseKernelVariants("vec, generic", true, variants, error)))
      << error;
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0]->suffix, "");
  EXPECT_FALSE(variants[0]->vectorize);
  EXPECT_EQ(variants[1]->suffix, "_vec");
  EXPECT_TRUE(variants[1]->vectorize);

  variants.clear();
  EXPECT_TRUE(succeeded(tilec::parseKernelVariants("vec", false, variants,
                                                   error)));
  variants.clear();
  EXPECT_TRUE(failed(tilec::parseKernelVariants("vec", true, variants, error)));
  EXPECT_NE(error.find("the generic variant is needed"), std::string::npos)
      << error;
  EXPECT_TRUE(failed(tilec::parseKernelVariants("simd", false, variants,
                                                error)));
  EXPECT_NE(error.find("unknown variant 'simd' (supported: generic, vec)"),
            std::string::npos)
      << error;
  EXPECT_TRUE(failed(tilec::parseKernelVariants("vec,vec", false, variants,
                                                error)));
  EXPECT_NE(error.find("given twice"), std::string::npos) << error;
  EXPECT_TRUE(failed(tilec::parseKernelVariants("", false, variants, error)));
}

TEST_F(Launchers, LauncherPicksTheVecVariantWhenEveryViewAllows) {
  SmallVector<const tilec::KernelVariant *> variants;
  std::string error;
  ASSERT_TRUE(succeeded(
      tilec::parseKernelVariants("generic,vec", true, variants, error)));
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels(variants);
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].images.size(), 2u);
  EXPECT_EQ(kernels[0].images[1].symbol, "scale_vec");

  // Each variant's configuration is its own lowered function's.
  OwningOpRef<ModuleOp> module = lowered(abi, 4, 0);
  OwningOpRef<ModuleOp> vec = lowered(abi, 4, 2048, "scale_vec");
  ASSERT_TRUE(module && vec);
  ASSERT_TRUE(succeeded(tilec::mergeLoweredVariant(*module, *vec)))
      << diagnostics;
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*module, "sm_80", kernels)))
      << diagnostics;
  auto files = tilec::emitLaunchers(
      kernels, tilec::LauncherFatbin{"tilec_fatbin", StringRef("\x01", 1)},
      "scale.h", "from a test");
  ASSERT_TRUE(succeeded(files));
  EXPECT_NE(files->source.find("{tilec_fatbin, \"scale\", 128, 0}"),
            std::string::npos)
      << files->source;
  EXPECT_NE(files->source.find("{tilec_fatbin, \"scale_vec\", 128, 2048}"),
            std::string::npos)
      << files->source;
  EXPECT_NE(
      files->source.find(
          "  const tilec_kernel *tilec_k = &tilec_kernel_scale;\n"
          "  if (tilec_view_is_vectorizable(x.data, sizeof(*x.data), 1, "
          "x.shape, x.strides) &&\n"
          "      tilec_view_is_vectorizable(grid_.data, sizeof(*grid_.data), 2, "
          "grid_.shape, grid_.strides))\n"
          "    tilec_k = &tilec_kernel_scale_vec;\n"
          "  return tilec_launch(tilec_k, grid, stream, tilec_args);"),
      std::string::npos)
      << files->source;
  EXPECT_NE(files->source.find("tilec_prepare(&tilec_kernel_scale_vec)"),
            std::string::npos);

  // A variant missing from the lowered module is reported.
  SmallVector<tilec::LauncherKernel> again = scaleKernels(variants);
  OwningOpRef<ModuleOp> genericOnly = lowered(abi, 4, 0);
  EXPECT_TRUE(
      failed(tilec::readLaunchConfig(*genericOnly, "sm_80", again)));
  EXPECT_NE(diagnostics.find("produced no llvm.func @scale_vec"),
            std::string::npos)
      << diagnostics;
}

// With the generic variant in a fatbin of its own (tilec --generic-targets),
// each fatbin's lowered modules hold only its images, and each descriptor
// points at its fatbin.
TEST_F(Launchers, GenericVariantInAFatbinOfItsOwn) {
  SmallVector<const tilec::KernelVariant *> variants;
  std::string error;
  ASSERT_TRUE(succeeded(
      tilec::parseKernelVariants("generic,vec", true, variants, error)));
  SmallVector<tilec::LauncherKernel> kernels = scaleKernels(variants);
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].images.size(), 2u);
  kernels[0].images[0].fatbin = 1;

  OwningOpRef<ModuleOp> vec = lowered(abi, 4, 2048, "scale_vec");
  OwningOpRef<ModuleOp> generic = lowered(abi, 4, 512);
  ASSERT_TRUE(vec && generic);
  ASSERT_TRUE(succeeded(tilec::readLaunchConfig(*vec, "sm_90a", kernels, 0)))
      << diagnostics;
  ASSERT_TRUE(
      succeeded(tilec::readLaunchConfig(*generic, "sm_80", kernels, 1)))
      << diagnostics;
  // A fatbin's module without one of its images is still an error.
  EXPECT_TRUE(failed(tilec::readLaunchConfig(*vec, "sm_80", kernels, 1)));
  EXPECT_NE(diagnostics.find("the lowering for sm_80 produced no llvm.func "
                             "@scale\n"),
            std::string::npos)
      << diagnostics;

  const tilec::LauncherFatbin fatbins[] = {{"tilec_fatbin", "A"},
                                           {"tilec_fatbin_generic", "BC"}};
  auto files = tilec::emitLaunchers(kernels, fatbins, "scale.h", "from a test");
  ASSERT_TRUE(succeeded(files)) << diagnostics;
  for (const char *expected :
       {"const unsigned char tilec_fatbin[2] =\n    \"A\";",
        "const unsigned char tilec_fatbin_generic[3] =\n    \"BC\";",
        "{tilec_fatbin_generic, \"scale\", 128, 512}",
        "{tilec_fatbin, \"scale_vec\", 128, 2048}"})
    EXPECT_NE(files->source.find(expected), std::string::npos)
        << expected << " in\n"
        << files->source;
  // An image in a fatbin that is not given is reported.
  EXPECT_TRUE(failed(
      tilec::emitLaunchers(kernels, fatbins[0], "scale.h", "from a test")));
  EXPECT_NE(diagnostics.find("@scale is in fatbin 1 of 1"), std::string::npos)
      << diagnostics;
}

class VariantModules : public ::testing::Test {
protected:
  VariantModules() {
    DialectRegistry registry;
    registry.insert<tile::TileDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { diagnostics += diag.str() + "\n"; });
  }
  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }
  /// A lowered variant: the shared-memory global and a libdevice declaration
  /// every variant has, and `kernel` calling a helper of the same name in
  /// each variant that returns `value`.
  static std::string loweredVariant(StringRef kernel, int value) {
    return R"mlir(
    llvm.mlir.global external @tile_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @__nv_expf(f32) -> f32
    llvm.func internal @helper() -> i32 {
      %c = llvm.mlir.constant()mlir" +
           std::to_string(value) + R"mlir( : i32) : i32
      llvm.return %c : i32
    }
    llvm.func @)mlir" +
           kernel.str() + R"mlir(() attributes {nvvm.kernel} {
      %r = llvm.call @helper() : () -> i32
      llvm.return
    }
  )mlir";
  }
  MLIRContext context;
  std::string diagnostics;
};

TEST_F(VariantModules, CloneKeepsKernelsWithViewsRenamed) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    tile.kernel @withView(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
      tile.return
    }
    tile.kernel @scalarsOnly(%s: f32) attributes {num_warps = 1 : i32} {
      tile.return
    }
  )mlir");
  ASSERT_TRUE(module) << diagnostics;
  auto vec = tilec::cloneForVariant(*module, *tilec::lookupKernelVariant("vec"));
  ASSERT_TRUE(succeeded(vec)) << diagnostics;
  SmallVector<std::string> names;
  for (auto kernel : (**vec).getOps<tile::KernelOp>())
    names.push_back(kernel.getSymName().str());
  EXPECT_EQ(names, SmallVector<std::string>{"withView_vec"});
  auto generic =
      tilec::cloneForVariant(*module, *tilec::lookupKernelVariant("generic"));
  ASSERT_TRUE(succeeded(generic));
  EXPECT_EQ(std::distance((**generic).getOps<tile::KernelOp>().begin(),
                          (**generic).getOps<tile::KernelOp>().end()),
            2);
}

// The generic fatbin of --generic-targets takes the kernels with a
// specialised variant; `keep` picks them.
TEST_F(VariantModules, CloneKeepsTheKernelsAsked) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    tile.kernel @withView(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
      tile.return
    }
    tile.kernel @scalarsOnly(%s: f32) attributes {num_warps = 1 : i32} {
      tile.return
    }
  )mlir");
  ASSERT_TRUE(module) << diagnostics;
  SmallVector<const tilec::KernelVariant *> variants;
  std::string error;
  ASSERT_TRUE(succeeded(
      tilec::parseKernelVariants("generic,vec", true, variants, error)));
  auto specialised = [&](Operation *kernel) {
    return tilec::hasSpecialisedVariant(kernel, variants);
  };
  auto withVec = tilec::cloneForVariant(
      *module, *tilec::lookupKernelVariant("generic"), specialised);
  ASSERT_TRUE(succeeded(withVec)) << diagnostics;
  SmallVector<std::string> names;
  for (auto kernel : (**withVec).getOps<tile::KernelOp>())
    names.push_back(kernel.getSymName().str());
  EXPECT_EQ(names, SmallVector<std::string>{"withView"});
  auto without = tilec::cloneForVariant(
      *module, *tilec::lookupKernelVariant("generic"),
      [&](Operation *kernel) { return !specialised(kernel); });
  ASSERT_TRUE(succeeded(without)) << diagnostics;
  names.clear();
  for (auto kernel : (**without).getOps<tile::KernelOp>())
    names.push_back(kernel.getSymName().str());
  EXPECT_EQ(names, SmallVector<std::string>{"scalarsOnly"});
  // Without a specialised variant in the list, no kernel has one.
  EXPECT_FALSE(tilec::hasSpecialisedVariant(
      *module->getOps<tile::KernelOp>().begin(), variants.front()));
}

TEST_F(VariantModules, CloneRejectsANameTheVariantWouldTake) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    tile.kernel @k(%x: !tile.view<1, f32>) attributes {num_warps = 1 : i32} {
      tile.return
    }
    tile.kernel @k_vec(%s: f32) attributes {num_warps = 1 : i32} {
      tile.return
    }
  )mlir");
  ASSERT_TRUE(module) << diagnostics;
  EXPECT_TRUE(failed(
      tilec::cloneForVariant(*module, *tilec::lookupKernelVariant("vec"))));
  EXPECT_NE(diagnostics.find("kernel @k has a vec variant @k_vec, which is "
                             "also the name of another kernel"),
            std::string::npos)
      << diagnostics;
}

// Declarations both variants make are kept once; a helper both define is
// renamed where the variant uses it; a kernel in both is an error.
TEST_F(VariantModules, MergeSharesDeclarationsAndRenamesHelpers) {
  OwningOpRef<ModuleOp> into = parse(loweredVariant("k", 1));
  OwningOpRef<ModuleOp> from = parse(loweredVariant("k_vec", 2));
  ASSERT_TRUE(into && from) << diagnostics;
  ASSERT_TRUE(succeeded(tilec::mergeLoweredVariant(*into, *from)))
      << diagnostics;
  SmallVector<std::string> symbols;
  for (Operation &op : into->getBody()->getOperations())
    symbols.push_back(
        cast<SymbolOpInterface>(op).getName().str());
  EXPECT_EQ(symbols, (SmallVector<std::string>{"tile_smem", "__nv_expf",
                                               "helper", "k", "helper_variant",
                                               "k_vec"}));
  auto vec = into->lookupSymbol<LLVM::LLVMFuncOp>("k_vec");
  ASSERT_TRUE(vec);
  bool callsRenamed = false;
  vec.walk([&](LLVM::CallOp call) {
    callsRenamed = call.getCallee() == StringRef("helper_variant");
  });
  EXPECT_TRUE(callsRenamed);

  OwningOpRef<ModuleOp> clash = parse(R"mlir(
    llvm.func @k() attributes {nvvm.kernel} {
      llvm.return
    }
  )mlir");
  ASSERT_TRUE(clash);
  EXPECT_TRUE(failed(tilec::mergeLoweredVariant(*into, *clash)));
  EXPECT_NE(diagnostics.find("kernel @k is lowered in two variants"),
            std::string::npos)
      << diagnostics;
}

} // namespace
