//===- MmaWgmma.cpp - tile.mma as wgmma.mma_async (sm_90a) ------*- C++ -*-===//
//
// The sm_90a implementation of MmaTarget, for the tile.mma ops that
// tilegpu-assign-layouts marked (kWgmmaAttrName): the accumulator is in the
// warpgroup accumulator layout (tilegpu::getWgmmaLayouts: warpgroups stacked
// along M, then side by side along N), A and B in whatever layouts their
// producers gave them. One product:
//
//   1. each operand is read where it lies: an operand that tilegpu-pipeline
//      copied by cp.async into a swizzled buffer (findBufferRead) is read
//      from that buffer's stage, in the orientation the buffer holds it
//      (A K-major or M-major, B N-major or K-major: the descriptor's
//      transpose bits; tf32 K-major only); an A in the fragment layout of
//      tilegpu::getWgmmaRegisterALayout (bf16/f16, formed there by
//      tilegpu-assign-layouts) is read from its registers, four 32-bit
//      registers per instruction (isRegisterA, fragmentA); any other
//      operand is stored by
//      every thread (padding zeroed, one copy of replicated elements) into
//      the scratch area in the orientation that keeps the widest vectors of
//      its registers together, in the swizzled layout of
//      swizzledSharedLayout with the widest swizzle its rows span (128, 64
//      or 32 bytes), then fence.proxy.async (the generic-proxy stores
//      become visible to wgmma, which reads through the async proxy) and
//      bar.sync;
//   2. wgmma.fence (the accumulator registers were written by other
//      instructions since the last wgmma), then per k-step of 16 and per
//      64 x instrN block of the accumulator this warpgroup holds one
//      wgmma.mma_async.m64nNk16 with matrix descriptors: start address >> 4,
//      leading byte offset (MN-major: between the swizzle-wide column
//      blocks along M or N; K-major: unused), stride byte offset (8 rows of
//      the swizzle span apart), swizzle mode (PTX ISA, "Matrix Descriptor
//      Format");
//   3. wgmma.commit_group, then wgmma.wait_group: 0 (the accumulator is
//      read by ordinary instructions after the product), or the
//      kWgmmaPendingAttrName count tilegpu-pipeline gave a product that
//      reads both operands from its loop's ring and accumulates along the
//      loop (then wait_group 0 in the loop's last iteration); bar.sync
//      only where an operand went through the scratch area (no warpgroup
//      may overwrite it while another one still reads it).
//   Two products on one running sum with the same A whose Bs are both
//   stored (the split products of tile-expand-forms) are a pair
//   (markWgmmaPairs): the first stores both Bs, one fence and barrier, both
//   products' wgmmas, one wait, one barrier.
//
// The accumulator stays in its registers across scf.for.
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

/// One operand in shared memory: a rows x cols tile with cols contiguous
/// (A: M x K or K x M; B: K x N or N x K) in swizzledSharedLayout's layout.
struct SharedOperand {
  /// Operand coordinates (dim0, dim1) -> element offset in the tile.
  LinearLayout toOffset;
  /// Where the tile starts in the scratch area (a multiple of 1024), for an
  /// operand stored from registers.
  int64_t offsetBytes = 0;
  /// The descriptor's fields other than the start address.
  uint64_t descriptorBits = 0;
  /// Whether M (A) or N (B) is the contiguous dim: the instruction's
  /// transpose bit for this operand (imm-trans-a, imm-trans-b; 0 is
  /// K-major).
  bool mnMajor = false;
  /// Whether the operand is read from its cp.async buffer (not stored).
  bool inBuffer = false;
  /// Whether operand A is read from its registers (neither stored nor
  /// described: registersALayout).
  bool inRegisters = false;
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
/// (M/N-major). With `transposed`, the operand's coordinates are (col, row)
/// of the stored tile (a K x N operand B stored K-major as N x K).
SharedOperand makeOperand(ArrayRef<int64_t> shape, int64_t bytes,
                          int64_t offsetBytes, bool contiguousIsK,
                          bool transposed) {
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
  operand.mnMajor = !contiguousIsK;
  // Rows are swizzleBytes apart inside a column block, so 8 rows (the
  // stride byte offset: K-major the next 8 rows of M or N, M/N-major the
  // next 8 rows of K) are 8 * swizzleBytes apart. The leading byte offset
  // is unused for swizzled K-major operands (the PTX ISA says to assume 1);
  // M/N-major it steps from one swizzle-wide column block to the next,
  // which holds every row.
  int64_t strideBytes = 8 * swizzleBytes;
  int64_t leadingBytes = contiguousIsK ? 16 : shape[0] * swizzleBytes;
  operand.descriptorBits = (uint64_t(leadingBytes >> 4) << 16) |
                           (uint64_t(strideBytes >> 4) << 32) |
                           (swizzleMode(swizzleBytes) << 62);
  return operand;
}

/// The ways wgmma can read an operand of `shape` (A: M x K, B: K x N) from
/// shared memory, the default first: K-major (the stored tile is M x K or
/// N x K) and, for 16-bit elements, M/N-major (K x M or K x N) through the
/// transpose bit; tf32 has no transpose.
SmallVector<SharedOperand> candidates(bool isA, ArrayRef<int64_t> shape,
                                      int64_t bytes, int64_t offsetBytes) {
  int64_t k = isA ? shape[1] : shape[0], mn = isA ? shape[0] : shape[1];
  SharedOperand kMajor = makeOperand({mn, k}, bytes, offsetBytes,
                                     /*contiguousIsK=*/true,
                                     /*transposed=*/!isA);
  if (bytes == 4)
    return {kMajor};
  SharedOperand mnMajor = makeOperand({k, mn}, bytes, offsetBytes,
                                      /*contiguousIsK=*/false,
                                      /*transposed=*/isA);
  // A's default is K-major, B's N-major (the orientations of row-major
  // operands).
  if (isA)
    return {kMajor, mnMajor};
  return {mnMajor, kMajor};
}

/// Whether a buffer read can be a wgmma operand as `shared` lays it out:
/// the same element offsets, and starts on the swizzle's repeat (wgmma
/// swizzles absolute address bits): the buffer at a multiple of 1024
/// bytes, every stage a multiple of 1024 bytes long.
bool readableAs(BufferRead found, const SharedOperand &shared,
                int64_t bytes) {
  if (found.toOffset != shared.toOffset)
    return false;
  auto offset = found.alloc->getAttrOfType<IntegerAttr>(
      tilegpu::kSharedOffsetAttrName);
  tilegpu::SmemType type = found.read.getBuffer().getType();
  int64_t stageBytes = bytes;
  for (int64_t extent : tilegpu::getPaddedShape(type.getTileShape()))
    stageBytes *= extent;
  return offset && offset.getInt() % 1024 == 0 &&
         (!found.read.getStage() || stageBytes % 1024 == 0);
}

/// The widest vector (in elements, up to 16 bytes) in which `layout`'s
/// registers can be stored into `shared`.
int64_t storeWidth(const LinearLayout &layout, const SharedOperand &shared,
                   int64_t bytes) {
  LinearLayout storeLayout = layout.compose(shared.toOffset);
  int64_t width = 16 / bytes;
  while (width > 1 && !keepsVectors(storeLayout, width))
    width /= 2;
  return width;
}

/// Whether `op` reads operand A from its registers: A is in the layout of
/// tilegpu::getWgmmaRegisterALayout (which tilegpu-assign-layouts gives an
/// A computed in registers) and not read from a buffer.
bool isRegisterA(tile::MmaOp op) {
  RankedTensorType a = op.getA().getType();
  unsigned numWarps = unsigned(
      getDistributedLinearLayout(op.getAcc().getType()).getInDimSize(kWarp));
  tilegpu::DistributedLayoutAttr fragment =
      tilegpu::getWgmmaRegisterALayout(a, op.getB().getType(), numWarps);
  return fragment && fragment == tilegpu::getDistributedLayout(a) &&
         !findBufferRead(op.getA());
}

/// How operand A or B (`operand`, of type `type`) is read: from its buffer
/// where one of the candidates lays it out as it lies there, else stored
/// at `offsetBytes` of the scratch area in the candidate with the widest
/// store vectors (the first on a tie).
SharedOperand planOperand(bool isA, Value operand, int64_t offsetBytes) {
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<int64_t> shape = tilegpu::getPaddedShape(type.getShape());
  int64_t bytes = elementBytes(type.getElementType());
  SmallVector<SharedOperand> ways = candidates(isA, shape, bytes, offsetBytes);
  // A buffer's padding is not written (cp.async copies the tile's elements
  // only): padding along K would reach every sum, so such an operand is
  // stored with its padding zeroed instead.
  bool paddedK = !llvm::isPowerOf2_64(uint64_t(type.getDimSize(isA ? 1 : 0)));
  if (std::optional<BufferRead> found = findBufferRead(operand);
      found && !paddedK)
    for (SharedOperand &way : ways)
      if (readableAs(*found, way, bytes)) {
        way.inBuffer = true;
        way.offsetBytes = 0;
        return way;
      }
  LinearLayout registers = getDistributedLinearLayout(type);
  SharedOperand *best = &ways.front();
  for (SharedOperand &way : ways)
    if (storeWidth(registers, way, bytes) > storeWidth(registers, *best, bytes))
      best = &way;
  return *best;
}

/// Bytes of an operand stored in the scratch area (its padded tile).
int64_t storedBytes(RankedTensorType type) {
  int64_t bytes = elementBytes(type.getElementType());
  for (int64_t extent : tilegpu::getPaddedShape(type.getShape()))
    bytes *= extent;
  return bytes;
}

/// Whether the wgmma target lowers `op` in the layouts its tiles have.
bool isWgmmaProduct(tile::MmaOp op) {
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

/// Whether `value` is defined before `op` runs (in `op`'s block or one
/// around it).
bool definedBefore(Value value, Operation *op) {
  Operation *ancestor = value.getParentBlock()->findAncestorOpInBlock(*op);
  if (!ancestor)
    return false;
  Operation *def = value.getDefiningOp();
  return !def || def->isBeforeInBlock(ancestor);
}

/// Whether `second` can be issued with `first` as one pair: the next op,
/// a wgmma product of the same A on `first`'s result (its only use) whose
/// B exists when `first` runs. The split products of tile-expand-forms
/// (x^T B_lo, then x^T B_hi on that sum) are such pairs.
bool isPair(tile::MmaOp first, tile::MmaOp second) {
  return first->getNextNode() == second.getOperation() &&
         second.getAcc() == first.getResult() && first->hasOneUse() &&
         second.getA() == first.getA() &&
         first.getType() == first.getAcc().getType() &&
         second.getB().getType() == first.getB().getType() &&
         second->hasAttr(tilegpu::kWgmmaAttrName) &&
         isWgmmaProduct(second) && definedBefore(second.getB(), first);
}

struct WgmmaOperands {
  SharedOperand a, b;
  /// The first product of a pair: the second's B (`secondB`), stored with
  /// this product's operands at `secondBShared`, before the one barrier.
  Value secondB;
  SharedOperand secondBShared;
  /// The second product of a pair: its operands are in place, fenced and
  /// behind a barrier (the first stored them), and its wait covers both.
  bool storedByFirst = false;
  int64_t scratchBytes = 0;
};

/// The operands of `op` as if it were not part of a pair.
WgmmaOperands planAlone(tile::MmaOp op) {
  WgmmaOperands operands;
  if (isRegisterA(op))
    operands.a.inRegisters = true;
  else
    operands.a = planOperand(/*isA=*/true, op.getA(), 0);
  int64_t aBytes = 0;
  if (!operands.a.inBuffer && !operands.a.inRegisters)
    aBytes = storedBytes(op.getA().getType());
  int64_t bOffset = llvm::alignTo(aBytes, 1024);
  operands.b = planOperand(/*isA=*/false, op.getB(), bOffset);
  operands.scratchBytes = bOffset;
  if (!operands.b.inBuffer)
    operands.scratchBytes += storedBytes(op.getB().getType());
  return operands;
}

/// How `op` reads its operands; a pair (markWgmmaPairs) puts the second's
/// B after the first's operands, both stored by the first.
WgmmaOperands planOperands(tile::MmaOp op) {
  WgmmaOperands operands = planAlone(op);
  auto pair = op->getAttrOfType<IntegerAttr>(kWgmmaPairAttrName);
  if (!pair)
    return operands;
  // Both products of a pair have the same A and a B of the same type, so
  // each one's own plan places the second's B at the same offset.
  int64_t secondOffset = llvm::alignTo(operands.scratchBytes, 1024);
  if (pair.getInt() == 1) {
    operands.b = planOperand(/*isA=*/false, op.getB(), secondOffset);
    operands.storedByFirst = true;
  } else {
    operands.secondB = cast<tile::MmaOp>(op->getNextNode()).getB();
    operands.secondBShared =
        planOperand(/*isA=*/false, operands.secondB, secondOffset);
  }
  operands.scratchBytes = secondOffset + storedBytes(op.getB().getType());
  return operands;
}

/// Stores this thread's elements of `tile` (its registers `registers`) into
/// `shared`: one copy of each element, padding included (zeroed by the
/// caller), in the widest vectors the two layouts keep together.
void storeOperand(Emitter &e, const DistributedTile &tile, Value registers,
                  const SharedOperand &shared) {
  Type element = cast<VectorType>(registers.getType()).getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t width = storeWidth(tile.getLayout(), shared, bytes);
  ThreadLayout offsets(e, tile.getLayout().compose(shared.toOffset));
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

/// The address of element 0 of an operand: its buffer stage's (`buffer`)
/// or its place in the scratch area.
Value operandBase(Emitter &e, const SharedOperand &shared, Value buffer,
                  Type element) {
  if (shared.inBuffer)
    return buffer;
  SharedLayout base;
  base.offset = shared.offsetBytes;
  return e.sharedAddress(base, element, e.i32(0));
}

/// The matrix descriptor (i64) of the operand tile part starting at
/// element offset `warpgroupPart` XOR `constantPart` from `base` (the
/// operand's element 0), whose elements are `element` in registers.
Value descriptor(Emitter &e, const SharedOperand &shared, Value base,
                 Type element, Value warpgroupPart, int64_t constantPart) {
  Value offset = constantPart == 0
                     ? warpgroupPart
                     : e.bitXor(warpgroupPart, e.i32(constantPart));
  Value address = LLVM::GEPOp::create(
      e.b, e.loc, LLVM::LLVMPointerType::get(e.b.getContext(), 3),
      getSharedType(element), base, ValueRange{offset});
  Type i64 = e.b.getI64Type();
  Value bits = LLVM::PtrToIntOp::create(e.b, e.loc, i64, address);
  // Start address bits [4, 18) in descriptor bits [0, 14).
  Value start =
      e.bitAnd(LLVM::LShrOp::create(e.b, e.loc, bits, e.i64(4)), 0x3fff);
  return LLVM::OrOp::create(e.b, e.loc, start,
                            e.i64(int64_t(shared.descriptorBits)));
}

/// This thread's A fragment of one instruction, from A's registers
/// `registers` (layout `layout`): the four 32-bit registers of the
/// m64nNk16 A operand, each two 16-bit elements, for the 16 x 16 block at
/// rows `row` + (0, 8) and columns `k0` .. `k0` + 15 of warp 0's lane 0
/// (the others' follow from the layout, which is the fragment's).
SmallVector<Value> fragmentA(Emitter &e, const LinearLayout &layout,
                             Value registers, int64_t row, int64_t k0) {
  // Lane 0 of warp 0 holds register r at layout(r, 0, 0); the fragment's
  // element i is at (row + 8 ((i >> 1) & 1), k0 + (i & 1) + 8 (i >> 2)).
  DenseMap<std::pair<int64_t, int64_t>, int64_t> registerAt;
  for (int64_t r = 0, n = layout.getInDimSize(kRegister); r < n; ++r) {
    SmallVector<int64_t> coords = layout.apply({r, 0, 0});
    registerAt.try_emplace({coords[0], coords[1]}, r);
  }
  Type half = cast<VectorType>(registers.getType()).getElementType();
  Type pair = VectorType::get({2}, half);
  SmallVector<Value> fragment;
  for (int64_t i = 0; i < 8; i += 2) {
    int64_t r = row + 8 * ((i >> 1) & 1), c = k0 + 8 * (i >> 2);
    Value packed = LLVM::PoisonOp::create(e.b, e.loc, pair);
    for (int64_t j = 0; j < 2; ++j)
      packed = e.insert(
          packed, e.extract(registers, registerAt.at({r, c + j})), j);
    fragment.push_back(
        LLVM::BitcastOp::create(e.b, e.loc, e.b.getI32Type(), packed));
  }
  return fragment;
}

/// wgmma.mma_async with A from registers (`fragment`, fragmentA's), B by
/// its descriptor, accumulating into `d` (a struct of instrN / 2 f32): inline
/// PTX, as the NVVM op takes descriptors only.
Value wgmmaRegisterA(Emitter &e, Value d, ArrayRef<Value> fragment,
                     Value descB, int64_t instrN, Type element, bool transB) {
  auto accumulator = cast<LLVM::LLVMStructType>(d.getType());
  int64_t n = accumulator.getBody().size();
  std::string name = element.isBF16() ? "bf16" : "f16";
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << instrN << "k16.f32." << name
     << "." << name << " {";
  for (int64_t i = 0; i < n; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << n << ", $" << n + 1 << ", $" << n + 2 << ", $" << n + 3
     << "}, $" << n + 4 << ", p, 1, 1, " << (transB ? 1 : 0) << ";\n}";
  // The accumulator is read and written: outputs =f, inputs tied to them.
  std::string constraints;
  llvm::raw_string_ostream cs(constraints);
  for (int64_t i = 0; i < n; ++i)
    cs << "=f,";
  cs << "r,r,r,r,l";
  for (int64_t i = 0; i < n; ++i)
    cs << "," << i;
  SmallVector<Value> operands(fragment.begin(), fragment.end());
  operands.push_back(descB);
  for (int64_t i = 0; i < n; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(e.b, e.loc, d, i));
  return LLVM::InlineAsmOp::create(
             e.b, e.loc, accumulator, operands, ptx, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(e.b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

/// Whether `op`'s result is only the accumulator of the wgmma product
/// right after it in its block (split_bf16's running sum).
bool feedsNextProduct(tile::MmaOp op) {
  if (!op.getResult().hasOneUse())
    return false;
  auto next = dyn_cast_or_null<tile::MmaOp>(op->getNextNode());
  return next && next.getAcc() == op.getResult() &&
         next->hasAttr(tilegpu::kWgmmaAttrName);
}

/// The accumulator registers (a vector like `acc`) from the instructions'
/// results, `perBlock` registers per 64 x instrN block.
Value blocksToRegisters(Emitter &e, Value acc, ArrayRef<Value> blocks,
                        int64_t perBlock) {
  Value result = acc;
  for (auto [block, d] : llvm::enumerate(blocks))
    for (int64_t i = 0; i < perBlock; ++i)
      result = e.insert(result, LLVM::ExtractValueOp::create(e.b, e.loc, d, i),
                        int64_t(block) * perBlock + i);
  return result;
}

NVVM::WGMMATypes wgmmaType(Type element) {
  if (isa<FloatTF32Type>(element))
    return NVVM::WGMMATypes::tf32;
  return element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
}

class WgmmaTarget final : public MmaTarget {
public:
  bool matches(tile::MmaOp op) const override { return isWgmmaProduct(op); }

  bool readsSharedOperands() const override { return true; }

  Value emitMma(Emitter &e, tile::MmaOp op, Value a, Value b, Value acc,
                const MmaSharedOperands &shared) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     accType = op.getAcc().getType();
    LinearLayout accumulator = getDistributedLinearLayout(accType);
    unsigned numWarps = unsigned(accumulator.getInDimSize(kWarp));
    tilegpu::WgmmaShape shape = *tilegpu::getWgmmaShape(aType, bType, numWarps);
    WgmmaOperands operands = planOperands(op);
    MLIRContext *context = e.b.getContext();
    Type element = TileTypeConverter::getRegisterType(aType.getElementType());

    // Operands that are only in registers go to the scratch area (the
    // second product of a pair finds them there), but for an A in its
    // fragment layout, which wgmma reads from registers.
    bool storedA = !operands.a.inBuffer && !operands.a.inRegisters;
    bool stored = storedA || !operands.b.inBuffer;
    if (storedA && !operands.storedByFirst) {
      DistributedTile aTile(e, aType);
      storeOperand(e, aTile, zeroPadding(e, aTile, a), operands.a);
    }
    if (!operands.b.inBuffer && !operands.storedByFirst) {
      DistributedTile bTile(e, bType);
      storeOperand(e, bTile, zeroPadding(e, bTile, b), operands.b);
    }
    if (operands.secondB) {
      DistributedTile bTile(e, bType);
      storeOperand(e, bTile,
                   zeroPadding(e, bTile, shared.lowered(operands.secondB)),
                   operands.secondBShared);
    }
    if (stored && !operands.storedByFirst) {
      NVVM::FenceProxyOp::create(
          e.b, e.loc,
          NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
      e.barrier();
    }
    Value bBase = operandBase(e, operands.b, shared.b, element);
    // This warpgroup's rows of A and columns of B.
    Value aBase, aPart, aRegisters;
    if (operands.a.inRegisters) {
      aRegisters = zeroPadding(e, DistributedTile(e, aType), a);
    } else {
      aBase = operandBase(e, operands.a, shared.a, element);
      aPart = warpgroupOffset(e, accumulator, 0, 0, operands.a);
    }
    Value bPart = warpgroupOffset(e, accumulator, 1, 1, operands.b);
    LinearLayout aLayout = getDistributedLinearLayout(aType);
    int64_t k = tilegpu::getPaddedShape(aType.getShape())[1];
    int64_t perBlock = shape.instrN / 2;
    int64_t numBlocks = accumulator.getInDimSize(kRegister) / perBlock;
    Type f32 = e.b.getF32Type();
    Type fragment = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(perBlock, f32));
    NVVM::WGMMATypes operandType = wgmmaType(aType.getElementType());
    int64_t instructionK =
        kInstructionKBytes / elementBytes(aType.getElementType());
    // The NVVM op's `row` is a row-major operand (A M x K: K-major,
    // imm-trans-a 0; B K x N: N-major, imm-trans-b 1), `col` the other
    // orientation.
    NVVM::MMALayout layoutA =
        operands.a.mnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    NVVM::MMALayout layoutB =
        operands.b.mnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;

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
        auto descB = [&] {
          return descriptor(e, operands.b, bBase, element, bPart,
                            operands.b.toOffset.apply({k0, origin[1]})[0]);
        };
        if (operands.a.inRegisters) {
          SmallVector<Value> aFragment =
              fragmentA(e, aLayout, aRegisters, origin[0], k0);
          blocks[block] =
              wgmmaRegisterA(e, blocks[block], aFragment, descB(),
                             shape.instrN, aType.getElementType(),
                             operands.b.mnMajor);
          continue;
        }
        Value descA =
            descriptor(e, operands.a, aBase, element, aPart,
                       operands.a.toOffset.apply({origin[0], k0})[0]);
        blocks[block] = NVVM::WgmmaMmaAsyncOp::create(
            e.b, e.loc, fragment, blocks[block], descA, descB(),
            NVVM::MMAShapeAttr::get(context, 64, int(shape.instrN),
                                    int(instructionK)),
            operandType, operandType, NVVM::WGMMATypes::f32,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, layoutA, layoutB,
            /*satfinite=*/nullptr);
      }
    }
    // A product whose sum only the next product of the same block adds to
    // leaves its instructions uncommitted: the next one's commit and wait
    // cover both, as for the k-steps of one product (wgmma instructions on
    // one accumulator run in order). Not where this product read the
    // scratch area, which the next one may overwrite.
    if (!stored && feedsNextProduct(op))
      return blocksToRegisters(e, acc, blocks, perBlock);
    NVVM::WgmmaGroupSyncAlignedOp::create(e.b, e.loc);
    // The first of a pair: the second takes the accumulator in flight (as
    // consecutive products of a loop do), waits for both and ends with the
    // barrier that keeps the next stores off both Bs.
    if (operands.secondB)
      return blocksToRegisters(e, acc, blocks, perBlock);
    unsigned pending = 0;
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    if (auto attr = op->getAttrOfType<IntegerAttr>(
            tilegpu::kWgmmaPendingAttrName);
        attr && loop && !stored)
      pending = unsigned(attr.getInt());
    emitWait(e, pending);
    if (pending != 0) {
      // The last iteration waits for every product, before anything reads
      // the accumulator the loop returns. Not after the loop: a wait there
      // is also reached from the path that skips the loop, where the
      // accumulator's initial value is moved into its registers, and ptxas
      // then serializes every wgmma of the kernel (C7515). The test is the
      // loop's own (next < upper bound), so that LLVM can fold the two
      // branches into one.
      Value next = arith::AddIOp::create(e.b, e.loc, loop.getInductionVar(),
                                         loop.getStep());
      Value more = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt,
                                         next, loop.getUpperBound());
      scf::IfOp::create(
          e.b, e.loc, more,
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l); },
          [&](OpBuilder &b, Location l) {
            emitWait(e, 0);
            scf::YieldOp::create(b, l);
          });
    }
    if (stored)
      e.barrier();
    return blocksToRegisters(e, acc, blocks, perBlock);
  }

  void emitWait(Emitter &e, unsigned pending) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(e.b, e.loc, pending);
  }

  int64_t getScratchBytes(tile::MmaOp op) const override {
    return planOperands(op).scratchBytes;
  }
};

} // namespace

void tilec::detail::markWgmmaPairs(ModuleOp module) {
  module.walk([](tile::MmaOp first) {
    auto second = dyn_cast_or_null<tile::MmaOp>(first->getNextNode());
    if (!first->hasAttr(tilegpu::kWgmmaAttrName) ||
        first->hasAttr(kWgmmaPairAttrName) || !isWgmmaProduct(first) ||
        !second || !isPair(first, second))
      return;
    // Only products that store their B gain: one that reads it from its
    // buffer has no store to share a barrier with.
    WgmmaOperands alone = planAlone(first);
    SharedOperand secondB =
        planOperand(/*isA=*/false, second.getB(),
                    llvm::alignTo(alone.scratchBytes, 1024));
    if (alone.b.inBuffer || secondB.inBuffer)
      return;
    Builder b(first.getContext());
    first->setAttr(kWgmmaPairAttrName, b.getI64IntegerAttr(0));
    second->setAttr(kWgmmaPairAttrName, b.getI64IntegerAttr(1));
  });
}

const MmaTarget &tilec::detail::getWgmmaTarget() {
  static const WgmmaTarget target;
  return target;
}
