/*===- Runtime.h - launching tilec kernels ------------------------*- C -*-===*
 *
 * The runtime that generated launchers call. It depends on the CUDA driver
 * API only, and loads the driver (libcuda.so.1) with dlopen on first use, so
 * a program linked with it starts on a machine without a GPU and gets an
 * error status there. It never depends on LLVM or MLIR.
 *
 * Every function returns a tilec_status; on failure the calling thread's
 * tilec_last_error() says what went wrong. Launches are asynchronous on the
 * caller's stream and never synchronize with the host, so they can be
 * captured in a CUDA graph once the kernel's module is loaded in the context
 * (tilec_prepare, or any earlier launch).
 *
 * Environment: TILEC_CUDA_DRIVER names the driver library to load instead of
 * libcuda.so.1; TILEC_LAUNCH_GRAPHS=0 launches the kernels of launch groups
 * one at a time instead of as one CUDA graph (tilec_begin_launch_group).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILEC_RUNTIME_RUNTIME_H
#define TILEC_RUNTIME_RUNTIME_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_status {
  TILEC_SUCCESS = 0,
  /* A launcher or runtime function got an argument it cannot use. */
  TILEC_ERROR_INVALID_ARGUMENT = 1,
  /* The CUDA driver library cannot be loaded, or is too old. */
  TILEC_ERROR_NO_DRIVER = 2,
  /* The driver is there but sees no CUDA device. */
  TILEC_ERROR_NO_DEVICE = 3,
  /* The calling thread has no current CUDA context. */
  TILEC_ERROR_NO_CONTEXT = 4,
  /* The kernel's fatbin has no image the device can run. */
  TILEC_ERROR_NO_KERNEL_IMAGE = 5,
  /* The device cannot give the kernel the resources it needs. */
  TILEC_ERROR_OUT_OF_RESOURCES = 6,
  /* Any other error the driver reports. */
  TILEC_ERROR_DRIVER = 7
} tilec_status;

/* The name of a status, e.g. "TILEC_ERROR_NO_DRIVER". */
const char *tilec_status_name(tilec_status status);

/* What the last failing tilec call on this thread reported. The string stays
 * valid until the next tilec call on this thread; "" when nothing failed. */
const char *tilec_last_error(void);

/* A launch grid. Signed so that a negative size is reported, not wrapped. */
typedef struct tilec_grid {
  int64_t x, y, z;
} tilec_grid;

/* A compiled kernel as generated launchers describe it. */
typedef struct tilec_kernel {
  const void *fatbin;     /* fatbin image, 8-byte aligned; see
                             tilec_forget_fatbin before freeing it */
  const char *name;       /* entry point in the image */
  unsigned block_threads; /* threads per block (x) */
  size_t shared_bytes;    /* dynamic shared memory per block */
} tilec_kernel;

/* Loads the driver and initializes it (cuInit) once per process. Every other
 * function calls it; calling it first only moves the cost. */
tilec_status tilec_init(void);

/* Loads the kernel's module into the current context and sets its shared
 * memory limit, as the first launch in the context would. */
tilec_status tilec_prepare(const tilec_kernel *kernel);

/* Launches `kernel` on `grid` in the current context on `stream` with the
 * kernel parameters `args` (cuLaunchKernel's kernelParams). */
tilec_status tilec_launch(const tilec_kernel *kernel, tilec_grid grid,
                          CUstream stream, void **args);

/* Launch groups: the calling thread's tilec_launch calls between
 * tilec_begin_launch_group and tilec_end_launch_group, all on `stream`, are
 * recorded and enqueued at the end as one CUDA graph launch, which costs the
 * host about as much as one kernel launch. The executable graph is cached
 * per context, stream and sequence of kernels with their grids, and the
 * parameters of each launch are compared with those the cached graph holds:
 * a kernel node whose parameters (pointers, shapes, scalars) differ is
 * updated before the launch (cuGraphExecKernelNodeSetParams), so a cached
 * graph never runs stale arguments. A sequence is made a graph the second
 * time it comes (the first time its launches go one by one: building a
 * graph costs more than that). At most 64 graphs per context are kept; the
 * least recently used one is destroyed to make room. Graphs live until
 * then or their context is destroyed (or tilec_forget_fatbin of one of
 * their images).
 *
 * While `stream` is being captured into a user's graph, while graphs are
 * turned off (tilec_set_launch_graphs, TILEC_LAUNCH_GRAPHS=0) and with a
 * driver older than 12.4, a group's launches go to the driver one by one as
 * they come, as without a group. Either way the group asks for the current
 * context once, not per launch.
 *
 * tilec_begin_launch_group fails (INVALID_ARGUMENT) inside a group and
 * reports a missing context (NO_CONTEXT); on success `context_id`, when not
 * null, receives the current context's id (cuCtxGetId). A tilec_launch on
 * another stream inside the group fails. tilec_end_launch_group enqueues
 * the recorded launches; when it or a launch inside the group fails, the
 * group has ended and nothing recorded was enqueued by it. To drop a group
 * after a failed launch call tilec_cancel_launch_group (also when none is
 * open). */
tilec_status tilec_begin_launch_group(CUstream stream,
                                      unsigned long long *context_id);
tilec_status tilec_end_launch_group(void);
void tilec_cancel_launch_group(void);

/* The calling thread's last launch group again, for a caller that knows its
 * launches would be the same (the same kernels, grids and parameters: a
 * library call repeated with the same arguments), without making them.
 * tilec_last_launch_group is the id of the thread's last group that ended
 * successfully with its launches recorded (as a graph: not captured, graphs
 * on), 0 when there is none or a group began since. tilec_replay_launch_group
 * enqueues that group's launches again, as tilec_end_launch_group did, when
 * `group_id` is that id, no group is open, `stream` and the current
 * context are the group's, the stream is not being captured, graphs are on
 * and no image was forgotten since (tilec_forget_fatbin); *replayed says
 * whether it did (false: nothing was enqueued, and the caller launches as
 * usual). The same driver calls as a group: cuCtxGetCurrent, cuCtxGetId,
 * cuStreamIsCapturing and the graph launch. */
unsigned long long tilec_last_launch_group(void);
tilec_status tilec_replay_launch_group(CUstream stream,
                                       unsigned long long group_id,
                                       bool *replayed);

/* Turns the replay of launch groups as CUDA graphs on or off for the
 * process (on by default unless TILEC_LAUNCH_GRAPHS=0 is set when the driver
 * is loaded). Off, groups launch their kernels one at a time. */
void tilec_set_launch_graphs(bool enabled);

/* Forgets the modules loaded from `fatbin`, so that its memory may be freed
 * and reused for another image: the runtime identifies images by address.
 * Those of the current context are unloaded; those of other contexts stay
 * loaded until their context is destroyed. Generated launchers' images are
 * static and never need this. */
tilec_status tilec_forget_fatbin(const void *fatbin);

/* Checks a view argument of a launcher: shape and strides non-negative, data
 * non-null unless the view is empty and aligned to `element_size`, every
 * element's byte offset within int64_t. */
tilec_status tilec_check_view(const char *kernel, const char *arg,
                              const void *data, size_t element_size, int rank,
                              const int64_t *shape, const int64_t *strides);

/* Whether a view satisfies the vectorize facts a kernel's `_vec` variant is
 * compiled to assume (docs/target.md, "Kernel variants"): its innermost
 * stride is 1, `data` is 16-byte aligned, and the innermost size and every
 * other stride are multiples of 16 / element_size elements; or it is empty
 * (some extent 0: there is nothing to access, whatever `data` and the
 * strides). False for an element size that does not divide 16 and for
 * rank < 1. Generated launchers launch the `_vec` variant when every view
 * of the call not marked `tile.any_strides` satisfies it. */
bool tilec_view_is_vectorizable(const void *data, size_t element_size,
                                int rank, const int64_t *shape,
                                const int64_t *strides);

/* The descriptor of the kernel that the last successful tilec_launch on the
 * calling thread launched (for a launcher, which of its variants ran); null
 * before the first. It points at the caller's descriptor, so it is only as
 * long-lived as that (generated launchers' descriptors are static). */
const tilec_kernel *tilec_last_launched(void);

/* Which code of a kernel's image the driver runs on the current context's
 * device. */
typedef struct tilec_image_info {
  /* The target tilec compiled the loaded code for, "sm_90a", read from the
   * image's tilec_image_target string; "" for an image without it (not made
   * by tilec). A fatbin's PTX carries its target's name, so JIT compiled
   * code says "sm_80" with a binary_version of the device. */
  char target[16];
  /* CU_FUNC_ATTRIBUTE_BINARY_VERSION: major * 10 + minor of the machine
   * code that runs (90 for sm_90 and sm_90a). */
  int binary_version;
  /* CU_FUNC_ATTRIBUTE_PTX_VERSION: the virtual architecture it was compiled
   * from, major * 10 + minor. */
  int ptx_version;
} tilec_image_info;

/* Loads the kernel into the current context, as tilec_prepare does, and
 * says which of its image's code the driver picked. Reads device memory
 * synchronously: not while capturing a CUDA graph. */
tilec_status tilec_kernel_image_info(const tilec_kernel *kernel,
                                     tilec_image_info *info);

/* Looks up a driver entry point, so that programs can use the driver without
 * linking libcuda: `symbol` is its base name and `cuda_version` the version
 * of the ABI the caller casts it to, N in cudaTypedefs.h's PFN_<symbol>_vN.
 * E.g. cuda.h's cuMemAlloc is cuMemAlloc_v2, PFN_cuMemAlloc_v3020: ask for
 * ("cuMemAlloc", 3020). */
tilec_status tilec_driver_entry_point_version(const char *symbol,
                                              int cuda_version,
                                              void **function);

/* tilec_driver_entry_point_version at the CUDA_VERSION of the cuda.h the
 * runtime was built with (13000): the newest ABI of `symbol`. That is cuda.h's
 * prototype for most names, but not for those whose newer ABI has a name of
 * its own: cuCtxSynchronize and cuCtxGetDevice take a context from 13000 on,
 * so ask for them at 2000. */
tilec_status tilec_driver_entry_point(const char *symbol, void **function);

/* Storage of 16-bit floats; bit-compatible with __half and __nv_bfloat16. */
typedef struct tilec_f16 {
  uint16_t bits;
} tilec_f16;
typedef struct tilec_bf16 {
  uint16_t bits;
} tilec_bf16;

/* A strided view of global memory, the run-time form of !tile.view<R, T>:
 * tilec_view_<T>_<R>d. Shapes and strides count elements. */
#define TILEC_DEFINE_VIEW(NAME, TYPE, RANK)                                    \
  typedef struct tilec_view_##NAME##_##RANK##d {                               \
    TYPE *data;                                                                \
    int64_t shape[RANK];                                                       \
    int64_t strides[RANK];                                                     \
  } tilec_view_##NAME##_##RANK##d;
#define TILEC_DEFINE_VIEWS(NAME, TYPE)                                         \
  TILEC_DEFINE_VIEW(NAME, TYPE, 1)                                             \
  TILEC_DEFINE_VIEW(NAME, TYPE, 2)                                             \
  TILEC_DEFINE_VIEW(NAME, TYPE, 3)                                             \
  TILEC_DEFINE_VIEW(NAME, TYPE, 4)                                             \
  TILEC_DEFINE_VIEW(NAME, TYPE, 5)                                             \
  TILEC_DEFINE_VIEW(NAME, TYPE, 6)
TILEC_DEFINE_VIEWS(f32, float)
TILEC_DEFINE_VIEWS(f16, tilec_f16)
TILEC_DEFINE_VIEWS(bf16, tilec_bf16)
TILEC_DEFINE_VIEWS(i1, bool)
TILEC_DEFINE_VIEWS(i8, int8_t)
TILEC_DEFINE_VIEWS(i16, int16_t)
TILEC_DEFINE_VIEWS(i32, int32_t)
TILEC_DEFINE_VIEWS(i64, int64_t)
#undef TILEC_DEFINE_VIEWS
#undef TILEC_DEFINE_VIEW

/* The largest view rank with a tilec_view type. */
#define TILEC_MAX_VIEW_RANK 6

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEC_RUNTIME_RUNTIME_H */
