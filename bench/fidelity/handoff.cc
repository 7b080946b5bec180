// SPDX-License-Identifier: MIT
/*
 * handoff: thousands of short condition-variable hand-offs, a workload of bench/fidelity.sh
 * (doc/fidelity.md). Three threads, ring0..ring2, pass a token around a ring: each waits on its
 * own std::condition_variable until the token is its, hashes a slice of a shared buffer (FNV-1a,
 * 4,000 to 16,000 bytes: 5 to 20 us of CPU on the bench machine), then hands the token to the
 * next thread and waits for it to come round again. Beside the ring, a fourth thread, napper,
 * hashes 4,000 to 20,000 bytes, then naps for 20 to 100 us (std::this_thread::sleep_for), over
 * and over. At the defaults, 15,000 hand-offs and 5,000 naps take about a second on a 2-core
 * machine, the ring on one core, the napper on the other.
 *
 * Every slice's size and place and every nap's length come from a generator seeded by --seed,
 * so every run does the same work; only the timing differs from run to run.
 *
 * Usage: dps-fidelity-handoff [--handoffs N] [--naps N] [--seed S] [--work X]
 *   --handoffs N  token passes in all, shared by the three ring threads (default 15000)
 *   --naps N      the napper's naps (default 5000)
 *   --seed S      the generator's seed (default 1)
 *   --work X      multiplies every slice hashed, ring and napper alike (default 1)
 * Prints "handoff: handoffs=N naps=M digest=D" (D depends only on the seed and the counts)
 * and exits 0; 1 when a thread cannot start, 2 on bad usage.
 */
#include <getopt.h>
#include <pthread.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace
{

constexpr int ring_size = 3;
constexpr size_t buffer_bytes = 1 << 16;

// splitmix64: the k-th value of the stream SEED, the same on every run.
uint64_t mix(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (k + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// FNV-1a over N bytes: one multiply per byte in a dependent chain, so the loop's time is
// proportional to N and no compiler can vectorize it away.
uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct Config {
	unsigned long handoffs = 15000;
	unsigned long naps = 5000;
	uint64_t seed = 1;
	double work = 1.0;
};

class Workload
{
      public:
	explicit Workload(const Config &cfg) : cfg_(cfg), buffer_(buffer_bytes)
	{
		for (size_t i = 0; i < buffer_bytes; i++) {
			buffer_[i] = static_cast<unsigned char>(mix(cfg.seed, i) >> 56);
		}
	}

	// Thread ME of the ring: hand-off k is done by thread k % ring_size.
	void ring(int me)
	{
		pthread_setname_np(pthread_self(), ("ring" + std::to_string(me)).c_str());
		uint64_t digest = 0;
		std::unique_lock<std::mutex> lock(mutex_);
		for (;;) {
			turn_[me].wait(lock, [&] {
				return next_ >= cfg_.handoffs || next_ % ring_size == unsigned(me);
			});
			if (next_ >= cfg_.handoffs) {
				break;
			}
			unsigned long k = next_;
			lock.unlock();
			digest ^= slice(1000 + k, 4000, 16000);
			lock.lock();
			next_ = k + 1;
			lock.unlock();
			turn_[(me + 1) % ring_size].notify_one();
			lock.lock();
		}
		ring_digest_ ^= digest;
		lock.unlock();
		// The end: whoever sees it first wakes the others so they see it too.
		for (auto &cv : turn_) {
			cv.notify_one();
		}
	}

	void napper()
	{
		pthread_setname_np(pthread_self(), "napper");
		uint64_t digest = 0;
		for (unsigned long k = 0; k < cfg_.naps; k++) {
			digest ^= slice((1ULL << 40) + k, 4000, 20000);
			auto nap = std::chrono::microseconds(20 + mix(cfg_.seed ^ 0xa5, k) % 81);
			std::this_thread::sleep_for(nap);
		}
		std::lock_guard<std::mutex> lock(mutex_);
		nap_digest_ = digest;
	}

	uint64_t digest() const
	{
		return ring_digest_ ^ nap_digest_;
	}

      private:
	// Hashes the K-th slice: between MIN and MAX bytes (times --work) at a place of its own.
	uint64_t slice(uint64_t k, size_t min, size_t max) const
	{
		uint64_t r = mix(cfg_.seed, k);
		size_t n = static_cast<size_t>((min + r % (max - min + 1)) * cfg_.work);
		uint64_t h = 0xcbf29ce484222325ULL;
		// A slice longer than the buffer goes round it.
		while (n > 0) {
			size_t at = (r >> 32) % (buffer_bytes / 2);
			size_t part = n < buffer_bytes - at ? n : buffer_bytes - at;
			h = fnv1a(buffer_.data() + at, part, h);
			n -= part;
			r = mix(r, n);
		}
		return h;
	}

	const Config cfg_;
	std::vector<unsigned char> buffer_;
	std::mutex mutex_;
	std::condition_variable turn_[ring_size];
	unsigned long next_ = 0; // the next hand-off; the token is with thread next_ % ring_size
	uint64_t ring_digest_ = 0;
	uint64_t nap_digest_ = 0;
};

bool parse_count(const char *arg, unsigned long *out)
{
	char *end;
	if (*arg < '0' || *arg > '9') {
		return false;
	}
	errno = 0;
	unsigned long v = std::strtoul(arg, &end, 10);
	if (errno || *end || v > 100000000) {
		return false;
	}
	*out = v;
	return true;
}

void usage(FILE *out, const char *prog)
{
	std::fprintf(out,
		     "usage: %s [--handoffs N] [--naps N] [--seed S] [--work X]\n"
		     "  defaults: 15000 hand-offs around a ring of 3 threads, 5000 naps, seed 1,\n"
		     "  work 1 (slices of 4000-16000 bytes in the ring, 4000-20000 between naps)\n",
		     prog);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"handoffs", required_argument, nullptr, 'n'},
	    {"naps", required_argument, nullptr, 'p'},
	    {"seed", required_argument, nullptr, 's'},
	    {"work", required_argument, nullptr, 'w'},
	    {"help", no_argument, nullptr, 'h'},
	    {nullptr, 0, nullptr, 0},
	};
	Config cfg;
	unsigned long seed = 1;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, nullptr)) != -1) {
		switch (opt) {
		case 'n':
			if (!parse_count(optarg, &cfg.handoffs)) {
				std::fprintf(stderr, "%s: --handoffs wants a count\n", argv[0]);
				return 2;
			}
			break;
		case 'p':
			if (!parse_count(optarg, &cfg.naps)) {
				std::fprintf(stderr, "%s: --naps wants a count\n", argv[0]);
				return 2;
			}
			break;
		case 's':
			if (!parse_count(optarg, &seed)) {
				std::fprintf(stderr, "%s: --seed wants a number\n", argv[0]);
				return 2;
			}
			cfg.seed = seed;
			break;
		case 'w':
			cfg.work = std::strtod(optarg, &end);
			if (*end || !(cfg.work > 0 && cfg.work <= 1000)) {
				std::fprintf(stderr, "%s: --work wants a factor in (0, 1000]\n",
					     argv[0]);
				return 2;
			}
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, argv[0]);
		return 2;
	}

	Workload w(cfg);
	std::vector<std::thread> threads;
	try {
		for (int i = 0; i < ring_size; i++) {
			threads.emplace_back(&Workload::ring, &w, i);
		}
		threads.emplace_back(&Workload::napper, &w);
	} catch (const std::system_error &e) {
		// The ring cannot turn without all its threads: give up at once.
		std::fprintf(stderr, "%s: cannot start a thread: %s\n", argv[0], e.what());
		std::_Exit(1);
	}
	for (auto &t : threads) {
		t.join();
	}
	std::printf("handoff: handoffs=%lu naps=%lu digest=%016llx\n", cfg.handoffs, cfg.naps,
		    static_cast<unsigned long long>(w.digest()));
	return 0;
}
