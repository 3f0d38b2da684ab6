/*===- mamba2_abi_stub.c - the C ABI's functions, doing nothing -*- C -*-===*
 *
 * libtilec_mamba2_abi_stub.so exports the functions of tilec_mamba2.h with
 * their signatures; each returns TILEC_MAMBA2_SUCCESS without reading its
 * arguments (workspace_size answers a fixed size). It is what
 * bench/python_host_cost_stub.py points the Python package at, on a machine
 * without a GPU, to time the package's own per-call work (what Python does
 * before and around the C call, the ctypes call included) apart from the
 * library's validation and the driver. Never a stand-in for the library in
 * a test: it computes nothing.
 *
 *===----------------------------------------------------------------------===*/

#include "tilec/Mamba2/tilec_mamba2.h"

const char *tilec_mamba2_status_name(int status) {
  return status == TILEC_MAMBA2_SUCCESS ? "TILEC_MAMBA2_SUCCESS"
                                        : "TILEC_MAMBA2_ERROR_UNKNOWN";
}

const char *tilec_mamba2_last_error(void) { return ""; }

int tilec_mamba2_workspace_size(const tilec_mamba2_problem *problem,
                                size_t *bytes) {
  *bytes = 1 << 20;
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_prepare(void) { return TILEC_MAMBA2_SUCCESS; }

/* No function reads its parameters; those of the calls with one-struct
 * forms are the header's argument lists, not a copy to keep in step. */
int tilec_mamba2_forward(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    void *workspace, size_t workspace_bytes, void *stream) {
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_forward_with_options(
    TILEC_MAMBA2_FORWARD_ARGUMENTS(TILEC_MAMBA2_PARAMETER_,
                                   TILEC_MAMBA2_TENSOR_PARAMETER_)
    void *stream) {
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_state_update(
    TILEC_MAMBA2_STATE_UPDATE_ARGUMENTS(TILEC_MAMBA2_PARAMETER_,
                                        TILEC_MAMBA2_TENSOR_PARAMETER_)
    void *stream) {
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_forward_call(const tilec_mamba2_forward_args *args) {
  return TILEC_MAMBA2_SUCCESS;
}

int tilec_mamba2_state_update_call(
    const tilec_mamba2_state_update_args *args) {
  return TILEC_MAMBA2_SUCCESS;
}
