#pragma once
// Random chains of moves (gather, pad, slice, tile), and where asked the index-driven steps that
// split a chain (gather-elements, gather-nd, scatter, scatter-nd), for the chain tests of both
// backends: a source in a random layout, 1 to 5 steps each drawn until its rules accept it, and
// the eager result of the same steps (each step run as its own operator on the CPU), which a
// chain's result must equal bit for bit.

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "host.hpp"

namespace strix_test {

/// A random chain over host operands, the operands it reads, and its eager result.
struct random_chain {
    std::deque<strided> operands; ///< the source first, then each step's indices (and updates)
    strix::chain chain;
    host_tensor eager;            ///< the steps run one by one
    std::string text;             ///< what the chain is, for failure messages
    bool bad_index = false;       ///< a step under index_policy::error has an index out of range
};

/// An index-driven step on `c` (gather-elements, gather-nd, scatter or scatter-nd, random
/// shapes, policy and index type), its eager result in `out`: false where its rules refuse the
/// draw. Indices out of range one time in `bad_den`; under `error` the chain then ends (bad_index).
inline bool random_index_step(rng_t& g, random_chain& c, strix::chain& next, host_tensor& out, std::string& what, int bad_den) {
    const shape in = c.chain.sizes();
    const int r = in.rank;
    if (r == 0) return false;
    const int kind = static_cast<int>(uni(g, 0, 3)); // gather-elements, gather-nd, scatter, scatter-nd
    const int axis = static_cast<int>(uni(g, 0, r - 1));
    shape is;
    if (kind == 0 || kind == 2) { // the input's rank, no larger off the axis
        for (int i = 0; i < r; ++i) is.push_back(i == axis ? uni(g, 0, 4) : chance(g, 1, 2) ? in[i] : uni(g, 0, in[i]));
    } else { // tuples of k components
        const int k = static_cast<int>(uni(g, 1, r));
        if (chance(g, 1, 2)) is.push_back(uni(g, 0, 4));
        is.push_back(k);
    }
    static constexpr dtype index_types[] = {dtype::int32, dtype::int64};
    const dtype it = index_types[uni(g, 0, 1)];
    strided idx = make_strided(g, it, is, false);
    const bool bad = chance(g, 1, bad_den);
    const index_policy policy = bad && chance(g, 1, 2) ? index_policy::error : chance(g, 1, 3) ? index_policy::clamp : index_policy::error;
    bool impossible = false;
    std::map<const std::byte*, bool> bad_at; // (a broadcast layout writes one slot for many coordinates: the last write counts)
    for_each_coord(is, [&](const coords& cc) {
        // the size an index runs over: the axis's, or its tuple component's
        const std::int64_t n = kind == 0 || kind == 2 ? in[axis] : in[static_cast<int>(cc[static_cast<std::size_t>(is.rank - 1)])];
        if (n == 0) impossible = true;
        const bool this_bad = bad && n > 0 && chance(g, 1, 3);
        bad_at[idx.at(cc)] = this_bad;
        store_index(idx.at(cc), it, n == 0 ? 0 : this_bad ? bad_index(g, it, n) : valid_index(g, it, n));
    });
    bool any_bad = false;
    for (const auto& [at, b] : bad_at) any_bad |= b;
    if (impossible) return false; // (an index into an empty axis: the rules' cases, not the chains')
    strided& ki = c.operands.emplace_back(std::move(idx));
    const strided* ku = nullptr;
    if (kind >= 2) { // updates: the indices' shape (scatter), or the tuples' then the rest (scatter-nd)
        shape us;
        if (kind == 2) us = is;
        else {
            for (int i = 0; i + 1 < is.rank; ++i) us.push_back(is[i]);
            for (int i = static_cast<int>(is[is.rank - 1]); i < r; ++i) us.push_back(in[i]);
        }
        strided& u = c.operands.emplace_back(make_strided(g, c.chain.type(), us, false));
        fill_random(g, u.buf, c.chain.type());
        ku = &u;
    }
    const std::string name = kind == 0 ? "gather-elements" : kind == 1 ? "gather-nd" : kind == 2 ? "scatter" : "scatter-nd";
    try {
        switch (kind) {
        case 0: next = c.chain.gather_elements(ki.cview(), {axis, policy}); break;
        case 1: next = c.chain.gather_nd(ki.cview(), {0, policy}); break;
        case 2: next = c.chain.scatter(ki.cview(), ku->cview(), {.axis = axis, .policy = policy}); break;
        default: next = c.chain.scatter_nd(ki.cview(), ku->cview(), {.policy = policy}); break;
        }
    } catch (...) {
        c.operands.resize(c.operands.size() - (ku ? 2 : 1));
        throw;
    }
    what = name + " axis " + std::to_string(axis) + " indices " + str(is) + " " + type_name(it) + (policy == index_policy::clamp ? " clamp" : "");
    if (any_bad && policy == index_policy::error) { // the eager operator refuses it: the chain must too
        what += " (bad indices, error)";
        c.bad_index = true;
        return true;
    }
    switch (kind) {
    case 0: out = strix::gather_elements(c.eager.view(), ki.cview(), {axis, policy}); break;
    case 1: out = strix::gather_nd(c.eager.view(), ki.cview(), {0, policy}); break;
    case 2: out = strix::scatter(c.eager.view(), ki.cview(), ku->cview(), {.axis = axis, .policy = policy}); break;
    default: out = strix::scatter_nd(c.eager.view(), ki.cview(), ku->cview(), {.policy = policy}); break;
    }
    return true;
}

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
/// result stays small), with indices out of range under either policy one time in `bad_den`;
/// with `index_steps`, index-driven steps among them.
inline random_chain make_random_chain(rng_t& g, int steps, int bad_den = 8, bool index_steps = false) {
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
                switch (uni(g, 0, index_steps ? 5 : 3)) {
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
                case 4:
                case 5: { // index-driven
                    if (!random_index_step(g, c, next, out, what, bad_den)) continue;
                    if (c.bad_index) {
                        c.chain = next;
                        c.text += " | " + what;
                        return c;
                    }
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
                    std::map<const std::byte*, bool> bad_at; // (the last write to a broadcast slot counts)
                    for_each_coord(is, [&](const coords& cc) {
                        const bool this_bad = bad && chance(g, 1, 3);
                        bad_at[idx.at(cc)] = this_bad;
                        store_index(idx.at(cc), it, this_bad ? bad_index(g, it, n) : valid_index(g, it, n));
                    });
                    bool any_bad = false;
                    for (const auto& [at, b] : bad_at) any_bad |= b;
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
