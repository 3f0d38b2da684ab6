//===- InputLimits.h - bounds on what tilec reads ---------------*- C++ -*-===//
//
// MLIR's parser recurses once per level of nesting (regions, attributes,
// types), and passes walk regions recursively, so a deep enough input
// overflows any stack and a deep one takes quadratic time. Tile kernels nest
// a few levels; tilec and tile-opt reject input nesting deeper than
// kMaxNestingDepth before parsing it.
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

/// The stack tilec and tile-opt parse and compile on, enough for
/// kMaxNestingDepth levels with a wide margin (reserved, not committed).
inline constexpr unsigned kToolStackBytes = 256u << 20;

/// Fails, printing "file:line:col: error: ..." through `sourceMgr` at the
/// first bracket that opens level kMaxNestingDepth + 1 of its main buffer.
/// String literals and // comments are skipped; "->" closes nothing.
mlir::LogicalResult checkNestingDepth(llvm::SourceMgr &sourceMgr);

} // namespace tilec

#endif // TILEC_TARGET_INPUTLIMITS_H
