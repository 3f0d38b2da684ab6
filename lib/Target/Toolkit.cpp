//===- Toolkit.cpp - cubins and fatbins with the CUDA toolkit -------------===//
//
// ptxas and fatbinary run as child processes on temporary files. Their
// output is captured and shown in the diagnostic when they fail.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace mlir;

namespace tilec {
namespace {

/// A temporary file, removed when this goes out of scope.
class TempFile {
public:
  LogicalResult create(Location loc, StringRef prefix, StringRef suffix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile(prefix, suffix, path))
      return emitError(loc)
             << "cannot create a temporary file: " << ec.message();
    remover.setFile(path);
    return success();
  }
  StringRef getPath() const { return path; }

private:
  SmallString<128> path;
  llvm::FileRemover remover;
};

LogicalResult writeFile(Location loc, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec)
    return emitError(loc) << "cannot write " << path << ": " << ec.message();
  return success();
}

FailureOr<std::string> readFile(Location loc, StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read " << path << ": "
                          << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

/// Runs a toolkit program (argv[0] is its path), with its output shown in
/// the error when it fails, and as a warning when it succeeds but talks.
LogicalResult runTool(Location loc, StringRef tool, ArrayRef<StringRef> argv) {
  if (argv[0].empty())
    return emitError(loc) << tool
                          << " not found: tilec was configured without a "
                             "CUDA toolkit (reconfigure with "
                             "-DTILEC_CUDA_ROOT=<toolkit>, or pass --"
                          << tool << "=<path>)";
  if (!llvm::sys::fs::can_execute(argv[0]))
    return emitError(loc) << tool << " not found at '" << argv[0]
                          << "' (pass --" << tool << "=<path>)";
  TempFile log;
  if (failed(log.create(loc, "tilec-" + tool.str(), "log")))
    return failure();
  std::optional<StringRef> redirects[] = {StringRef(), log.getPath(),
                                          log.getPath()};
  std::string error;
  bool couldNotRun = false;
  int status = llvm::sys::ExecuteAndWait(argv[0], argv, std::nullopt, redirects,
                                         0, 0, &error, &couldNotRun);
  FailureOr<std::string> output = readFile(loc, log.getPath());
  StringRef text = succeeded(output) ? StringRef(*output).trim() : "";
  if (couldNotRun || status != 0) {
    InFlightDiagnostic diag = emitError(loc) << tool << " failed";
    if (couldNotRun || status < 0)
      diag << " (" << error << ")";
    else
      diag << " with exit status " << status;
    diag << ": " << llvm::join(argv, " ");
    if (!text.empty())
      diag << "\n" << text;
    return failure();
  }
  if (!text.empty())
    emitWarning(loc) << tool << ": " << text;
  return success();
}

} // namespace

FailureOr<std::string> assembleCubin(Location loc, StringRef ptx,
                                     const GpuTarget &target,
                                     const CudaToolkit &toolkit) {
  TempFile input, output;
  if (failed(input.create(loc, "tilec-" + target.name.str(), "ptx")) ||
      failed(output.create(loc, "tilec-" + target.name.str(), "cubin")) ||
      failed(writeFile(loc, input.getPath(), ptx)))
    return failure();
  std::string arch = "-arch=" + target.name.str();
  StringRef argv[] = {toolkit.ptxas,   arch, "-O3",
                      input.getPath(), "-o", output.getPath()};
  if (failed(runTool(loc, "ptxas", argv)))
    return failure();
  return readFile(loc, output.getPath());
}

FailureOr<std::string> bundleFatbin(Location loc, ArrayRef<FatbinImage> images,
                                    const CudaToolkit &toolkit) {
  TempFile output;
  if (failed(output.create(loc, "tilec", "fatbin")))
    return failure();
  std::vector<TempFile> inputs(images.size());
  SmallVector<std::string> args = {"-64", "--create=" + output.getPath().str()};
  for (auto [image, input] : llvm::zip_equal(images, inputs)) {
    StringRef name = image.target->name;
    if (failed(input.create(loc, "tilec-" + name.str(),
                            image.isPTX ? "ptx" : "cubin")) ||
        failed(writeFile(loc, input.getPath(), image.data)))
      return failure();
    // fatbinary spells sm_90a as sm=90a, for cubins and PTX alike.
    args.push_back(
        std::string("--image3=kind=") + (image.isPTX ? "ptx" : "elf") +
        ",sm=" + name.drop_front(3).str() + ",file=" + input.getPath().str());
  }
  SmallVector<StringRef> argv = {toolkit.fatbinary};
  argv.append(args.begin(), args.end());
  if (failed(runTool(loc, "fatbinary", argv)))
    return failure();
  return readFile(loc, output.getPath());
}

} // namespace tilec
