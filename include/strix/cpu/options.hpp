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
    /// the caches for whatever reads them next. 0 streams always; a negative value never. The
    /// default is where streaming began to pay on the processors measured, on one thread and on
    /// many: below it, keeping the output in the caches was worth more than the reads streaming
    /// saves (bench/NOTES.md, "Figures behind the CPU executor's choices").
    std::int64_t stream_min_bytes = 16 << 20;
    /// Whether a streamed operator builds dense output rows that are not whole aligned cache
    /// lines (pads, element gathers) in a 4 KiB buffer and writes them out as whole streamed
    /// lines, instead of streaming each row's whole lines and storing its partial ones in
    /// place. Staging paid only while partial lines were stored as they came; since a padded
    /// row asks for its partial lines two rows ahead, storing them in place is faster on every
    /// processor measured, so `automatic` (the library's choice) no longer stages on any
    /// processor (bench/NOTES.md, "Figures behind the CPU executor's choices").
    enum class staging { automatic, always, never };
    staging stage = staging::automatic;
    /// A gather-elements whose indices take at least this many bytes checks them into a copy
    /// compacted to 1 or 2 bytes each (an axis of up to 256 or 65536 elements; 4- and 8-byte
    /// elements; where the processor has AVX2), which its gather then reads in place of the
    /// indices: the check before the first write reads every index, and large indices have left
    /// the caches when the gather reads them again. Negative: never. The default lies past a
    /// large last-level cache: below it the indices are still cached for the second read, and
    /// writing the copy cost as much as it saved or more (bench/NOTES.md, "Figures behind the
    /// CPU executor's choices").
    std::int64_t compact_min_bytes = 16 << 20;
};

namespace detail {

/// Whether a streamed operator run under `opt` stages its partial lines (options::stage).
inline bool stages(const options& opt) { return opt.stage == options::staging::always; }

} // namespace detail

} // namespace strix::cpu
