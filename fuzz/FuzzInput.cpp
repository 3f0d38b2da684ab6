//===- FuzzInput.cpp - the options line of a compiler fuzz input ----------===//

#include "FuzzInput.h"

#include "llvm/ADT/SmallVector.h"

namespace tilec::fuzz {

FuzzOptions parseFuzzOptions(llvm::StringRef input) {
  FuzzOptions options;
  llvm::StringRef line = input.take_until([](char c) { return c == '\n'; });
  if (!line.consume_front(kOptionsPrefix))
    return options;
  llvm::SmallVector<llvm::StringRef> words;
  line.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (size_t i = 0; i < words.size(); ++i) {
    llvm::StringRef word = words[i].trim();
    if (word == "-D" && i + 1 < words.size())
      options.defines.push_back(words[++i].trim().str());
    else if (word.consume_front("-D") && !word.empty())
      options.defines.push_back(word.str());
    else if (word.consume_front("--target="))
      options.target = word.str();
    else if (word.consume_front("--kernel-suffix="))
      options.kernelSuffix = word.str();
  }
  return options;
}

} // namespace tilec::fuzz
