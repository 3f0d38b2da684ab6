/*===- tilec_mamba2.h - the Mamba-2 forward pass on the GPU, C ABI -*- C -*-===*
 *
 * A C interface to forwardGpu (Mamba2Gpu.h) for callers that are not C++
 * (Python through ctypes or cffi, other languages). Tensors are described by
 * plain pointers and shape/stride arrays in elements, in mamba_ssm's layouts
 * (docs/mamba2-gpu.md). The shared library libtilec_mamba2.so (CMake:
 * tilec::mamba2) implements it and exports nothing else; it needs only the C
 * library and, at run time, the CUDA driver. Every function returns a
 * tilec_mamba2_status; on failure tilec_mamba2_last_error() says, for the
 * calling thread, what was wrong. Arguments are checked before the CUDA
 * driver is used, so an invalid call fails the same way on a machine without
 * a GPU.
 *
 * This header needs no CUDA header: the stream is a void * holding a
 * CUstream or cudaStream_t (the same handle); NULL is the legacy default
 * stream.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILEC_MAMBA2_TILEC_MAMBA2_H
#define TILEC_MAMBA2_TILEC_MAMBA2_H

#include <stddef.h>
#include <stdint.h>

/* Marks the functions of the C ABI, the only symbols libtilec_mamba2.so
 * exports (it is built with hidden visibility and a version script). */
#if defined(__GNUC__) || defined(__clang__)
#define TILEC_MAMBA2_API __attribute__((visibility("default")))
#else
#define TILEC_MAMBA2_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_mamba2_status {
  TILEC_MAMBA2_SUCCESS = 0,
  /* A size of the problem is not positive, a tensor's rank or shape is not
   * the one the problem implies (or its rank is outside [0,
   * TILEC_MAMBA2_MAX_RANK]), or a size is beyond what the kernels' grids or
   * 64-bit byte counts can cover. */
  TILEC_MAMBA2_ERROR_INVALID_SHAPE = 1,
  /* A stride is negative, an output has stride 0 along a dimension of more
   * than one element, or a strides array is missing for a rank > 0. */
  TILEC_MAMBA2_ERROR_INVALID_STRIDE = 2,
  /* A tensor's dtype is not a tilec_mamba2_dtype or not the one supported
   * for it (x bf16, f16 or f32 and B, C, z in x's dtype; dt f32, bf16 or
   * f16; y f32 or x's dtype; seq_idx and cu_seqlens i32; chunk_states the
   * options' state_dtype; everything else f32), or the options' state_dtype
   * is not a float tilec_mamba2_dtype (F32, BF16 or F16): TILEC_MAMBA2_I32
   * or a value that is no tilec_mamba2_dtype. A float state_dtype the
   * kernels lack (F16; BF16 with x not in bf16) is INVALID_ARGUMENT. */
  TILEC_MAMBA2_ERROR_INVALID_DTYPE = 3,
  /* A data pointer is not aligned to its element size, or the workspace is
   * not 16-byte aligned. */
  TILEC_MAMBA2_ERROR_UNALIGNED = 4,
  /* heads is not a multiple of groups. */
  TILEC_MAMBA2_ERROR_GROUPS_DO_NOT_DIVIDE_HEADS = 5,
  /* chunk is not 64, 128 or 256 (the chunk sizes the kernels are built for). */
  TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK = 6,
  /* A required argument (problem, tensor descriptor, data pointer, shape
   * array, workspace size result) is NULL. */
  TILEC_MAMBA2_ERROR_NULL_POINTER = 7,
  /* A data pointer (or the workspace) is not device memory of the CUDA
   * driver, e.g. ordinary or pinned host memory. */
  TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER = 8,
  /* The CUDA driver library cannot be loaded or is too old. */
  TILEC_MAMBA2_ERROR_NO_DRIVER = 9,
  /* The driver sees no CUDA device. */
  TILEC_MAMBA2_ERROR_NO_DEVICE = 10,
  /* The calling thread has no current CUDA context. */
  TILEC_MAMBA2_ERROR_NO_CONTEXT = 11,
  /* The workspace given is smaller than tilec_mamba2_workspace_size. */
  TILEC_MAMBA2_ERROR_WORKSPACE_TOO_SMALL = 12,
  /* Allocating the workspace on the stream (cuMemAllocAsync) failed. */
  TILEC_MAMBA2_ERROR_OUT_OF_MEMORY = 13,
  /* Loading or launching a kernel failed (the message has the driver's
   * error). */
  TILEC_MAMBA2_ERROR_LAUNCH_FAILURE = 14,
  /* Any other invalid argument, e.g. tile sizes other than the compiled
   * ones (C++ API only), a dt limit that is not an interval, or an options
   * struct of a size this library does not take. */
  TILEC_MAMBA2_ERROR_INVALID_ARGUMENT = 15
} tilec_mamba2_status;

/* The largest rank a tensor descriptor may claim; the tensors of the pass
 * have rank 1 to 4. */
#define TILEC_MAMBA2_MAX_RANK 8

typedef enum tilec_mamba2_dtype {
  TILEC_MAMBA2_F32 = 0,
  TILEC_MAMBA2_F16 = 1,
  TILEC_MAMBA2_BF16 = 2,
  /* The sequence index and offsets (options->seq_idx, cu_seqlens) only. */
  TILEC_MAMBA2_I32 = 3
} tilec_mamba2_dtype;

/* The sizes of one forward pass (Problem in Mamba2.h). */
typedef struct tilec_mamba2_problem {
  int64_t batch;
  int64_t seqlen;
  int64_t heads;
  int64_t groups;
  int64_t headdim;
  int64_t dstate;
  int64_t chunk;
} tilec_mamba2_problem;

/* A strided array in device memory. `dtype` holds a tilec_mamba2_dtype (an
 * int32_t so that any value a caller passes is reported, not undefined).
 * `shape` and `strides` have `rank` elements and count elements; `strides`
 * may be NULL for a row-major (contiguous) tensor. The arrays need to live
 * only for the duration of the call. */
typedef struct tilec_mamba2_tensor {
  void *data;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
} tilec_mamba2_tensor;

/* The name of a status, e.g. "TILEC_MAMBA2_ERROR_UNALIGNED". */
TILEC_MAMBA2_API const char *tilec_mamba2_status_name(int status);

/* What the last failing tilec_mamba2 call of the calling thread reported;
 * "" when none failed. Valid until the thread's next tilec_mamba2 call. */
TILEC_MAMBA2_API const char *tilec_mamba2_last_error(void);

/* Bytes of device workspace tilec_mamba2_forward needs for `problem`.
 * Needs no driver. */
TILEC_MAMBA2_API int
tilec_mamba2_workspace_size(const tilec_mamba2_problem *problem, size_t *bytes);

/* Loads every kernel into the calling thread's current context, as the
 * first tilec_mamba2_forward for each chunk size would. Call it before
 * capturing tilec_mamba2_forward in a CUDA graph. */
TILEC_MAMBA2_API int tilec_mamba2_prepare(void);

/* The Mamba-2 forward pass, enqueued on `stream` in the calling thread's
 * current CUDA context; returns without waiting for the kernels.
 *
 *   x              (batch, seqlen, heads, headdim)  bf16, f16 or f32
 *   dt             (batch, seqlen, heads)           f32, bf16 or f16, as
 *                                                   given (no bias, softplus
 *                                                   or limit)
 *   A              (heads)                          f32
 *   B, C           (batch, seqlen, groups, dstate)  x's dtype
 *   D              (heads) or (heads, headdim)      f32
 *   initial_state  (batch, heads, headdim, dstate)  f32, or NULL: zero
 *   y              (batch, seqlen, heads, headdim)  f32 or x's dtype,
 *                                                   written
 *   final_state    (batch, heads, headdim, dstate)  f32, or NULL: not written
 *
 * `workspace` is device memory of at least `workspace_bytes` >=
 * tilec_mamba2_workspace_size bytes, 16-byte aligned, that nothing else uses
 * until the kernels are done; NULL allocates it on the stream
 * (cuMemAllocAsync) and frees it after the kernels (cuMemFreeAsync). No call
 * synchronizes with the host, so the call can be captured in a CUDA graph.
 * Checks, in order: the descriptors themselves (non-null problem and
 * required tensors, rank, shape array, dtype value), in the order x, dt, A,
 * B, C, D, initial_state, y, final_state; the problem and then each tensor
 * against it, in that order (the validation forwardCpu runs too); the grid
 * limits (batch and heads at most 65535); the alignment of each data
 * pointer to its element size and of the workspace to 16 bytes; the
 * workspace size. Then, through the driver: the driver and a device, a
 * current context, and that every pointer is device memory. */
TILEC_MAMBA2_API int tilec_mamba2_forward(
    const tilec_mamba2_problem *problem, const tilec_mamba2_tensor *x,
    const tilec_mamba2_tensor *dt, const tilec_mamba2_tensor *A,
    const tilec_mamba2_tensor *B, const tilec_mamba2_tensor *C,
    const tilec_mamba2_tensor *D, const tilec_mamba2_tensor *initial_state,
    const tilec_mamba2_tensor *y, const tilec_mamba2_tensor *final_state,
    void *workspace, size_t workspace_bytes, void *stream);

/* ---- mamba_ssm's options: z, dt_bias, dt_softplus, dt_limit, states ---
 *
 * tilec_mamba2_forward_with_options takes them in a struct that carries its
 * own size, so that later versions append fields without a new function:
 * the caller sets `size` to sizeof(tilec_mamba2_options) of the header it
 * was compiled with; the library reads the fields that size covers and
 * requires any bytes past the fields it knows to be zero (an option it does
 * not implement is refused, not ignored). A zero-filled struct (with its
 * size set) asks for nothing: the pass is tilec_mamba2_forward's. */
typedef struct tilec_mamba2_options {
  /* sizeof(tilec_mamba2_options); at least TILEC_MAMBA2_OPTIONS_SIZE_V1. */
  size_t size;
  /* (batch, seqlen, heads, headdim), x's dtype: y <- y * silu(z), after D;
   * NULL: no gate. */
  const tilec_mamba2_tensor *z;
  /* (heads) f32: dt <- dt + dt_bias before softplus; NULL: no bias. */
  const tilec_mamba2_tensor *dt_bias;
  /* (batch, nchunks, heads, headdim, dstate) f32, written: the state
   * entering each chunk (mamba_ssm's `states`, what a backward pass needs);
   * NULL: kept in the workspace. */
  const tilec_mamba2_tensor *chunk_states;
  /* Non-zero: dt <- softplus(dt (+ dt_bias)), mamba_ssm's (log1p(exp(v))
   * for v <= 20, v above). */
  int32_t dt_softplus;
  /* Non-zero: dt <- min(max(dt, dt_min), dt_max) after bias and softplus
   * (mamba_ssm's dt_limit; its default is (0, +inf)). Zero: no clamp. */
  int32_t dt_limit;
  float dt_min;
  float dt_max;
  /* Version 2. (batch, seqlen) i32, mamba_ssm's seq_idx: the sequence of
   * each step of rows that pack several, non-decreasing along each row (the
   * caller's contract: the library does not read device memory to check it).
   * No state and no output mixes two sequences; the initial state is
   * sequence 0's. NULL: one sequence per row. */
  const tilec_mamba2_tensor *seq_idx;
  /* Version 3. (nseq + 1) i32 in device memory, mamba_ssm's cu_seqlens:
   * sequence s is steps [cu[s], cu[s + 1]) of the one row (batch 1), 0 =
   * cu[0] < cu[1] < ... < cu[nseq] = seqlen. Needs seq_idx, consistent with
   * it (seq_idx[0, t] = s on sequence s's steps). The library does not read
   * the offsets on the host (nothing waits for the stream; a call can be
   * captured in a CUDA graph): the varlen_state kernel reads them, and
   * writes NaN for the whole varlen state of a sequence whose offsets break
   * these rules. NULL: none. */
  const tilec_mamba2_tensor *cu_seqlens;
  /* Version 3. (nseq, heads, headdim, dstate) f32, written: the state after
   * each sequence's last step (mamba_ssm's return_varlen_states); needs
   * cu_seqlens. NULL: not computed. */
  const tilec_mamba2_tensor *varlen_states;
  /* Version 4. mamba_ssm's state_dtype, a tilec_mamba2_dtype: the dtype
   * the state entering each chunk is stored in between the kernels, and so
   * chunk_states' dtype. TILEC_MAMBA2_F32 (0, the default) or
   * TILEC_MAMBA2_BF16 with x in bf16: half the bytes, each stored state
   * rounded once to nearest even from the f32 recurrence (docs/mamba2.md,
   * "State dtype"). The recurrence, final_state and varlen_states stay f32.
   * Anything else is refused: TILEC_MAMBA2_F16, or TILEC_MAMBA2_BF16 with
   * x in f16 or f32, as INVALID_ARGUMENT (no kernel instance for it);
   * TILEC_MAMBA2_I32 or a value that is no tilec_mamba2_dtype as
   * INVALID_DTYPE. */
  int32_t state_dtype;
  /* Version 4. Must be 0 (a non-zero value is INVALID_ARGUMENT): it makes
   * the struct's end explicit (no tail padding, whose bytes a caller may
   * leave unset) and is kept for a later option. */
  int32_t reserved;
} tilec_mamba2_options;

/* The size of the first version of tilec_mamba2_options: the fields up to
 * dt_max (later versions only append). */
#define TILEC_MAMBA2_OPTIONS_SIZE_V1                                          \
  (offsetof(tilec_mamba2_options, dt_max) + sizeof(float))
/* The size of the second version: up to seq_idx. */
#define TILEC_MAMBA2_OPTIONS_SIZE_V2                                          \
  (offsetof(tilec_mamba2_options, seq_idx) + sizeof(const void *))
/* The size of the third version: up to varlen_states. */
#define TILEC_MAMBA2_OPTIONS_SIZE_V3                                          \
  (offsetof(tilec_mamba2_options, varlen_states) + sizeof(const void *))
/* The size of the fourth version: up to reserved, after state_dtype (a
 * size between the third and the fourth version's is refused). */
#define TILEC_MAMBA2_OPTIONS_SIZE_V4                                          \
  (offsetof(tilec_mamba2_options, reserved) + sizeof(int32_t))

/* The argument lists of the calls below, each written once: the prototype
 * of the call and the fields of its one-struct form (tilec_mamba2_*_args)
 * are both expanded from it, in its order. ARG(type, name) is an argument,
 * TENSOR(name) one of type `const tilec_mamba2_tensor *`; the last argument
 * of each call, `void *stream`, follows the list. */
#define TILEC_MAMBA2_PARAMETER_(type, name) type name,
#define TILEC_MAMBA2_TENSOR_PARAMETER_(name) const tilec_mamba2_tensor *name,
#define TILEC_MAMBA2_FIELD_(type, name) type name;
#define TILEC_MAMBA2_TENSOR_FIELD_(name) const tilec_mamba2_tensor *name;

/* tilec_mamba2_forward_with_options(problem, x, dt, A, B, C, D,
 * initial_state, y, final_state, options, workspace, workspace_bytes,
 * stream). */
#define TILEC_MAMBA2_FORWARD_ARGUMENTS(ARG, TENSOR)                           \
  ARG(const tilec_mamba2_problem *, problem)                                  \
  TENSOR(x) TENSOR(dt) TENSOR(A) TENSOR(B) TENSOR(C) TENSOR(D)                \
  TENSOR(initial_state) TENSOR(y) TENSOR(final_state)                         \
  ARG(const tilec_mamba2_options *, options)                                  \
  ARG(void *, workspace) ARG(size_t, workspace_bytes)

/* tilec_mamba2_forward with mamba_ssm's options. `options` may be NULL (no
 * option). Also, here and in tilec_mamba2_forward alike:
 *   D  (heads) or (heads, headdim) f32: per head or per channel;
 *   y  f32, or x's dtype (as mamba_ssm returns it): the kernel rounds its
 *      f32 result once when it stores it.
 * The time steps are the raw dt, transformed by chunk_cumsum (bias,
 * softplus, limit, each as asked); the other kernels read the transformed
 * ones. Checks as tilec_mamba2_forward, with the options' input tensors
 * after initial_state (dt_bias, z, seq_idx, cu_seqlens: its descriptor),
 * then the dt limit (no NaN, dt_min <= dt_max), then y, final_state,
 * chunk_states and varlen_states; the options struct itself (its size)
 * comes first. */
TILEC_MAMBA2_API int tilec_mamba2_forward_with_options(
    TILEC_MAMBA2_FORWARD_ARGUMENTS(TILEC_MAMBA2_PARAMETER_,
                                   TILEC_MAMBA2_TENSOR_PARAMETER_)
    void *stream);

/*===----------------------------------------------------------------------===*
 * The decode step (mamba_ssm's selective_state_update)
 *===----------------------------------------------------------------------===*/

/* The sizes of one decode step (DecodeProblem in StateUpdate.h): `batch`
 * sequences, one token each; `state_rows` rows of the state tensor (batch
 * without state indices, the cache's slots with them). */
typedef struct tilec_mamba2_decode_problem {
  int64_t batch;
  int64_t heads;
  int64_t groups;
  int64_t headdim;
  int64_t dstate;
  int64_t state_rows;
} tilec_mamba2_decode_problem;

/* tilec_mamba2_state_update(problem, state, x, dt, A, B, C, D, z, dt_bias,
 * dt_softplus, state_indices, pad_slot_id, y, stream); ARG and TENSOR as
 * for TILEC_MAMBA2_FORWARD_ARGUMENTS. */
#define TILEC_MAMBA2_STATE_UPDATE_ARGUMENTS(ARG, TENSOR)                      \
  ARG(const tilec_mamba2_decode_problem *, problem)                           \
  TENSOR(state) TENSOR(x) TENSOR(dt) TENSOR(A) TENSOR(B) TENSOR(C) TENSOR(D)  \
  TENSOR(z) TENSOR(dt_bias) ARG(int32_t, dt_softplus)                         \
  ARG(const int64_t *, state_indices) ARG(int64_t, pad_slot_id) TENSOR(y)

/* One token of each sequence: the state updated in place and y written,
 * enqueued on `stream` in the calling thread's current context; returns
 * without waiting for the kernel.
 *
 *   state    (state_rows, heads, headdim, dstate)  f32, bf16 or f16, read and
 *            written (computed in f32; the new state rounded once to its dtype)
 *   x        (batch, heads, headdim)               bf16
 *   dt       (batch, heads)                        f32, before dt_bias and
 *                                                  softplus
 *   A        (heads)                               f32
 *   B, C     (batch, groups, dstate)               bf16
 *   D        (heads) or (heads, headdim)           f32, or NULL: none
 *   z        (batch, heads, headdim)               bf16, or NULL: no gate
 *   dt_bias  (heads)                               f32, or NULL: none
 *   y        (batch, heads, headdim)               bf16, written
 *
 * dt_softplus != 0 applies softplus to dt after dt_bias. `state_indices`
 * is DEVICE memory with `batch` contiguous int64 entries, 8-byte aligned
 * (NULL: entry b updates state row b): the state row of each entry, read
 * by the kernel, never by the host, so the call neither copies nor waits
 * for them and can be captured in a CUDA graph. An entry equal to
 * `pad_slot_id` or outside [0, state_rows) is a padding entry: its state is
 * neither read nor written and its y is computed from a zero state. Rows
 * must be distinct (not checked: two entries on one row race); the state
 * and y may share no byte with any tensor. One launch. No call
 * synchronizes with the host. Checks, in order: the descriptors
 * themselves, the problem and each tensor against it (state, x, dt, A, B,
 * C, D, z, dt_bias, y), the overlaps; batch and heads at most 65535;
 * alignment (the indices too); then, through the driver, a current context
 * and device pointers (the indices too). Errors: overlaps and offsets past
 * 64 bits are
 * TILEC_MAMBA2_ERROR_INVALID_ARGUMENT. */
TILEC_MAMBA2_API int tilec_mamba2_state_update(
    TILEC_MAMBA2_STATE_UPDATE_ARGUMENTS(TILEC_MAMBA2_PARAMETER_,
                                        TILEC_MAMBA2_TENSOR_PARAMETER_)
    void *stream);

/*===----------------------------------------------------------------------===*
 * The same calls with their arguments in one struct
 *===----------------------------------------------------------------------===*/

/* For callers that pay per argument passed rather than per byte: Python's
 * ctypes converts each argument of a call (about 0.2 us apiece on a
 * server's CPU), so fourteen cost more than the library's own checks of a
 * call. A caller packs the struct once per form of call and changes only
 * the data pointers, workspace and stream between calls. */

/* The arguments of tilec_mamba2_forward_with_options, in its order. */
typedef struct tilec_mamba2_forward_args {
  TILEC_MAMBA2_FORWARD_ARGUMENTS(TILEC_MAMBA2_FIELD_,
                                 TILEC_MAMBA2_TENSOR_FIELD_)
  void *stream;
} tilec_mamba2_forward_args;

/* tilec_mamba2_forward_with_options on the fields of `args`: the same
 * checks, statuses and messages; a NULL `args` is
 * TILEC_MAMBA2_ERROR_NULL_POINTER. */
TILEC_MAMBA2_API int
tilec_mamba2_forward_call(const tilec_mamba2_forward_args *args);

/* The arguments of tilec_mamba2_state_update, in its order. */
typedef struct tilec_mamba2_state_update_args {
  TILEC_MAMBA2_STATE_UPDATE_ARGUMENTS(TILEC_MAMBA2_FIELD_,
                                      TILEC_MAMBA2_TENSOR_FIELD_)
  void *stream;
} tilec_mamba2_state_update_args;

/* tilec_mamba2_state_update on the fields of `args`, as
 * tilec_mamba2_forward_call does for the forward. */
TILEC_MAMBA2_API int
tilec_mamba2_state_update_call(const tilec_mamba2_state_update_args *args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEC_MAMBA2_TILEC_MAMBA2_H */
