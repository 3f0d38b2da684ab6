//===- LowerMma.cpp - tile.mma ----------------------------------*- C++ -*-===//
//
// bf16, f16 and tf32 operands: mma.sync.m16n8k16 (16-bit) or m16n8k8 (tf32)
// with f32 accumulators. The operands and the accumulator go through shared
// memory: A row-major, B column-major (so that both fragments read pairs of
// consecutive 16-bit elements as one 32-bit word), C row-major, every row or
// column skewed by 16 bytes against bank conflicts, and extents rounded up to
// the instruction shape with zeros. Warp w computes the 16x8 output tiles w,
// w + num_warps, ..., loading its fragments from shared memory, and writes
// them back over C, from which every thread reads its blocked registers.
//
// f32 operands: each thread computes its own output elements with fused
// multiply-adds over K in order (A and B shared, the accumulator already in
// its registers).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

/// Where tile.mma keeps its operands in the scratch area.
struct MmaPlan {
  /// Unset for f32 operands (fused multiply-adds).
  std::optional<MmaLayout> instruction;
  int64_t m, n, k;
  /// Extents rounded up to the instruction shape.
  int64_t paddedM, paddedN, paddedK;
  SharedLayout a, b, c;

  int64_t sizeBytes() const { return instruction ? c.end() : b.end(); }
};

MmaPlan planMma(tile::MmaOp op) {
  MmaPlan plan;
  plan.m = op.getA().getType().getDimSize(0);
  plan.k = op.getA().getType().getDimSize(1);
  plan.n = op.getB().getType().getDimSize(1);
  Type element = op.getA().getType().getElementType();
  int64_t bytes = getSharedBytes(element);
  if (element.isF32()) {
    plan.paddedM = plan.m, plan.paddedN = plan.n, plan.paddedK = plan.k;
    plan.a = SharedLayout::rowMajor({plan.m, plan.k}, bytes, 0);
    plan.b = SharedLayout::rowMajor({plan.k, plan.n}, bytes,
                                    llvm::alignTo(plan.a.end(), 16));
    return plan;
  }
  plan.instruction = MmaLayout(8 * bytes);
  plan.paddedM = llvm::alignTo(plan.m, plan.instruction->getM());
  plan.paddedN = llvm::alignTo(plan.n, plan.instruction->getN());
  plan.paddedK = llvm::alignTo(plan.k, plan.instruction->getK());
  int64_t skew = 16 / bytes;
  plan.a = SharedLayout::rowMajor({plan.paddedM, plan.paddedK}, bytes, 0, skew);
  plan.b = SharedLayout::columnMajor(plan.paddedK, plan.paddedN, bytes,
                                     llvm::alignTo(plan.a.end(), 16), skew);
  plan.c = SharedLayout::rowMajor({plan.paddedM, plan.paddedN}, 4,
                                  llvm::alignTo(plan.b.end(), 16), 4);
  return plan;
}

/// Offset in elements of (row, col) in a 2-D shared tile.
Value offset2d(Emitter &e, const SharedLayout &layout, Value row, Value col) {
  return e.dot({row, col}, layout.strides);
}

Value laneCoord(Emitter &e, const LaneCoord &coord, Value group,
                Value inGroup) {
  Value value = e.i32(coord.constant);
  if (coord.group)
    value = e.add(value, e.mul(group, e.i32(coord.group)));
  if (coord.inGroup)
    value = e.add(value, e.mul(inGroup, e.i32(coord.inGroup)));
  return value;
}

/// Writes zeros to the elements of a rows x cols shared tile outside its
/// valid validRows x validCols corner, spread over the CTA's threads.
void zeroPadding(Emitter &e, const SharedLayout &layout, Type element,
                 int64_t rows, int64_t cols, int64_t validRows,
                 int64_t validCols, int64_t numThreads) {
  if (rows == validRows && cols == validCols)
    return;
  Value zero = LLVM::ConstantOp::create(e.b, e.loc, element,
                                        e.b.getZeroAttr(element));
  e.loop(e.threadId(), e.i32(rows * cols), {},
         [&](Value linear, ValueRange) {
           Value row = e.udiv(linear, cols);
           Value col = e.urem(linear, cols);
           Value padding = arith::OrIOp::create(
               e.b, e.loc,
               arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::uge,
                                     row, e.i32(validRows)),
               arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::uge,
                                     col, e.i32(validCols)));
           e.ifThen(padding, [&] {
             e.storeShared(zero, e.sharedAddress(layout, element,
                                                 offset2d(e, layout, row, col)));
           });
           return SmallVector<Value>();
         },
         numThreads);
}

struct MmaOpLowering : TilePattern<tile::MmaOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    MmaPlan plan = planMma(op);
    Value result = plan.instruction ? lowerToMmaSync(e, op, adaptor, plan)
                                    : lowerToFma(e, op, adaptor, plan);
    rewriter.replaceOp(op, result);
    return success();
  }

  Value lowerToFma(Emitter &e, tile::MmaOp op, OpAdaptor adaptor,
                   const MmaPlan &plan) const {
    Type f32 = e.b.getF32Type();
    storeTileToShared(e, converter().getLayout(op.getA().getType()),
                      adaptor.getA(), f32, plan.a);
    storeTileToShared(e, converter().getLayout(op.getB().getType()),
                      adaptor.getB(), f32, plan.b);
    e.barrier();
    RankedTensorType accType = op.getAcc().getType();
    BlockedLayout layout = converter().getLayout(accType);
    Value result = adaptor.getAcc();
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
      SmallVector<Value> coords = e.delinearize(
          e.linearIndex(layout, r, /*clamp=*/true), accType.getShape());
      Value sum =
          e.loop(e.i32(0), e.i32(plan.k), e.extract(result, r),
                 [&](Value k, ValueRange acc) {
                   Value a = e.loadShared(
                       f32, e.sharedAddress(plan.a, f32,
                                            offset2d(e, plan.a, coords[0], k)));
                   Value b = e.loadShared(
                       f32, e.sharedAddress(plan.b, f32,
                                            offset2d(e, plan.b, k, coords[1])));
                   return SmallVector<Value>{
                       LLVM::FMAOp::create(e.b, e.loc, a, b, acc[0])};
                 })[0];
      result = e.insert(result, sum, r);
    }
    e.barrier();
    return result;
  }

  Value lowerToMmaSync(Emitter &e, tile::MmaOp op, OpAdaptor adaptor,
                       const MmaPlan &plan) const {
    const MmaLayout &instruction = *plan.instruction;
    using Operand = MmaLayout::Operand;
    OpBuilder &b = e.b;
    Type element = op.getA().getType().getElementType();
    Type registerType = TileTypeConverter::getRegisterType(element);
    Type f32 = b.getF32Type();
    Type i32 = b.getI32Type();
    int64_t numThreads = converter().getNumThreads();

    // Operands and accumulator into shared memory.
    zeroPadding(e, plan.a, registerType, plan.paddedM, plan.paddedK, plan.m,
                plan.k, numThreads);
    zeroPadding(e, plan.b, registerType, plan.paddedK, plan.paddedN, plan.k,
                plan.n, numThreads);
    storeTileToShared(e, converter().getLayout(op.getA().getType()),
                      adaptor.getA(), registerType, plan.a);
    storeTileToShared(e, converter().getLayout(op.getB().getType()),
                      adaptor.getB(), registerType, plan.b);
    storeTileToShared(e, converter().getLayout(op.getAcc().getType()),
                      adaptor.getAcc(), f32, plan.c);
    e.barrier();

    Value thread = e.threadId();
    Value warp = e.udiv(thread, 32);
    Value lane = e.urem(thread, 32);
    Value group = e.udiv(lane, 4);
    Value inGroup = e.urem(lane, 4);
    int64_t tilesN = plan.paddedN / instruction.getN();
    int64_t numTiles = (plan.paddedM / instruction.getM()) * tilesN;
    int64_t numAcc = instruction.getNumElements(Operand::Accumulator);

    // Addresses of the accumulator elements of output tile (row0, col0).
    auto accAddresses = [&](Value row0, Value col0) {
      SmallVector<Value> addresses;
      for (int64_t i = 0; i < numAcc; ++i) {
        auto [row, col] = instruction.getElement(Operand::Accumulator, i);
        Value offset =
            offset2d(e, plan.c, e.add(row0, laneCoord(e, row, group, inGroup)),
                     e.add(col0, laneCoord(e, col, group, inGroup)));
        addresses.push_back(e.sharedAddress(plan.c, f32, offset));
      }
      return addresses;
    };
    // The 32-bit registers of operand A or B's fragment at (row0, col0) of
    // its shared tile; 16-bit elements come in consecutive pairs.
    auto fragment = [&](Operand operand, const SharedLayout &layout,
                        Value row0, Value col0) {
      SmallVector<Value> registers;
      int64_t perRegister = instruction.getElementsPerRegister(operand);
      for (int64_t i = 0; i < instruction.getNumElements(operand);
           i += perRegister) {
        auto [row, col] = instruction.getElement(operand, i);
        Value offset =
            offset2d(e, layout, e.add(row0, laneCoord(e, row, group, inGroup)),
                     e.add(col0, laneCoord(e, col, group, inGroup)));
        Value word = LLVM::LoadOp::create(
            b, e.loc, i32, e.sharedAddress(layout, element, offset), 4);
        if (element.isF16())
          word = LLVM::BitcastOp::create(
              b, e.loc, VectorType::get({2}, b.getF16Type()), word);
        registers.push_back(word);
      }
      return registers;
    };

    NVVM::MMATypes ptxType = element.isBF16()  ? NVVM::MMATypes::bf16
                             : element.isF16() ? NVVM::MMATypes::f16
                                               : NVVM::MMATypes::tf32;
    Type resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(numAcc, f32));
    int64_t numWarps = numThreads / 32;
    e.loop(warp, e.i32(numTiles), {}, [&](Value tileIndex, ValueRange) {
      Value row0 = e.mul(e.udiv(tileIndex, tilesN), e.i32(instruction.getM()));
      Value col0 = e.mul(e.urem(tileIndex, tilesN), e.i32(instruction.getN()));
      SmallVector<Value> addresses = accAddresses(row0, col0);
      SmallVector<Value> acc;
      for (Value address : addresses)
        acc.push_back(e.loadShared(f32, address));
      SmallVector<Value> sums = e.loop(
          e.i32(0), e.i32(plan.paddedK), acc,
          [&](Value k0, ValueRange c) {
            SmallVector<Value> a = fragment(Operand::A, plan.a, row0, k0);
            SmallVector<Value> bRegs = fragment(Operand::B, plan.b, k0, col0);
            Value d = NVVM::MmaOp::create(
                b, e.loc, resultType, a, bRegs, c,
                {instruction.getM(), instruction.getN(), instruction.getK()},
                std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            SmallVector<Value> next;
            for (int64_t i = 0; i < numAcc; ++i)
              next.push_back(LLVM::ExtractValueOp::create(b, e.loc, d, i));
            return next;
          },
          instruction.getK());
      // Each accumulator element belongs to one lane of one warp: writing D
      // over C races with nobody.
      for (auto [sum, address] : llvm::zip(sums, addresses))
        e.storeShared(sum, address);
      return SmallVector<Value>();
    }, numWarps);
    e.barrier();

    Value result = gatherFromShared(
        e, converter(), op.getType(), plan.c,
        [](ArrayRef<Value> coords) { return SmallVector<Value>(coords); });
    e.barrier();
    return result;
  }
};

} // namespace

int64_t tilec::detail::getMmaScratchBytes(tile::MmaOp op) {
  return planMma(op).sizeBytes();
}

void tilec::detail::populateMmaPatterns(TileTypeConverter &converter,
                                 RewritePatternSet &patterns) {
  if (converter.hasLayouts())
    return populateDistributedMmaPatterns(converter, patterns);
  patterns.add<MmaOpLowering>(converter, patterns.getContext());
}
