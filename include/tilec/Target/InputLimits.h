//===- InputLimits.h - bounds on what tilec reads ---------------*- C++ -*-===//
//
// MLIR's parser recurses once per level of nesting (regions, attributes,
// types), and passes walk regions recursively, so a deep enough input
// overflows any stack and a deep one takes quadratic time. Tile kernels nest
// a few levels; tilec and tile-opt reject input nesting deeper than
// kMaxNestingDepth before parsing it. The parser also allocates one slot per
// result number up to the largest one a use names (`%r#N`), so a use with a
// huge N takes gigabytes before any verifier runs: result numbers above
// kMaxResultNumber are rejected by the same scan.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_INPUTLIMITS_H
#define TILEC_TARGET_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tilec {

/// The deepest nesting of brackets ( [ { < accepted in an input file.
inline constexpr unsigned kMaxNestingDepth = 1024;

/// The largest result number a use `%name#N` may name; no tile op has
/// nearly as many results.
inline constexpr unsigned kMaxResultNumber = 4096;

/// The stack tilec and tile-opt parse and compile on, enough for
/// kMaxNestingDepth levels with a wide margin (reserved, not committed).
inline constexpr unsigned kToolStackBytes = 256u << 20;

/// Fails, printing "file:line:col: error: ..." through `sourceMgr` at the
/// first bracket that opens level kMaxNestingDepth + 1 of its main buffer,
/// at the first use `%name#N` with N > kMaxResultNumber, or at the first
/// `array<index` or `array<!alias`. String literals
/// and // comments are skipped; "->" closes nothing.
mlir::LogicalResult checkInputLimits(llvm::SourceMgr &sourceMgr);

} // namespace tilec

#endif // TILEC_TARGET_INPUTLIMITS_H
