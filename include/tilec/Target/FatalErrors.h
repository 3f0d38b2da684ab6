//===- FatalErrors.h - LLVM fatal errors as diagnostics ---------*- C++ -*-===//
//
// The last line of defence of tilec and tile-opt: every input tilec knows to
// be beyond LLVM is diagnosed before LLVM sees it, but should LLVM still hit
// a fatal error (report_fatal_error: the NVPTX backend's "Cannot select",
// "SmallVector unable to grow"), the tool ends as on any other error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_FATALERRORS_H
#define TILEC_TARGET_FATALERRORS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

namespace tilec {

/// While alive, an LLVM fatal error prints "<where>: error: LLVM ERROR in
/// <phase>: <reason>" on stderr, removes the output files being written
/// (those registered with llvm::sys::RemoveFileOnSignal, as ToolOutputFile
/// does) and exits with status 1, instead of aborting with a stack dump.
class ScopedFatalErrorDiagnostics {
public:
  /// `where` names the input (a file name) until setLocation refines it.
  explicit ScopedFatalErrorDiagnostics(llvm::StringRef where);
  ~ScopedFatalErrorDiagnostics();
  ScopedFatalErrorDiagnostics(const ScopedFatalErrorDiagnostics &) = delete;
  ScopedFatalErrorDiagnostics &
  operator=(const ScopedFatalErrorDiagnostics &) = delete;

  /// Reports later fatal errors at `loc` (as file:line:col where it is one).
  static void setLocation(mlir::Location loc);
  /// Names what runs now ("the NVPTX backend"); a string literal.
  static void setPhase(const char *phase);
};

/// Runs `fn` on a stack of `bytes`, so that deeply nested input (the parser
/// and the walks over regions recurse once per level) does not overflow the
/// main thread's.
void runOnLargeStack(unsigned bytes, llvm::function_ref<void()> fn);

} // namespace tilec

#endif // TILEC_TARGET_FATALERRORS_H
