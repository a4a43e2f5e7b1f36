// A small pool for the harness's batch runs: f(i) for every i < n on `threads` threads (the
// caller's among them), each index once, in no fixed order. f must not throw: workers collect
// their own errors (an exception leaving a std::thread ends the program).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace vramlab {

template <class F> void parallel_for_each(size_t n, unsigned threads, F &&f)
{
	std::atomic<size_t> next{0};
	auto work = [&] {
		for (size_t i; (i = next++) < n;)
			f(i);
	};
	std::vector<std::thread> pool;
	for (unsigned t = 1; t < std::min<size_t>(threads, n); t++)
		pool.emplace_back(work);
	work();
	for (auto &th : pool)
		th.join();
}

} // namespace vramlab
