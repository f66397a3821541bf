package cudahost

// LanesPrelude is prepended to the kernel source by BuildLanes: the CUDA qualifiers as in
// Prelude, and warps of CUDAHOST_WARP lanes (a macro the kernel may read; BuildLanes sets it)
// emulated with fibers, so that ballots, shuffles, __syncwarp and the atomics between lanes and
// warps run as on the device, one lane at a time, switching at each of those calls; see the
// comment in the text for what it reports. Kernels that define their own one-lane stand-ins
// under CUDAHOST should skip them when CUDAHOST_WARP is defined.
const LanesPrelude = preludeHead + `#include <cstring>
#include <functional>
#include <memory>
#include <ucontext.h>
#if defined(__SANITIZE_THREAD__)
#define CUDAHOST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CUDAHOST_TSAN 1
#endif
#endif
#ifdef CUDAHOST_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifndef CUDAHOST_WARP
#define CUDAHOST_WARP 32
#endif
static const int warpSize = CUDAHOST_WARP;
// Lanes: every thread of the grid is a fiber (ucontext) on one host thread. A fiber runs until it
// reaches a warp-collective call (__syncwarp, __ballot_sync, __any_sync, __all_sync, __shfl*_sync),
// __syncthreads or an atomic, then another fiber runs: in turn, or picked at random when the
// environment sets CUDAHOST_SEED. A collective completes when every lane its mask names has
// reached it; lanes of the mask that exited or do not exist, lanes at another collective or with
// another mask, a mask without the caller's lane, a shuffle from a lane outside the mask, and a
// grid where no fiber can run are reported (exit status 3) with the kernel's line numbers.
// Under ThreadSanitizer (BuildLanesRaces) every fiber is a TSan fiber, switched without
// synchronisation; only __syncwarp, __syncthreads and the launch's start and end order memory
// (not ballots or shuffles, as in CUDA's memory model), and atomics are relaxed atomics, so that
// TSan reports lanes and warps that touch the same word without such an order.
namespace cudahost {
#ifdef CUDAHOST_TSAN
// The emulator's own bookkeeping is not checked: its fibers switch without synchronisation.
#define CUDAHOST_UNCHECKED __attribute__((no_sanitize("thread")))
static void* tsanSched = nullptr;     // the scheduler's TSan fiber
static std::vector<void*> tsanFibers;  // the lanes' TSan fibers, kept from launch to launch
// (A switch inside a checked function would enter it on one fiber and leave it on another.)
CUDAHOST_UNCHECKED static void toFiber(void* f) { __tsan_switch_to_fiber(f, __tsan_switch_to_fiber_no_sync); }
CUDAHOST_UNCHECKED static void release(const void* a) { __tsan_release(const_cast<void*>(a)); }
CUDAHOST_UNCHECKED static void acquire(const void* a) { __tsan_acquire(const_cast<void*>(a)); }
#else
#define CUDAHOST_UNCHECKED
static void release(const void*) {}
static void acquire(const void*) {}
#endif
enum Op { SYNCWARP, BALLOT, ANY, ALL, SHFL, SHFL_XOR, SHFL_DOWN, SHFL_UP, SYNCTHREADS };
static const char* const opNames[] = {"__syncwarp", "__ballot_sync", "__any_sync", "__all_sync", "__shfl_sync",
                                      "__shfl_xor_sync", "__shfl_down_sync", "__shfl_up_sync", "__syncthreads"};
struct Fiber {
    ucontext_t ctx;
    std::unique_ptr<char[]> stack;
    unsigned block = 0, tid = 0;
    bool done = false, waiting = false;
    int op = 0, line = 0, arg = 0, width = CUDAHOST_WARP;
    unsigned mask = 0;
    uint64_t val = 0, result = 0;
};
static std::vector<Fiber>* fibers = nullptr;
static ucontext_t sched;
static int cur = -1;
static std::function<void()> body;
static uint64_t rng = 0;
static const unsigned W = CUDAHOST_WARP;
#ifdef CUDAHOST_TSAN
static const size_t stackBytes = 1 << 20;  // a fiber's stack (TSan's reports take more)
#else
static const size_t stackBytes = 256 << 10;  // a fiber's stack
#endif
static const unsigned laneBits = W >= 32 ? 0xffffffffu : (1u << W) - 1;
CUDAHOST_UNCHECKED static void fail(const char* what, const Fiber& f) {
    fprintf(stderr, "cudahost: block %u thread %u (lane %u): %s\n", f.block, f.tid, f.tid % W, what);
    exit(3);
}
// yield lets the scheduler pick the next fiber (outside a launch of fibers it does nothing).
CUDAHOST_UNCHECKED static void yield() {
    if (fibers == nullptr || cur < 0) return;
    ucontext_t* from = &(*fibers)[cur].ctx;  // (read on this fiber)
#ifdef CUDAHOST_TSAN
    toFiber(tsanSched);
#endif
    swapcontext(from, &sched);
}
CUDAHOST_UNCHECKED static void describe(char* s, size_t n, const Fiber& f) {
    snprintf(s, n, "%s (line %d, mask %#x)", opNames[f.op], f.line, f.mask);
}
// complete releases the group that fiber i waits with, when all of it is there.
CUDAHOST_UNCHECKED static void complete(int i) {
    std::vector<Fiber>& fs = *fibers;
    Fiber& f = fs[i];
    char a[160], b[160], msg[400];
    const unsigned B = blockDim.x;
    if (f.op == SYNCTHREADS) {
        const int base = (int)(f.block * B);
        for (unsigned t = 0; t < B; t++) {
            const Fiber& g = fs[base + t];
            if (g.done) continue;
            if (!g.waiting) return;
            if (g.op != SYNCTHREADS) {
                describe(a, sizeof a, g);
                snprintf(msg, sizeof msg, "at __syncthreads (line %d) while thread %u waits at %s", f.line, g.tid, a);
                fail(msg, f);
            }
        }
        for (unsigned t = 0; t < B; t++) fs[base + t].waiting = false;
        return;
    }
    const unsigned wbase = f.tid / W * W;
    const int base = (int)(f.block * B + wbase);
    for (unsigned l = 0; l < W; l++) {
        if (!(f.mask >> l & 1)) continue;
        if (wbase + l >= B) {
            describe(a, sizeof a, f);
            snprintf(msg, sizeof msg, "%s names lane %u, which does not exist (blockDim %u)", a, l, B);
            fail(msg, f);
        }
        const Fiber& g = fs[base + l];
        if (g.done) {
            describe(a, sizeof a, f);
            snprintf(msg, sizeof msg, "%s names lane %u, which has exited", a, l);
            fail(msg, f);
        }
        if (!g.waiting) return;
        if (g.op != f.op || g.mask != f.mask || (g.op != SYNCWARP && g.line != f.line)) {
            describe(a, sizeof a, f);
            describe(b, sizeof b, g);
            snprintf(msg, sizeof msg, "diverged: at %s while lane %u is at %s", a, l, b);
            fail(msg, f);
        }
    }
    for (unsigned l = 0; l < W; l++) {
        if (!(f.mask >> l & 1)) continue;
        Fiber& g = fs[base + l];
        const unsigned lane = l;
        uint64_t r = 0;
        int src = -1;
        const unsigned w = (unsigned)g.width, sec = lane / w * w;
        switch (g.op) {
        case SYNCWARP: break;
        case BALLOT: case ANY: case ALL: {
            unsigned bits = 0;
            for (unsigned k = 0; k < W; k++)
                if ((f.mask >> k & 1) && fs[base + k].val != 0) bits |= 1u << k;
            r = g.op == BALLOT ? bits : g.op == ANY ? bits != 0 : bits == f.mask;
            break;
        }
        case SHFL: src = (int)(sec + (unsigned)g.arg % w); break;
        case SHFL_XOR: src = (int)(lane ^ (unsigned)g.arg); if ((unsigned)src / w > lane / w) src = (int)lane; break;
        case SHFL_DOWN: src = lane % w + g.arg < w ? (int)(lane + g.arg) : (int)lane; break;
        case SHFL_UP: src = (int)(lane % w) >= g.arg ? (int)lane - g.arg : (int)lane; break;
        }
        if (src >= 0) {
            if ((unsigned)src >= W || !(f.mask >> src & 1)) {
                describe(a, sizeof a, g);
                snprintf(msg, sizeof msg, "%s reads lane %d, outside its mask", a, src);
                fail(msg, g);
            }
            r = fs[base + src].val;
        }
        g.result = r;
    }
    for (unsigned l = 0; l < W; l++)
        if (f.mask >> l & 1) fs[base + l].waiting = false;
}
// collective is fiber cur's warp-collective call (or __syncthreads).
CUDAHOST_UNCHECKED static uint64_t collective(int op, int line, unsigned mask, uint64_t val, int arg = 0, int width = CUDAHOST_WARP) {
    if (fibers == nullptr || cur < 0) {
        fprintf(stderr, "cudahost: %s (line %d) outside a launch of lanes (use Launch)\n", opNames[op], line);
        exit(3);
    }
    Fiber& f = (*fibers)[cur];
    if (op != SYNCTHREADS) {
        mask &= laneBits;
        if (!(mask >> (f.tid % W) & 1)) {
            char a[200];
            snprintf(a, sizeof a, "%s (line %d) with mask %#x, which does not name the caller", opNames[op], line, mask);
            fail(a, f);
        }
        if (width <= 0 || (width & (width - 1)) != 0 || width > (int)W) {
            char a[200];
            snprintf(a, sizeof a, "%s (line %d) with width %d", opNames[op], line, width);
            fail(a, f);
        }
    }
    // Barriers order memory: each arrival releases on the group's address, each departure
    // acquires it.
    // (The block's address is its first warp's, one byte on.)
    const void* order = op == SYNCTHREADS ? (const void*)((const char*)&(*fibers)[cur - (int)f.tid] + 1)
                        : op == SYNCWARP  ? (const void*)&(*fibers)[cur - (int)(f.tid % W)]
                                          : nullptr;
    if (order != nullptr) release(order);
    f.waiting = true, f.op = op, f.line = line, f.mask = mask, f.val = val, f.arg = arg, f.width = width;
    complete(cur);
    while (f.waiting) yield();
    if (order != nullptr) acquire(order);
    yield();
    return f.result;
}
CUDAHOST_UNCHECKED static void trampoline(int i) {
    acquire(&fibers);  // the launch's start (the main's writes)
    body();
    std::vector<Fiber>& fs = *fibers;
    fs[i].done = true;
    // A lane that exits while its warp waits for it at a collective; a block waiting at
    // __syncthreads goes on without it.
    for (size_t k = 0; k < fs.size(); k++) {
        Fiber& g = fs[k];
        if (!g.waiting || g.block != fs[i].block) continue;
        if (g.op == SYNCTHREADS) {
            complete((int)k);
        } else if (g.tid / W == fs[i].tid / W && (g.mask >> (fs[i].tid % W) & 1)) {
            char a[160], msg[300];
            describe(a, sizeof a, g);
            snprintf(msg, sizeof msg, "exited while lane %u waits for it at %s", g.tid % W, a);
            fail(msg, fs[i]);
        }
    }
    ucontext_t* from = &fs[i].ctx;
    release(&body);  // the launch's end
#ifdef CUDAHOST_TSAN
    toFiber(tsanSched);
#endif
    swapcontext(from, &sched);
}
// launch runs k on a grid of G blocks of B threads, every thread a fiber.
CUDAHOST_UNCHECKED static void launch(unsigned G, unsigned B, std::function<void()> k) {
    std::vector<Fiber> fs(G * B);
    fibers = &fs, body = std::move(k);
    gridDim.x = G, blockDim.x = B;
    if (const char* s = getenv("CUDAHOST_SEED")) rng = strtoull(s, nullptr, 10);
    for (unsigned i = 0; i < G * B; i++) {
        Fiber& f = fs[i];
        f.block = i / B, f.tid = i % B;
        f.stack.reset(new char[stackBytes]);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.get();
        f.ctx.uc_stack.ss_size = stackBytes;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, (void (*)())trampoline, 1, (int)i);
    }
#ifdef CUDAHOST_TSAN
    tsanSched = __tsan_get_current_fiber();
    while (tsanFibers.size() < fs.size()) tsanFibers.push_back(__tsan_create_fiber(0));
#endif
    release(&fibers);
    const int n = (int)fs.size();
    int last = n - 1;
    for (;;) {
        int pick = -1, waiting = 0;
        const int start = rng != 0 ? (int)((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33) % n : (last + 1) % n;
        for (int k = 0; k < n && pick < 0; k++) {
            const Fiber& f = fs[(start + k) % n];
            if (!f.done && !f.waiting) pick = (start + k) % n;
        }
        if (pick < 0) {
            for (const Fiber& f : fs) {
                if (f.waiting) {
                    char a[160];
                    describe(a, sizeof a, f);
                    fprintf(stderr, "cudahost: block %u thread %u waits at %s\n", f.block, f.tid, a);
                    waiting++;
                }
            }
            if (waiting == 0) break;
            fprintf(stderr, "cudahost: deadlock: %d threads wait and none can run\n", waiting);
            exit(3);
        }
        cur = last = pick;
        threadIdx.x = fs[pick].tid, blockIdx.x = fs[pick].block;
        ucontext_t* to = &fs[pick].ctx;  // (read on the scheduler's fiber)
#ifdef CUDAHOST_TSAN
        toFiber(tsanFibers[pick]);
#endif
        swapcontext(&sched, to);
        cur = -1;
    }
    acquire(&body);
    fibers = nullptr;
}
template <class T> uint64_t bits(T x) {
    static_assert(sizeof(T) <= 8, "shuffles of at most 8 bytes");
    uint64_t u = 0;
    memcpy(&u, &x, sizeof x);
    return u;
}
template <class T> T unbits(uint64_t u) {
    T x;
    memcpy(&x, &u, sizeof x);
    return x;
}
template <class T> T shfl(int op, int line, unsigned mask, T x, int arg, int width = CUDAHOST_WARP) {
    return unbits<T>(collective(op, line, mask, bits(x), arg, width));
}
}  // namespace cudahost
#define __syncthreads() ((void)cudahost::collective(cudahost::SYNCTHREADS, __LINE__, 0, 0))
#define __syncwarp(...) ((void)cudahost::collective(cudahost::SYNCWARP, __LINE__, cudahost_mask(__VA_ARGS__), 0))
inline unsigned cudahost_mask(unsigned m = 0xffffffffu) { return m; }
#define __ballot_sync(m, p) ((unsigned)cudahost::collective(cudahost::BALLOT, __LINE__, (m), (p) ? 1 : 0))
#define __any_sync(m, p) ((int)cudahost::collective(cudahost::ANY, __LINE__, (m), (p) ? 1 : 0))
#define __all_sync(m, p) ((int)cudahost::collective(cudahost::ALL, __LINE__, (m), (p) ? 1 : 0))
#define __shfl_sync(m, x, ...) cudahost::shfl(cudahost::SHFL, __LINE__, (m), (x), __VA_ARGS__)
#define __shfl_xor_sync(m, x, ...) cudahost::shfl(cudahost::SHFL_XOR, __LINE__, (m), (x), __VA_ARGS__)
#define __shfl_down_sync(m, x, ...) cudahost::shfl(cudahost::SHFL_DOWN, __LINE__, (m), (x), __VA_ARGS__)
#define __shfl_up_sync(m, x, ...) cudahost::shfl(cudahost::SHFL_UP, __LINE__, (m), (x), __VA_ARGS__)
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline int __ffs(unsigned x) { return __builtin_ffs(x); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
// Atomics are relaxed atomic read-modify-writes after a switch of fibers.
#define CUDAHOST_RLX __ATOMIC_RELAXED
template <class T> T atomicAdd(T* p, T v) { cudahost::yield(); return __atomic_fetch_add(p, v, CUDAHOST_RLX); }
template <class T> T atomicSub(T* p, T v) { cudahost::yield(); return __atomic_fetch_sub(p, v, CUDAHOST_RLX); }
template <class T> T atomicOr(T* p, T v) { cudahost::yield(); return __atomic_fetch_or(p, v, CUDAHOST_RLX); }
template <class T> T atomicAnd(T* p, T v) { cudahost::yield(); return __atomic_fetch_and(p, v, CUDAHOST_RLX); }
template <class T> T atomicMax(T* p, T v) {
    cudahost::yield();
    T o = __atomic_load_n(p, CUDAHOST_RLX);
    while (v > o && !__atomic_compare_exchange_n(p, &o, v, false, CUDAHOST_RLX, CUDAHOST_RLX)) {}
    return o;
}
template <class T> T atomicMin(T* p, T v) {
    cudahost::yield();
    T o = __atomic_load_n(p, CUDAHOST_RLX);
    while (v < o && !__atomic_compare_exchange_n(p, &o, v, false, CUDAHOST_RLX, CUDAHOST_RLX)) {}
    return o;
}
template <class T> T atomicExch(T* p, T v) { cudahost::yield(); return __atomic_exchange_n(p, v, CUDAHOST_RLX); }
template <class T> T atomicCAS(T* p, T cmp, T v) {
    cudahost::yield();
    __atomic_compare_exchange_n(p, &cmp, v, false, CUDAHOST_RLX, CUDAHOST_RLX);
    return cmp;
}
// cudahost_vload reads a word that other threads change atomically (a kernel's volatile read).
template <class T> T cudahost_vload(const T* p) { return __atomic_load_n(p, CUDAHOST_RLX); }
inline void __threadfence() { cudahost::yield(); }
// Launch runs KERNEL(args...) on a grid of G blocks of B threads, every thread a fiber.
#define Launch(G, B, KERNEL, ...) cudahost::launch((G), (B), [&] { KERNEL(__VA_ARGS__); })
` + preludeRead
