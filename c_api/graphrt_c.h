/* graphrt C API: a stable, C89-compatible interface to graphrt models.
 *
 * Everything is reached through opaque handles and plain C types, so the
 * ABI does not depend on the C++ standard library or compiler: no C++
 * exceptions, STL types or C++ name mangling cross it. Every exported
 * symbol starts with graphrt_ and carries the ELF version node GRAPHRT_1.
 *
 * Handles
 *   GraphrtStatus   an error: code + message. Every call that can fail
 *                   returns a GraphrtStatus*, NULL meaning success; the
 *                   caller frees a non-NULL status with graphrt_status_free.
 *   GraphrtOptions  load options (threads or a host's job system, memory
 *                   limit).
 *   GraphrtModel    a loaded, initialized model; freed with
 *                   graphrt_model_free.
 *   GraphrtTensor   a dtype, a shape and a buffer (owned, or a view of the
 *                   caller's memory); freed with graphrt_tensor_free.
 *
 * Ownership: whoever creates a handle frees it (graphrt_*_free accept
 * NULL). Strings returned by graphrt (names, messages, string elements)
 * belong to the handle they came from and stay valid until it is freed
 * (tensor data and dims: until the tensor is freed or next written by a
 * run). Inputs are only read during graphrt_model_run.
 *
 * Threading: a model may be run from any number of threads at once, each
 * call with its own output tensors. Load options set the model's worker
 * threads: 1 runs every node inline on the calling thread (no pool at all,
 * the right choice inside a game or audio loop), 0 uses all cores; or they
 * hand graphrt the host's own job system (graphrt_options_set_job_system).
 * Handles other than models are not synchronized: do not write one tensor from
 * two threads at once.
 *
 * Steady state: graphrt_model_run with the same input names, output names
 * and input shapes as an earlier call, and with the output tensors of that
 * earlier call passed back in, allocates no heap memory (intermediate
 * tensors come from a pool owned by the model).
 *
 * Errors never abort the process: bad arguments (NULL handles, wrong
 * dtype or shape, unknown names, bad files) return a status whose message
 * names the argument, input, node, dtype or shape at fault. When a call
 * fails, its out-parameters are left as they were.
 */
#ifndef GRAPHRT_C_API_GRAPHRT_C_H_
#define GRAPHRT_C_API_GRAPHRT_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API version this header describes: major * 10000 + minor * 100 +
 * patch. Compatible additions bump the minor version; the major version
 * (and the ELF version node GRAPHRT_<major>) changes only on breaks. */
#define GRAPHRT_C_API_VERSION 10100
#define GRAPHRT_VERSION_STRING "1.1.0"

/* The library's version string ("1.1.0") and numeric API version; compare
 * with the macros above to detect a header/library mismatch. */
const char* graphrt_version(void);
int graphrt_c_api_version(void);

/* ---- Status ----------------------------------------------------------- */

/* Status codes: the same numbers as absl::StatusCode / TensorFlow. */
typedef enum GraphrtCode {
  GRAPHRT_OK = 0,
  GRAPHRT_CANCELLED = 1,
  GRAPHRT_UNKNOWN = 2,
  GRAPHRT_INVALID_ARGUMENT = 3,
  GRAPHRT_DEADLINE_EXCEEDED = 4,
  GRAPHRT_NOT_FOUND = 5,
  GRAPHRT_ALREADY_EXISTS = 6,
  GRAPHRT_PERMISSION_DENIED = 7,
  GRAPHRT_RESOURCE_EXHAUSTED = 8,
  GRAPHRT_FAILED_PRECONDITION = 9,
  GRAPHRT_ABORTED = 10,
  GRAPHRT_OUT_OF_RANGE = 11,
  GRAPHRT_UNIMPLEMENTED = 12,
  GRAPHRT_INTERNAL = 13,
  GRAPHRT_UNAVAILABLE = 14,
  GRAPHRT_DATA_LOSS = 15,
  GRAPHRT_UNAUTHENTICATED = 16
} GraphrtCode;

typedef struct GraphrtStatus GraphrtStatus;

/* A NULL status is OK: graphrt_status_code(NULL) == GRAPHRT_OK and its
 * message is "". */
GraphrtCode graphrt_status_code(const GraphrtStatus* status);
const char* graphrt_status_message(const GraphrtStatus* status);
void graphrt_status_free(GraphrtStatus* status);

/* ---- Element types ---------------------------------------------------- */

/* TensorFlow's DataType numbers. */
typedef enum GraphrtDType {
  GRAPHRT_DTYPE_INVALID = 0,
  GRAPHRT_FLOAT32 = 1,
  GRAPHRT_FLOAT64 = 2,
  GRAPHRT_INT32 = 3,
  GRAPHRT_UINT8 = 4,
  GRAPHRT_INT16 = 5,
  GRAPHRT_INT8 = 6,
  GRAPHRT_STRING = 7,
  GRAPHRT_COMPLEX64 = 8,
  GRAPHRT_INT64 = 9,
  GRAPHRT_BOOL = 10,
  GRAPHRT_BFLOAT16 = 14,
  GRAPHRT_UINT16 = 17,
  GRAPHRT_COMPLEX128 = 18,
  GRAPHRT_FLOAT16 = 19,
  GRAPHRT_UINT32 = 22,
  GRAPHRT_UINT64 = 23
} GraphrtDType;

/* "float32", "string", ... ("invalid" for unknown values). */
const char* graphrt_dtype_name(GraphrtDType dtype);
/* Bytes per element for numeric dtypes (bool = 1); 0 for string/invalid. */
size_t graphrt_dtype_size(GraphrtDType dtype);

/* ---- Options ---------------------------------------------------------- */

typedef struct GraphrtOptions GraphrtOptions;

/* Defaults: threads = 0 (all cores), max_memory_bytes = 0 (unlimited),
 * flush_denormals = 1.
 * Returns NULL only when out of memory. */
GraphrtOptions* graphrt_options_create(void);
void graphrt_options_free(GraphrtOptions* options);
/* threads: 0 = all cores, 1 = run inline on the caller's thread, n = a
 * pool of n threads. Negative values are rejected at load. */
void graphrt_options_set_threads(GraphrtOptions* options, int threads);
/* Per-run cap on the bytes of live intermediate tensors; a run that would
 * exceed it fails with GRAPHRT_RESOURCE_EXHAUSTED naming the node. */
void graphrt_options_set_max_memory_bytes(GraphrtOptions* options,
                                          int64_t bytes);
/* Nonzero (default, as TensorFlow): runs compute with denormal floats
 * flushed to zero (FTZ + DAZ on x86; values below 1.2e-38 become 0), which
 * avoids the CPU's slow denormal path. 0: IEEE denormals. */
void graphrt_options_set_flush_denormals(GraphrtOptions* options, int flush);

/* A host's own job system (since 1.1): graphrt hands the kernels' parallel
 * loops to it instead of running its own worker pool, and the threads
 * option is ignored. Each run then executes its nodes in order on the
 * calling thread and splits each large kernel loop (convolution rows,
 * element-wise chunks, ...) into `count` jobs, at most 4 per unit of
 * `concurrency`:
 *
 *   parallel_for(host_data, count, job, job_data) must call
 *   job(job_data, i) exactly once for every i in [0, count), on any threads
 *   (the calling thread included, in any order), and return only when all
 *   have returned. It may be called from several threads at once and from
 *   inside a job; a caller that runs jobs itself while it waits cannot
 *   deadlock on that. Jobs never block on each other.
 *
 * concurrency: jobs that may run at once, the caller's thread included
 * (1 = graphrt never calls parallel_for). Results are bitwise identical to
 * threads = 1. parallel_for = NULL restores graphrt's own pool. host_data
 * must stay valid as long as any model loaded with these options. */
typedef void (*GraphrtJobFn)(void* job_data, int64_t index);
typedef void (*GraphrtParallelForFn)(void* host_data, int64_t count,
                                     GraphrtJobFn job, void* job_data);
void graphrt_options_set_job_system(GraphrtOptions* options, int concurrency,
                                    GraphrtParallelForFn parallel_for,
                                    void* host_data);

/* ---- Models ----------------------------------------------------------- */

typedef struct GraphrtModel GraphrtModel;

/* Loads a TF.js graph model: `path` is its model.json or the folder holding
 * it. `options` may be NULL (defaults). On success *model is set. */
GraphrtStatus* graphrt_model_load(const char* path,
                                  const GraphrtOptions* options,
                                  GraphrtModel** model);

/* One in-memory file of a model: `path` as model.json's weightsManifest
 * names it (a plain file name, e.g. "group1-shard1of1.bin"). */
typedef struct GraphrtFile {
  const char* path;
  const void* data;
  size_t size;
} GraphrtFile;

/* Loads a model from memory: the model.json text and its weight shards.
 * The bytes are only read during the call. */
GraphrtStatus* graphrt_model_load_from_memory(
    const char* model_json, size_t model_json_size, const GraphrtFile* files,
    size_t num_files, const GraphrtOptions* options, GraphrtModel** model);

void graphrt_model_free(GraphrtModel* model);

/* Declared inputs (resource inputs excluded) and default outputs, in model
 * order. Out-of-range indices give NULL / GRAPHRT_DTYPE_INVALID / -1.
 * name: the signature key (else the node name).
 * dtype: GRAPHRT_DTYPE_INVALID when the model does not declare it.
 * rank: -1 when unknown; dims: `rank` values, -1 for an unknown size. */
size_t graphrt_model_num_inputs(const GraphrtModel* model);
const char* graphrt_model_input_name(const GraphrtModel* model, size_t i);
GraphrtDType graphrt_model_input_dtype(const GraphrtModel* model, size_t i);
int graphrt_model_input_rank(const GraphrtModel* model, size_t i);
const int64_t* graphrt_model_input_dims(const GraphrtModel* model, size_t i);

size_t graphrt_model_num_outputs(const GraphrtModel* model);
const char* graphrt_model_output_name(const GraphrtModel* model, size_t i);
GraphrtDType graphrt_model_output_dtype(const GraphrtModel* model, size_t i);
int graphrt_model_output_rank(const GraphrtModel* model, size_t i);
const int64_t* graphrt_model_output_dims(const GraphrtModel* model, size_t i);

/* ---- Tensors ---------------------------------------------------------- */

typedef struct GraphrtTensor GraphrtTensor;

/* A new zero-filled tensor (strings empty) owning its buffer. `dims` holds
 * `rank` non-negative sizes (may be NULL when rank is 0). */
GraphrtStatus* graphrt_tensor_create(GraphrtDType dtype, const int64_t* dims,
                                     int rank, GraphrtTensor** tensor);

/* A tensor over the caller's memory, no copy: numeric dtypes only, `data`
 * must hold exactly `byte_size` = elements * graphrt_dtype_size(dtype)
 * bytes (64-byte alignment is best for speed) and stay valid until the
 * tensor is freed. As a run input it is read; as a run output the results
 * are written into it (its shape must then match the output's). */
GraphrtStatus* graphrt_tensor_create_view(GraphrtDType dtype,
                                          const int64_t* dims, int rank,
                                          void* data, size_t byte_size,
                                          GraphrtTensor** tensor);

void graphrt_tensor_free(GraphrtTensor* tensor);

/* NULL tensors give GRAPHRT_DTYPE_INVALID / -1 / NULL / 0. */
GraphrtDType graphrt_tensor_dtype(const GraphrtTensor* tensor);
int graphrt_tensor_rank(const GraphrtTensor* tensor);
const int64_t* graphrt_tensor_dims(const GraphrtTensor* tensor);
int64_t graphrt_tensor_num_elements(const GraphrtTensor* tensor);
/* Bytes of element data (0 for string tensors). */
size_t graphrt_tensor_byte_size(const GraphrtTensor* tensor);
/* Element data of numeric tensors, little-endian, row-major; NULL for
 * string tensors. */
void* graphrt_tensor_data(GraphrtTensor* tensor);
const void* graphrt_tensor_data_const(const GraphrtTensor* tensor);

/* String elements (bytes, may contain NUL). get returns a pointer owned by
 * the tensor, valid until the element is next written or the tensor freed. */
GraphrtStatus* graphrt_tensor_set_string(GraphrtTensor* tensor, int64_t index,
                                         const char* data, size_t size);
GraphrtStatus* graphrt_tensor_get_string(const GraphrtTensor* tensor,
                                         int64_t index, const char** data,
                                         size_t* size);

/* ---- Running ---------------------------------------------------------- */

/* Runs inference.
 *   input_names[i] / inputs[i], i < num_inputs: signature keys, tensor
 *     names ("x:0") or node names, with their values. Every input the
 *     requested outputs need must be given; dtypes and shapes are checked
 *     against the model's declarations.
 *   output_names: num_outputs names, or NULL for the model's default
 *     outputs (then num_outputs must equal graphrt_model_num_outputs).
 *   outputs[i]: in/out. NULL: a new tensor is created and stored there
 *     (the caller frees it). Non-NULL: the tensor is reused — when its dtype
 *     and shape match the result the values are copied into its buffer
 *     (no allocation); otherwise an owned tensor is given a new buffer of
 *     the right dtype and shape, and a view is an error.
 * On failure no output is changed. Thread-safe for distinct outputs. */
GraphrtStatus* graphrt_model_run(const GraphrtModel* model,
                                 const char* const* input_names,
                                 const GraphrtTensor* const* inputs,
                                 size_t num_inputs,
                                 const char* const* output_names,
                                 GraphrtTensor** outputs, size_t num_outputs);

/* ---- State -------------------------------------------------------------- */

/* Saves the model's stateful resources (mutable hash tables, variables) as
 * a TensorFlow tensor-bundle checkpoint at `prefix` (files PREFIX.index and
 * PREFIX.data-*), and restores them into a model of the same graph. Safe
 * while runs are in flight (each resource is saved as of one instant).
 * Restore checks every tensor (presence, dtype, shape) before changing
 * anything, so a failed restore leaves the model as it was. */
GraphrtStatus* graphrt_model_save_state(const GraphrtModel* model,
                                        const char* prefix);
GraphrtStatus* graphrt_model_restore_state(GraphrtModel* model,
                                           const char* prefix);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GRAPHRT_C_API_GRAPHRT_C_H_ */
