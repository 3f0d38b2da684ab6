//===- FatalErrors.cpp - LLVM fatal errors as diagnostics -----------------===//

#include "tilec/Target/FatalErrors.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

using namespace tilec;

namespace {
std::mutex whereMutex;
std::string where;
std::atomic<const char *> phase{"tilec"};

[[noreturn]] void reportAndExit(void *, const char *reason, bool) {
  std::string location;
  {
    std::lock_guard<std::mutex> lock(whereMutex);
    location = where;
  }
  llvm::errs() << location << ": error: LLVM ERROR in " << phase.load()
               << ": " << reason << "\n";
  llvm::errs().flush();
  llvm::sys::RunInterruptHandlers();
  std::_Exit(1);
}
} // namespace

ScopedFatalErrorDiagnostics::ScopedFatalErrorDiagnostics(
    llvm::StringRef input) {
  {
    std::lock_guard<std::mutex> lock(whereMutex);
    where = input.str();
  }
  llvm::install_fatal_error_handler(reportAndExit);
}

ScopedFatalErrorDiagnostics::~ScopedFatalErrorDiagnostics() {
  llvm::remove_fatal_error_handler();
}

void ScopedFatalErrorDiagnostics::setLocation(mlir::Location loc) {
  auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc);
  if (!file)
    return;
  std::lock_guard<std::mutex> lock(whereMutex);
  where = (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
           ":" + llvm::Twine(file.getColumn()))
              .str();
}

void ScopedFatalErrorDiagnostics::setPhase(const char *name) {
  phase.store(name);
}

void tilec::runOnLargeStack(unsigned bytes, llvm::function_ref<void()> fn) {
  // A thread's stack is reserved, not committed: only the depth the input
  // reaches costs memory.
  llvm::thread worker(std::optional<unsigned>(bytes), [fn] { fn(); });
  worker.join();
}
