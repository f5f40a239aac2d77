#pragma once
/// The CPU operators' worker threads: a small pool that lives for the program (a function-local
/// static, started on first use and joined at exit) so that a medium-sized operator does not pay
/// for creating and joining threads on every call.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace strix::cpu {

/// The number of threads an options value asks for: `threads` itself when positive, every
/// hardware thread for 0, and 1 otherwise.
inline int thread_count(int threads) {
    if (threads > 0) return threads;
    if (threads == 0) {
        const unsigned h = std::thread::hardware_concurrency();
        return h ? static_cast<int>(std::min<unsigned>(h, 1024)) : 1;
    }
    return 1;
}

namespace detail {

/// A non-owning callable `void(int task)`: the pool runs tasks of a job the caller keeps alive.
struct task_ref {
    const void* object;
    void (*call)(const void*, int);
    template <class F>
    explicit task_ref(const F& f) : object(&f), call([](const void* o, int i) { (*static_cast<const F*>(o))(i); }) {}
    void operator()(int i) const { call(object, i); }
};

class thread_pool {
public:
    /// The program's pool.
    static thread_pool& instance() {
        static thread_pool pool;
        return pool;
    }

    thread_pool() = default;
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    ~thread_pool() {
        {
            std::lock_guard lk(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : workers_) t.join();
    }

    /// Runs f(0) .. f(tasks - 1), the calling thread taking part, and returns when all are done.
    /// The first exception a task throws is rethrown here (the other tasks still run). One job
    /// runs on the pool at a time: a caller that finds it busy (another thread's job, or a task
    /// that itself asks for threads) runs its tasks on threads of its own instead of waiting.
    template <class F>
    void run(int tasks, const F& f) {
        if (tasks <= 0) return;
        if (tasks == 1) {
            f(0);
            return;
        }
        bool expected = false;
        if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
            run_on_own_threads(tasks, f);
            return;
        }
        struct release {
            std::atomic<bool>& b;
            ~release() { b.store(false, std::memory_order_release); }
        } r{busy_};
        job j(task_ref(f), tasks);
        {
            std::lock_guard lk(m_);
            grow(tasks - 1);
            job_ = &j;
            ++generation_;
        }
        wake_.notify_all();
        const int mine = j.drain();
        std::unique_lock lk(m_);
        j.done += mine;
        done_.wait(lk, [&] { return j.done == j.tasks && j.active == 0; });
        job_ = nullptr; // no worker can take the job from here on: it is about to go away
        lk.unlock();
        if (j.error) std::rethrow_exception(j.error);
    }

private:
    struct job {
        job(task_ref fn, int n) : f(fn), tasks(n) {}
        task_ref f;
        int tasks;
        std::atomic<int> next{0};
        int done = 0;   ///< finished tasks (under m_)
        int active = 0; ///< workers inside drain() (under m_)
        std::exception_ptr error;
        std::mutex error_m;

        /// Runs tasks until none is left; returns how many it ran.
        int drain() {
            int n = 0;
            for (int i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks; ++n) {
                try {
                    f(i);
                } catch (...) {
                    std::lock_guard lk(error_m);
                    if (!error) error = std::current_exception();
                }
            }
            return n;
        }
    };

    template <class F>
    static void run_on_own_threads(int tasks, const F& f) {
        std::exception_ptr error;
        std::mutex em;
        auto guarded = [&](int i) {
            try {
                f(i);
            } catch (...) {
                std::lock_guard lk(em);
                if (!error) error = std::current_exception();
            }
        };
        std::vector<std::thread> ts;
        ts.reserve(static_cast<std::size_t>(tasks - 1));
        for (int i = 1; i < tasks; ++i) ts.emplace_back(guarded, i);
        guarded(0);
        for (auto& t : ts) t.join();
        if (error) std::rethrow_exception(error);
    }

    /// Starts workers until there are `n` (under m_).
    void grow(int n) {
        while (static_cast<int>(workers_.size()) < n) workers_.emplace_back([this] { work(); });
    }

    void work() {
        std::uint64_t seen = 0;
        std::unique_lock lk(m_);
        for (;;) {
            wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            job* j = job_;
            if (!j) continue; // woke after the job had finished
            ++j->active;
            lk.unlock();
            const int n = j->drain();
            lk.lock();
            j->done += n;
            --j->active;
            if (j->done == j->tasks && j->active == 0) done_.notify_all();
        }
    }

    std::atomic<bool> busy_{false};
    std::mutex m_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> workers_;
    std::uint64_t generation_ = 0;
    job* job_ = nullptr;
    bool stop_ = false;
};

} // namespace detail

/// Runs f(0) .. f(tasks - 1) on the pool (the calling thread included).
template <class F>
void parallel_tasks(int tasks, const F& f) {
    detail::thread_pool::instance().run(tasks, f);
}

} // namespace strix::cpu
