// graphrt's only doors into oneTBB's thread pool: ParallelFor, TaskGroup
// and ExecuteInArena. Every parallel loop, task spawn and arena entry in
// graphrt goes through them, so that ThreadSanitizer sees the
// happens-before edges oneTBB creates. ParallelFor is also the only door
// into a host's job system (runtime/job_system.h): when the calling
// thread's context carries one, the loop's chunks go there instead.
//
// Why: Debian's libtbb is not built with -fsanitize=thread, so TSan cannot
// see that a task runs after the code that spawned it, nor that the
// spawner's wait returns after the task finished. Reading a local the
// spawner wrote before spawning then looks like a data race. Under TSan
// (GRAPHRT_TSAN, runtime/tsan.h) these wrappers add the edges themselves:
// the spawner releases a per-spawn address before handing work to oneTBB,
// the task acquires it before touching anything, releases a per-join
// address when done, and the waiter acquires that after the wait. Without
// TSan they are plain pass-throughs to oneTBB (no extra work, no
// allocation).
//
// oneTBB copies the bodies it is given (task_group moves the functor into
// its task), and another thread then runs the copy. TSan cannot see that
// hand-off either, so every body graphrt gives oneTBB under TSan is a small
// struct of pointers whose copy and move constructors acquire the source's
// address before reading it and release their own address after writing it, and
// whose operator() acquires its own address before reading its members. oneTBB
// also recycles task memory through its own allocator, so a body's storage may
// next hold another body written by another thread: every read of a body's
// members is followed by a release of its address, and every write preceded by
// an acquire of it. An arena functor is read in place: it acquires its own
// address, which the caller released. Under TSan a ParallelFor runs its
// chunks as TaskGroup tasks, not through parallel_for (TsanParallelFor
// says why).
//
// Every chunk of a ParallelFor runs under the calling thread's
// ThreadContext (runtime/thread_context.h: the Run's buffer pool), also on
// a worker thread.
//
// Thread-safety: ParallelFor and ExecuteInArena may be called from any
// thread, also from inside a task; a TaskGroup may be given tasks from any
// thread (including its own tasks) until Wait returns. Errors: none; the
// callables must not throw (graphrt reports errors as absl::Status).
#ifndef GRAPHRT_RUNTIME_PARALLEL_H_
#define GRAPHRT_RUNTIME_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/task_arena.h"
#include "oneapi/tbb/task_group.h"
#include "runtime/job_system.h"
#include "runtime/thread_context.h"
#include "runtime/tsan.h"

namespace graphrt {

namespace parallel_internal {

// > 0 while a ScopedSequential lives on this thread.
inline thread_local int sequential_depth = 0;

// The join edge of one ExecuteInArena call (functor -> caller); only its
// address is used.
struct Edges {
  char join = 0;
};

// Two values a oneTBB body carries to the thread that runs it, read and
// written only with the TSan edges described at the top of this file:
// copying acquires the source's address before reading it and releases its
// own after writing; Get() acquires its own address before reading and
// releases it after.
template <typename A, typename B>
class TsanCarried {
 public:
  TsanCarried(A a, B b) { Set(a, b); }
  TsanCarried(const TsanCarried& other) {
    auto [a, b] = other.Get();
    Set(a, b);
  }
  TsanCarried& operator=(const TsanCarried&) = delete;

  std::pair<A, B> Get() const {
    TsanAcquire(this);
    std::pair<A, B> values(a_, b_);
    TsanRelease(this);
    return values;
  }

 private:
  void Set(A a, B b) {
    TsanAcquire(this);
    a_ = a;
    b_ = b;
    TsanRelease(this);
  }

  A a_;
  B b_;
};

// The task_group functor under TSan: runs and deletes a heap copy of the
// caller's callable, then releases the group's join edge.
template <typename Task>
class GroupTaskBody {
 public:
  GroupTaskBody(Task* task, const char* join) : carried_(task, join) {}

  void operator()() const {
    auto [task, join] = carried_.Get();
    TsanAcquire(task);
    (*task)();
    delete task;
    TsanRelease(join);
  }

 private:
  TsanCarried<Task*, const char*> carried_;
};

template <typename Fn>
struct ArenaBody {
  const Fn* fn;
  Edges* edges;
  void operator()() const {
    // `this` is the caller's object: acquire before reading it.
    TsanAcquire(this);
    (*fn)();
    TsanRelease(&edges->join);
  }
};

// ParallelFor under TSan (defined below TaskGroup).
template <typename Fn>
void TsanParallelFor(int64_t begin, int64_t end, int64_t grain, const Fn& fn);

}  // namespace parallel_internal

// Single-threaded runs: while an object of this class lives, ParallelFor on
// this thread calls fn once over the whole range on the calling thread. The
// executor holds one around every Run of a Model with threads = 1, so such
// a Run uses exactly one thread (oneTBB's global pool would otherwise run
// kernels' loops on all cores). Nests.
class ScopedSequential {
 public:
  ScopedSequential() { ++parallel_internal::sequential_depth; }
  ~ScopedSequential() { --parallel_internal::sequential_depth; }
  ScopedSequential(const ScopedSequential&) = delete;
  ScopedSequential& operator=(const ScopedSequential&) = delete;
};

// True when ParallelFor on this thread runs on this thread alone (inside a
// ScopedSequential, with a host job system of concurrency 1, or on an arena
// of one thread): for kernels whose split of the work only exists for the
// threads (see _FusedDepthwiseBlock's stripes).
inline bool RunsSequentially() {
  if (parallel_internal::sequential_depth > 0) return true;
  if (const JobSystem* jobs = CurrentThreadContext().job_system) {
    return jobs->concurrency() <= 1;
  }
  return oneapi::tbb::this_task_arena::max_concurrency() == 1;
}

namespace parallel_internal {

// ParallelFor on a host's job system, every chunk under the caller's
// context (which carries the job system to nested loops). A range of at
// most `grain` elements runs inline; a larger one is cut into whole rounds
// of the job system's threads where it can: a multiple of the concurrency
// (3 chunks of a grain on 2 threads would take two rounds, the second half
// idle; 4 of 3/4 grain take one), but chunks of no less than half a grain
// (as oneTBB's halving splits) and at most 4 per thread.
template <typename Fn>
void JobSystemParallelFor(JobSystem& jobs, int64_t begin, int64_t end,
                          int64_t grain, const Fn& fn) {
  const int64_t concurrency = std::max(1, jobs.concurrency());
  const int64_t n = end - begin;
  const int64_t grains = (n + grain - 1) / grain;
  if (concurrency <= 1 || grains <= 1) {
    fn(begin, end);
    return;
  }
  const int64_t rounds = (grains + concurrency - 1) / concurrency;
  const int64_t wanted =
      std::min({rounds * concurrency, 2 * grains, 4 * concurrency, n});
  const int64_t step = (n + wanted - 1) / wanted;
  const int64_t chunks = (n + step - 1) / step;
  const ThreadContext context = CurrentThreadContext();
  jobs.ParallelFor(chunks, [&fn, &context, begin, end, step](int64_t i) {
    ScopedThreadContext scope(context);
    const int64_t b = begin + i * step;
    fn(b, std::min(end, b + step));
  });
}

}  // namespace parallel_internal

// Calls fn(chunk_begin, chunk_end) over [begin, end) in chunks of at least
// `grain` (>= 1) elements on the current oneTBB arena, or of at least half a
// grain on the host's job system the thread's context carries (whole rounds
// of its threads, JobSystemParallelFor above), and returns when all chunks
// are done. fn must be callable concurrently. Inside a ScopedSequential: one
// call fn(begin, end) on this thread.
template <typename Fn>
void ParallelFor(int64_t begin, int64_t end, int64_t grain, const Fn& fn) {
  if (begin >= end) return;
  if (parallel_internal::sequential_depth > 0) {
    fn(begin, end);
    return;
  }
  if (grain < 1) grain = 1;
  if (JobSystem* jobs = CurrentThreadContext().job_system) {
    parallel_internal::JobSystemParallelFor(*jobs, begin, end, grain, fn);
    return;
  }
  if constexpr (kUnderTsan) {
    parallel_internal::TsanParallelFor(begin, end, grain, fn);
  } else {
    const ThreadContext context = CurrentThreadContext();
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<int64_t>(begin, end, grain),
        [&fn, context](const oneapi::tbb::blocked_range<int64_t>& r) {
          ScopedThreadContext scope(context);
          fn(r.begin(), r.end());
        });
  }
}

// Runs fn() inside `arena` (on this thread when it can join the arena, else
// on one of the arena's threads) and returns when it is done.
template <typename Fn>
void ExecuteInArena(oneapi::tbb::task_arena& arena, const Fn& fn) {
  if constexpr (kUnderTsan) {
    parallel_internal::Edges edges;
    const parallel_internal::ArenaBody<Fn> body{&fn, &edges};
    TsanRelease(&body);
    arena.execute(body);
    TsanAcquire(&edges.join);
  } else {
    arena.execute(fn);
  }
}

// A oneTBB task_group: Run spawns tasks, Wait waits for all of them.
// Lifecycle: Wait must return before the group is destroyed.
class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Spawns fn() (a callable taking no arguments); it may start at once.
  template <typename Fn>
  void Run(Fn&& fn) {
    if constexpr (kUnderTsan) {
      // One heap copy per task gives each spawn its own edge.
      using Task = std::decay_t<Fn>;
      Task* task = new Task(std::forward<Fn>(fn));
      TsanRelease(task);
      group_.run(parallel_internal::GroupTaskBody<Task>(task, &join_));
    } else {
      group_.run(std::forward<Fn>(fn));
    }
  }

  // Waits for every task run so far (and the tasks they spawned).
  void Wait() {
    group_.wait();
    TsanAcquire(&join_);
  }

 private:
  oneapi::tbb::task_group group_;
  char join_ = 0;  // only its address is used: tasks -> Wait
};

namespace parallel_internal {

// Why not oneapi::tbb::parallel_for under TSan: parallel_for keeps its
// completion counter (a wait_node) in a frame on the caller's stack, and the
// worker that finishes the last chunk decrements it in inline, instrumented
// header code after the chunk's own release edge; the caller's side of that
// wait is in uninstrumented libtbb. When a later kernel reuses that stack
// memory, TSan reports the plain write against the worker's atomic one. A
// task_group's destructor loads its counter with acquire in header code, so
// TSan sees that edge: the range is cut into at most 4 chunks per thread of
// the arena (each >= grain, as parallel_for's, but without its adaptive
// splitting), each run as a TaskGroup task.
template <typename Fn>
void TsanParallelFor(int64_t begin, int64_t end, int64_t grain, const Fn& fn) {
  const int64_t n = end - begin;
  const int64_t max_chunks =
      4 * static_cast<int64_t>(oneapi::tbb::this_task_arena::max_concurrency());
  const int64_t chunks = std::max<int64_t>(
      1, std::min<int64_t>((n + grain - 1) / grain, max_chunks));
  const int64_t step = (n + chunks - 1) / chunks;
  const ThreadContext context = CurrentThreadContext();
  TaskGroup group;
  for (int64_t b = begin; b < end; b += step) {
    const int64_t e = std::min(end, b + step);
    group.Run([&fn, context, b, e] {
      ScopedThreadContext scope(context);
      fn(b, e);
    });
  }
  group.Wait();
}

}  // namespace parallel_internal

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_PARALLEL_H_
