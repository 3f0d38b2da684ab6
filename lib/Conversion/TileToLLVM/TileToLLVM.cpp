//===- TileToLLVM.cpp - tile kernels to LLVM + NVVM -------------*- C++ -*-===//
//
// The `convert-tile-to-llvm` pass: type conversion, code-building helpers,
// the kernel signature (the ABI of Pipeline.h) and the driver. The lowering
// of the ops themselves lives in Lower*.cpp; docs/codegen.md is the design.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "MmaTarget.h"

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "llvm/Support/MathExtras.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

TileTypeConverter::TileTypeConverter(MLIRContext *context, int64_t numThreads,
                                     bool layouts, bool vectorize)
    : LLVMTypeConverter(context), numThreads(numThreads), layouts(layouts),
      vectorize(vectorize) {
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!type.hasStaticShape())
      return Type();
    if (tilegpu::DistributedLayoutAttr layout =
            tilegpu::getDistributedLayout(type))
      return VectorType::get(
          {int64_t(1) << (layout.getRegisterBases().size() / layout.getRank())},
          getRegisterType(type.getElementType()));
    return VectorType::get({getLayout(type).getNumRegisters()},
                           getRegisterType(type.getElementType()));
  });
  addConversion([context](tile::ViewType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    results.push_back(LLVM::LLVMPointerType::get(context, /*addressSpace=*/1));
    results.append(2 * type.getRank(), IntegerType::get(context, 64));
    return success();
  });
  // A shared buffer is the address of its first element; a token names
  // nothing at run time (cp.async groups are counted by the hardware).
  addConversion([context](tilegpu::SmemType) -> Type {
    return LLVM::LLVMPointerType::get(context, /*addressSpace=*/3);
  });
  addConversion([context](tilegpu::TokenType) -> Type {
    return IntegerType::get(context, 32);
  });
}

BlockedLayout TileTypeConverter::getLayout(RankedTensorType type) const {
  return BlockedLayout(type.getShape(), numThreads);
}

Type TileTypeConverter::getRegisterType(Type element) {
  if (isa<FloatTF32Type>(element))
    return Float32Type::get(element.getContext());
  return element;
}

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//

Value Emitter::i32(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

Value Emitter::i64(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}

Value Emitter::add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }

Value Emitter::mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

Value Emitter::udiv(Value x, int64_t y) {
  if (y == 1)
    return x;
  return arith::DivUIOp::create(
      b, loc, x, arith::ConstantIntOp::create(b, loc, x.getType(), y));
}

Value Emitter::urem(Value x, int64_t y) {
  return arith::RemUIOp::create(
      b, loc, x, arith::ConstantIntOp::create(b, loc, x.getType(), y));
}

Value Emitter::ult(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
}

Value Emitter::logicalAnd(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}

Value Emitter::toI64(Value x) {
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), x);
}

Value Emitter::threadId() {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

void Emitter::barrier() { NVVM::Barrier0Op::create(b, loc); }

Value Emitter::extract(Value vector, int64_t position) {
  return LLVM::ExtractElementOp::create(b, loc, vector, i32(position));
}

Value Emitter::insert(Value vector, Value element, int64_t position) {
  return LLVM::InsertElementOp::create(b, loc, vector, element, i32(position));
}

Value Emitter::zeros(Type type) { return LLVM::ZeroOp::create(b, loc, type); }

Value Emitter::splat(VectorType type, Value scalar) {
  Value first = insert(LLVM::PoisonOp::create(b, loc, type), scalar, 0);
  SmallVector<int32_t> mask(type.getNumElements(), 0);
  return LLVM::ShuffleVectorOp::create(b, loc, first, first, mask);
}

Value Emitter::linearIndex(const BlockedLayout &layout, int64_t reg,
                           bool clamp) {
  Value linear = threadId();
  if (layout.getVectorWidth() != 1)
    linear = mul(linear, i32(layout.getVectorWidth()));
  if (int64_t base = layout.getRegisterBase(reg))
    linear = add(linear, i32(base));
  if (clamp && layout.mayBePadding(reg))
    linear = arith::MinUIOp::create(b, loc, linear,
                                    i32(layout.getNumElements() - 1));
  return linear;
}

Value Emitter::holdsElement(const BlockedLayout &layout, int64_t reg) {
  if (!layout.mayBePadding(reg))
    return Value();
  return ult(linearIndex(layout, reg, /*clamp=*/false),
             i32(layout.getNumElements()));
}

SmallVector<Value> Emitter::delinearize(Value linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = getRowMajorStrides(shape);
  SmallVector<Value> coords;
  for (auto [d, size] : llvm::enumerate(shape)) {
    Value coord = udiv(linear, strides[d]);
    // The first coordinate needs no wrap-around: linear < numel.
    if (d != 0)
      coord = size == 1 ? i32(0) : urem(coord, size);
    coords.push_back(coord);
  }
  return coords;
}

Value Emitter::dot(ValueRange coords, ArrayRef<int64_t> strides) {
  if (coords.empty())
    return i32(0);
  Type type = coords.front().getType();
  Value sum;
  for (auto [coord, stride] : llvm::zip(coords, strides)) {
    Value term = stride == 1 ? coord
                             : mul(coord, arith::ConstantIntOp::create(
                                              b, loc, type, stride));
    sum = sum ? add(sum, term) : term;
  }
  return sum;
}

Value Emitter::sharedBase() {
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/3),
      kSharedMemoryName);
}

Value Emitter::sharedAddress(const SharedLayout &layout, Type element,
                             Value elementOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value tileBase = sharedBase();
  if (layout.offset)
    tileBase = LLVM::GEPOp::create(
        b, loc, ptrType, b.getI8Type(), tileBase,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(layout.offset)});
  return LLVM::GEPOp::create(b, loc, ptrType, getSharedType(element), tileBase,
                             ValueRange{elementOffset});
}

Value Emitter::loadShared(Type element, Value address) {
  Type stored = getSharedType(element);
  Value value = LLVM::LoadOp::create(b, loc, stored, address,
                                     getSharedBytes(element));
  if (stored != element)
    value = LLVM::TruncOp::create(b, loc, element, value);
  return value;
}

void Emitter::storeShared(Value value, Value address) {
  Type stored = getSharedType(value.getType());
  if (stored != value.getType())
    value = LLVM::ZExtOp::create(b, loc, stored, value);
  LLVM::StoreOp::create(b, loc, value, address,
                        getSharedBytes(value.getType()));
}

void Emitter::ifThen(Value condition, function_ref<void()> body) {
  if (!condition)
    return body();
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &, Location l) {
    body();
    scf::YieldOp::create(b, l);
  });
}

Value Emitter::ifThenElse(Value condition, function_ref<Value()> then,
                          Value otherwise) {
  if (!condition)
    return then();
  auto ifOp = scf::IfOp::create(
      b, loc, condition,
      [&](OpBuilder &, Location l) { scf::YieldOp::create(b, l, then()); },
      [&](OpBuilder &, Location l) { scf::YieldOp::create(b, l, otherwise); });
  return ifOp.getResult(0);
}

SmallVector<Value> Emitter::loop(
    Value lower, Value upper, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body, int64_t step) {
  auto forOp = scf::ForOp::create(
      b, loc, lower, upper, i32(step), init,
      [&](OpBuilder &, Location l, Value iv, ValueRange args) {
        scf::YieldOp::create(b, l, body(iv, args));
      });
  return SmallVector<Value>(forOp.getResults());
}

Type tilec::detail::getSharedType(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 8);
  return TileTypeConverter::getRegisterType(element);
}

int64_t tilec::detail::getSharedBytes(Type element) {
  return llvm::divideCeil(getSharedType(element).getIntOrFloatBitWidth(), 8);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {

/// tile.kernel -> llvm.func with the ABI of Pipeline.h.
/// The CTAs per multiprocessor the lowered kernel asks ptxas for
/// (`.minnctapersm`, i32), set by the pass from the kernel's occupancy and
/// the lowering path (minCtasPerSM); absent: ptxas chooses.
constexpr llvm::StringLiteral kMinCtasPerSMAttrName = "tilec.min_ctas_per_sm";

/// `.minnctapersm` for `kernel` lowered on the layouts path or not, with the
/// vectorize facts or not (the vec or the generic variant), for compute
/// capability `sm` (docs/dialect.md, "Kernel attributes"):
/// - the wgmma path (vec, sm_90a; and the simple generator everywhere):
///   `occupancy`, none at 1 -- what the instance tables were tuned with;
/// - the mma.sync path of the vec variant: `mma_sync_occupancy`, by default
///   `occupancy`;
/// - the generic variant: 1. It is the fallback for views without the
///   vectorize facts and holds every tile in registers one element per
///   access, so at the vec variant's occupancy it spilled (compute_out 144
///   to 1424 bytes, chunk_state 124 to 888 at chunks 64 and 128).
/// The last two are given even at 1: without it ptxas for sm_80 and sm_90
/// holds a CTA of 256 threads to 128 registers and spills where 146 would
/// do (fwd_pass_state with f16 x, 16 bytes).
std::optional<int32_t> minCtasPerSM(tile::KernelOp kernel, bool layouts,
                                    bool vectorize, unsigned sm) {
  auto occupancy = static_cast<int32_t>(kernel.getOccupancy());
  if (!layouts || (vectorize && sm >= 90))
    return occupancy > 1 ? std::optional<int32_t>(occupancy) : std::nullopt;
  if (!vectorize)
    return 1;
  return static_cast<int32_t>(
      kernel.getMmaSyncOccupancy().value_or(kernel.getOccupancy()));
}

struct KernelOpLowering : OpConversionPattern<tile::KernelOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::KernelOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    MLIRContext *context = op.getContext();
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes()))
      if (failed(converter.convertSignatureArg(i, type, signature)))
        return op.emitOpError() << "argument " << i << " of type " << type
                                << " has no LLVM type";
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                            signature.getConvertedTypes());
    auto func =
        LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getSymName(), type);
    int32_t numThreads = 32 * op.getNumWarps();
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                  rewriter.getUnitAttr());
    func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                  rewriter.getDenseI32ArrayAttr({numThreads, 1, 1}));
    // `.minnctapersm`: ptxas then holds each thread to the registers that
    // let that many CTAs share a multiprocessor (65536 / (threads *
    // occupancy), rounded down to its allocation unit), spilling if it must.
    if (auto ctas = op->getAttrOfType<IntegerAttr>(kMinCtasPerSMAttrName))
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    rewriter.getI32IntegerAttr(ctas.getInt()));
    func->setAttr(kNumWarpsAttrName,
                  rewriter.getI32IntegerAttr(op.getNumWarps()));
    auto shared = op->getAttrOfType<IntegerAttr>(kSharedBytesAttrName);
    func->setAttr(kSharedBytesAttrName,
                  rewriter.getI64IntegerAttr(shared ? shared.getInt() : 0));
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), converter,
                                           &signature)))
      return op.emitOpError() << "has a block whose types cannot be lowered";
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnOpLowering : OpConversionPattern<tile::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

bool isTileOrView(Type type) {
  return isa<RankedTensorType, tile::ViewType>(type);
}

/// Whether `op` touches a tile or a view (then it must be lowered here).
bool hasTileOrViewTypes(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), isTileOrView) ||
      llvm::any_of(op->getResultTypes(), isTileOrView))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isTileOrView))
        return true;
  return false;
}

/// Checks that tile-bind-params ran: no tile.param, every tile shape static.
LogicalResult checkBound(ModuleOp module) {
  if (std::optional<tile::Unbound> unbound = tile::findUnbound(module))
    return unbound->op->emitOpError() << unbound->message;
  return success();
}

/// Only the kernels of `module` itself become GPU functions; one in a nested
/// module would be left out of the PTX without a word.
LogicalResult checkTopLevel(ModuleOp module) {
  WalkResult walk = module.walk([&](tile::KernelOp kernel) {
    if (kernel->getParentOp() == module.getOperation())
      return WalkResult::advance();
    kernel.emitOpError() << "is inside a nested module: only the kernels at "
                            "the top level of the file are compiled";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The element operations one thread of `kernel` runs in straight-line
/// code: every tile op is unrolled over the thread's registers, a scalar op
/// is one operation (loops are not unrolled, so a loop body counts once). A
/// libdevice call inlines tens of instructions and counts as
/// kLibdeviceCallCost per element or scalar.
int64_t countUnrolledElementOps(tile::KernelOp kernel) {
  constexpr int64_t kLibdeviceCallCost = 32;
  int64_t numThreads = 32 * static_cast<int64_t>(kernel.getNumWarps());
  int64_t total = 0;
  kernel.walk([&](Operation *op) {
    int64_t cost = getLibdeviceFunction(op) ? kLibdeviceCallCost : 1;
    auto count = [&](Type type) {
      if (type.isIntOrIndexOrFloat()) {
        total += cost;
        return;
      }
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return;
      std::optional<int64_t> registers =
          tile::getTileRegistersPerThread(tensor, numThreads);
      // The verifier bounds registers per tile (255), so this cannot wrap.
      total += cost * registers.value_or(0);
    };
    for (Type type : op->getResultTypes())
      count(type);
    // A store produces nothing but unrolls over its tile.
    if (auto store = dyn_cast<tile::StoreOp>(op))
      count(store.getValue().getType());
  });
  return total;
}

/// Bounds the time LLVM and ptxas take: their cost grows with the
/// straight-line code of a thread, summed over the kernels of the file (one
/// LLVM module, one ptxas run), so many small kernels are bounded too.
LogicalResult checkCodeSize(ModuleOp module) {
  int64_t fileOps = 0;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    int64_t ops = countUnrolledElementOps(kernel);
    if (ops > kMaxUnrolledElementOps)
      return kernel.emitOpError()
             << "unrolls to about " << ops
             << " element operations per thread, more than the "
             << kMaxUnrolledElementOps
             << " tilec compiles in bounded time: use smaller tiles, more "
                "warps, or a loop over sub-tiles";
    fileOps += ops;
    if (fileOps > kMaxUnrolledElementOps)
      return kernel.emitOpError()
             << "brings the kernels of this file to about " << fileOps
             << " element operations per thread in all, more than the "
             << kMaxUnrolledElementOps
             << " tilec compiles in bounded time: compile the kernels in "
                "separate files";
  }
  return success();
}

/// Whether the tiles of `kernel` carry layouts (the layouts path: the
/// tilegpu layout passes ran); fails, saying where, when only some do.
FailureOr<bool> usesLayouts(tile::KernelOp kernel) {
  std::optional<bool> layouts;
  Operation *mismatch = nullptr;
  kernel.walk([&](Operation *op) {
    auto check = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return;
      bool has = bool(tilegpu::getDistributedLayout(tensor));
      if (!layouts)
        layouts = has;
      else if (*layouts != has && !mismatch)
        mismatch = op;
    };
    for (Type type : op->getResultTypes())
      check(type);
    for (Type type : op->getOperandTypes())
      check(type);
  });
  if (mismatch) {
    mismatch->emitOpError()
        << "mixes tiles with and without #tilegpu.dist layouts: run "
           "tilegpu-assign-layouts on the whole kernel, or neither";
    return failure();
  }
  return layouts.value_or(false);
}

struct ConvertTileToLLVMPass
    : public tilec::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (sm < 80) {
      module.emitError() << "convert-tile-to-llvm targets sm_80 and later "
                            "(mma.sync with bf16 and tf32), not sm_"
                         << sm;
      return signalPassFailure();
    }
    if (failed(checkBound(module)) || failed(checkTopLevel(module)) ||
        failed(checkCodeSize(module)) || failed(checkAsyncCopies(module)) ||
        failed(checkMmaTargets(module, sm)))
      return signalPassFailure();
    // The patterns implement the longer forms the shorthands stand for
    // (buildTileToLLVMPipeline has expanded them already; this is for a
    // direct --convert-tile-to-llvm).
    tile::expandForms(module);
    tilec::detail::markWgmmaPairs(module);

    // Every op with a scratch area starts it at offset 0 and ends with a
    // barrier (a wgmma pair as one op: its first product leaves the barrier
    // to the second, the op right after it), so a kernel needs the largest
    // of them.
    SmallVector<tile::KernelOp> kernels(module.getOps<tile::KernelOp>());
    SmallVector<bool> kernelLayouts;
    for (tile::KernelOp kernel : kernels) {
      FailureOr<bool> layouts = usesLayouts(kernel);
      if (failed(layouts))
        return signalPassFailure();
      kernelLayouts.push_back(*layouts);
    }
    bool usesShared = false;
    for (auto [kernel, layouts] : llvm::zip(kernels, kernelLayouts)) {
      int64_t bytes = 0;
      kernel.walk([&, layouts = layouts](Operation *op) {
        bytes = std::max(bytes, layouts ? getDistributedScratchBytes(op)
                                        : getSharedScratchBytes(op));
      });
      // The buffers tilegpu-allocate-shared placed go above the scratch
      // area, so the scratch protocol of the other ops never meets them.
      if (auto buffers = kernel->getAttrOfType<IntegerAttr>(
              tilegpu::kKernelSharedBytesAttrName);
          buffers && buffers.getInt() > 0) {
        // 1024: the repeat of the 128-byte swizzle, on which wgmma reads a
        // swizzled buffer (tilegpu-allocate-shared aligns them relative to
        // this base).
        int64_t base = llvm::alignTo(bytes, 1024);
        kernel.walk([&](tilegpu::LocalAllocOp alloc) {
          if (auto offset = alloc->getAttrOfType<IntegerAttr>(
                  tilegpu::kSharedOffsetAttrName))
            alloc->setAttr(tilegpu::kSharedOffsetAttrName,
                           IntegerAttr::get(offset.getType(),
                                            base + offset.getInt()));
        });
        bytes = base + buffers.getInt();
      }
      kernel->setAttr(kSharedBytesAttrName,
                      IntegerAttr::get(IntegerType::get(context, 64), bytes));
      usesShared |= bytes > 0;
    }
    declareLibdeviceFunctions(module);
    if (usesShared && !module.lookupSymbol(kSharedMemoryName)) {
      OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          builder, module.getLoc(),
          LLVM::LLVMArrayType::get(IntegerType::get(context, 8), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSharedMemoryName,
          // 1024: the repeat of the 128-byte swizzle, which wgmma operand
          // buffers (at multiples of it) must start on.
          Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    }

    for (auto [kernel, layouts] : llvm::zip(kernels, kernelLayouts)) {
      if (std::optional<int32_t> ctas =
              minCtasPerSM(kernel, layouts, vectorize, sm))
        kernel->setAttr(kMinCtasPerSMAttrName,
                        IntegerAttr::get(IntegerType::get(context, 32), *ctas));
      TileTypeConverter converter(context, 32 * kernel.getNumWarps(), layouts,
                                  vectorize);
      kernel.walk([&](Operation *op) {
        if (auto load = dyn_cast<tile::LoadOp>(op);
            load && tile::hasAnyStrides(load.getView()))
          converter.accessElementByElement(op);
        if (auto store = dyn_cast<tile::StoreOp>(op);
            store && tile::hasAnyStrides(store.getView()))
          converter.accessElementByElement(op);
      });
      RewritePatternSet patterns(context);
      populateTileToLLVMConversionPatterns(converter, patterns);
      ConversionTarget target(*context);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
      target.addIllegalDialect<tile::TileDialect, tilegpu::TileGPUDialect>();
      target.addLegalOp<UnrealizedConversionCastOp>();
      target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect,
                                        scf::SCFDialect>(
          [](Operation *op) { return !hasTileOrViewTypes(op); });
      // No upstream lowering of these reaches PTX (they would need libdevice).
      target.addIllegalOp<math::ExpOp, math::Exp2Op, math::LogOp,
                          math::Log2Op>();
      target.addIllegalOp<math::SinOp, math::CosOp, math::TanhOp,
                          math::PowFOp, math::ErfOp, math::AtanOp,
                          math::Atan2Op, math::ExpM1Op, math::Log1pOp,
                          math::Log10Op>();
      // Upstream's lowering of these is poison (or undefined) where
      // docs/semantics.md defines a result.
      target.addIllegalOp<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp,
                          arith::DivSIOp, arith::RemSIOp, arith::FPToSIOp,
                          arith::FPToUIOp>();
      if (failed(applyPartialConversion(kernel.getOperation(), target,
                                        std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace

int64_t tilec::getSharedScratchBytes(Operation *op) {
  if (auto mma = dyn_cast<tile::MmaOp>(op))
    return getMmaScratchBytes(mma);
  return getExchangeScratchBytes(op);
}

void tilec::populateTileToLLVMConversionPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<KernelOpLowering, ReturnOpLowering>(converter,
                                                   patterns.getContext());
  populateValuePatterns(converter, patterns);
  populateMemoryPatterns(converter, patterns);
  populateSharedPatterns(converter, patterns);
  populateMmaPatterns(converter, patterns);
  if (converter.hasLayouts())
    populateAsyncCopyPatterns(converter, patterns);
  populateArithPatterns(converter, patterns);
  populateLibdevicePatterns(converter, patterns);
  scf::populateSCFStructuralTypeConversions(converter, patterns);
}
