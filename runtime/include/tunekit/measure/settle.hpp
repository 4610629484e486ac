// A settled machine before a candidate is timed: the thread pools of the
// libraries timed before it (OpenMP's, OpenBLAS's, BLIS's) keep spinning for
// a while after their last call (libgomp a few milliseconds, OpenBLAS about
// a tenth of a second) and take the cores the next candidate's threads
// need. settle_threads() waits until every other thread of this process is
// asleep, read from the kernel's own account of each thread's state
// (/proc/self/task/<tid>/stat on Linux), so that no candidate pays for the
// one measured before it.
#pragma once

#include <string>

namespace tunekit::measure {

struct SettleOptions {
  // Gives up after this long: a pool told to spin forever (OMP_WAIT_POLICY=
  // active) or an application thread at work never sleeps. 0 checks once.
  double timeout_ms = 250.0;
  // Sleep between two looks, which also leaves the cores to the spinners.
  double poll_interval_ms = 0.2;
};

struct SettleReport {
  bool supported = false;  // the thread states could be read (Linux); otherwise nothing was waited for
  bool settled = false;    // every other thread was asleep at the last look (true when unsupported)
  double waited_ms = 0.0;  // from the first look to the last
  int busy_at_start = 0;   // other threads runnable at the first look
  int busy_at_end = 0;     // ... and at the last one (0 when settled)
  int threads = 0;         // this process's threads at the last look, the caller included
};

// The number of this process's threads other than the caller that are
// runnable (state R) now, or -1 when the states cannot be read.
int busy_other_threads();

// Polls busy_other_threads() until it is 0 or the timeout has passed.
// Never throws; an unreadable /proc gives supported = false.
SettleReport settle_threads(const SettleOptions& options = {});

// "3 other threads were still running after 250 ms", for reports.
std::string describe(const SettleReport& report);

}  // namespace tunekit::measure
