#pragma once
// Random chains of moves (gather, pad, slice, tile) for the chain tests of both backends: a
// source in a random layout, 1 to 5 steps each drawn until its rules accept it, and the eager
// result of the same steps (each step run as its own operator on the CPU), which a chain's
// result must equal bit for bit.

#include <deque>
#include <string>
#include <vector>

#include "host.hpp"

namespace strix_test {

/// A random chain over host operands, the operands it reads, and its eager result.
struct random_chain {
    std::deque<strided> operands; ///< the source first, then each gather's indices
    strix::chain chain;
    host_tensor eager;            ///< the steps run one by one
    std::string text;             ///< what the chain is, for failure messages
    bool bad_index = false;       ///< a gather under index_policy::error has an index out of range
};

/// A pad of rank r: widths in [-2, 3], the mode and value random.
inline strix::pad_desc random_pad(rng_t& g, int r) {
    strix::pad_desc d;
    static constexpr pad_mode modes[] = {pad_mode::constant, pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap};
    d.mode = modes[uni(g, 0, 4)];
    for (int i = 0; i < r; ++i) {
        const bool touch = chance(g, 1, 2);
        d.start.push_back(touch ? uni(g, -2, 3) : 0);
        d.end.push_back(touch ? uni(g, -2, 3) : 0);
    }
    d.value = strix::scalar(static_cast<std::int64_t>(uni(g, 0, 1)));
    return d;
}

/// Draws a chain of up to `steps` steps (each kept only when its rules accept it and the
/// result stays small), with indices out of range under either policy one time in `bad_den`.
inline random_chain make_random_chain(rng_t& g, int steps, int bad_den = 8) {
    static constexpr dtype types[] = {dtype::int8, dtype::float16, dtype::float32, dtype::int64, dtype::boolean, dtype::float64, dtype::bfloat16, dtype::float8_e4m3fn};
    random_chain c;
    const dtype t = types[uni(g, 0, 7)];
    const shape s = random_shape(g, static_cast<int>(uni(g, 1, 4)), 40);
    strided& src = c.operands.emplace_back(make_strided(g, t, s, false));
    fill_random(g, src.buf, t);
    c.chain = strix::lazy(src.cview());
    c.eager = strix::slice(src.cview(), strix::slice_desc{}); // (a slice of no axis: a copy)
    c.text = type_name(t) + " " + str(s) + " " + src.layout;
    for (int k = 0; k < steps; ++k) {
        for (int attempt = 0; attempt < 20; ++attempt) {
            const shape& in = c.chain.sizes();
            const int r = in.rank;
            try {
                strix::chain next;
                host_tensor out;
                std::string what;
                switch (uni(g, 0, 3)) {
                case 0: { // slice
                    strix::slice_desc d;
                    for (int i = 0; i < r; ++i) {
                        if (!chance(g, 1, 2)) continue;
                        const std::int64_t n = in[i];
                        d.axes.push_back(i);
                        d.starts.push_back(uni(g, -n - 1, n + 1));
                        d.ends.push_back(uni(g, -n - 1, n + 1));
                        d.steps.push_back(chance(g, 1, 2) ? 1 : uni(g, -3, 3) | 1);
                    }
                    next = c.chain.slice(d);
                    out = strix::slice(c.eager.view(), d);
                    what = "slice starts " + str(d.starts) + " ends " + str(d.ends) + " axes " + str(d.axes) + " steps " + str(d.steps);
                    break;
                }
                case 1: { // pad or crop
                    const strix::pad_desc d = random_pad(g, r);
                    next = c.chain.pad(d);
                    out = strix::pad(c.eager.view(), d);
                    what = "pad " + mode_name(d.mode) + " start " + str(d.start) + " end " + str(d.end);
                    break;
                }
                case 2: { // tile
                    strix::tile_desc d;
                    for (int i = 0; i < r; ++i) d.repeats.push_back(chance(g, 2, 3) ? 1 : uni(g, 0, 3));
                    next = c.chain.tile(d);
                    out = strix::tile(c.eager.view(), d);
                    what = "tile " + str(d.repeats);
                    break;
                }
                default: { // gather, natural form or DirectML's
                    if (r == 0) continue; // (no axis to gather along)
                    strix::gather_desc d;
                    d.axis = uni(g, -r, r - 1);
                    const int axis = static_cast<int>(d.axis < 0 ? d.axis + r : d.axis);
                    const std::int64_t n = in[axis];
                    shape is;
                    if (chance(g, 1, 4)) { // DirectML: the input's rank, the last K meaningful
                        d.index_dimensions = static_cast<int>(uni(g, 0, std::min(r, 2)));
                        for (int i = 0; i < r; ++i) is.push_back(i < r - d.index_dimensions ? 1 : uni(g, 0, 3));
                    } else {
                        const int k = static_cast<int>(uni(g, 0, 2));
                        for (int i = 0; i < k; ++i) is.push_back(uni(g, 0, 3));
                    }
                    static constexpr dtype index_types[] = {dtype::int32, dtype::int64, dtype::uint32, dtype::uint64};
                    const dtype it = index_types[uni(g, 0, 3)];
                    strided idx = make_strided(g, it, is, false);
                    const bool bad = n > 0 && chance(g, 1, bad_den);
                    d.policy = bad && chance(g, 1, 2) ? index_policy::error : chance(g, 1, 3) ? index_policy::clamp : index_policy::error;
                    bool any_bad = false;
                    for_each_coord(is, [&](const coords& cc) {
                        const bool this_bad = bad && chance(g, 1, 3);
                        any_bad |= this_bad;
                        store_index(idx.at(cc), it, this_bad ? bad_index(g, it, n) : valid_index(g, it, n));
                    });
                    strided& kept = c.operands.emplace_back(std::move(idx));
                    try {
                        next = c.chain.gather(kept.cview(), d);
                    } catch (...) {
                        c.operands.pop_back();
                        throw;
                    }
                    if (any_bad && d.policy == index_policy::error) {
                        // the eager gather refuses it: the chain must too, and nothing comes after
                        c.chain = next;
                        c.bad_index = true;
                        c.text += " | gather axis " + std::to_string(d.axis) + " (bad indices, error)";
                        return c;
                    }
                    out = strix::gather(c.eager.view(), kept.cview(), d);
                    what = "gather axis " + std::to_string(d.axis) + " K " + std::to_string(d.index_dimensions) + " indices " + str(is) + " " +
                           type_name(it) + (d.policy == index_policy::clamp ? " clamp" : "");
                    break;
                }
                }
                if (next.sizes().count() > 4096) continue;
                c.chain = next;
                c.eager = std::move(out);
                c.text += " | " + what;
                break;
            } catch (const strix::error&) { // its rules say no: draw another
            }
        }
    }
    return c;
}

} // namespace strix_test
