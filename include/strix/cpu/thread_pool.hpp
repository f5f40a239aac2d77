#pragma once
/// The CPU operators' worker threads: a small pool that lives for the program (a function-local
/// static, started on first use and joined at exit) so that a medium-sized operator does not pay
/// for creating and joining threads on every call.

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "strix/error.hpp"

// POSIX threads where the system has them: <thread>, <mutex> and <condition_variable> (with
// C++20's stop tokens and semaphores behind them) are a large part of the parse of every file
// that includes strix (bench/NOTES.md, "Figures behind the CPU executor's choices"). Elsewhere
// (Windows), the standard's.
#if defined(__unix__) || defined(__APPLE__)
#define STRIX_POSIX_THREADS 1
#include <pthread.h>
#include <unistd.h>
#else
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

namespace strix::cpu {

namespace detail {

#if STRIX_POSIX_THREADS
/// The pool's lock, wake-up and threads, as thin as the system gives them.
class os_mutex {
public:
    os_mutex() = default;
    os_mutex(const os_mutex&) = delete;
    os_mutex& operator=(const os_mutex&) = delete;
    ~os_mutex() { pthread_mutex_destroy(&m_); }
    void lock() { pthread_mutex_lock(&m_); }
    void unlock() { pthread_mutex_unlock(&m_); }
    pthread_mutex_t* native() { return &m_; }

private:
    pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

class os_condition {
public:
    os_condition() = default;
    os_condition(const os_condition&) = delete;
    os_condition& operator=(const os_condition&) = delete;
    ~os_condition() { pthread_cond_destroy(&c_); }
    /// Waits (`m` locked) until `done()` holds.
    template <class P>
    void wait(os_mutex& m, P done) {
        while (!done()) pthread_cond_wait(&c_, m.native());
    }
    void notify_all() { pthread_cond_broadcast(&c_); }

private:
    pthread_cond_t c_ = PTHREAD_COND_INITIALIZER;
};

/// A thread running `f` (a callable the thread owns); joined by join().
class os_thread {
public:
    template <class F>
    explicit os_thread(F f) {
        auto* owned = new F(static_cast<F&&>(f));
        const int rc = pthread_create(&t_, nullptr, [](void* p) -> void* {
            F* g = static_cast<F*>(p);
            (*g)();
            delete g;
            return nullptr;
        }, owned);
        if (rc != 0) {
            delete owned;
            throw error(error_code::io, "strix: the system refused a worker thread (pthread_create returned " + std::to_string(rc) + ")");
        }
    }
    os_thread(os_thread&& o) noexcept : t_(o.t_), joinable_(o.joinable_) { o.joinable_ = false; }
    os_thread(const os_thread&) = delete;
    os_thread& operator=(const os_thread&) = delete;
    os_thread& operator=(os_thread&&) = delete;
    ~os_thread() {
        if (joinable_) std::terminate(); // as std::thread does
    }
    void join() {
        pthread_join(t_, nullptr);
        joinable_ = false;
    }

private:
    pthread_t t_{};
    bool joinable_ = true;
};

inline unsigned hardware_threads() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 0;
}
#else
using os_mutex = std::mutex;
using os_thread = std::thread;
class os_condition {
public:
    template <class P>
    void wait(os_mutex& m, P done) {
        std::unique_lock lk(m, std::adopt_lock);
        c_.wait(lk, done);
        lk.release();
    }
    void notify_all() { c_.notify_all(); }

private:
    std::condition_variable c_;
};
inline unsigned hardware_threads() { return std::thread::hardware_concurrency(); }
#endif

/// Holds `m` locked for its scope.
class os_lock {
public:
    explicit os_lock(os_mutex& m) : m_(m) { m_.lock(); }
    os_lock(const os_lock&) = delete;
    os_lock& operator=(const os_lock&) = delete;
    ~os_lock() {
        if (held_) m_.unlock();
    }
    void lock() {
        m_.lock();
        held_ = true;
    }
    void unlock() {
        m_.unlock();
        held_ = false;
    }

private:
    os_mutex& m_;
    bool held_ = true;
};

} // namespace detail

/// The number of threads an options value asks for: `threads` itself when positive, every
/// hardware thread for 0, and 1 otherwise.
inline int thread_count(int threads) {
    if (threads > 0) return threads;
    if (threads == 0) {
        const unsigned h = detail::hardware_threads();
        return h ? static_cast<int>(h < 1024 ? h : 1024) : 1;
    }
    return 1;
}

namespace detail {

/// The first exception the tasks of one call throw. The first thrower claims it with an atomic
/// flag, so a call needs no mutex of its own (with mingw-w64's POSIX threads a std::mutex is
/// allocated on its first lock and, its destructor being trivial there, never freed: a job's
/// mutex leaked once per throwing call). The thread that rethrows reads it after the tasks'
/// threads have reported done (under the pool's mutex, or by join).
class first_error {
public:
    /// Keeps the exception being handled, unless one was kept before.
    void keep_current() noexcept {
        if (!claimed_.exchange(true, std::memory_order_acq_rel)) error_ = std::current_exception();
    }
    /// Rethrows the kept exception, if any.
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

private:
    std::atomic<bool> claimed_{false};
    std::exception_ptr error_;
};

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
            os_lock lk(m_);
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
            os_lock lk(m_);
            grow(tasks - 1);
            job_ = &j;
            ++generation_;
        }
        wake_.notify_all();
        const int mine = j.drain();
        os_lock lk(m_);
        j.done += mine;
        done_.wait(m_, [&] { return j.done == j.tasks && j.active == 0; });
        job_ = nullptr; // no worker can take the job from here on: it is about to go away
        lk.unlock();
        j.error.rethrow();
    }

private:
    struct job {
        job(task_ref fn, int n) : f(fn), tasks(n) {}
        task_ref f;
        int tasks;
        std::atomic<int> next{0};
        int done = 0;   ///< finished tasks (under m_)
        int active = 0; ///< workers inside drain() (under m_)
        first_error error;

        /// Runs tasks until none is left; returns how many it ran.
        int drain() {
            int n = 0;
            for (int i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks; ++n) {
                try {
                    f(i);
                } catch (...) {
                    error.keep_current();
                }
            }
            return n;
        }
    };

    template <class F>
    static void run_on_own_threads(int tasks, const F& f) {
        first_error error;
        auto guarded = [&](int i) {
            try {
                f(i);
            } catch (...) {
                error.keep_current();
            }
        };
        std::vector<os_thread> ts;
        ts.reserve(static_cast<std::size_t>(tasks - 1));
        try {
            for (int i = 1; i < tasks; ++i) ts.emplace_back([&guarded, i] { guarded(i); });
        } catch (...) {
            // the system refused a thread: the ones started run `guarded`, which lives in this
            // frame, and a joinable thread's destructor ends the program, so they are joined
            // before the refusal goes on to the caller
            for (auto& t : ts) t.join();
            throw;
        }
        guarded(0);
        for (auto& t : ts) t.join();
        error.rethrow();
    }

    /// Starts workers until there are `n` (under m_).
    void grow(int n) {
        while (static_cast<int>(workers_.size()) < n) workers_.emplace_back([this] { work(); });
    }

    void work() {
        std::uint64_t seen = 0;
        os_lock lk(m_);
        for (;;) {
            wake_.wait(m_, [&] { return stop_ || generation_ != seen; });
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
    os_mutex m_;
    os_condition wake_, done_;
    std::vector<os_thread> workers_;
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
