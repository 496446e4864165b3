// OpenVINO's C API (libopenvino_c.so.<version>, shipped in PyPI's `openvino` wheel) loaded with
// dlopen and called through pointers resolved once a process. Declarations here are written from
// the facts of the API (names, argument order, the status codes, the layouts of the shape and
// version structs) and cover only what the neural reader calls.

#define _GNU_SOURCE
#include <malloc.h>
#include "COpenVINO.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- The library's own types, as far as they are used here ------------------------------------

/// The library's status code: 0 is success, negative values are failures.
typedef int ov_status;
/// The library's element type enumeration: float32 is 4.
enum { OV_ELEMENT_F32 = 4 };
/// A static shape: rank and a pointer to `rank` dimensions (allocated by the library).
typedef struct { int64_t rank; int64_t *dims; } ov_shape;
/// The library's version: build number and description (allocated by the library).
typedef struct { const char *build_number; const char *description; } ov_version;

static struct {
    ov_status (*core_create)(receipts_ov_core **);
    void (*core_free)(receipts_ov_core *);
    ov_status (*read_model_from_memory)(const receipts_ov_core *, const char *, size_t, const void *, receipts_ov_model **);
    void (*model_free)(receipts_ov_model *);
    ov_status (*compile_model)(const receipts_ov_core *, const receipts_ov_model *, const char *, size_t,
                               receipts_ov_compiled_model **, ...);
    void (*compiled_model_free)(receipts_ov_compiled_model *);
    ov_status (*create_infer_request)(const receipts_ov_compiled_model *, receipts_ov_infer_request **);
    void (*infer_request_free)(receipts_ov_infer_request *);
    ov_status (*set_input_tensor)(receipts_ov_infer_request *, const receipts_ov_tensor *);
    ov_status (*infer)(receipts_ov_infer_request *);
    ov_status (*get_output_tensor_by_index)(const receipts_ov_infer_request *, size_t, receipts_ov_tensor **);
    ov_status (*tensor_create_from_host_ptr)(int, ov_shape, void *, receipts_ov_tensor **);
    ov_status (*tensor_get_shape)(const receipts_ov_tensor *, ov_shape *);
    ov_status (*tensor_get_element_type)(const receipts_ov_tensor *, int *);
    ov_status (*tensor_data)(const receipts_ov_tensor *, void **);
    void (*tensor_free)(receipts_ov_tensor *);
    ov_status (*shape_create)(int64_t, const int64_t *, ov_shape *);
    ov_status (*shape_free)(ov_shape *);
    const char *(*get_error_info)(ov_status);
    const char *(*get_last_err_msg)(void);
    ov_status (*get_version)(ov_version *);
    void (*version_free)(ov_version *);
} api;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;                     // written once under load_lock, then only read
static char version_text[128];
static _Thread_local char last_error[1024];

/// Keeps `what` and the library's own words on the failure in the thread's error buffer.
static int fail(const char *what, ov_status status) {
    const char *info = api.get_error_info ? api.get_error_info(status) : "";
    const char *detail = api.get_last_err_msg ? api.get_last_err_msg() : NULL;
    snprintf(last_error, sizeof last_error, "%s failed (%s)%s%s", what, info ? info : "", detail && *detail ? ": " : "",
             detail ? detail : "");
    for (char *c = last_error; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
    return -1;
}

const char *receipts_ov_last_error(void) { return last_error; }

/// The versioned file libopenvino_c.so.<n> in `dir` (the wheel ships no unversioned name).
static int find_library(const char *dir, char *path, size_t size) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int found = -1;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        if (strncmp(entry->d_name, "libopenvino_c.so", 16) == 0) {
            snprintf(path, size, "%s/%s", dir, entry->d_name);
            found = 0;
            if (entry->d_name[16] == '.') break;   // prefer the versioned name
        }
    }
    closedir(d);
    return found;
}

#define RESOLVE(field, name)                                                                     \
    do {                                                                                         \
        *(void **)(&api.field) = dlsym(handle, name);                                            \
        if (!api.field) { missing = name; goto unresolved; }                                     \
    } while (0)

int receipts_ov_load(const char *library_dir, char *error, size_t error_size) {
    pthread_mutex_lock(&load_lock);
    if (loaded) { pthread_mutex_unlock(&load_lock); return 0; }
    char path[4096];
    if (find_library(library_dir, path, sizeof path) != 0) {
        snprintf(error, error_size, "no libopenvino_c.so.* in %s", library_dir);
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    // oneDNN (inside the CPU plugin) keeps up to 1,024 compiled kernels for the shapes it has seen;
    // pages and batches of rows come in ever new shapes, so a large cache mostly grows the footprint,
    // while a receipt's batches of short rows repeat a shape, which a small one keeps. 41 receipts,
    // 2 workers, two alternated runs each (docs/benchmarks.md): 1,024 entries 67.8 / 60.9 s, peak
    // RSS 587 MB; none 68.9 / 63.9 s, 505-510 MB; 64 entries 65.6 / 60.9 s, 507 MB. The plugin reads
    // the variable when it makes its first kernel, so it is set before the library is loaded, unless
    // the environment already sets it.
    setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "64", 0);
    // Kept for the life of the process: compiled models and their threads live in the library.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(error, error_size, "cannot load %s: %s", path, why ? why : "dlopen failed");
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    const char *missing = NULL;
    RESOLVE(core_create, "ov_core_create");
    RESOLVE(core_free, "ov_core_free");
    RESOLVE(read_model_from_memory, "ov_core_read_model_from_memory_buffer");
    RESOLVE(model_free, "ov_model_free");
    RESOLVE(compile_model, "ov_core_compile_model");
    RESOLVE(compiled_model_free, "ov_compiled_model_free");
    RESOLVE(create_infer_request, "ov_compiled_model_create_infer_request");
    RESOLVE(infer_request_free, "ov_infer_request_free");
    RESOLVE(set_input_tensor, "ov_infer_request_set_input_tensor");
    RESOLVE(infer, "ov_infer_request_infer");
    RESOLVE(get_output_tensor_by_index, "ov_infer_request_get_output_tensor_by_index");
    RESOLVE(tensor_create_from_host_ptr, "ov_tensor_create_from_host_ptr");
    RESOLVE(tensor_get_shape, "ov_tensor_get_shape");
    RESOLVE(tensor_get_element_type, "ov_tensor_get_element_type");
    RESOLVE(tensor_data, "ov_tensor_data");
    RESOLVE(tensor_free, "ov_tensor_free");
    RESOLVE(shape_create, "ov_shape_create");
    RESOLVE(shape_free, "ov_shape_free");
    RESOLVE(get_error_info, "ov_get_error_info");
    RESOLVE(get_last_err_msg, "ov_get_last_err_msg");
    RESOLVE(get_version, "ov_get_openvino_version");
    RESOLVE(version_free, "ov_version_free");
    ov_version version = {0};
    if (api.get_version(&version) == 0) {
        snprintf(version_text, sizeof version_text, "%s", version.build_number ? version.build_number : "");
        api.version_free(&version);
    }
    loaded = 1;
    pthread_mutex_unlock(&load_lock);
    return 0;

unresolved:
    snprintf(error, error_size, "%s has no function %s (an OpenVINO release older than 2023.1?)", path, missing);
    memset(&api, 0, sizeof api);
    dlclose(handle);
    pthread_mutex_unlock(&load_lock);
    return -1;
}

int receipts_ov_is_loaded(void) {
    pthread_mutex_lock(&load_lock);
    int answer = loaded;
    pthread_mutex_unlock(&load_lock);
    return answer;
}

const char *receipts_ov_version(void) { return receipts_ov_is_loaded() ? version_text : ""; }

/// Every entry point below refuses to run before receipts_ov_load succeeded.
#define REQUIRE_LOADED()                                                                         \
    do {                                                                                         \
        if (!receipts_ov_is_loaded()) {                                                          \
            snprintf(last_error, sizeof last_error, "the OpenVINO runtime is not loaded");       \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

int receipts_ov_core_create(receipts_ov_core **core) {
    REQUIRE_LOADED();
    ov_status s = api.core_create(core);
    return s == 0 ? 0 : fail("ov_core_create", s);
}

void receipts_ov_core_free(receipts_ov_core *core) { if (core) api.core_free(core); }

int receipts_ov_read_model(const receipts_ov_core *core, const void *bytes, size_t count, receipts_ov_model **model) {
    REQUIRE_LOADED();
    ov_status s = api.read_model_from_memory(core, (const char *)bytes, count, NULL, model);
    return s == 0 ? 0 : fail("reading the model", s);
}

void receipts_ov_model_free(receipts_ov_model *model) { if (model) api.model_free(model); }

int receipts_ov_compile(const receipts_ov_core *core, const receipts_ov_model *model, int threads, int streams,
                        receipts_ov_compiled_model **compiled) {
    REQUIRE_LOADED();
    char threads_text[16], streams_text[16];
    snprintf(threads_text, sizeof threads_text, "%d", threads > 0 ? threads : 1);
    snprintf(streams_text, sizeof streams_text, "%d", streams > 0 ? streams : 1);
    // Properties are key/value string pairs; the count is of strings, not of pairs.
    // No cache of kernels per input shape: every page and every batch of rows has its own shape, and
    // the cache (5,000 entries by default) only grew the footprint (20 receipts, 2 workers: peak RSS
    // 1,266 MB with it, 992 MB without, the same time).
    ov_status s = api.compile_model(core, model, "CPU", 6, compiled, "INFERENCE_NUM_THREADS", threads_text,
                                    "NUM_STREAMS", streams_text, "CPU_RUNTIME_CACHE_CAPACITY", "0");
    return s == 0 ? 0 : fail("compiling the model for the CPU", s);
}

void receipts_ov_compiled_model_free(receipts_ov_compiled_model *compiled) { if (compiled) api.compiled_model_free(compiled); }

int receipts_ov_create_request(const receipts_ov_compiled_model *compiled, receipts_ov_infer_request **request) {
    REQUIRE_LOADED();
    ov_status s = api.create_infer_request(compiled, request);
    return s == 0 ? 0 : fail("creating an inference request", s);
}

void receipts_ov_request_free(receipts_ov_infer_request *request) { if (request) api.infer_request_free(request); }

int receipts_ov_infer_f32(receipts_ov_infer_request *request, const float *input, const int64_t *dims, int rank,
                          receipts_ov_tensor **output) {
    REQUIRE_LOADED();
    if (rank < 1 || rank > 8) {
        snprintf(last_error, sizeof last_error, "an input of rank %d", rank);
        return -1;
    }
    ov_shape shape = {0};
    ov_status s = api.shape_create(rank, dims, &shape);
    if (s != 0) return fail("ov_shape_create", s);
    receipts_ov_tensor *tensor = NULL;
    // The tensor wraps the caller's memory (no copy); it is read only during the inference.
    s = api.tensor_create_from_host_ptr(OV_ELEMENT_F32, shape, (void *)input, &tensor);
    api.shape_free(&shape);
    if (s != 0) return fail("ov_tensor_create_from_host_ptr", s);
    s = api.set_input_tensor(request, tensor);
    if (s != 0) { api.tensor_free(tensor); return fail("ov_infer_request_set_input_tensor", s); }
    s = api.infer(request);
    api.tensor_free(tensor);
    if (s != 0) return fail("inference", s);
    s = api.get_output_tensor_by_index(request, 0, output);
    return s == 0 ? 0 : fail("ov_infer_request_get_output_tensor_by_index", s);
}

int receipts_ov_tensor_f32(const receipts_ov_tensor *tensor, const float **data, int64_t *dims, int max_rank, int *rank) {
    REQUIRE_LOADED();
    int type = 0;
    ov_status s = api.tensor_get_element_type(tensor, &type);
    if (s != 0) return fail("ov_tensor_get_element_type", s);
    if (type != OV_ELEMENT_F32) {
        snprintf(last_error, sizeof last_error, "the model's output is not float32 (element type %d)", type);
        return -1;
    }
    ov_shape shape = {0};
    s = api.tensor_get_shape(tensor, &shape);
    if (s != 0) return fail("ov_tensor_get_shape", s);
    *rank = (int)shape.rank;
    for (int i = 0; i < shape.rank && i < max_rank; i++) dims[i] = shape.dims[i];
    api.shape_free(&shape);
    void *raw = NULL;
    s = api.tensor_data(tensor, &raw);
    if (s != 0) return fail("ov_tensor_data", s);
    *data = (const float *)raw;
    return 0;
}

void receipts_ov_tensor_free(receipts_ov_tensor *tensor) { if (tensor) api.tensor_free(tensor); }

void receipts_map_large_allocations(size_t threshold) {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, (int)threshold);
#else
    (void)threshold;
#endif
}
