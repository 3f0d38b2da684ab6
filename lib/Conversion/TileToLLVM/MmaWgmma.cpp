//===- MmaWgmma.cpp - tile.mma as wgmma.mma_async (sm_90a) ------*- C++ -*-===//
//
// The sm_90a implementation of MmaTarget, for the tile.mma ops that
// tilegpu-assign-layouts marked (kWgmmaAttrName): the accumulator is in the
// warpgroup accumulator layout (tilegpu::getWgmmaLayouts: warpgroups stacked
// along M, then side by side along N), A and B in whatever layouts their
// producers gave them. One product:
//
//   1. every thread stores its elements of A and B (padding zeroed, one
//      copy of replicated elements) into the scratch area, A K-major and B
//      N-major, each in the swizzled layout of swizzledSharedLayout with the
//      widest swizzle its rows span (128, 64 or 32 bytes), in vectors of up
//      to 16 bytes;
//   2. fence.proxy.async (the generic-proxy stores become visible to wgmma,
//      which reads through the async proxy), bar.sync;
//   3. wgmma.fence (the accumulator registers were written by other
//      instructions since the last wgmma), then per k-step of 16 and per
//      64 x instrN block of the accumulator this warpgroup holds one
//      wgmma.mma_async.m64nNk16 with matrix descriptors: start address >> 4,
//      leading byte offset (B: between the swizzle-wide column blocks along
//      N; A: unused), stride byte offset (8 rows of the swizzle span apart),
//      swizzle mode (PTX ISA, "Matrix Descriptor Format");
//   4. wgmma.commit_group, wgmma.wait_group 0 (the accumulator is read by
//      ordinary instructions after the product), bar.sync (no warpgroup
//      may overwrite the operands another one still reads).
//
// The accumulator stays in its registers across scf.for. Step 1 goes away
// where the operands arrive in shared memory already (cp.async or TMA into
// the same swizzled layout: docs/codegen-layouts.md).
//
//===----------------------------------------------------------------------===//

#include "MmaTarget.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Dialect/TileGPU/Transforms/LayoutRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// Every operand row of one instruction is 32 bytes of K: m64nNk16 for
/// bf16/f16, m64nNk8 for tf32.
constexpr int64_t kInstructionKBytes = 32;

/// Bytes of an operand element in shared memory (tf32: its f32 bits).
int64_t elementBytes(Type element) {
  return isa<FloatTF32Type>(element) ? 4 : 2;
}

/// One operand in the scratch area: a rows x cols tile with cols contiguous
/// (A: M x K; B: K x N, or N x K for tf32) in swizzledSharedLayout's
/// layout.
struct SharedOperand {
  /// Tile coordinates (dim0, dim1) -> element offset in the tile.
  LinearLayout toOffset;
  /// Where the tile starts in the scratch area (a multiple of 1024).
  int64_t offsetBytes = 0;
  /// The descriptor's fields other than the start address.
  uint64_t descriptorBits = 0;
};

/// The descriptor's swizzle mode (bits 62-63).
uint64_t swizzleMode(int64_t swizzleBytes) {
  switch (swizzleBytes) {
  case 128:
    return 1;
  case 64:
    return 2;
  default:
    return 3;
  }
}

/// `shape` padded, rows x contiguous cols of `bytes`-byte elements;
/// `contiguousIsK`: the cols are the K dim (K-major), else the rows are
/// (N-major). With `transposed`, the tile's coordinates are (col, row) of
/// the stored tile (a K x N operand B stored K-major as N x K).
SharedOperand makeOperand(ArrayRef<int64_t> shape, int64_t bytes,
                          int64_t offsetBytes, bool contiguousIsK,
                          bool transposed = false) {
  int64_t swizzleBytes = std::min<int64_t>(128, shape[1] * bytes);
  LinearLayout stored =
      swizzledSharedLayout(shape, unsigned(bytes), unsigned(swizzleBytes));
  if (transposed) {
    // offset -> (col, row) as dims (dim0, dim1) of the operand tile.
    SmallVector<LinearLayout::InDim> ins = stored.getBases();
    for (LinearLayout::InDim &in : ins)
      for (LinearLayout::Basis &basis : in.bases)
        std::swap(basis[0], basis[1]);
    SmallVector<LayoutDim> outs(stored.getOutDims());
    std::swap(outs[0].log2Size, outs[1].log2Size);
    stored = LinearLayout(ins, outs);
  }
  SharedOperand operand;
  operand.toOffset = stored.invert();
  operand.offsetBytes = offsetBytes;
  // Rows are swizzleBytes apart inside a column block, so 8 rows (the
  // stride byte offset: K-major the next 8 rows of M or N, N-major the next
  // 8 rows of K) are 8 * swizzleBytes apart. The leading byte offset is
  // unused for swizzled K-major operands (the PTX ISA says to assume 1);
  // N-major it steps from one swizzle-wide column block to the next, which
  // holds every row.
  int64_t strideBytes = 8 * swizzleBytes;
  int64_t leadingBytes = contiguousIsK ? 16 : shape[0] * swizzleBytes;
  operand.descriptorBits = (uint64_t(leadingBytes >> 4) << 16) |
                           (uint64_t(strideBytes >> 4) << 32) |
                           (swizzleMode(swizzleBytes) << 62);
  return operand;
}

struct WgmmaOperands {
  SharedOperand a, b;
  int64_t scratchBytes = 0;
};

WgmmaOperands planOperands(tile::MmaOp op) {
  SmallVector<int64_t> aShape =
      tilegpu::getPaddedShape(op.getA().getType().getShape());
  SmallVector<int64_t> bShape =
      tilegpu::getPaddedShape(op.getB().getType().getShape());
  int64_t bytes = elementBytes(op.getA().getType().getElementType());
  int64_t aBytes = aShape[0] * aShape[1] * bytes;
  int64_t bOffset = llvm::alignTo(aBytes, 1024);
  WgmmaOperands operands;
  operands.a = makeOperand(aShape, bytes, 0, /*contiguousIsK=*/true);
  // tf32 wgmma reads B K-major only: stored transposed, N x K.
  if (bytes == 4)
    operands.b = makeOperand({bShape[1], bShape[0]}, bytes, bOffset,
                             /*contiguousIsK=*/true, /*transposed=*/true);
  else
    operands.b = makeOperand(bShape, bytes, bOffset, /*contiguousIsK=*/false);
  operands.scratchBytes = bOffset + bShape[0] * bShape[1] * bytes;
  return operands;
}

/// Stores this thread's elements of `tile` (its registers `registers`) into
/// `shared`: one copy of each element, padding included (zeroed by the
/// caller), in the widest vectors the two layouts keep together.
void storeOperand(Emitter &e, const DistributedTile &tile, Value registers,
                  const SharedOperand &shared) {
  LinearLayout storeLayout = tile.getLayout().compose(shared.toOffset);
  Type element = cast<VectorType>(registers.getType()).getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t width = 16 / bytes;
  while (width > 1 && !keepsVectors(storeLayout, width))
    width /= 2;
  ThreadLayout offsets(e, storeLayout);
  Value notACopy =
      threadBitsClear(e, tile.getCopyLaneMask(), tile.getCopyWarpMask());
  SharedLayout base;
  base.offset = shared.offsetBytes;
  for (int64_t r = 0; r < tile.getNumRegisters(); r += width) {
    if (!tile.owns(e, r))
      continue;
    Value piece;
    if (width == 1) {
      piece = e.extract(registers, r);
    } else {
      SmallVector<int32_t> mask;
      for (int64_t i = 0; i < width; ++i)
        mask.push_back(int32_t(r + i));
      piece =
          LLVM::ShuffleVectorOp::create(e.b, e.loc, registers, registers, mask);
    }
    Value offset = offsets.outputs(e, r)[0];
    e.ifThen(notACopy, [&] {
      LLVM::StoreOp::create(e.b, e.loc, piece,
                            e.sharedAddress(base, element, offset),
                            width * bytes);
    });
  }
}

/// The image of this thread's warpgroup (warp bits from 2 on) in `layout`,
/// projected on the tile dim `dim` and mapped into `shared`: the element
/// offset (i32) of the warpgroup's part of the operand.
Value warpgroupOffset(Emitter &e, const LinearLayout &accumulator,
                      unsigned accumulatorDim, unsigned operandDim,
                      const SharedOperand &shared) {
  LinearLayout::InDim warps{std::string(kWarp), {}};
  unsigned warpBits = llvm::Log2_64(uint64_t(accumulator.getInDimSize(kWarp)));
  for (unsigned bit = 0; bit < warpBits; ++bit) {
    LinearLayout::Basis basis(2, 0);
    if (bit >= 2)
      basis[operandDim] = accumulator.getBasis(kWarp, bit)[accumulatorDim];
    warps.bases.push_back(basis);
  }
  LinearLayout toOperand({warps}, shared.toOffset.getInDims());
  return ThreadLayout(e, toOperand.compose(shared.toOffset)).threadImage()[0];
}

/// The matrix descriptor (i64) of the operand tile part starting at
/// element offset `warpgroupPart` XOR `constantPart` of `shared`, whose
/// elements are `element` in registers.
Value descriptor(Emitter &e, const SharedOperand &shared, Type element,
                 Value warpgroupPart, int64_t constantPart) {
  Value offset = constantPart == 0
                     ? warpgroupPart
                     : e.bitXor(warpgroupPart, e.i32(constantPart));
  SharedLayout base;
  base.offset = shared.offsetBytes;
  Value address = e.sharedAddress(base, element, offset);
  Type i64 = e.b.getI64Type();
  Value bits = LLVM::PtrToIntOp::create(e.b, e.loc, i64, address);
  // Start address bits [4, 18) in descriptor bits [0, 14).
  Value start =
      e.bitAnd(LLVM::LShrOp::create(e.b, e.loc, bits, e.i64(4)), 0x3fff);
  return LLVM::OrOp::create(e.b, e.loc, start,
                            e.i64(int64_t(shared.descriptorBits)));
}

NVVM::WGMMATypes wgmmaType(Type element) {
  if (isa<FloatTF32Type>(element))
    return NVVM::WGMMATypes::tf32;
  return element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
}

class WgmmaTarget final : public MmaTarget {
public:
  bool matches(tile::MmaOp op) const override {
    RankedTensorType acc = op.getAcc().getType();
    if (!acc.getElementType().isF32() ||
        op.getA().getType().getElementType() !=
            op.getB().getType().getElementType())
      return false;
    unsigned numWarps =
        unsigned(getDistributedLinearLayout(acc).getInDimSize(kWarp));
    std::optional<tilegpu::MmaLayouts> layouts = tilegpu::getWgmmaLayouts(
        op.getA().getType(), op.getB().getType(), numWarps);
    return layouts && layouts->acc == tilegpu::getDistributedLayout(acc);
  }

  Value emitMma(Emitter &e, tile::MmaOp op, Value a, Value b,
                Value acc) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     accType = op.getAcc().getType();
    LinearLayout accumulator = getDistributedLinearLayout(accType);
    unsigned numWarps = unsigned(accumulator.getInDimSize(kWarp));
    tilegpu::WgmmaShape shape = *tilegpu::getWgmmaShape(aType, bType, numWarps);
    WgmmaOperands operands = planOperands(op);

    DistributedTile aTile(e, aType), bTile(e, bType);
    storeOperand(e, aTile, zeroPadding(e, aTile, a), operands.a);
    storeOperand(e, bTile, zeroPadding(e, bTile, b), operands.b);
    NVVM::FenceProxyOp::create(
        e.b, e.loc,
        NVVM::ProxyKindAttr::get(e.b.getContext(),
                                 NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(e.b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    e.barrier();

    // This warpgroup's rows of A and columns of B.
    Value aPart = warpgroupOffset(e, accumulator, 0, 0, operands.a);
    Value bPart = warpgroupOffset(e, accumulator, 1, 1, operands.b);
    int64_t k = tilegpu::getPaddedShape(aType.getShape())[1];
    int64_t perBlock = shape.instrN / 2;
    int64_t numBlocks = accumulator.getInDimSize(kRegister) / perBlock;
    MLIRContext *context = e.b.getContext();
    Type f32 = e.b.getF32Type();
    Type fragment = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(perBlock, f32));
    NVVM::WGMMATypes operandType = wgmmaType(aType.getElementType());
    Type element = TileTypeConverter::getRegisterType(aType.getElementType());
    bool tf32 = isa<FloatTF32Type>(aType.getElementType());
    int64_t instructionK =
        kInstructionKBytes / elementBytes(aType.getElementType());

    SmallVector<Value> blocks;
    for (int64_t block = 0; block < numBlocks; ++block) {
      Value d = LLVM::PoisonOp::create(e.b, e.loc, fragment);
      for (int64_t i = 0; i < perBlock; ++i)
        d = LLVM::InsertValueOp::create(
            e.b, e.loc, d, e.extract(acc, block * perBlock + i), i);
      blocks.push_back(d);
    }
    NVVM::WgmmaFenceAlignedOp::create(e.b, e.loc);
    // k-steps outside, blocks inside: consecutive instructions are
    // independent products.
    for (int64_t k0 = 0; k0 < k; k0 += instructionK) {
      for (int64_t block = 0; block < numBlocks; ++block) {
        SmallVector<int64_t> origin =
            accumulator.apply({block * perBlock, 0, 0});
        Value descA = descriptor(e, operands.a, element, aPart,
                                 operands.a.toOffset.apply({origin[0], k0})[0]);
        Value descB = descriptor(e, operands.b, element, bPart,
                                 operands.b.toOffset.apply({k0, origin[1]})[0]);
        blocks[block] = NVVM::WgmmaMmaAsyncOp::create(
            e.b, e.loc, fragment, blocks[block], descA, descB,
            NVVM::MMAShapeAttr::get(context, 64, int(shape.instrN),
                                    int(instructionK)),
            operandType, operandType, NVVM::WGMMATypes::f32,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one,
            // A K-major (row-major M x K); B N-major (row-major K x N,
            // imm-trans-b = 1), or for tf32 K-major (column-major).
            NVVM::MMALayout::row,
            tf32 ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            /*satfinite=*/nullptr);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(e.b, e.loc);
    emitWait(e, 0);
    e.barrier();

    Value result = acc;
    for (int64_t block = 0; block < numBlocks; ++block)
      for (int64_t i = 0; i < perBlock; ++i)
        result = e.insert(
            result, LLVM::ExtractValueOp::create(e.b, e.loc, blocks[block], i),
            block * perBlock + i);
    return result;
  }

  void emitWait(Emitter &e, unsigned pending) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(e.b, e.loc, pending);
  }

  int64_t getScratchBytes(tile::MmaOp op) const override {
    return planOperands(op).scratchBytes;
  }
};

} // namespace

const MmaTarget &tilec::detail::getWgmmaTarget() {
  static const WgmmaTarget target;
  return target;
}
