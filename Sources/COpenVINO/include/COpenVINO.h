#ifndef RECEIPTS_COPENVINO_H
#define RECEIPTS_COPENVINO_H

// OpenVINO's C API, loaded at run time with dlopen (see openvino_runtime.c): the package builds and
// `--reader tesseract` runs on a machine without OpenVINO. Only what the neural reader uses is
// declared here, as thin functions over the library's own; every handle is opaque.
//
// Every function returning int answers 0 on success; on failure, receipts_ov_last_error() tells
// what failed, on the calling thread, until that thread's next failing call.

#include <stddef.h>
#include <stdint.h>

typedef struct receipts_ov_core receipts_ov_core;
typedef struct receipts_ov_model receipts_ov_model;
typedef struct receipts_ov_compiled_model receipts_ov_compiled_model;
typedef struct receipts_ov_infer_request receipts_ov_infer_request;
typedef struct receipts_ov_tensor receipts_ov_tensor;

/// Loads libopenvino_c.so.* from `library_dir` and resolves the functions below. Idempotent: once
/// loaded, later calls (with any folder) answer 0. On failure writes a one-line reason (the file
/// looked for, dlerror's text, a missing symbol) into `error` and answers -1. Sets
/// ONEDNN_PRIMITIVE_CACHE_CAPACITY=64 in the environment first, unless it is set.
int receipts_ov_load(const char *library_dir, char *error, size_t error_size);

/// 1 once receipts_ov_load succeeded in this process.
int receipts_ov_is_loaded(void);

/// The runtime's build number ("2026.4.1-22982-…"); "" when not loaded. Static storage.
const char *receipts_ov_version(void);

/// What the calling thread's last failing call said, on one line.
const char *receipts_ov_last_error(void);

int receipts_ov_core_create(receipts_ov_core **core);
void receipts_ov_core_free(receipts_ov_core *core);

/// Reads a model from its bytes (an ONNX file's contents; the bytes may be freed afterwards).
int receipts_ov_read_model(const receipts_ov_core *core, const void *bytes, size_t count, receipts_ov_model **model);
void receipts_ov_model_free(receipts_ov_model *model);

/// Compiles `model` for the CPU with `threads` inference threads split into `streams` streams
/// (each stream serves one inference at a time).
int receipts_ov_compile(const receipts_ov_core *core, const receipts_ov_model *model, int threads, int streams,
                        receipts_ov_compiled_model **compiled);
void receipts_ov_compiled_model_free(receipts_ov_compiled_model *compiled);

int receipts_ov_create_request(const receipts_ov_compiled_model *compiled, receipts_ov_infer_request **request);
void receipts_ov_request_free(receipts_ov_infer_request *request);

/// Runs one inference on a float32 input of shape `dims` (`rank` of them, at most 8) read from
/// `input`, which is only read during the call. `output` receives the request's first output;
/// free it with receipts_ov_tensor_free (its data stays valid until then, or until the request's
/// next inference, whichever is first).
int receipts_ov_infer_f32(receipts_ov_infer_request *request, const float *input, const int64_t *dims, int rank,
                          receipts_ov_tensor **output);

/// A tensor's float32 data and shape (at most `max_rank` dimensions written into `dims`).
int receipts_ov_tensor_f32(const receipts_ov_tensor *tensor, const float **data, int64_t *dims, int max_rank, int *rank);
void receipts_ov_tensor_free(receipts_ov_tensor *tensor);

/// Has glibc map every allocation of `threshold` bytes or more on its own, so freeing it returns it
/// to the system (glibc otherwise raises that threshold as large blocks are freed, and the
/// inference's buffers, a different size for every page, pile up in its heap). Process-wide.
void receipts_map_large_allocations(size_t threshold);

#endif
