//===- FuzzInput.h - the options line of a compiler fuzz input --*- C++ -*-===//
//
// A compiler fuzz input is a tile-dialect file whose first line may carry
// the tilec options to compile it with, so that the fuzzer mutates them too:
//
//   // fuzz: -D BLOCK=256 --target=sm_90a --kernel-suffix=_v2
//
// The line is an MLIR comment: the parser skips it and locations stay those
// of the file.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FUZZ_FUZZINPUT_H
#define TILEC_FUZZ_FUZZINPUT_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tilec::fuzz {

/// The options of one input, as tilec's command line would give them.
struct FuzzOptions {
  /// NAME=VALUE for tile-bind-params (tilec's -D).
  std::vector<std::string> defines;
  /// tilec's --target (one target); empty for tilec's default, sm_80.
  std::string target;
  /// tilec's --kernel-suffix.
  std::string kernelSuffix;
};

/// The prefix that marks the options line.
inline constexpr llvm::StringLiteral kOptionsPrefix = "// fuzz:";

/// Reads the options line of `input`, if its first line is one. Words that
/// are not options are ignored: the fuzzer mutates this line like the rest.
FuzzOptions parseFuzzOptions(llvm::StringRef input);

} // namespace tilec::fuzz

#endif // TILEC_FUZZ_FUZZINPUT_H
