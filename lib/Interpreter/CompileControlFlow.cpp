//===- CompileControlFlow.cpp - scf ops for the interpreter -----*- C++ -*-===//
//
// scf.for, scf.if and scf.while: each becomes one closure that runs its
// regions' closures and moves the yielded values with a Transfer.
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"
#include "Kernels.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <memory>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

LogicalResult Compiler::compileControlFlow(Operation *op, Instrs &out) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](scf::ForOp loop) { return compileFor(loop, out); })
      .Case([&](scf::IfOp branch) { return compileIf(branch, out); })
      .Case([&](scf::WhileOp loop) { return compileWhile(loop, out); })
      .Default([&](Operation *) { return unsupported(op); });
}

LogicalResult Compiler::compileFor(scf::ForOp op, Instrs &out) {
  FailureOr<ValueType> ivType = typeOf(op.getInductionVar(), op);
  if (failed(ivType))
    return failure();
  FailureOr<unsigned> lb = use(op.getLowerBound(), op),
                      ub = use(op.getUpperBound(), op),
                      step = use(op.getStep(), op);
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  struct Plan {
    unsigned lb, ub, step, iv;
    unsigned width;
    bool isUnsigned;
    std::vector<unsigned> inits, iterArgs, results;
    Instrs body;
    Transfer yield;
    std::string where;
  };
  auto plan = std::make_shared<Plan>();
  plan->lb = *lb;
  plan->ub = *ub;
  plan->step = *step;
  plan->width = bitWidth(ivType->elem);
  plan->isUnsigned = op.getUnsignedCmp();
  plan->where = describe(op);
  for (Value init : op.getInitArgs()) {
    FailureOr<unsigned> slot = use(init, op);
    if (failed(slot))
      return failure();
    plan->inits.push_back(*slot);
  }
  Block *body = op.getBody();
  plan->iv = define(op.getInductionVar());
  for (BlockArgument arg : op.getRegionIterArgs()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->iterArgs.push_back(define(arg));
  }
  if (failed(compileBlock(*body, plan->body)))
    return failure();
  plan->yield =
      makeTransfer(body->getTerminator()->getOperands(), plan->iterArgs, body);
  for (Value result : op.getResults())
    plan->results.push_back(define(result));

  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    uint64_t mask = widthMask(p.width);
    int64_t lo = f.slots[p.lb].i[0], hi = f.slots[p.ub].i[0],
            st = f.slots[p.step].i[0];
    uint64_t trips = 0, stride = static_cast<uint64_t>(st) & mask;
    bool empty = p.isUnsigned ? (static_cast<uint64_t>(lo) & mask) >=
                                    (static_cast<uint64_t>(hi) & mask)
                              : lo >= hi;
    if (!empty) {
      if (stride == 0 || (!p.isUnsigned && st < 0)) {
        f.error = p.where + ": the step is " + std::to_string(st) +
                  "; a loop's step must be positive";
        return false;
      }
      uint64_t span =
          ((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) & mask);
      trips = span / stride + (span % stride != 0);
    }
    for (size_t j = 0; j < p.inits.size(); ++j)
      f.slots[p.iterArgs[j]] = f.slots[p.inits[j]];
    for (uint64_t t = 0; t < trips; ++t) {
      uint64_t iv = static_cast<uint64_t>(lo) + t * stride;
      f.slots[p.iv].i.assign(1, signExtend(static_cast<int64_t>(iv), p.width));
      if (!runInstrs(p.body, f))
        return false;
      p.yield.run(f);
    }
    for (size_t j = 0; j < p.results.size(); ++j)
      std::swap(f.slots[p.results[j]], f.slots[p.iterArgs[j]]);
    return true;
  });
  return success();
}

LogicalResult Compiler::compileIf(scf::IfOp op, Instrs &out) {
  FailureOr<unsigned> cond = use(op.getCondition(), op);
  if (failed(cond))
    return failure();
  struct Plan {
    unsigned cond;
    Instrs thenBody, elseBody;
    Transfer thenYield, elseYield;
  };
  auto plan = std::make_shared<Plan>();
  plan->cond = *cond;
  SmallVector<unsigned> results;
  for (Value result : op.getResults()) {
    if (failed(typeOf(result, op)))
      return failure();
    results.push_back(program.numSlots + results.size());
  }
  auto compileBranch = [&](Region &region, Instrs &body,
                           Transfer &yield) -> LogicalResult {
    if (region.empty())
      return success();
    Block &block = region.front();
    if (failed(compileBlock(block, body)))
      return failure();
    yield = makeTransfer(block.getTerminator()->getOperands(), results, &block);
    return success();
  };
  // The results' slots are fixed before the branches are compiled, so that
  // their yields can name them; they are defined after, so the branches'
  // values do not take them.
  unsigned first = program.numSlots;
  program.numSlots += results.size();
  if (failed(
          compileBranch(op.getThenRegion(), plan->thenBody, plan->thenYield)) ||
      failed(
          compileBranch(op.getElseRegion(), plan->elseBody, plan->elseYield)))
    return failure();
  for (auto [j, result] : llvm::enumerate(op.getResults()))
    slots[result] = first + j;
  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    bool taken = f.slots[p.cond].i[0] != 0;
    if (!runInstrs(taken ? p.thenBody : p.elseBody, f))
      return false;
    (taken ? p.thenYield : p.elseYield).run(f);
    return true;
  });
  return success();
}

LogicalResult Compiler::compileWhile(scf::WhileOp op, Instrs &out) {
  struct Plan {
    std::vector<unsigned> inits, beforeArgs, afterArgs, results;
    unsigned cond;
    Instrs before, after;
    Transfer toAfter, toResults, yield;
  };
  auto plan = std::make_shared<Plan>();
  for (Value init : op.getInits()) {
    FailureOr<unsigned> slot = use(init, op);
    if (failed(slot))
      return failure();
    plan->inits.push_back(*slot);
  }
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  for (BlockArgument arg : before.getArguments()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->beforeArgs.push_back(define(arg));
  }
  for (BlockArgument arg : after.getArguments()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->afterArgs.push_back(define(arg));
  }
  for (Value result : op.getResults()) {
    if (failed(typeOf(result, op)))
      return failure();
    plan->results.push_back(define(result));
  }
  if (failed(compileBlock(before, plan->before)) ||
      failed(compileBlock(after, plan->after)))
    return failure();
  scf::ConditionOp condition = op.getConditionOp();
  FailureOr<unsigned> cond = use(condition.getCondition(), condition);
  if (failed(cond))
    return failure();
  plan->cond = *cond;
  // The condition's arguments go to the after region or to the results; a
  // value cannot be swapped to both, so only the exit may take it.
  plan->toAfter = makeTransfer(condition.getArgs(), plan->afterArgs, nullptr);
  plan->toResults = makeTransfer(condition.getArgs(), plan->results, &before);
  plan->yield = makeTransfer(after.getTerminator()->getOperands(),
                             plan->beforeArgs, &after);
  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    for (size_t j = 0; j < p.inits.size(); ++j)
      f.slots[p.beforeArgs[j]] = f.slots[p.inits[j]];
    while (true) {
      if (!runInstrs(p.before, f))
        return false;
      if (f.slots[p.cond].i[0] == 0) {
        p.toResults.run(f);
        return true;
      }
      p.toAfter.run(f);
      if (!runInstrs(p.after, f))
        return false;
      p.yield.run(f);
    }
  });
  return success();
}
