//===- TokenMutator.cpp - structure-aware mutations of kernels ------------===//

#include "TokenMutator.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cctype>
#include <cstdint>
#include <iterator>

namespace tilec::fuzz {
namespace {

/// A token of `text`: [begin, end).
struct Token {
  size_t begin, end;
};

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// The words of `text` (runs of letters, digits, '_' and '.') that `keep`
/// accepts.
template <typename Keep>
llvm::SmallVector<Token> findWords(const std::string &text, Keep keep) {
  llvm::SmallVector<Token> tokens;
  for (size_t i = 0; i < text.size();) {
    if (!isWordChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && isWordChar(text[end]))
      ++end;
    if (keep(llvm::StringRef(text).slice(i, end)))
      tokens.push_back({i, end});
    i = end;
  }
  return tokens;
}

/// Digit runs, which in a kernel are extents (64x64 splits at 'x' below),
/// constants, attribute and -D values, dimension indices.
llvm::SmallVector<Token> findIntegers(const std::string &text) {
  llvm::SmallVector<Token> tokens;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
      ++end;
    tokens.push_back({i, end});
    i = end;
  }
  return tokens;
}

std::string pickInteger(llvm::StringRef old, std::minstd_rand &random) {
  static constexpr uint64_t kEdges[] = {
      0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256,
      512, 1024, 4096, 65535, 65536, (1ull << 31) - 1, 1ull << 31,
      1ull << 32, 1ull << 40, 1ull << 62, (1ull << 63) - 1, 1ull << 63,
      ~0ull};
  uint64_t value = 0;
  const bool parsed = !old.getAsInteger(10, value);
  switch (random() % 4) {
  case 0:
    if (parsed)
      return std::to_string(value + 1);
    break;
  case 1:
    if (parsed && value > 0)
      return std::to_string(value - 1);
    break;
  case 2:
    if (parsed)
      return std::to_string(value * 2);
    break;
  default:
    break;
  }
  return std::to_string(kEdges[random() % std::size(kEdges)]);
}

constexpr llvm::StringLiteral kElementTypes[] = {
    "f32", "f16", "bf16", "tf32", "f64", "i1", "i8", "i16", "i32", "i64",
    "index"};

} // namespace

bool mutateTokens(std::string &text, llvm::ArrayRef<std::string> opNames,
                  std::minstd_rand &random) {
  llvm::SmallVector<Token> tokens;
  std::string replacement;
  switch (random() % 3) {
  case 0: { // an op name by another of its dialect
    tokens = findWords(text, [&](llvm::StringRef word) {
      return word.contains('.') && llvm::is_contained(opNames, word.str());
    });
    if (tokens.empty())
      return false;
    const Token &t = tokens[random() % tokens.size()];
    llvm::StringRef dialect =
        llvm::StringRef(text).slice(t.begin, t.end).split('.').first;
    llvm::SmallVector<llvm::StringRef> sameDialect;
    for (const std::string &name : opNames)
      if (llvm::StringRef(name).split('.').first == dialect)
        sameDialect.push_back(name);
    replacement = sameDialect[random() % sameDialect.size()].str();
    text.replace(t.begin, t.end - t.begin, replacement);
    return true;
  }
  case 1: { // an integer literal
    tokens = findIntegers(text);
    if (tokens.empty())
      return false;
    const Token &t = tokens[random() % tokens.size()];
    replacement =
        pickInteger(llvm::StringRef(text).slice(t.begin, t.end), random);
    text.replace(t.begin, t.end - t.begin, replacement);
    return true;
  }
  default: { // an element type, also inside 64x64xf32
    tokens = findWords(text, [](llvm::StringRef word) {
      llvm::StringRef last = word.rsplit('x').second;
      return llvm::is_contained(kElementTypes, word) ||
             (!last.empty() && llvm::is_contained(kElementTypes, last));
    });
    if (tokens.empty())
      return false;
    const Token &t = tokens[random() % tokens.size()];
    llvm::StringRef word = llvm::StringRef(text).slice(t.begin, t.end);
    size_t typeBegin = llvm::is_contained(kElementTypes, word)
                           ? t.begin
                           : t.begin + word.rfind('x') + 1;
    replacement = kElementTypes[random() % std::size(kElementTypes)].str();
    text.replace(typeBegin, t.end - typeBegin, replacement);
    return true;
  }
  }
}

} // namespace tilec::fuzz
