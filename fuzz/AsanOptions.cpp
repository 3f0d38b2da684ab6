//===- AsanOptions.cpp - AddressSanitizer defaults of the fuzzers ---------===//
//
// LLVM's BumpPtrAllocator and ArrayRecycler poison and unpoison their memory
// in inline code when the includer is built with ASan. The project's code is,
// libLLVM and libMLIR are not: one allocator's memory, poisoned by an inline
// copy in the project's code and handed out by libMLIR's copy, which never
// unpoisons it, reads as use-after-poison where nothing is wrong. Ignoring
// user poisoning keeps every check on the heap ASan itself manages.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
