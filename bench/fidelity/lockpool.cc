// SPDX-License-Identifier: MIT
/*
 * lockpool: a lock-heavy worker pool, a workload of bench/fidelity.sh (doc/fidelity.md). The
 * main thread is the producer: it makes tasks in batches and puts each batch into a bounded
 * std::deque under a std::mutex, waiting on a std::condition_variable while the queue has no
 * room for the batch. Four workers, worker0..worker3, take one task at a time (waiting on a
 * second condition variable while the queue is empty), hash the task's slice of a shared buffer
 * (FNV-1a, 4,000 to 40,000 bytes: 5 to 50 us of CPU on the bench machine), then add the result
 * to the pool's shared counters under a second mutex. A worker that takes the queue down to
 * room for a batch wakes the producer. Making a task costs the producer 2 to 8 us (it hashes
 * the task's first 1,600 to 6,400 bytes). At the defaults, 20,000 tasks: about 0.65 s of CPU,
 * 0.35 s on an idle 2-core machine recorded with dps record (--tasks makes it longer).
 *
 * Every task's size and place come from a generator seeded by --seed, so every run does the
 * same work; which worker takes which task differs from run to run, the digest (an XOR over
 * the tasks) does not.
 *
 * Usage: dps-fidelity-lockpool [--tasks N] [--workers W] [--batch B] [--capacity C]
 *                              [--seed S] [--work X]
 *   --tasks N     tasks in all (default 20000)
 *   --workers W   worker threads (default 4, at most 64)
 *   --batch B     tasks the producer puts at once (default 32)
 *   --capacity C  tasks the queue holds (default 128, at least B)
 *   --seed S      the generator's seed (default 1)
 *   --work X      multiplies every task's slice (default 1)
 * Prints "lockpool: tasks=N digest=D check=C busiest=B idlest=I" (the most and fewest tasks
 * one worker took) and exits 0; 1 when a thread cannot start, 2 on bad usage.
 */
#include <getopt.h>
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace
{

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

struct Task {
	size_t offset;
	size_t bytes;
};

// A bounded FIFO of tasks: the producer puts whole batches, the workers take one at a time.
class TaskQueue
{
      public:
	TaskQueue(size_t capacity, size_t batch) : capacity_(capacity), batch_(batch)
	{
	}

	void put_batch(const std::vector<Task> &batch)
	{
		std::unique_lock<std::mutex> lock(mutex_);
		has_room_.wait(lock, [&] { return items_.size() + batch.size() <= capacity_; });
		items_.insert(items_.end(), batch.begin(), batch.end());
		lock.unlock();
		has_tasks_.notify_all();
	}

	// Takes the next task into *T; false once the queue is closed and empty.
	bool take(Task *t)
	{
		std::unique_lock<std::mutex> lock(mutex_);
		has_tasks_.wait(lock, [&] { return !items_.empty() || closed_; });
		if (items_.empty()) {
			return false;
		}
		*t = items_.front();
		items_.pop_front();
		bool room = items_.size() + batch_ == capacity_;
		lock.unlock();
		if (room) {
			has_room_.notify_one();
		}
		return true;
	}

	void close()
	{
		{
			std::lock_guard<std::mutex> lock(mutex_);
			closed_ = true;
		}
		has_tasks_.notify_all();
	}

      private:
	std::mutex mutex_;
	std::condition_variable has_room_;
	std::condition_variable has_tasks_;
	std::deque<Task> items_;
	const size_t capacity_;
	const size_t batch_;
	bool closed_ = false;
};

// The pool's shared counters, under a mutex of their own.
struct Counters {
	std::mutex mutex;
	unsigned long done = 0;
	uint64_t bytes = 0;
	uint64_t digest = 0;
	unsigned long by_size[8] = {}; // tasks per eighth of the size range
	std::vector<unsigned long> by_worker;
};

struct Config {
	unsigned long tasks = 20000;
	unsigned long workers = 4;
	unsigned long batch = 32;
	unsigned long capacity = 128;
	uint64_t seed = 1;
	double work = 1.0;
};

constexpr size_t min_bytes = 4000;
constexpr size_t max_bytes = 40000;

void worker(int id, TaskQueue &queue, Counters &counters, const std::vector<unsigned char> &buf)
{
	pthread_setname_np(pthread_self(), ("worker" + std::to_string(id)).c_str());
	Task t;
	while (queue.take(&t)) {
		uint64_t h = 0xcbf29ce484222325ULL;
		size_t left = t.bytes;
		size_t at = t.offset;
		while (left > 0) { // a slice longer than the buffer goes round it
			size_t part = std::min(left, buf.size() - at);
			h = fnv1a(buf.data() + at, part, h);
			left -= part;
			at = 0;
		}
		size_t eighth =
		    (t.bytes - std::min(t.bytes, min_bytes)) * 8 / (max_bytes - min_bytes);
		std::lock_guard<std::mutex> lock(counters.mutex);
		counters.done++;
		counters.bytes += t.bytes;
		counters.digest ^= h;
		counters.by_size[std::min<size_t>(eighth, 7)]++;
		counters.by_worker[id]++;
	}
}

bool parse_count(const char *arg, unsigned long max, unsigned long *out)
{
	char *end;
	if (*arg < '0' || *arg > '9') {
		return false;
	}
	errno = 0;
	unsigned long v = std::strtoul(arg, &end, 10);
	if (errno || *end || v > max) {
		return false;
	}
	*out = v;
	return true;
}

void usage(FILE *out, const char *prog)
{
	std::fprintf(out,
		     "usage: %s [--tasks N] [--workers W] [--batch B] [--capacity C] [--seed S]\n"
		     "          [--work X]\n"
		     "  defaults: 20000 tasks of 4000-40000 bytes, 4 workers, batches of 32 into\n"
		     "  a queue of 128, seed 1, work 1\n",
		     prog);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"tasks", required_argument, nullptr, 'n'},
	    {"workers", required_argument, nullptr, 'w'},
	    {"batch", required_argument, nullptr, 'b'},
	    {"capacity", required_argument, nullptr, 'c'},
	    {"seed", required_argument, nullptr, 's'},
	    {"work", required_argument, nullptr, 'x'},
	    {"help", no_argument, nullptr, 'h'},
	    {nullptr, 0, nullptr, 0},
	};
	Config cfg;
	unsigned long seed = 1;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, nullptr)) != -1) {
		bool ok = true;
		switch (opt) {
		case 'n':
			ok = parse_count(optarg, 100000000, &cfg.tasks);
			break;
		case 'w':
			ok = parse_count(optarg, 64, &cfg.workers) && cfg.workers > 0;
			break;
		case 'b':
			ok = parse_count(optarg, 1000000, &cfg.batch) && cfg.batch > 0;
			break;
		case 'c':
			ok = parse_count(optarg, 100000000, &cfg.capacity);
			break;
		case 's':
			ok = parse_count(optarg, ~0UL, &seed);
			cfg.seed = seed;
			break;
		case 'x':
			cfg.work = std::strtod(optarg, &end);
			ok = !*end && cfg.work > 0 && cfg.work <= 1000;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
		if (!ok) {
			std::fprintf(stderr, "%s: bad value \"%s\" for an option\n", argv[0],
				     optarg);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc || cfg.capacity < cfg.batch) {
		usage(stderr, argv[0]);
		return 2;
	}

	std::vector<unsigned char> buf(buffer_bytes);
	for (size_t i = 0; i < buf.size(); i++) {
		buf[i] = static_cast<unsigned char>(mix(cfg.seed, i) >> 56);
	}
	TaskQueue queue(cfg.capacity, cfg.batch);
	Counters counters;
	counters.by_worker.assign(cfg.workers, 0);
	std::vector<std::thread> workers;
	try {
		for (unsigned long i = 0; i < cfg.workers; i++) {
			workers.emplace_back(worker, static_cast<int>(i), std::ref(queue),
					     std::ref(counters), std::cref(buf));
		}
	} catch (const std::system_error &e) {
		// The workers already started wait for tasks that would never be closed: leave.
		std::fprintf(stderr, "%s: cannot start a worker: %s\n", argv[0], e.what());
		std::_Exit(1);
	}

	// The producer: batches of tasks of pseudo-random sizes at pseudo-random places. Making a
	// task costs it a little too: it checks the task's first bytes (1,600 to 6,400 of them).
	std::vector<Task> batch;
	uint64_t check = 0;
	for (unsigned long k = 0; k < cfg.tasks; k++) {
		uint64_t r = mix(cfg.seed ^ 0x5eed, k);
		size_t bytes = min_bytes + r % (max_bytes - min_bytes + 1);
		size_t head = static_cast<size_t>((1600 + (r >> 20) % 4801) * cfg.work);
		check = fnv1a(buf.data(), std::min(head, buf.size()), check ^ k);
		batch.push_back({(r >> 32) % buffer_bytes, static_cast<size_t>(bytes * cfg.work)});
		if (batch.size() == cfg.batch || k + 1 == cfg.tasks) {
			queue.put_batch(batch);
			batch.clear();
		}
	}
	queue.close();
	for (auto &t : workers) {
		t.join();
	}
	auto [idlest, busiest] =
	    std::minmax_element(counters.by_worker.begin(), counters.by_worker.end());
	std::printf("lockpool: tasks=%lu digest=%016llx check=%016llx busiest=%lu idlest=%lu\n",
		    counters.done, static_cast<unsigned long long>(counters.digest),
		    static_cast<unsigned long long>(check), *busiest, *idlest);
	return 0;
}
