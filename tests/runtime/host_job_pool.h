// HostJobPool: a small host-side JobSystem (runtime/job_system.h) for tests
// and benchmarks, standing in for a game engine's job system: its own
// std::threads, a queue of batches, the calling thread helping with its own
// batch while it waits (so nested calls cannot deadlock). An idle worker
// polls the queue for `spin_us` microseconds before it sleeps on a condition
// variable, as game engines' workers and oneTBB's do between frames' jobs: a
// futex wake-up per call costs tens of microseconds on a VM, and a model's
// Run makes ~100 such calls. It counts the calls and the jobs each of its
// threads ran, so tests can see that graphrt handed it work and that its
// workers took some.
#ifndef GRAPHRT_TESTS_RUNTIME_HOST_JOB_POOL_H_
#define GRAPHRT_TESTS_RUNTIME_HOST_JOB_POOL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/job_system.h"

namespace graphrt {

class HostJobPool : public JobSystem {
 public:
  // `workers` threads of its own; concurrency() = workers + 1 (the caller).
  explicit HostJobPool(int workers, int spin_us = 0) : spin_us_(spin_us) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~HostJobPool() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  int concurrency() const override {
    return static_cast<int>(threads_.size()) + 1;
  }

  void ParallelFor(int64_t count,
                   absl::FunctionRef<void(int64_t)> job) override {
    calls_.fetch_add(1, std::memory_order_relaxed);
    Batch batch{count, &job};
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(&batch);
      queued_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    Work(batch, /*worker=*/false);
    std::unique_lock<std::mutex> lock(mu_);
    // Off the queue: no worker enters the batch from now on.
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (*it == &batch) {
        queue_.erase(it);
        queued_.fetch_sub(1, std::memory_order_relaxed);
        break;
      }
    }
    if (!batch.Finished() && spin_us_ > 0) {
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::microseconds(spin_us_);
      while (!batch.Finished() && std::chrono::steady_clock::now() < until) {
      }
      lock.lock();
    }
    done_.wait(lock, [&] { return batch.Finished(); });
  }

  int64_t calls() const { return calls_.load(); }
  int64_t jobs_on_workers() const { return on_workers_.load(); }
  int64_t jobs_on_callers() const { return on_callers_.load(); }

 private:
  struct Batch {
    int64_t count;
    absl::FunctionRef<void(int64_t)>* job;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::atomic<int> users{0};  // workers inside Work
    // Every job returned and no worker touches the batch any more.
    bool Finished() const {
      return done.load(std::memory_order_acquire) == count &&
             users.load(std::memory_order_acquire) == 0;
    }
  };

  void Work(Batch& batch, bool worker) {
    for (;;) {
      const int64_t i = batch.next.fetch_add(1);
      if (i >= batch.count) return;
      (*batch.job)(i);
      (worker ? on_workers_ : on_callers_).fetch_add(1);
      batch.done.fetch_add(1, std::memory_order_release);
    }
  }

  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (queue_.empty() && !stop_ && spin_us_ > 0) {
        lock.unlock();
        const auto until = std::chrono::steady_clock::now() +
                           std::chrono::microseconds(spin_us_);
        while (queued_.load(std::memory_order_acquire) == 0 &&
               std::chrono::steady_clock::now() < until) {
        }
        lock.lock();
      }
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Batch* batch = queue_.front();
      if (batch->next.load() >= batch->count) {
        queue_.pop_front();  // fully claimed; its caller waits for it
        queued_.fetch_sub(1, std::memory_order_relaxed);
        continue;
      }
      batch->users.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      Work(*batch, /*worker=*/true);
      // The last touch of the batch: its caller may return right after.
      batch->users.fetch_sub(1, std::memory_order_release);
      lock.lock();
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::deque<Batch*> queue_;
  std::atomic<int> queued_{0};  // queue_.size(), read without mu_ to spin
  bool stop_ = false;
  const int spin_us_;
  std::vector<std::thread> threads_;
  std::atomic<int64_t> calls_{0};
  std::atomic<int64_t> on_workers_{0};
  std::atomic<int64_t> on_callers_{0};
};

}  // namespace graphrt

#endif  // GRAPHRT_TESTS_RUNTIME_HOST_JOB_POOL_H_
