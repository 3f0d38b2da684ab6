//===- TokenMutator.h - structure-aware mutations of kernels ----*- C++ -*-===//
//
// Mutations that keep a tile kernel parseable more often than byte-level
// ones: replace an op name by another op of the same dialect, an integer
// literal (extents, constants, attribute values, -D values) by an edge value
// or a neighbour, an element type by another.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FUZZ_TOKENMUTATOR_H
#define TILEC_FUZZ_TOKENMUTATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <random>
#include <string>

namespace tilec::fuzz {

/// Applies one token mutation to `text`, picking among the op names
/// `opNames` ("dialect.op") for op swaps. Returns false when `text` has no
/// token of the kind drawn.
bool mutateTokens(std::string &text, llvm::ArrayRef<std::string> opNames,
                  std::minstd_rand &random);

} // namespace tilec::fuzz

#endif // TILEC_FUZZ_TOKENMUTATOR_H
