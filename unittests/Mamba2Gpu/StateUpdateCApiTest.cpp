//===- StateUpdateCApiTest.cpp - tilec_mamba2_state_update's errors -------===//
//
// Every rule the C ABI of the decode step reports before it uses the driver,
// with its status and message, on host buffers: no GPU needed.
//
//===----------------------------------------------------------------------===//

#include "../Mamba2/DecodeCheck.h"
#include "CApiTesting.h"

#include "tilec/Mamba2/tilec_mamba2.h"

#include "gtest/gtest.h"

#include <string>

using namespace tilec::mamba2;
using namespace tilec::mamba2::testing;

namespace {

class StateUpdateCApi : public ::testing::Test {
protected:
  StateUpdateCApi()
      : data(DecodeData::random(
            DecodeProblem{3, 4, 2, 8, 16, 5},
            {true, true, true, DecodeOptions::D::PerHead, true}, 7)),
        args(data.args()), state(args.state), x(args.x), dt(args.dt), A(args.A),
        B(args.B), C(args.C), D(*args.D), z(*args.z), dtBias(*args.dtBias),
        y(args.y), problem{3, 4, 2, 8, 16, 5}, indices(data.indices.data()) {}

  int call() {
    return tilec_mamba2_state_update(
        &problem, &state.descriptor, &x.descriptor, &dt.descriptor,
        &A.descriptor, &B.descriptor, &C.descriptor, &D.descriptor,
        &z.descriptor, &dtBias.descriptor, 1, indices, -1, &y.descriptor,
        nullptr);
  }

  void expectError(tilec_mamba2_status status, const char *part) {
    EXPECT_EQ(call(), status) << tilec_mamba2_last_error();
    EXPECT_NE(std::string(tilec_mamba2_last_error()).find(part),
              std::string::npos)
        << "'" << part << "' is not in: " << tilec_mamba2_last_error();
  }

  DecodeData data;
  StateUpdateArgs args;
  CTensor state, x, dt, A, B, C, D, z, dtBias, y;
  tilec_mamba2_decode_problem problem;
  /// The kernel reads them on the device; the host checks only the pointer.
  const int64_t *indices;
};

TEST_F(StateUpdateCApi, NullProblem) {
  EXPECT_EQ(tilec_mamba2_state_update(
                nullptr, &state.descriptor, &x.descriptor, &dt.descriptor,
                &A.descriptor, &B.descriptor, &C.descriptor, nullptr, nullptr,
                nullptr, 0, nullptr, -1, &y.descriptor, nullptr),
            TILEC_MAMBA2_ERROR_NULL_POINTER);
}

TEST_F(StateUpdateCApi, NullRequiredDescriptor) {
  EXPECT_EQ(tilec_mamba2_state_update(
                &problem, &state.descriptor, nullptr, &dt.descriptor,
                &A.descriptor, &B.descriptor, &C.descriptor, nullptr, nullptr,
                nullptr, 0, data.indices.data(), -1, &y.descriptor, nullptr),
            TILEC_MAMBA2_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(tilec_mamba2_last_error())
                .find("x: the tensor "
                      "descriptor is null"),
            std::string::npos);
}

TEST_F(StateUpdateCApi, DtypeValue) {
  x.descriptor.dtype = 9;
  expectError(TILEC_MAMBA2_ERROR_INVALID_DTYPE, "x: dtype 9");
}

TEST_F(StateUpdateCApi, Dtype) {
  y.descriptor.dtype = TILEC_MAMBA2_F32;
  expectError(TILEC_MAMBA2_ERROR_INVALID_DTYPE,
              "y (batch, heads, headdim) is f32");
}

TEST_F(StateUpdateCApi, Shape) {
  dt.shape[1] = 5;
  expectError(TILEC_MAMBA2_ERROR_INVALID_SHAPE, "dt (batch, heads) has shape");
}

TEST_F(StateUpdateCApi, Groups) {
  problem.groups = 3;
  expectError(TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS, "groups (3)");
}

TEST_F(StateUpdateCApi, NegativeStride) {
  B.strides[0] = -1;
  expectError(TILEC_MAMBA2_ERROR_INVALID_STRIDE, "B (batch, groups, dstate) "
                                                 "has a negative stride");
}

TEST_F(StateUpdateCApi, UnalignedIndices) {
  indices = reinterpret_cast<const int64_t *>(
      reinterpret_cast<const char *>(data.indices.data()) + 4);
  expectError(TILEC_MAMBA2_ERROR_UNALIGNED, "state_indices: data pointer");
}

TEST_F(StateUpdateCApi, StateOverlapsY) {
  y.descriptor.data = state.descriptor.data;
  expectError(TILEC_MAMBA2_ERROR_INVALID_ARGUMENT, "state overlaps y");
}

TEST_F(StateUpdateCApi, GridLimit) {
  // Past the grid's 65535 entries: a shape error before any memory is read
  // (the descriptors say 3 entries, so the shape rule speaks first).
  problem.batch = 70000;
  problem.state_rows = 70000;
  EXPECT_NE(call(), TILEC_MAMBA2_SUCCESS);
}

} // namespace
