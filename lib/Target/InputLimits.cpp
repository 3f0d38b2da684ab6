//===- InputLimits.cpp - bounds on what tilec reads -----------------------===//

#include "tilec/Target/InputLimits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>

using namespace tilec;

namespace {

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// The position of the first character at or after `i` that is neither
/// whitespace nor inside a // comment.
size_t skipSpace(llvm::StringRef text, size_t i) {
  while (i < text.size()) {
    if (llvm::isSpace(text[i])) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
    } else {
      break;
    }
  }
  return std::min(i, text.size());
}

/// Whether the keyword `array` at `i` opens a dense array whose element type
/// is `index` or an alias (`!name`, which may stand for index). MLIR 22's
/// parser asks `index` for a bit width and crashes; the element types it
/// accepts are integers and floats, so tilec rejects these two forms first.
bool opensIndexDenseArray(llvm::StringRef text, size_t i) {
  constexpr llvm::StringLiteral keyword = "array";
  if (!text.substr(i).starts_with(keyword) ||
      (i > 0 && (isIdentifierChar(text[i - 1]) || text[i - 1] == '@' ||
                 text[i - 1] == '#' || text[i - 1] == '!' ||
                 text[i - 1] == '^')))
    return false;
  size_t j = i + keyword.size();
  if (j < text.size() && isIdentifierChar(text[j]))
    return false;
  j = skipSpace(text, j);
  if (j >= text.size() || text[j] != '<')
    return false;
  j = skipSpace(text, j + 1);
  llvm::StringRef type = text.substr(j);
  if (type.starts_with("!"))
    return true;
  return type.starts_with("index") &&
         (type.size() == 5 || !isIdentifierChar(type[5]));
}

} // namespace

mlir::LogicalResult tilec::checkInputLimits(llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // A string literal: brackets inside are text; \" does not end it.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '-' && i + 1 < e && text[i + 1] == '>') {
      ++i;
      continue;
    }
    if (c == '%') {
      // An SSA name, and a result number after '#'.
      size_t j = i + 1;
      while (j < e && (llvm::isAlnum(text[j]) || text[j] == '_' ||
                       text[j] == '$' || text[j] == '.' || text[j] == '-'))
        ++j;
      if (j < e && text[j] == '#') {
        size_t digits = j + 1, end = digits;
        while (end < e && llvm::isDigit(text[end]))
          ++end;
        uint64_t number = 0;
        if (end > digits &&
            (end - digits > 9 ||
             text.substr(digits, end - digits).getAsInteger(10, number) ||
             number > kMaxResultNumber)) {
          sourceMgr.PrintMessage(
              llvm::SMLoc::getFromPointer(text.data() + i),
              llvm::SourceMgr::DK_Error,
              llvm::Twine("result number ") + text.substr(digits, end - digits) +
                  " is past the largest a use may name (" +
                  llvm::Twine(kMaxResultNumber) + ")");
          return mlir::failure();
        }
        j = end;
      }
      i = j - 1;
      continue;
    }
    if (c == 'a' && opensIndexDenseArray(text, i)) {
      sourceMgr.PrintMessage(
          llvm::SMLoc::getFromPointer(text.data() + i),
          llvm::SourceMgr::DK_Error,
          "a dense array's element type must be written as an integer or "
          "float type (i64, f32, ...), not index or a type alias");
      return mlir::failure();
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNestingDepth) {
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + i),
            llvm::SourceMgr::DK_Error,
            llvm::Twine("the input nests deeper than ") +
                llvm::Twine(kMaxNestingDepth) +
                " levels of brackets; tile kernels need a few");
        return mlir::failure();
      }
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth) {
      --depth;
    }
  }
  return mlir::success();
}
