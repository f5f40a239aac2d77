#pragma once
/// The CPU executor's options (strix::cpu::options), which every CPU operator takes.

#include <cstdint>

namespace strix::cpu {

/// Options of the CPU executor.
struct options {
    /// Threads for one operator: 1 runs on the calling thread only, N > 1 on up to N threads
    /// (the caller and a pool's workers, started on first use), 0 on every hardware thread.
    /// Work is split by output elements, so one long row is shared too.
    int threads = 1;
    /// Bytes (one side of the copy) each thread should have at least: smaller operators use
    /// fewer threads, and under this size stay on the calling thread, where handing work over
    /// would cost more than it saves. Tests set 1 to split even tiny operators.
    std::int64_t min_bytes_per_thread = 256 << 10;
    /// Operators that write at least this many bytes (all threads together) write the whole
    /// cache lines of their contiguous runs with non-temporal stores: no read of each line before
    /// it is written, and the output does not evict the caches' contents. Smaller outputs stay in
    /// the caches for whatever reads them next. 0 streams always; a negative value never.
    /// Measured (`strix-bench`, NOTES.md): on one core of a 2-core Xeon VM streaming lost at
    /// 8 MiB written (0.86-0.91 of memcpy against 0.96-1.01) and won from 16 MiB (pads of 17.6 MB
    /// 0.82-0.96 against 0.75-0.80); on a 16-thread Xeon, pads of 137 MB on one thread 0.81-1.11
    /// against 0.69-0.78, and on 16 threads (4.3 MB each) 0.92-1.11 against 0.82-0.94.
    std::int64_t stream_min_bytes = 16 << 20;
    /// Whether a streamed operator builds dense output rows that are not whole aligned cache
    /// lines (pads, element gathers) in a 4 KiB buffer and writes them out as whole streamed
    /// lines, instead of streaming each row's whole lines and storing its partial ones in
    /// place. Measured with pads of 137 MB (bench/NOTES.md): staging took them from 0.64-0.79
    /// of memcpy to 0.90-1.18 on a Zen 4 EPYC core while the partial lines were stored as they
    /// came; since a padded row asks for its partial lines two rows ahead, unstaged pads run
    /// there at 1.31-1.43 (one thread) and 1.35-1.66 (two) against 1.01-1.16 and 1.18-1.35
    /// staged. On a Zen 5 EPYC staging halved them, and a Xeon runs them at 0.96-1.07
    /// unstaged. `automatic` (the library's choice) no longer stages on any processor.
    enum class staging { automatic, always, never };
    staging stage = staging::automatic;
    /// A gather-elements whose indices take at least this many bytes checks them into a copy
    /// compacted to 1 or 2 bytes each (an axis of up to 256 or 65536 elements; 4- and 8-byte
    /// elements; where the processor has AVX2), which its gather then reads in place of the
    /// indices: the check before the first write reads every index, and large indices have left
    /// the caches when the gather reads them again. Negative: never. Measured on one Zen 4 EPYC
    /// core (32 MiB L3) with int64 indices along rows of 256: 8 MB of indices 0.95 -> 1.08 ms,
    /// 12 MB level, 48 MB 3.5 -> 3.4; two threads level at 8 MB, 1.05 -> 0.92 at 12, 2.5 -> 1.9 at 48.
    std::int64_t compact_min_bytes = 16 << 20;
};

namespace detail {

/// Whether a streamed operator run under `opt` stages its partial lines (options::stage).
inline bool stages(const options& opt) { return opt.stage == options::staging::always; }

} // namespace detail

} // namespace strix::cpu
