//===- MmaSync.cpp - tile.mma as mma.sync on registers ----------*- C++ -*-===//
//
// The sm_80 implementation of MmaTarget. With A, B and the accumulator in
// the mma.sync fragment layouts (what tilegpu-assign-layouts gives bf16,
// f16 and tf32 products outside the wgmma path), tile.mma is mma.sync on
// the registers themselves: no shared memory, no barrier, and the
// accumulator stays in its registers across scf.for. Which registers feed
// which instruction is read off the layouts: for every 16 x 8 block of the
// accumulator that warp 0 holds, and every k-step, the registers whose
// images (lane 0, warp 0) are the fragment elements of the PTX ISA tables
// (MmaLayout); the layouts are checked to give every lane its fragment and
// every warp consistent A rows, B columns and accumulator blocks. Padding
// along K is zeroed first.
//
//===----------------------------------------------------------------------===//

#include "MmaTarget.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

namespace {

using Operand = MmaLayout::Operand;

/// Registers of warp 0 by their lane-0 coordinates.
class RegisterIndex {
public:
  explicit RegisterIndex(const LinearLayout &layout) : layout(layout) {
    for (int64_t r = 0, e = layout.getInDimSize(kRegister); r < e; ++r) {
      SmallVector<int64_t> c = layout.apply({r, 0, 0});
      index.try_emplace(key(c[0], c[1]), r);
    }
  }
  /// The register holding (row, col) in lane 0 of warp 0, checked to hold
  /// `coordsOfLane(l)` in every lane l.
  std::optional<int64_t>
  find(int64_t row, int64_t col,
       function_ref<std::pair<int64_t, int64_t>(int64_t)> coordsOfLane) const {
    auto it = index.find(key(row, col));
    if (it == index.end())
      return std::nullopt;
    for (int64_t lane = 0; lane < 32; ++lane) {
      SmallVector<int64_t> c = layout.apply({it->second, lane, 0});
      if (std::make_pair(c[0], c[1]) != coordsOfLane(lane))
        return std::nullopt;
    }
    return it->second;
  }

private:
  static uint64_t key(int64_t row, int64_t col) {
    return (uint64_t(row) << 32) | uint64_t(col);
  }
  const LinearLayout &layout;
  llvm::DenseMap<uint64_t, int64_t> index;
};

/// Which registers of A, B and the accumulator each mma.sync takes.
struct MmaProgram {
  struct Step {
    SmallVector<int64_t> a, b;
  };
  struct Block {
    SmallVector<int64_t> acc;
    SmallVector<Step> steps;
  };
  SmallVector<Block> blocks;
};

/// The program, or none when the layouts are not the fragment layouts of
/// `instruction` with consistent warps.
std::optional<MmaProgram> planRegisters(const MmaLayout &instruction,
                                        const LinearLayout &a,
                                        const LinearLayout &b,
                                        const LinearLayout &c) {
  // Warp w's A rows, B columns and accumulator block agree, and A's and B's
  // K coordinates do not depend on the warp.
  unsigned warpBits = llvm::Log2_64(uint64_t(c.getInDimSize(kWarp)));
  if (a.getInDimSize(kWarp) != c.getInDimSize(kWarp) ||
      b.getInDimSize(kWarp) != c.getInDimSize(kWarp))
    return std::nullopt;
  for (unsigned bit = 0; bit < warpBits; ++bit) {
    LinearLayout::Basis wa = a.getBasis(kWarp, bit),
                        wb = b.getBasis(kWarp, bit),
                        wc = c.getBasis(kWarp, bit);
    if (wa[1] != 0 || wb[0] != 0 || wc[0] != wa[0] || wc[1] != wb[1])
      return std::nullopt;
  }
  int64_t m = instruction.getM(), n = instruction.getN(),
          k = instruction.getK();
  int64_t paddedK = a.getOutDimSize(tensorDimName(1));
  if (paddedK % k != 0 || b.getOutDimSize(tensorDimName(0)) != paddedK)
    return std::nullopt;
  RegisterIndex indexA(a), indexB(b), indexC(c);
  // The accumulator blocks warp 0 holds, in register order.
  SmallVector<std::pair<int64_t, int64_t>> origins;
  for (int64_t r = 0, e = c.getInDimSize(kRegister); r < e; ++r) {
    SmallVector<int64_t> coord = c.apply({r, 0, 0});
    std::pair<int64_t, int64_t> origin{coord[0] & ~(m - 1),
                                       coord[1] & ~(n - 1)};
    if (!llvm::is_contained(origins, origin))
      origins.push_back(origin);
  }
  auto fragment = [&](const RegisterIndex &index, Operand operand, int64_t row0,
                      int64_t col0, SmallVectorImpl<int64_t> &registers) {
    for (int64_t i = 0; i < instruction.getNumElements(operand); ++i) {
      auto [row, col] = instruction.getElement(operand, i);
      std::optional<int64_t> reg =
          index.find(row0 + row.eval(0), col0 + col.eval(0), [&](int64_t l) {
            return std::make_pair(row0 + row.eval(l), col0 + col.eval(l));
          });
      if (!reg)
        return false;
      registers.push_back(*reg);
    }
    return true;
  };
  MmaProgram program;
  for (auto [row0, col0] : origins) {
    MmaProgram::Block block;
    if (!fragment(indexC, Operand::Accumulator, row0, col0, block.acc))
      return std::nullopt;
    for (int64_t k0 = 0; k0 < paddedK; k0 += k) {
      MmaProgram::Step step;
      if (!fragment(indexA, Operand::A, row0, k0, step.a) ||
          !fragment(indexB, Operand::B, k0, col0, step.b))
        return std::nullopt;
      block.steps.push_back(std::move(step));
    }
    program.blocks.push_back(std::move(block));
  }
  return program;
}

std::optional<MmaLayout> instructionFor(Type element) {
  if (element.isBF16() || element.isF16())
    return MmaLayout(16);
  if (isa<FloatTF32Type>(element))
    return MmaLayout(32);
  return std::nullopt;
}

std::optional<MmaProgram> planRegisters(tile::MmaOp op) {
  std::optional<MmaLayout> instruction =
      instructionFor(op.getA().getType().getElementType());
  if (!instruction)
    return std::nullopt;
  return planRegisters(*instruction,
                       getDistributedLinearLayout(op.getA().getType()),
                       getDistributedLinearLayout(op.getB().getType()),
                       getDistributedLinearLayout(op.getAcc().getType()));
}

/// The 32-bit operand registers of one fragment: 16-bit elements in
/// consecutive pairs, low half first (i32 for bf16, vector<2xf16> for f16,
/// the f32 bits of tf32 as i32).
SmallVector<Value> packFragment(Emitter &e, Value registers,
                                ArrayRef<int64_t> elements, Type element) {
  SmallVector<Value> packed;
  Type i32 = e.b.getI32Type();
  if (isa<FloatTF32Type>(element)) {
    for (int64_t r : elements)
      packed.push_back(
          LLVM::BitcastOp::create(e.b, e.loc, i32, e.extract(registers, r)));
    return packed;
  }
  auto pair = VectorType::get({2}, element);
  for (size_t i = 0; i < elements.size(); i += 2) {
    Value word = e.insert(e.insert(LLVM::PoisonOp::create(e.b, e.loc, pair),
                                   e.extract(registers, elements[i]), 0),
                          e.extract(registers, elements[i + 1]), 1);
    if (element.isBF16())
      word = LLVM::BitcastOp::create(e.b, e.loc, i32, word);
    packed.push_back(word);
  }
  return packed;
}

Value emitMmaSync(Emitter &e, tile::MmaOp op, const MmaProgram &program,
                  Value a, Value b, Value acc) {
  Type element = op.getA().getType().getElementType();
  MmaLayout instruction = *instructionFor(element);
  NVVM::MMATypes ptxType = element.isBF16()  ? NVVM::MMATypes::bf16
                           : element.isF16() ? NVVM::MMATypes::f16
                                             : NVVM::MMATypes::tf32;
  Type f32 = e.b.getF32Type();
  Type resultType = LLVM::LLVMStructType::getLiteral(e.b.getContext(),
                                                     SmallVector<Type>(4, f32));
  SmallVector<SmallVector<Value>> sums;
  for (const MmaProgram::Block &block : program.blocks) {
    SmallVector<Value> &blockSums = sums.emplace_back();
    for (int64_t r : block.acc)
      blockSums.push_back(e.extract(acc, r));
  }
  // k-steps outside, blocks inside: consecutive instructions add into
  // different accumulator blocks, so none waits for the one before it
  // (an instruction's sum is ready some 30 cycles after it issues).
  size_t numSteps = program.blocks.empty() ? 0 : program.blocks[0].steps.size();
  for (size_t s = 0; s < numSteps; ++s) {
    for (auto [block, blockSums] : llvm::zip(program.blocks, sums)) {
      const MmaProgram::Step &step = block.steps[s];
      SmallVector<Value> aRegs = packFragment(e, a, step.a, element);
      SmallVector<Value> bRegs = packFragment(e, b, step.b, element);
      Value d = NVVM::MmaOp::create(
          e.b, e.loc, resultType, aRegs, bRegs, blockSums,
          {instruction.getM(), instruction.getN(), instruction.getK()},
          std::nullopt, std::nullopt,
          std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      for (int64_t i = 0; i < 4; ++i)
        blockSums[i] = LLVM::ExtractValueOp::create(e.b, e.loc, d, i);
    }
  }
  Value result = acc;
  for (auto [block, blockSums] : llvm::zip(program.blocks, sums))
    for (auto [r, sum] : llvm::zip(block.acc, blockSums))
      result = e.insert(result, sum, r);
  return result;
}

class MmaSyncTarget final : public MmaTarget {
public:
  bool matches(tile::MmaOp op) const override {
    return planRegisters(op).has_value();
  }
  Value emitMma(Emitter &e, tile::MmaOp op, Value a, Value b, Value acc,
                const MmaSharedOperands &) const override {
    Value paddedA = zeroPadding(e, DistributedTile(e, op.getA().getType()), a);
    Value paddedB = zeroPadding(e, DistributedTile(e, op.getB().getType()), b);
    return emitMmaSync(e, op, *planRegisters(op), paddedA, paddedB, acc);
  }
  // mma.sync is synchronous: its result is in registers when it retires.
  bool readsSharedOperands() const override { return false; }
  void emitWait(Emitter &, unsigned) const override {}
  int64_t getScratchBytes(tile::MmaOp) const override { return 0; }
};

} // namespace

Value tilec::detail::zeroPadding(Emitter &e, const DistributedTile &tile,
                                 Value registers) {

  auto type = cast<VectorType>(registers.getType());
  Value zero = zeroOf(e, type.getElementType());
  for (int64_t r = 0; r < tile.getNumRegisters(); ++r)
    if (Value holds = tile.holds(e, r))
      registers =
          e.insert(registers,
                   LLVM::SelectOp::create(e.b, e.loc, holds,
                                          e.extract(registers, r), zero),
                   r);
  return registers;
}

const MmaTarget &tilec::detail::getMmaSyncTarget() {
  static const MmaSyncTarget target;
  return target;
}
