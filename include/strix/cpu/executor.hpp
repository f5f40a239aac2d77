#pragma once
/// The CPU executor: runs move plans over ranges of output elements. Per output row it does a
/// handful of additions (no division or modulo); the innermost dimension runs as one memcpy when
/// it is contiguous on both sides, as a precomputed list of copy/fill segments when it is padded
/// (pad), and as an element loop of the element's own size otherwise (a memcpy of a constant
/// size compiles to one load and one store; a call per element was most of the time of pads and
/// gathers). Work is split over threads by elements, not rows, so that a plan of one long row
/// (a join or split along the outer axis) uses every thread too.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "strix/cpu/options.hpp"
#include "strix/cpu/parallel.hpp"
#include "strix/cpu/scratch.hpp"
#include "strix/cpu/walk.hpp"
#include "strix/cpu/x86.hpp"
#include "strix/plan/move_plan.hpp"
#include "strix/small_vector.hpp"

namespace strix::cpu {

/// Runs the collapsed plans of one join or split (disjoint outputs) together, in blocks that
/// each hold the same fraction of every plan: one row of each where rows are at least 4 KiB
/// together, else as many rows as make 4 KiB. A join or split along an inner axis then reads
/// and writes every array front to back, all plans in turn, where plan after plan would sweep
/// the shared array once per plan, at a fraction of a copy's rate; blocks of many rows per plan
/// were much slower than a row each, which runs at about a streamed copy's rate (bench/NOTES.md,
/// "Figures behind the CPU executor's choices"). A plan of one long row (a join along the outer
/// axis) keeps plan after plan. Threads take contiguous runs of blocks; there are at least as
/// many blocks as threads, so a single long row is split too.
///
/// `blocks_hint` > 0 sets the number of blocks instead (at least one per thread): a join of
/// chains gives the count of the output's coordinates before the join axis, so that every block
/// holds whole parts of the output in its order, whatever rows the plans collapsed to. (A padded
/// part has rows of one output row each, and another part collapsed to a few long rows would
/// be cut into as many pieces, each a row's bytes: streamed partial lines, half a copy's rate.)
template <bool Compact = false>
void execute_together(std::span<const plan::move_plan> plans, const options& opt = {}, std::int64_t blocks_hint = 0) {
    strix::detail::small_vector<detail::run_state, 4> states;
    std::int64_t bytes = 0, most = 0, rows = 0;
    for (const auto& p : plans) {
        if (p.rank == 0 || p.count() == 0) continue;
        bytes += p.count() * static_cast<std::int64_t>(p.elem);
        most = std::max(most, p.count());
        rows = std::max(rows, p.count() / p.dims[static_cast<std::size_t>(p.rank - 1)].size);
    }
    if (most == 0) return;
    const bool stream = opt.stream_min_bytes >= 0 && bytes >= opt.stream_min_bytes, stage = detail::stages(opt);
    for (const auto& p : plans)
        if (p.rank != 0 && p.count() != 0) detail::prepare<Compact>(states.emplace_back(), p, stream, stage);
    const int t = detail::threads_for(opt, bytes, most);
    // at most 2^24 blocks, so that part() cannot overflow
    const std::int64_t blocks = blocks_hint > 0     ? std::max<std::int64_t>(std::min(blocks_hint, std::int64_t{1} << 24), t)
                                : states.size() == 1 ? t
                                                     : std::max<std::int64_t>(std::min({rows, bytes / 4096, std::int64_t{1} << 24}), t);
    // the first element of block k of a plan of n
    auto part = [blocks](std::int64_t n, std::int64_t k) { return detail::part_start(n, k, blocks); };
    detail::parallel_ranges(t, blocks, [&](std::int64_t a, std::int64_t b) {
        strix::detail::small_vector<detail::cursor, 4> cur(states.size());
        std::vector<std::byte> stage;
        std::size_t staged = 0;
        for (const auto& st : states) staged += st.staged ? 1 : 0;
        if (staged) stage.resize(staged * detail::stage_buffer_bytes + 64);
        std::byte* next_buf = stage.data() + ((64 - (reinterpret_cast<std::uintptr_t>(stage.data()) & 63)) & 63);
        for (std::size_t i = 0; i < states.size(); ++i) {
            const auto& st = states[i];
            if (st.staged) {
                cur[i].buf = next_buf;
                next_buf += detail::stage_buffer_bytes;
            }
            st.start(st, cur[i], part(st.p->count(), a));
        }
        for (std::int64_t k = a; k < b; ++k)
            for (std::size_t i = 0; i < states.size(); ++i) {
                const auto& st = states[i];
                const std::int64_t n = st.p->count();
                st.walk(st, cur[i], part(n, k + 1) - part(n, k));
            }
        for (std::size_t i = 0; i < states.size(); ++i)
            if (states[i].staged) detail::flush_stage(states[i], cur[i], true);
        if (stream) detail::stream_fence();
    });
}

/// Runs a collapsed move plan (split by elements, so that one long row uses every thread too).
/// `Compact`: the plan may read 1- or 2-byte indices (a compact copy, see prepare).
template <bool Compact = false>
void execute(const plan::move_plan& p, const options& opt = {}) { execute_together<Compact>(std::span<const plan::move_plan>(&p, 1), opt); }

} // namespace strix::cpu
