// SPDX-License-Identifier: MIT
//
// A validation program for `dps whatif --sweep misses` (bench/whatif-misses.sh): a service
// with a small cache of hot entries in front of a large table. One thread answers LOOKUPS
// queries; a query is for a cold key with probability MISS/1000 and then reads a random entry
// of a 64 MiB table (a miss to memory), else it reads one of the table's first 8 KiB, the hot
// entries (the choice a select, not a branch: mispredictions would change with MISS too). Beside it
// a second thread does COMPUTE rounds of arithmetic touching no memory, and main joins both.
// The work knob is MISS: the real program changed the way --thread-cache-scale changes a
// stub, the same queries with a share of them going to memory, so its lookup thread's
// misses scale with MISS and its accesses stay.
//
// Written as such code is (std::thread, std::vector, a xorshift generator), not the way dps
// plays best.
//
// usage: hitrate MISS LOOKUPS COMPUTE
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace
{

constexpr std::size_t kEntries = std::size_t{1} << 23; // 64 MiB of uint64_t
constexpr std::size_t kHotEntries = 1024;	       // its first 8 KiB: the hot ones

std::uint64_t next(std::uint64_t &s)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

std::uint64_t serve(const std::vector<std::uint64_t> &table, unsigned miss_permille,
		    std::uint64_t lookups)
{
	std::uint64_t s = 0x9e3779b97f4a7c15u, sum = 0;

	for (std::uint64_t i = 0; i < lookups; i++) {
		std::uint64_t key = next(s);
		// the hot entries are the table's first ones; a cold key is anywhere in it (the
		// mask made without a branch)
		std::uint64_t cold = key % 1000 < miss_permille;
		std::uint64_t mask = (kHotEntries - 1) | (-cold & (kEntries - 1));

		sum += table[(key >> 10) & mask];
	}
	return sum;
}

std::uint64_t compute(std::uint64_t rounds)
{
	std::uint64_t a = 1, b = 3;

	for (std::uint64_t i = 0; i < rounds; i++) {
		a = a * 6364136223846793005u + b;
		b ^= a >> 29;
	}
	return a ^ b;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: %s MISS LOOKUPS COMPUTE\n", argv[0]);
		return 2;
	}
	unsigned miss = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));
	std::uint64_t lookups = std::strtoull(argv[2], nullptr, 10);
	std::uint64_t rounds = std::strtoull(argv[3], nullptr, 10);
	if (miss > 1000) {
		std::fprintf(stderr, "%s: MISS is per mille, 0 to 1000\n", argv[0]);
		return 2;
	}

	std::vector<std::uint64_t> table(kEntries);
	for (std::size_t i = 0; i < table.size(); i++) {
		table[i] = i * 2654435761u;
	}

	std::uint64_t served = 0, computed = 0;
	std::thread lookup([&] {
		pthread_setname_np(pthread_self(), "lookup");
		served = serve(table, miss, lookups);
	});
	std::thread other([&] {
		pthread_setname_np(pthread_self(), "compute");
		computed = compute(rounds);
	});
	lookup.join();
	other.join();
	// the results are used, so the work is not optimized away
	return (served ^ computed) == 42 ? 3 : 0;
}
