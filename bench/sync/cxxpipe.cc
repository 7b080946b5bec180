// SPDX-License-Identifier: MIT
/*
 * A three-stage pipeline in C++17 (bench/whatif-sync.sh, program "cxxpipe"): std::thread
 * stages linked by a bounded queue of std::deque under a std::mutex and two
 * std::condition_variable (the textbook C++ shape; libstdc++ builds them on pthread mutexes
 * and condition variables). Stage 1 makes ITEMS items, stage 2 transforms them, stage 3 sums
 * them; each spends its work per item before passing the item on. At the defaults stage 1
 * sets the pace (three threads on two cores: while stage 2 is fast, the two cores keep up
 * with stage 1); made slower, stage 2 first shares the cores with the others, then is the
 * pipeline's bottleneck on its own.
 *
 * Usage: dps-sync-cxxpipe [--items N] [--capacity C] [--work W1,W2,W3] [--scale STAGE=S]...
 *                         [--unit ITERATIONS]
 * Prints "sync-cxxpipe: items=N sum=S annot=dps|none" and exits 0; 1 when a thread cannot
 * start, 2 on bad usage. Threads are named stage1, stage2, stage3.
 */
#include "annot.h"
#include "common.h"

#include <getopt.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

namespace
{

constexpr int stages = 3;

// A bounded FIFO: put blocks while full, take while empty; nullopt is the end of the stream.
// Annotated for dps right after each real put and take, still under the lock, so a take's
// dps_consume never comes before the dps_produce of its item.
class BoundedQueue
{
      public:
	explicit BoundedQueue(size_t capacity) : capacity_(capacity)
	{
		dps_queue_init(this, static_cast<unsigned>(capacity));
	}

	void put(std::optional<long> item)
	{
		std::unique_lock<std::mutex> lock(mutex_);
		not_full_.wait(lock, [this] { return items_.size() < capacity_; });
		items_.push_back(item);
		dps_produce(this);
		not_empty_.notify_one();
	}

	std::optional<long> take()
	{
		std::unique_lock<std::mutex> lock(mutex_);
		not_empty_.wait(lock, [this] { return !items_.empty(); });
		std::optional<long> item = items_.front();
		items_.pop_front();
		dps_consume(this);
		not_full_.notify_one();
		return item;
	}

      private:
	std::mutex mutex_;
	std::condition_variable not_full_;
	std::condition_variable not_empty_;
	std::deque<std::optional<long>> items_;
	size_t capacity_;
};

struct Pipeline {
	sb_common common;
	unsigned long items = 300;
	double work[stages + 1] = {0, 1.0, 0.8, 0.1}; // units per item, by stage number 1..3
	long sum = 0;				      // stage 3's sum of the items
};

void run_stage(Pipeline &p, int number, BoundedQueue *in, BoundedQueue *out)
{
	double units = p.work[number] * p.common.scale[number];

	sb_name_thread(("stage" + std::to_string(number)).c_str());
	if (!in) {
		for (unsigned long i = 0; i < p.items; i++) {
			sb_work(&p.common, units);
			out->put(static_cast<long>(i));
		}
		out->put(std::nullopt);
		return;
	}
	while (std::optional<long> item = in->take()) {
		sb_work(&p.common, units);
		if (out) {
			out->put(item);
		} else {
			p.sum += *item;
		}
	}
	if (out) {
		out->put(std::nullopt);
	}
}

// Starts stage NUMBER; exits 1 when it cannot: the stages already started would block forever
// without it (and a joinable std::thread must not be destroyed).
std::thread start_stage(Pipeline &p, int number, BoundedQueue *in, BoundedQueue *out)
{
	try {
		return std::thread(run_stage, std::ref(p), number, in, out);
	} catch (const std::system_error &e) {
		std::fprintf(stderr, "%s: cannot start stage %d: %s\n", p.common.prog, number,
			     e.what());
		std::_Exit(1);
	}
}

void usage(FILE *out, const char *prog)
{
	std::fprintf(out,
		     "usage: %s [--items N] [--capacity C] [--work W1,W2,W3] [--scale STAGE=S]...\n"
		     "          [--unit ITERATIONS]\n"
		     "  defaults: 300 items, capacity 4, work 1,0.8,0.1 units per item, scale 1,\n"
		     "  a unit of 1000000 loop iterations\n",
		     prog);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"items", required_argument, nullptr, 'n'},
	    {"capacity", required_argument, nullptr, 'c'},
	    {"work", required_argument, nullptr, 'w'},
	    {"scale", required_argument, nullptr, 's'},
	    {"unit", required_argument, nullptr, 'u'},
	    {"help", no_argument, nullptr, 'h'},
	    {nullptr, 0, nullptr, 0},
	};
	Pipeline p;
	unsigned long capacity = 4;
	int opt;

	sb_common_init(&p.common, argv[0]);
	while ((opt = getopt_long(argc, argv, "h", opts, nullptr)) != -1) {
		switch (opt) {
		case 'n':
			if (sb_parse_count(optarg, 100000000, &p.items)) {
				std::fprintf(stderr, "%s: --items wants a positive count\n",
					     p.common.prog);
				return 2;
			}
			break;
		case 'c':
			if (sb_parse_count(optarg, 1000000, &capacity)) {
				std::fprintf(stderr, "%s: --capacity wants a positive count\n",
					     p.common.prog);
				return 2;
			}
			break;
		case 'w':
			if (sb_parse_list(optarg, p.work + 1, stages) != stages) {
				std::fprintf(
				    stderr, "%s: --work wants W1,W2,W3 (units, >= 0), not \"%s\"\n",
				    p.common.prog, optarg);
				return 2;
			}
			break;
		case 's':
		case 'u':
			if (sb_common_option(&p.common, opt, optarg)) {
				return 2;
			}
			break;
		case 'h':
			usage(stdout, p.common.prog);
			return 0;
		default:
			usage(stderr, p.common.prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, p.common.prog);
		return 2;
	}
	BoundedQueue first(capacity);
	BoundedQueue second(capacity);
	std::thread s1 = start_stage(p, 1, nullptr, &first);
	std::thread s2 = start_stage(p, 2, &first, &second);
	std::thread s3 = start_stage(p, 3, &second, nullptr);

	s1.join();
	s2.join();
	s3.join();
	std::printf("sync-cxxpipe: items=%lu sum=%ld annot=%s\n", p.items, p.sum,
		    SYNC_BENCH_ANNOT_NAME);
	return 0;
}
