//===- DistributedLayout.cpp - registers of tiles with layouts --*- C++ -*-===//
//
// The layouts path (docs/codegen-layouts.md, "As built"): a tile whose type
// carries a #tilegpu.dist encoding is the vector of one thread's registers,
// 2^registerBits of them in the layout's register order. The coordinates of
// register r are the XOR of its compile-time image and the image of the
// thread's lane and warp, computed once per op from %tid. Here: that
// evaluation, ownership of replicated elements, the scratch copy by
// coordinates, and convert_layout as tilec::planConversion plans it.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "tilec/Layout/Gf2Basis.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

//===----------------------------------------------------------------------===//
// Emitter helpers used here
//===----------------------------------------------------------------------===//

Value Emitter::bitXor(Value x, Value y) {
  return arith::XOrIOp::create(b, loc, x, y);
}

Value Emitter::bitAnd(Value x, int64_t mask) {
  return arith::AndIOp::create(
      b, loc, x, arith::ConstantIntOp::create(b, loc, x.getType(), mask));
}

Value Emitter::minU(Value x, int64_t y) {
  return arith::MinUIOp::create(
      b, loc, x, arith::ConstantIntOp::create(b, loc, x.getType(), y));
}

//===----------------------------------------------------------------------===//
// ThreadLayout
//===----------------------------------------------------------------------===//

namespace {

/// The input value of bit `bit` of `input` moved to the bit positions of
/// `image` (one output coordinate): ((input >> bit) & 1) * image.
Value placeBit(Emitter &e, Value input, unsigned bit, int64_t image) {
  Value masked = e.bitAnd(input, int64_t(1) << bit);
  if (llvm::isPowerOf2_64(uint64_t(image))) {
    unsigned to = llvm::Log2_64(uint64_t(image));
    // Shift amounts below 32: LLVM's shifts are defined (LowerArith.cpp
    // is for the user's shifts).
    if (to > bit)
      return LLVM::ShlOp::create(e.b, e.loc, masked, e.i32(to - bit));
    if (to < bit)
      return LLVM::LShrOp::create(e.b, e.loc, masked, e.i32(bit - to));
    return masked;
  }
  Value one = LLVM::LShrOp::create(e.b, e.loc, masked, e.i32(bit));
  return e.mul(one, e.i32(image));
}

} // namespace

ThreadLayout::ThreadLayout(Emitter &e, const LinearLayout &layout)
    : layout(layout) {
  unsigned numOuts = layout.getOutDims().size();
  Value thread = e.threadId();
  Value lane = e.urem(thread, 32);
  Value warp = e.udiv(thread, 32);
  for (unsigned d = 0; d < numOuts; ++d) {
    Value part;
    int64_t mask = 0;
    auto addTerms = [&](StringRef name, Value input) {
      if (!layout.hasInDim(name))
        return;
      unsigned bits = llvm::Log2_64(uint64_t(layout.getInDimSize(name)));
      for (unsigned bit = 0; bit < bits; ++bit) {
        int64_t image = layout.getBasis(name, bit)[d];
        if (image == 0)
          continue;
        Value term = placeBit(e, input, bit, image);
        part = part ? e.bitXor(part, term) : term;
        mask |= image;
      }
    };
    addTerms(kLane, lane);
    addTerms(kWarp, warp);
    threadPart.push_back(part ? part : e.i32(0));
    threadMask.push_back(mask);
  }
}

SmallVector<int64_t> ThreadLayout::registerImage(int64_t reg) const {
  SmallVector<int64_t> image(layout.getOutDims().size(), 0);
  if (!layout.hasInDim(kRegister))
    return image;
  for (unsigned bit = 0; (int64_t(1) << bit) <= reg; ++bit)
    if (reg & (int64_t(1) << bit))
      for (auto [d, coord] : llvm::enumerate(layout.getBasis(kRegister, bit)))
        image[d] ^= coord;
  return image;
}

std::optional<SmallVector<int64_t>>
ThreadLayout::offsetFromFirst(int64_t reg) const {
  SmallVector<int64_t> image = registerImage(reg);
  for (auto [bits, mask] : llvm::zip(image, threadMask))
    if (bits & mask)
      return std::nullopt;
  return image;
}

SmallVector<Value> ThreadLayout::outputs(Emitter &e, int64_t reg) const {
  SmallVector<Value> result;
  for (auto [part, mask, image] :
       llvm::zip(threadPart, threadMask, registerImage(reg))) {
    // The bits of the register's image that no lane or warp bit reaches
    // are zero in the thread's part, so XOR with them is an add: an add of
    // a constant, which the address modes take as an immediate, instead of
    // one more live value per register (the swizzled bits stay XORs).
    int64_t swizzled = image & mask;
    int64_t disjoint = image & ~mask;
    Value value = swizzled == 0 ? part : e.bitXor(part, e.i32(swizzled));
    if (disjoint != 0)
      value = arith::AddIOp::create(
          e.b, e.loc, value, e.i32(disjoint),
          arith::IntegerOverflowFlags::nuw | arith::IntegerOverflowFlags::nsw);
    result.push_back(value);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// DistributedTile
//===----------------------------------------------------------------------===//

LinearLayout tilec::detail::getDistributedLinearLayout(RankedTensorType type) {
  return tilegpu::getDistributedLayout(type).getLinearLayout(type.getShape());
}

bool tilec::detail::hasDistributedLayout(Type type) {
  return bool(tilegpu::getDistributedLayout(type));
}

namespace {

/// Flat image of an input bit (the coordinates packed, dim0 lowest).
uint64_t flatImage(const LinearLayout &layout, StringRef in, unsigned bit) {
  uint64_t flat = 0;
  unsigned offset = 0;
  for (auto [coord, out] :
       llvm::zip(layout.getBasis(in, bit), layout.getOutDims())) {
    flat |= uint64_t(coord) << offset;
    offset += out.log2Size;
  }
  return flat;
}

} // namespace

DistributedTile::DistributedTile(Emitter &e, RankedTensorType type)
    : type(type), thread(e, getDistributedLinearLayout(type)) {
  const LinearLayout &layout = thread.getLayout();
  Gf2Basis span;
  unsigned column = 0;
  auto classify = [&](StringRef name, int64_t &mask) {
    if (!layout.hasInDim(name))
      return;
    unsigned bits = llvm::Log2_64(uint64_t(layout.getInDimSize(name)));
    for (unsigned bit = 0; bit < bits; ++bit)
      if (!span.insert(flatImage(layout, name, bit), column++))
        mask |= int64_t(1) << bit;
  };
  classify(kRegister, copyRegisterMask);
  classify(kLane, copyLaneMask);
  classify(kWarp, copyWarpMask);
}

SmallVector<Value> DistributedTile::coords(Emitter &e, int64_t reg,
                                           bool clamp) const {
  SmallVector<Value> result = thread.outputs(e, reg);
  if (clamp)
    for (auto [coord, extent] : llvm::zip(result, type.getShape()))
      if (!llvm::isPowerOf2_64(uint64_t(extent)))
        coord = e.minU(coord, extent - 1);
  return result;
}

Value DistributedTile::holds(Emitter &e, int64_t reg) const {
  const LinearLayout &layout = thread.getLayout();
  SmallVector<int64_t> image = thread.registerImage(reg);
  Value condition;
  for (auto [d, extent] : llvm::enumerate(type.getShape())) {
    if (llvm::isPowerOf2_64(uint64_t(extent)))
      continue;
    // The largest coordinate any thread gives this register.
    int64_t reach = image[d];
    for (StringRef name : {StringRef(kLane), StringRef(kWarp)}) {
      if (!layout.hasInDim(name))
        continue;
      for (unsigned bit = 0; (int64_t(1) << bit) < layout.getInDimSize(name);
           ++bit)
        reach |= layout.getBasis(name, bit)[d];
    }
    if (reach < extent)
      continue;
    Value coord = thread.outputs(e, reg)[d];
    condition = e.logicalAnd(condition, e.ult(coord, e.i32(extent)));
  }
  return condition;
}

Value tilec::detail::threadBitsClear(Emitter &e, int64_t laneMask,
                                     int64_t warpMask) {
  Value condition;
  Value thread = e.threadId();
  auto isZero = [&](Value x) {
    return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq, x,
                                 e.i32(0));
  };
  if (laneMask)
    condition = e.logicalAnd(
        condition, isZero(e.bitAnd(e.urem(thread, 32), laneMask)));
  if (warpMask)
    condition = e.logicalAnd(
        condition, isZero(e.bitAnd(e.udiv(thread, 32), warpMask)));
  return condition;
}

std::optional<Value> DistributedTile::owns(Emitter &e, int64_t reg) const {
  if (reg & copyRegisterMask)
    return std::nullopt;
  return e.logicalAnd(holds(e, reg),
                      threadBitsClear(e, copyLaneMask, copyWarpMask));
}

RankedTensorType tilec::detail::getDistributedType(MLIRContext *context,
                                                   ArrayRef<int64_t> shape,
                                                   Type element,
                                                   const LinearLayout &layout) {
  return RankedTensorType::get(
      shape, element, tilegpu::DistributedLayoutAttr::get(context, layout));
}

//===----------------------------------------------------------------------===//
// The scratch copy by coordinates
//===----------------------------------------------------------------------===//

int64_t tilec::detail::getScratchBytes(RankedTensorType type) {
  return type.getNumElements() * getSharedBytes(type.getElementType());
}

namespace {
SharedLayout scratchLayout(RankedTensorType type, int64_t offsetBytes) {
  return SharedLayout::rowMajor(type.getShape(),
                                getSharedBytes(type.getElementType()),
                                offsetBytes);
}
} // namespace

void tilec::detail::storeToScratch(Emitter &e, const DistributedTile &source,
                                   Value tile, int64_t offsetBytes) {
  RankedTensorType type = source.getType();
  SharedLayout shared = scratchLayout(type, offsetBytes);
  Type element = TileTypeConverter::getRegisterType(type.getElementType());
  for (int64_t r = 0; r < source.getNumRegisters(); ++r) {
    std::optional<Value> owner = source.owns(e, r);
    if (!owner)
      continue;
    Value value = e.extract(tile, r);
    e.ifThen(*owner, [&] {
      Value offset = e.dot(source.coords(e, r), shared.strides);
      e.storeShared(value, e.sharedAddress(shared, element, offset));
    });
  }
}

Value tilec::detail::gatherFromScratch(
    Emitter &e, const DistributedTile &result, RankedTensorType sourceType,
    function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords,
    int64_t offsetBytes) {
  SharedLayout shared = scratchLayout(sourceType, offsetBytes);
  Type element = TileTypeConverter::getRegisterType(sourceType.getElementType());
  auto type = VectorType::get({result.getNumRegisters()}, element);
  Value registers = e.zeros(type);
  for (int64_t r = 0; r < result.getNumRegisters(); ++r) {
    SmallVector<Value> coords = result.coords(e, r, /*clamp=*/true);
    Value offset = e.dot(sourceCoords(coords), shared.strides);
    registers = e.insert(
        registers, e.loadShared(element, e.sharedAddress(shared, element, offset)),
        r);
  }
  return registers;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

namespace {

/// Elements `first` .. `first + count - 1` of a register vector.
Value subVector(Emitter &e, Value registers, int64_t first, int64_t count) {
  if (count == 1)
    return e.extract(registers, first);
  SmallVector<int32_t> mask;
  for (int64_t i = 0; i < count; ++i)
    mask.push_back(int32_t(first + i));
  return LLVM::ShuffleVectorOp::create(e.b, e.loc, registers, registers, mask);
}

} // namespace

bool tilec::detail::keepsVectors(const LinearLayout &toOffset, int64_t width) {
  unsigned vectorBits = llvm::Log2_64(uint64_t(width));
  for (const LayoutDim &in : toOffset.getInDims())
    for (unsigned bit = 0; bit < in.log2Size; ++bit) {
      int64_t offset = toOffset.getBasis(in.name, bit)[0];
      bool inVector = in.name == kRegister && bit < vectorBits;
      if (inVector ? offset != (int64_t(1) << bit)
                   : (offset & (width - 1)) != 0)
        return false;
    }
  return true;
}

namespace {

/// A pointer to element `elements` of a staging buffer at byte
/// `offsetBytes` of shared memory.
Value stagingAddress(Emitter &e, Type element, int64_t offsetBytes,
                     Value elements) {
  SharedLayout buffer;
  buffer.offset = offsetBytes;
  return e.sharedAddress(buffer, element, elements);
}

/// The element type a register of `element` is kept as in shared memory,
/// `width` of them side by side.
Type sharedPiece(Type element, int64_t width) {
  Type stored = getSharedType(element);
  return width == 1 ? stored : VectorType::get({width}, stored);
}

/// The destination read by ldmatrix: per instruction, each lane passes the
/// start of the row the read's rowStarts say it addresses (`address` of its
/// element offset in the buffer); the i32 results are the destination's
/// registers, two 16-bit halves or one 32-bit element each.
Value loadWithLdmatrix(Emitter &e, const LinearLayout &loadLayout,
                       const LdmatrixRead &read, Type element,
                       llvm::function_ref<Value(Value)> address,
                       VectorType resultType) {
  unsigned perReadBits = llvm::Log2_32(read.registersPerRead);
  // (register = which instruction, lane, warp) -> the row's offset.
  LinearLayout::InDim instructions{std::string(kRegister), {}};
  for (unsigned bit = perReadBits,
                e = llvm::Log2_64(loadLayout.getInDimSize(kRegister));
       bit < e; ++bit)
    instructions.bases.push_back(loadLayout.getBasis(kRegister, bit));
  LinearLayout::InDim lanes{std::string(kLane), {}};
  for (unsigned bit = 0; bit < 5; ++bit) {
    LinearLayout::Basis point = read.rowStarts.getBasis(kLane, bit);
    lanes.bases.push_back(loadLayout.apply({point[0], point[1], 0}));
  }
  LinearLayout::InDim warps{std::string(kWarp), {}};
  for (unsigned bit = 0, e = llvm::Log2_64(loadLayout.getInDimSize(kWarp));
       bit < e; ++bit)
    warps.bases.push_back(loadLayout.getBasis(kWarp, bit));
  ThreadLayout rows(e, LinearLayout({instructions, lanes, warps},
                                    loadLayout.getOutDims()));

  MLIRContext *context = e.b.getContext();
  Type i32 = e.b.getI32Type();
  Type instructionType =
      read.numMatrices == 1
          ? i32
          : LLVM::LLVMStructType::getLiteral(
                context, SmallVector<Type>(read.numMatrices, i32));
  bool pairs = read.registersPerRead == 2 * read.numMatrices;
  Value result = e.zeros(resultType);
  for (int64_t g = 0; g < rows.getNumRegisters(); ++g) {
    Value loaded = NVVM::LdMatrixOp::create(
        e.b, e.loc, instructionType, address(rows.outputs(e, g)[0]),
        read.numMatrices,
        read.transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
        NVVM::LdStMatrixEltType::B16);
    for (unsigned j = 0; j < read.numMatrices; ++j) {
      Value word = read.numMatrices == 1
                       ? loaded
                       : LLVM::ExtractValueOp::create(e.b, e.loc, loaded, j);
      int64_t first = g * read.registersPerRead + (pairs ? 2 * j : j);
      if (!pairs) {
        if (element != i32)
          word = LLVM::BitcastOp::create(e.b, e.loc, element, word);
        result = e.insert(result, word, first);
        continue;
      }
      Value halves = LLVM::BitcastOp::create(
          e.b, e.loc, VectorType::get({2}, element), word);
      result = e.insert(result, e.extract(halves, 0), first);
      result = e.insert(result, e.extract(halves, 1), first + 1);
    }
  }
  return result;
}

} // namespace

void tilec::detail::storeToStaging(Emitter &e, const DistributedTile &source,
                                   Value value, const SharedStaging &staging,
                                   int64_t offsetBytes) {
  Type element = cast<VectorType>(value.getType()).getElementType();
  Type stored = getSharedType(element);
  LinearLayout storeLayout =
      source.getLayout().compose(staging.layout.invert());
  int64_t width = staging.storeVectorElements;
  if (!keepsVectors(storeLayout, width))
    width = 1;
  ThreadLayout offsets(e, storeLayout);
  for (int64_t r = 0; r < source.getNumRegisters(); r += width) {
    // One copy of each real element is stored; a padding register of the
    // result reads whatever the buffer holds there (nothing observes
    // padding: mma zeroes it, reductions mask it, stores skip it).
    std::optional<Value> owner = source.owns(e, r);
    if (!owner)
      continue;
    Value piece = subVector(e, value, r, width);
    Value offset = offsets.outputs(e, r)[0];
    e.ifThen(*owner, [&] {
      if (stored != element)
        piece = LLVM::ZExtOp::create(e.b, e.loc, sharedPiece(element, width),
                                     piece);
      LLVM::StoreOp::create(
          e.b, e.loc, piece,
          stagingAddress(e, stored, offsetBytes, offset),
          width * getSharedBytes(element));
    });
  }
}

Value tilec::detail::loadFromStaging(Emitter &e, const SharedStaging &staging,
                                     int64_t offsetBytes,
                                     const LinearLayout &dst,
                                     VectorType resultType) {
  Type element = resultType.getElementType();
  Type stored = getSharedType(element);
  LinearLayout loadLayout = dst.compose(staging.layout.invert());
  if (staging.ldmatrix && stored == element)
    return loadWithLdmatrix(
        e, loadLayout, *staging.ldmatrix, element,
        [&](Value offset) {
          return stagingAddress(e, element, offsetBytes, offset);
        },
        resultType);
  int64_t width = staging.loadVectorElements;
  if (!keepsVectors(loadLayout, width))
    width = 1;
  ThreadLayout offsets(e, loadLayout);
  Value result = e.zeros(resultType);
  for (int64_t r = 0; r < offsets.getNumRegisters(); r += width) {
    Value offset = offsets.outputs(e, r)[0];
    Value piece = LLVM::LoadOp::create(
        e.b, e.loc, sharedPiece(element, width),
        stagingAddress(e, stored, offsetBytes, offset),
        width * getSharedBytes(element));
    if (stored != element)
      piece = LLVM::TruncOp::create(
          e.b, e.loc, width == 1 ? element : VectorType::get({width}, element),
          piece);
    for (int64_t i = 0; i < width; ++i)
      result = e.insert(result, width == 1 ? piece : e.extract(piece, i), r + i);
  }
  return result;
}

/// A shared buffer placed by the allocator (tilegpu.local_load of a cp.async
/// ring stage) read into `dst`: by ldmatrix where dst is an ldmatrix
/// destination whose 16-byte rows lie whole in the buffer (the mma.sync
/// operand fragments of 16-bit elements from the swizzled buffers), else
/// vector loads of up to `maxVector` elements where the composed layout
/// keeps them contiguous.
Value tilec::detail::readSharedTile(Emitter &e, const LinearLayout &dst,
                                    const LinearLayout &shared, Value base,
                                    int64_t maxVector, VectorType resultType) {
  Type element = resultType.getElementType();
  Type stored = getSharedType(element);
  LinearLayout loadLayout = dst.compose(shared.invert());
  auto pointerType = LLVM::LLVMPointerType::get(e.b.getContext(), 3);
  if (stored == element)
    if (std::optional<LdmatrixRead> read = planLdmatrixRead(
            dst, shared, getSharedBytes(element)))
      return loadWithLdmatrix(
          e, loadLayout, *read, element,
          [&](Value offset) {
            return LLVM::GEPOp::create(e.b, e.loc, pointerType, stored, base,
                                       ValueRange{offset});
          },
          resultType);
  int64_t width = std::max<int64_t>(1, maxVector);
  while (width > 1 && !keepsVectors(loadLayout, width))
    width /= 2;
  ThreadLayout loadOffsets(e, loadLayout);
  Value result = e.zeros(resultType);
  for (int64_t r = 0; r < loadOffsets.getNumRegisters(); r += width) {
    Value offset = loadOffsets.outputs(e, r)[0];
    Type loadType = width == 1 ? stored : VectorType::get({width}, stored);
    Value address = LLVM::GEPOp::create(e.b, e.loc, pointerType, stored, base,
                                        ValueRange{offset});
    Value piece = LLVM::LoadOp::create(e.b, e.loc, loadType, address,
                                       width * getSharedBytes(element));
    if (stored != element)
      piece = LLVM::TruncOp::create(
          e.b, e.loc, width == 1 ? element : VectorType::get({width}, element),
          piece);
    for (int64_t i = 0; i < width; ++i)
      result = e.insert(result, width == 1 ? piece : e.extract(piece, i), r + i);
  }
  return result;
}

namespace {

/// Through shared memory in the planner's bank-conflict-free layout:
/// stores, barrier, loads, barrier (the scratch area at offset 0 is free
/// again after it).
Value convertThroughStaging(Emitter &e, const DistributedTile &source,
                            Value value, const LinearLayout &dst,
                            const SharedStaging &staging,
                            VectorType resultType) {
  storeToStaging(e, source, value, staging, /*offsetBytes=*/0);
  e.barrier();
  Value result =
      loadFromStaging(e, staging, /*offsetBytes=*/0, dst, resultType);
  e.barrier();
  return result;
}

} // namespace

namespace {

/// A register of `element` (at most 32 bits) as the i32 a shuffle moves, and
/// back.
Value toShuffleWord(Emitter &e, Value value) {
  Type type = value.getType(), i32 = e.b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (!type.isInteger())
    value = LLVM::BitcastOp::create(e.b, e.loc, e.b.getIntegerType(bits), value);
  return bits == 32 ? value : LLVM::ZExtOp::create(e.b, e.loc, i32, value);
}

Value fromShuffleWord(Emitter &e, Value word, Type element) {
  unsigned bits = element.getIntOrFloatBitWidth();
  Type integer = e.b.getIntegerType(bits);
  Value value =
      bits == 32 ? word : LLVM::TruncOp::create(e.b, e.loc, integer, word);
  return element.isInteger()
             ? value
             : LLVM::BitcastOp::create(e.b, e.loc, element, value);
}

/// Whether bit `lane` of the 32-bit constant `mask` is set, in this thread.
Value laneInMask(Emitter &e, Value lane, uint32_t mask) {
  Value bit = e.bitAnd(LLVM::LShrOp::create(e.b, e.loc, e.i32(int32_t(mask)),
                                            lane),
                       1);
  return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ne, bit,
                               e.i32(0));
}

/// The plan's shfl.sync.idx rounds: in each, every lane sends the register
/// its readers need (chosen by its lane bits when that differs between
/// lanes), reads from the source lane of its destination register
/// (dstToSrc's lane part, evaluated like coordinates) and keeps the value
/// when the round is its own.
Value convertByShuffles(Emitter &e, const ConversionPlan &plan, Value value,
                        VectorType resultType) {
  Type element = resultType.getElementType();
  Value lane = e.urem(e.threadId(), 32);
  ThreadLayout srcLanes(
      e, plan.dstToSrc.sublayout({std::string(kRegister), std::string(kLane)},
                                 {std::string(kLane)}));
  Value result = e.zeros(resultType);
  for (const ShuffleRound &round : plan.shuffles) {
    // The registers sent in this round, each with the lanes that send it.
    SmallVector<std::pair<unsigned, uint32_t>> senders;
    for (unsigned l = 0; l < 32; ++l) {
      auto it = llvm::find_if(senders, [&](const auto &entry) {
        return entry.first == round.sendRegister[l];
      });
      if (it == senders.end())
        senders.push_back({round.sendRegister[l], uint32_t(1) << l});
      else
        it->second |= uint32_t(1) << l;
    }
    Value sent = e.extract(value, senders.front().first);
    for (auto &[reg, lanes] : llvm::drop_begin(senders))
      sent = LLVM::SelectOp::create(e.b, e.loc, laneInMask(e, lane, lanes),
                                    e.extract(value, reg), sent);
    Value received = NVVM::ShflOp::create(
        e.b, e.loc, e.b.getI32Type(), e.i32(-1), toShuffleWord(e, sent),
        srcLanes.outputs(e, round.dstRegister)[0], e.i32(0x1f),
        NVVM::ShflKindAttr::get(e.b.getContext(), NVVM::ShflKind::idx),
        UnitAttr());
    Value kept = fromShuffleWord(e, received, element);
    if (round.lanesKept != ~uint32_t(0))
      kept = LLVM::SelectOp::create(e.b, e.loc,
                                    laneInMask(e, lane, round.lanesKept), kept,
                                    e.extract(result, round.dstRegister));
    result = e.insert(result, kept, round.dstRegister);
  }
  return result;
}

/// The plan the lowering follows: shuffles move 32-bit words, so wider
/// elements go through shared memory.
llvm::Expected<ConversionPlan> planLowering(const LinearLayout &src,
                                            const LinearLayout &dst,
                                            unsigned bytes) {
  return planConversion(src, dst, bytes, /*allowShuffles=*/bytes <= 4);
}

} // namespace

Value tilec::detail::convertDistributed(Emitter &e,
                                        const DistributedTile &source,
                                        Value value, const LinearLayout &dst,
                                        VectorType resultType) {
  unsigned bytes = getSharedBytes(source.getType().getElementType());
  llvm::Expected<ConversionPlan> plan =
      planLowering(source.getLayout(), dst, bytes);
  if (!plan)
    llvm::report_fatal_error(llvm::Twine("tilec: ") +
                             llvm::toString(plan.takeError()));
  switch (plan->kind) {
  case ConversionPlan::Kind::Free:
    return value;
  case ConversionPlan::Kind::RegisterPermutation: {
    SmallVector<int32_t> mask(plan->srcRegisterOf.begin(),
                              plan->srcRegisterOf.end());
    return LLVM::ShuffleVectorOp::create(e.b, e.loc, value, value, mask);
  }
  case ConversionPlan::Kind::WarpShuffle:
    return convertByShuffles(e, *plan, value, resultType);
  case ConversionPlan::Kind::SharedMemory:
    break;
  }
  return convertThroughStaging(e, source, value, dst, *plan->shared,
                               resultType);
}

int64_t tilec::detail::getConversionScratchBytes(RankedTensorType source,
                                                 const LinearLayout &dst) {
  unsigned bytes = getSharedBytes(source.getElementType());
  llvm::Expected<ConversionPlan> plan =
      planLowering(getDistributedLinearLayout(source), dst, bytes);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  if (plan->kind != ConversionPlan::Kind::SharedMemory)
    return 0;
  int64_t elements = 1;
  for (int64_t extent : tilegpu::getPaddedShape(source.getShape()))
    elements *= extent;
  return elements * bytes;
}
