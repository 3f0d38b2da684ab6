//===- LinearLayout.h - layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// A linear layout says where each element of a tile lives: a map from
// hardware coordinates (register, lane, warp, block; or an element offset in
// shared memory) to tensor coordinates (dim0, dim1, ...). Every size is a
// power of two and the map is linear over GF(2): it is fixed by the image of
// each input bit, and the image of any input is the XOR of the images of its
// set bits. An input bit whose image is 0 means replication. Blocked, slice,
// mma and wgmma fragments, ldmatrix and swizzled shared memory are all of
// this form, so composition, inversion and the conversion between any two
// layouts (planConversion) come from one algorithm. docs/codegen-layouts.md
// is the design this serves.
//
// Tiles whose extents are not powers of two are described by the layout of
// the tile padded to the next power of two; elements past the true extent
// are masked by the code that uses the layout.
//
// Dimensions are named and ordered. In the flat encoding of a point (an
// integer holding all of its coordinates) the first dimension takes the
// lowest bits: the flat input of (register r, lane l) with R registers is
// r + R * l.
//
// Only LLVM ADT/Support: the lowering uses it, nothing here needs MLIR.
// Arguments that break a documented precondition are compiler bugs, not user
// input (the passes check tile shapes and report those), and end the process
// with a message through llvm::report_fatal_error, in every build type.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LAYOUT_LINEARLAYOUT_H
#define TILEC_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A named dimension of 2^log2Size points.
struct LayoutDim {
  std::string name;
  unsigned log2Size = 0;

  int64_t size() const { return int64_t(1) << log2Size; }
  bool operator==(const LayoutDim &other) const {
    return name == other.name && log2Size == other.log2Size;
  }
};

/// The conventional names of distributed and shared-memory input dims.
constexpr llvm::StringLiteral kRegister("register");
constexpr llvm::StringLiteral kLane("lane");
constexpr llvm::StringLiteral kWarp("warp");
constexpr llvm::StringLiteral kBlock("block");
constexpr llvm::StringLiteral kOffset("offset");
/// "dim<i>": the name of tensor dimension i.
std::string tensorDimName(unsigned i);

class LinearLayout {
public:
  /// The image of one input bit: one coordinate per output dim, in order.
  using Basis = llvm::SmallVector<int64_t, 4>;
  struct InDim {
    std::string name;
    /// bases[k]: the image of bit k; the dim has 2^bases.size() points.
    llvm::SmallVector<Basis> bases;
  };

  /// The layout with no dimensions (the unit of the product).
  LinearLayout() = default;
  /// Names must be unique among inputs and among outputs; each basis has one
  /// coordinate per output dim, each within that dim's size.
  LinearLayout(llvm::ArrayRef<InDim> ins, llvm::ArrayRef<LayoutDim> outs);

  /// in = out along one dim of `size` points.
  static LinearLayout identity1D(int64_t size, llvm::StringRef inDim,
                                 llvm::StringRef outDim);
  /// Every one of `size` inputs maps to coordinate 0 of `outDim` (of
  /// `outSize` points): replication.
  static LinearLayout zeros1D(int64_t size, llvm::StringRef inDim,
                              llvm::StringRef outDim, int64_t outSize = 1);

  llvm::ArrayRef<LayoutDim> getInDims() const { return ins; }
  llvm::ArrayRef<LayoutDim> getOutDims() const { return outs; }
  bool hasInDim(llvm::StringRef name) const { return findIn(name) >= 0; }
  bool hasOutDim(llvm::StringRef name) const { return findOut(name) >= 0; }
  /// Size of a dim; 1 for a dim the layout does not have.
  int64_t getInDimSize(llvm::StringRef name) const;
  int64_t getOutDimSize(llvm::StringRef name) const;
  unsigned getTotalInBits() const { return columns.size(); }
  unsigned getTotalOutBits() const;
  /// The image of bit `bit` of input dim `inDim`.
  Basis getBasis(llvm::StringRef inDim, unsigned bit) const;
  /// All input dims with their bases (what the constructor takes).
  llvm::SmallVector<InDim> getBases() const;

  /// Coordinates (one per output dim) of the input point with one value per
  /// input dim, in order.
  llvm::SmallVector<int64_t> apply(llvm::ArrayRef<int64_t> inputs) const;
  /// The same on flat encodings.
  uint64_t applyFlat(uint64_t input) const;

  /// outer(this(x)): this layout's output dims must be `outer`'s input dims
  /// (same names and sizes, in any order).
  LinearLayout compose(const LinearLayout &outer) const;
  /// The inverse of a bijective layout (outputs become inputs).
  LinearLayout invert() const;
  /// A right inverse R of a surjective layout L (L(R(y)) = y), preferring
  /// low inputs: every output is reached through the lowest-numbered input
  /// bits that can reach it (registers before lanes before warps when the
  /// input dims are in that order), and replicated copies map to 0.
  LinearLayout pseudoInvert() const;
  /// The direct product: input and output dims are merged by name; where
  /// both layouts have a dim, this layout takes its low bits and `other` the
  /// high bits. Dims only `other` has come after this layout's.
  LinearLayout operator*(const LinearLayout &other) const;
  /// The same layout with its output dims in `order` (a permutation of the
  /// output names).
  LinearLayout transposeOuts(llvm::ArrayRef<std::string> order) const;
  /// The same elements with the outputs re-split into `newOuts`, reading
  /// both sets of dims as a row-major index (the last dim fastest), as
  /// reshaping a row-major tile does. Total sizes must agree.
  LinearLayout reshapeOuts(llvm::ArrayRef<LayoutDim> newOuts) const;
  /// The restriction to the named input dims, projected on the named output
  /// dims (both in this layout's order; names it lacks are ignored).
  LinearLayout sublayout(llvm::ArrayRef<std::string> inNames,
                         llvm::ArrayRef<std::string> outNames) const;
  /// Drops the bits of `inDim` whose image is 0 (removes replication along
  /// it; the remaining bits keep their order).
  LinearLayout removeZeroBases(llvm::StringRef inDim) const;
  /// Whether this layout is L' x identity on `dims` (each named dim both an
  /// input and an output of equal size, mapped identically and touched by
  /// no other input); L' when it is. The conversion planner asks this of
  /// dst -> src maps: identity on lane, warp and block means data stays in
  /// its thread.
  std::optional<LinearLayout> quotient(llvm::ArrayRef<std::string> dims) const;

  /// Rank of the map over GF(2).
  unsigned getRank() const;
  bool isSurjective() const { return getRank() == getTotalOutBits(); }
  bool isInjective() const { return getRank() == getTotalInBits(); }

  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }
  /// "register = [[0,1],[8,0]], lane = [...] -> dim0:16, dim1:8".
  std::string toString() const;

private:
  int findIn(llvm::StringRef name) const;
  int findOut(llvm::StringRef name) const;
  unsigned inBitOffset(unsigned dim) const;
  unsigned outBitOffset(unsigned dim) const;
  uint64_t packOut(llvm::ArrayRef<int64_t> coords) const;
  llvm::SmallVector<int64_t> unpackOut(uint64_t flat) const;

  llvm::SmallVector<LayoutDim> ins;
  llvm::SmallVector<LayoutDim> outs;
  /// columns[i]: the flat image of flat input bit i.
  llvm::SmallVector<uint64_t> columns;
};

//===----------------------------------------------------------------------===//
// Factories. Distributed layouts have inputs (register, lane, warp) and
// outputs dim0..dimN-1; `shape` is the (power-of-two) tile. A tile smaller
// than what the threads cover is replicated (lane and warp bits past it map
// to 0, register bits past it are dropped); a larger one repeats in
// registers.
//===----------------------------------------------------------------------===//

/// Per dim in `order` (fastest first): sizePerThread[d] consecutive
/// elements in registers, then threadsPerWarp[d] lanes, then warpsPerCTA[d]
/// warps; repeats in registers, the fastest dim first. sizePerThread along
/// the contiguous dim is the vector width of a memory access.
LinearLayout blockedLayout(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> sizePerThread,
                           llvm::ArrayRef<int64_t> threadsPerWarp,
                           llvm::ArrayRef<int64_t> warpsPerCTA,
                           llvm::ArrayRef<unsigned> order);

/// The layout of the tile `parent` describes with dim `dim` removed (the
/// result of a reduction along it): output dims renumbered, register bits
/// that only walked `dim` removed.
LinearLayout sliceLayout(const LinearLayout &parent, unsigned dim);

/// The mma.sync instruction shapes: m16n8k16 with bf16/f16 operands and
/// m16n8k8 with tf32 operands (both with f32 accumulators).
enum class MmaSyncShape { M16N8K16, M16N8K8 };
enum class MmaOperand { A, B };

/// The accumulator of mma.sync (the same for both shapes) over an M x N tile
/// (M a multiple of 16, N of 8): the PTX ISA m16n8 C/D fragment; warp w
/// takes the 16 x 8 block (w % wm, w / wm) for warpsPerCTA = {wm, wn};
/// repetitions fill the tile N first.
LinearLayout mmaSyncAccumulatorLayout(llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<int64_t> warpsPerCTA);
/// Operand A (M x K) or B (K x N) of mma.sync for the accumulator layout with
/// the same warpsPerCTA: warps that share rows (A) or columns (B) hold the
/// same operand; repetitions fill the tile K first.
LinearLayout mmaSyncOperandLayout(MmaSyncShape shape, MmaOperand operand,
                                  llvm::ArrayRef<int64_t> tileShape,
                                  llvm::ArrayRef<int64_t> warpsPerCTA);

/// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16: what the lanes receive.
/// Inputs register (2 x numMatrices 16-bit halves: bit 0 the half, the
/// higher bits the matrix) and lane (32); outputs matrix, row, col of the
/// 8 x 8 matrices as they are stored (rows addressed by the lanes).
LinearLayout ldmatrixLayout(unsigned numMatrices, bool transposed);
/// Which row each lane addresses: lane (8 x numMatrices) -> (matrix, row).
LinearLayout ldmatrixAddressLayout(unsigned numMatrices);

/// The accumulator of wgmma.mma_async m64nNk16 (N = instrN, a power of two
/// from 8 to 256) over an M x N tile (M a multiple of 64, N of instrN) for
/// numWarps (a multiple of 4) warps: warp w of a warpgroup takes rows
/// 16 (w % 4); warpgroups stack along M; repetitions fill the tile N first.
LinearLayout wgmmaAccumulatorLayout(llvm::ArrayRef<int64_t> shape,
                                    int64_t instrN, int64_t numWarps);
/// Operand A of wgmma (16-bit types) from registers, M x K.
LinearLayout wgmmaOperandALayout(llvm::ArrayRef<int64_t> shape,
                                 int64_t numWarps);

/// Shared memory for a rows x cols tile (cols contiguous) of
/// `elementBytes`-byte elements: input offset (elements) -> (dim0, dim1).
/// swizzleBytes 0 is row-major; 32, 64, 128 are the TMA
/// CU_TENSOR_MAP_SWIZZLE_{32,64,128}B and wgmma descriptor modes: the tile
/// is stored as column blocks of swizzleBytes per row, one after another,
/// and within them byte-address bits [4, 4+b) are XORed with bits [7, 7+b),
/// b = log2(swizzleBytes / 16). Needs cols * elementBytes >= swizzleBytes.
LinearLayout swizzledSharedLayout(llvm::ArrayRef<int64_t> shape,
                                  unsigned elementBytes, unsigned swizzleBytes);

//===----------------------------------------------------------------------===//
// Conversions between two distributed layouts of one tile.
//===----------------------------------------------------------------------===//

/// One shfl.sync.idx: lane l sends its register sendRegister[l] and
/// receives from lane srcLane[l], keeping the value in `dstRegister` when
/// bit l of `lanesKept` is set. sendRegister is a function of the lane's
/// bits (the lowering selects it with those bits).
struct ShuffleRound {
  unsigned dstRegister = 0;
  llvm::SmallVector<unsigned, 32> srcLane;
  llvm::SmallVector<unsigned, 32> sendRegister;
  uint32_t lanesKept = 0;
};

/// How a destination reads a staging buffer with
/// ldmatrix.sync.aligned.m8n8.x{numMatrices}[.trans].b16 instead of loads.
/// One instruction fills `registersPerRead` consecutive destination
/// registers (two 16-bit halves per register and matrix, or one 32-bit
/// element per matrix: ldmatrix on 32-bit pairs); the destination registers
/// above them pick the instruction.
struct LdmatrixRead {
  unsigned numMatrices = 4;
  bool transposed = false;
  unsigned registersPerRead = 8;
  /// Which destination element starts the row each lane addresses: address
  /// lane bit i (lane L addresses row L % 8 of matrix L / 8, as
  /// ldmatrixAddressLayout says) -> a (register, lane) point of one
  /// instruction's part of the destination. Lanes past the matrices repeat
  /// the first ones.
  LinearLayout rowStarts;
};

/// A conversion through shared memory: every thread stores its registers at
/// the offsets `layout` gives them (offset -> tensor coordinates, a
/// bijection), in vectors of `storeVectorElements` consecutive registers
/// (consecutive offsets); barrier; every thread loads its registers the
/// same way in vectors of `loadVectorElements`, or with `ldmatrix`.
struct SharedStaging {
  LinearLayout layout;
  unsigned storeVectorElements = 1;
  unsigned loadVectorElements = 1;
  std::optional<LdmatrixRead> ldmatrix;
};

struct ConversionPlan {
  enum class Kind { Free, RegisterPermutation, WarpShuffle, SharedMemory };
  Kind kind = Kind::Free;
  /// Where each destination point's element is in the source: inputs
  /// (register, lane, warp, block) of dst -> the same dims of src.
  LinearLayout dstToSrc;
  /// RegisterPermutation: destination register r is source register
  /// srcRegisterOf[r] of the same thread.
  llvm::SmallVector<unsigned> srcRegisterOf;
  /// WarpShuffle: the rounds; every (register, lane) of dst is kept by
  /// exactly one.
  std::vector<ShuffleRound> shuffles;
  /// SharedMemory: the staging layout.
  std::optional<SharedStaging> shared;
};

/// Plans converting a tile of `elementBytes`-byte elements from `src` to
/// `dst` (inputs among register, lane, warp, block; the same output dims).
/// The cheapest kind that works is chosen: free, else a register
/// permutation, else warp shuffles when the data stays in each warp and the
/// rounds are at most twice the shared-memory plan's passes through the
/// crossbar (stores plus loads, 128 bytes a pass; shuffles need no barrier
/// and no buffer), else shared
/// memory. A destination whose 8-element (16-byte) rows ldmatrix can
/// deliver (the mma.sync operand fragments of 16-bit elements, and of
/// 32-bit ones with the rows along the fragment's pairs) is read with
/// ldmatrix from a staging layout whose rows are those 16 bytes. Fails,
/// saying why, when the
/// layouts describe different tiles, src does not hold every element, or
/// the data would cross CTAs. Without `allowShuffles`, a conversion that
/// would be warp shuffles is planned through shared memory.
llvm::Expected<ConversionPlan> planConversion(const LinearLayout &src,
                                              const LinearLayout &dst,
                                              unsigned elementBytes,
                                              bool allowShuffles = true);

/// How a destination `dst` reads a shared buffer laid out by `shared`
/// (offset -> tensor coordinates, a bijection onto dst's tile) with
/// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16: the read the planner
/// would choose for dst (plain, else .trans) where each of its 16-byte rows
/// lies in the buffer whole, in order and on a 16-byte boundary (the
/// swizzled layouts keep 16-byte chunks whole); none otherwise. The
/// cp.async buffers of tilegpu-pipeline are read this way.
std::optional<LdmatrixRead> planLdmatrixRead(const LinearLayout &dst,
                                             const LinearLayout &shared,
                                             unsigned elementBytes);

} // namespace tilec

#endif // TILEC_LAYOUT_LINEARLAYOUT_H
