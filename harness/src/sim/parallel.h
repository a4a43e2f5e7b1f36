// A small pool for the harness's batch runs: f(i) for every i < n on `threads` threads (the
// caller's among them), each index once, in no fixed order. f must not throw: workers collect
// their own errors (an exception leaving a std::thread ends the program).
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
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

// A queue of tasks that add tasks (a pipeline without barriers): run() works it on `threads`
// threads (the caller's among them) until it is empty and no task is running. A task goes to
// the back, or to the front to run next. Tasks must not throw, as above.
class TaskQueue {
public:
	void push(std::function<void()> f, bool front = false)
	{
		std::lock_guard g(mu_);
		if (front)
			q_.push_front(std::move(f));
		else
			q_.push_back(std::move(f));
		cv_.notify_one();
	}
	void run(unsigned threads)
	{
		auto work = [this] {
			std::unique_lock l(mu_);
			for (;;) {
				cv_.wait(l, [this] { return !q_.empty() || busy_ == 0; });
				if (q_.empty()) { // and nothing running that could add more
					cv_.notify_all();
					return;
				}
				std::function<void()> f = std::move(q_.front());
				q_.pop_front();
				busy_++;
				l.unlock();
				f();
				f = nullptr; // what it holds goes before the next task, not after
				l.lock();
				busy_--;
				if (busy_ == 0 && q_.empty())
					cv_.notify_all();
			}
		};
		std::vector<std::thread> pool;
		for (unsigned t = 1; t < threads; t++)
			pool.emplace_back(work);
		work();
		for (auto &th : pool)
			th.join();
	}

private:
	std::mutex mu_;
	std::condition_variable cv_;
	std::deque<std::function<void()>> q_;
	unsigned busy_ = 0;
};

} // namespace vramlab
