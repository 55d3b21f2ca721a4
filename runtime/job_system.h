// JobSystem: the hook through which a host hands graphrt its own threads
// (a game engine's job system, an app's shared pool) instead of graphrt's
// oneTBB arena.
//
// Why: a host that already owns one worker per core does not want a second
// pool competing for the same cores (oversubscription: two pools of N
// threads on N cores preempt each other mid-chunk), nor threads it did not
// create (named, pinned, prioritised its own way). TFLite and XNNPACK take a
// pthreadpool or CPU backend context for the same reason.
//
// Contract: one call, fork-join. ParallelFor(count, job) runs job(0) ..
// job(count - 1), each exactly once, on whatever threads the host likes
// (the calling thread may run some or all of them, in any order, or all of
// them itself one after another), and returns only when every job has
// returned. It may be called from several threads at once (concurrent
// Model::Run calls) and from inside a job (a kernel nested in a kernel,
// rare); a host whose calling thread helps run the jobs while it waits
// (rather than blocking on a condition variable) cannot deadlock on
// nesting. Jobs never throw and never block on each other: any order, and
// any degree of concurrency including one, computes the same values.
// concurrency() is how many jobs may run at once, the caller's thread
// included (>= 1); graphrt cuts a loop into at most 4 x concurrency()
// jobs of at least its grain, so each job is worth handing to a thread
// (the direct convolutions' grain is 256k multiply-adds, ~3 us).
//
// What changes with a job system (ModelOptions::job_system): the Model makes
// no oneTBB arena and ModelOptions::threads is ignored; each Run executes
// its nodes in order on the calling thread (graphrt's inter-op parallelism,
// ready nodes as oneTBB tasks, is oneTBB's and is not used), and every
// kernel loop that would split over the arena (ParallelFor in
// runtime/parallel.h: convolution rows and pixel chunks, element-wise
// chunks, pooling, resize, large lookups) is handed to the job system. Most
// of the 2-thread speed-up of one Run is intra-op: on a host pool of 2
// threads whose idle worker polls briefly before it sleeps
// (tests/runtime/host_job_pool.h), handdetect, handtrack, mobilefacenet and
// selfie run as fast as on the arena, movenet-lightning and blazeface 4-5%
// slower (bench/RESULTS.md, "A host's job system": the arena also runs
// ready nodes side by side and splits loops adaptively); a pool whose
// workers sleep on a condition variable at once pays a wake-up per loop
// (~100 per Run) and loses more. Results are bitwise identical to
// threads = 1 and to the oneTBB arena, whatever the host's concurrency.
//
// Lifetime: not owned by graphrt; must outlive every Model given it.
#ifndef GRAPHRT_RUNTIME_JOB_SYSTEM_H_
#define GRAPHRT_RUNTIME_JOB_SYSTEM_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace graphrt {

class JobSystem {
 public:
  virtual ~JobSystem() = default;

  // Jobs that may run at once, the calling thread included (>= 1; values
  // below 1 count as 1). 1 makes graphrt run every loop on the calling
  // thread without calling ParallelFor.
  virtual int concurrency() const = 0;

  // Runs job(i) for every i in [0, count) (count >= 2) and returns when all
  // have returned (see the contract above).
  virtual void ParallelFor(int64_t count,
                           absl::FunctionRef<void(int64_t)> job) = 0;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_JOB_SYSTEM_H_
