//===- Program.h - the interpreter's executable form ------------*- C++ -*-===//
//
// A kernel is translated once into nested lists of closures over a frame of
// slots, one slot per SSA value; running a program is calling the closures.
// Shapes and element types are static, so each closure knows them and does
// no dispatch per element.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_PROGRAM_H
#define TILEC_LIB_INTERPRETER_PROGRAM_H

#include "tilec/Interpreter/Interpreter.h"

#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tilec::interp::detail {

/// Element types of values. Floats are held as f32 whose value is exactly
/// representable in the element type; integers (i1 included) as int64
/// sign-extended from their width, so true is -1.
enum class Elem : uint8_t { F32, F16, BF16, TF32, I1, I8, I16, I32, I64, Index };

inline bool isFloat(Elem e) { return e <= Elem::TF32; }

inline unsigned bitWidth(Elem e) {
  switch (e) {
  case Elem::F16:
  case Elem::BF16:
  case Elem::I16:
    return 16;
  case Elem::I1:
    return 1;
  case Elem::I8:
    return 8;
  case Elem::F32:
  case Elem::TF32:
  case Elem::I32:
    return 32;
  case Elem::I64:
  case Elem::Index:
    return 64;
  }
  return 64;
}

/// The storage of one value: `f` for float elements, `i` for the others.
struct Buffer {
  std::vector<float> f;
  std::vector<int64_t> i;
};

/// A view argument resolved for running.
struct ViewArg {
  char *data = nullptr;
  DType dtype = DType::F32;
  unsigned rank = 0;
  std::array<int64_t, 8> shape{};
  std::array<int64_t, 8> strides{};
};

/// The state of one program while it runs. A thread keeps its frame from
/// one program to the next, so slots keep their capacity.
struct Frame {
  std::vector<Buffer> slots;
  const ViewArg *views = nullptr;
  std::array<int64_t, 3> blockId{};
  std::array<int64_t, 3> numBlocks{};
  /// Set by the closure that fails; it then returns false.
  std::string error;
};

/// One op. Returns false, after setting `Frame::error`, on undefined
/// behaviour that the interpreter detects.
using Instr = std::function<bool(Frame &)>;
using Instrs = std::vector<Instr>;

inline bool runInstrs(const Instrs &instrs, Frame &frame) {
  for (const Instr &instr : instrs)
    if (!instr(frame))
      return false;
  return true;
}

/// A scalar kernel argument: which argument and where it goes.
struct ScalarParam {
  unsigned argIndex;
  unsigned slot;
  Elem elem;
};

struct Program {
  unsigned numSlots = 0;
  unsigned numArgs = 0;
  Instrs body;
  /// Slots set once per frame: constants.
  std::vector<std::pair<unsigned, Buffer>> constants;
  std::vector<ScalarParam> scalars;
  /// For each view argument: its index, rank and element dtype.
  struct ViewParam {
    unsigned argIndex;
    unsigned rank;
    DType dtype;
  };
  std::vector<ViewParam> views;
};

/// Translates `kernel`; on failure `error` names the op and its location.
mlir::LogicalResult compileKernel(mlir::tile::KernelOp kernel,
                                  Program &program, std::string &error);

} // namespace tilec::interp::detail

#endif // TILEC_LIB_INTERPRETER_PROGRAM_H
