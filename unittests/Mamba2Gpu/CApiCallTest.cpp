//===- CApiCallTest.cpp - the C ABI's calls with one struct argument ------===//
//
// tilec_mamba2_forward_call and tilec_mamba2_state_update_call against the
// functions they stand for: for a valid call and for calls that break one
// rule each, the same status and the same message. The checks come before
// the driver, so the tests run without a GPU.
//
//===----------------------------------------------------------------------===//

#include "../Mamba2/DecodeCheck.h"
#include "CApiTesting.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

/// (status, tilec_mamba2_last_error) of a call.
std::pair<int, std::string> outcome(const std::function<int()> &call) {
  int status = call();
  return {status, tilec_mamba2_last_error()};
}

const tilec_mamba2_problem kProblem = {2, 100, 4, 2, 32, 16, 64};

/// args.forwardWithOptions() as a tilec_mamba2_forward_args.
int forwardCall(CArguments &args) {
  args.options.z = args.withZ ? args.z.get() : nullptr;
  args.options.dt_bias = args.withDtBias ? args.dtBias.get() : nullptr;
  tilec_mamba2_forward_args packed = {
      &args.problem, args.x.get(), args.dt.get(), args.A.get(),
      args.B.get(), args.C.get(), args.D.get(),
      args.withInitialState ? args.initialState.get() : nullptr,
      args.y.get(), args.withFinalState ? args.finalState.get() : nullptr,
      &args.options, args.workspace, args.workspaceBytes, args.stream};
  return tilec_mamba2_forward_call(&packed);
}

void expectSameOutcome(const std::function<void(CArguments &)> &change) {
  CArguments unpacked = CArguments::fake(kProblem);
  CArguments packed = CArguments::fake(kProblem);
  unpacked.withZ = packed.withZ = true;
  unpacked.withDtBias = packed.withDtBias = true;
  change(unpacked);
  change(packed);
  auto want = outcome([&] { return unpacked.forwardWithOptions(); });
  auto got = outcome([&] { return forwardCall(packed); });
  EXPECT_EQ(statusName(got.first), statusName(want.first));
  EXPECT_EQ(got.second, want.second);
  EXPECT_NE(want.first, TILEC_MAMBA2_SUCCESS);
}

TEST(CApiForwardCall, ValidCallReachesTheDriverAsTheUnpackedOne) {
  expectSameOutcome([](CArguments &) {});
}

TEST(CApiForwardCall, EachRuleAsTheUnpackedCall) {
  expectSameOutcome([](CArguments &a) { a.x.descriptor.dtype = 9; });
  expectSameOutcome([](CArguments &a) { a.dt.shape[1] = 99; });
  expectSameOutcome([](CArguments &a) { a.B.strides[0] = -1; });
  expectSameOutcome([](CArguments &a) { a.problem.chunk = 100; });
  expectSameOutcome([](CArguments &a) { a.z.descriptor.dtype = 0; });
  expectSameOutcome([](CArguments &a) { a.options.size = 1; });
  expectSameOutcome([](CArguments &a) {
    a.options.dt_limit = 1;
    a.options.dt_min = 1.0f;
    a.options.dt_max = 0.5f;
  });
  expectSameOutcome([](CArguments &a) { a.withInitialState = false; });
}

TEST(CApiForwardCall, NullArguments) {
  EXPECT_MAMBA2_STATUS(tilec_mamba2_forward_call(nullptr),
                       TILEC_MAMBA2_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(tilec_mamba2_last_error()).find("are null"),
            std::string::npos);
}

/// A valid decode step on host buffers (StateUpdateCApiTest's), through
/// both entry points.
class CApiStateUpdateCall : public ::testing::Test {
protected:
  CApiStateUpdateCall()
      : data(DecodeData::random(
            DecodeProblem{3, 4, 2, 8, 16, 5},
            {true, true, true, DecodeOptions::D::PerHead, true}, 11)),
        args(data.args()), state(args.state), x(args.x), dt(args.dt),
        A(args.A), B(args.B), C(args.C), D(*args.D), z(*args.z),
        dtBias(*args.dtBias), y(args.y), problem{3, 4, 2, 8, 16, 5} {}

  std::pair<int, std::string> unpacked() {
    return outcome([&] {
      return tilec_mamba2_state_update(
          &problem, &state.descriptor, &x.descriptor, &dt.descriptor,
          &A.descriptor, &B.descriptor, &C.descriptor, &D.descriptor,
          &z.descriptor, &dtBias.descriptor, 1, data.indices.data(), -1,
          &y.descriptor, nullptr);
    });
  }

  std::pair<int, std::string> packed() {
    tilec_mamba2_state_update_args call = {
        &problem,        &state.descriptor,  &x.descriptor, &dt.descriptor,
        &A.descriptor,   &B.descriptor,      &C.descriptor, &D.descriptor,
        &z.descriptor,   &dtBias.descriptor, 1,             data.indices.data(),
        -1,              &y.descriptor,      nullptr};
    return outcome([&] { return tilec_mamba2_state_update_call(&call); });
  }

  void expectSameOutcome() {
    auto want = unpacked();
    auto got = packed();
    EXPECT_EQ(statusName(got.first), statusName(want.first));
    EXPECT_EQ(got.second, want.second);
    EXPECT_NE(want.first, TILEC_MAMBA2_SUCCESS);
  }

  DecodeData data;
  StateUpdateArgs args;
  CTensor state, x, dt, A, B, C, D, z, dtBias, y;
  tilec_mamba2_decode_problem problem;
};

TEST_F(CApiStateUpdateCall, ValidCallAsTheUnpackedOne) { expectSameOutcome(); }

TEST_F(CApiStateUpdateCall, EachRuleAsTheUnpackedCall) {
  x.descriptor.dtype = 9;
  expectSameOutcome();
  x.descriptor.dtype = TILEC_MAMBA2_BF16;
  dt.shape[1] = 5;
  expectSameOutcome();
  dt.shape[1] = 4;
  problem.groups = 3;
  expectSameOutcome();
  problem.groups = 2;
  y.descriptor.data = state.descriptor.data;
  expectSameOutcome();
}

TEST_F(CApiStateUpdateCall, NullArguments) {
  EXPECT_MAMBA2_STATUS(tilec_mamba2_state_update_call(nullptr),
                       TILEC_MAMBA2_ERROR_NULL_POINTER);
}

} // namespace
