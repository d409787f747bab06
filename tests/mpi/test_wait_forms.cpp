// SEMANTICS 2.9 along the library's wait paths (osc_core/progress.hpp,
// osc_core/wait_policy.hpp): every MPI_Wait and MPI_Test form completes
// threshold requests on every window flavor, round after round (the host
// requests that waits finish serve the next requests made), alone and
// mixed with point-to-point requests, with the notified data visible at
// completion (2.6) and the status of a threshold request. The suite runs
// at every process count, ranks outnumbering cores included, and its
// ctest entries conformance.wait_spin.* run this file with
// MPINOTIFY_WAIT_SPIN forced to spin (ranks outnumbering cores) and to
// yield at once.
#include <array>
#include <cstdint>
#include <string>

#include "request_helpers.hpp"

namespace mpitest::requests {
namespace {

enum class Form { wait, test, waitany, testany, waitall, testall, waitsome, testsome };
constexpr std::array kForms{Form::wait,    Form::test,    Form::waitany,  Form::testany,
                            Form::waitall, Form::testall, Form::waitsome, Form::testsome};
constexpr int kRounds = 12;  // per form, alone and mixed
constexpr double kSeconds = 60;

const char *form_name(Form form) {
  switch (form) {
    case Form::wait: return "MPI_Wait";
    case Form::test: return "MPI_Test";
    case Form::waitany: return "MPI_Waitany";
    case Form::testany: return "MPI_Testany";
    case Form::waitall: return "MPI_Waitall";
    case Form::testall: return "MPI_Testall";
    case Form::waitsome: return "MPI_Waitsome";
    case Form::testsome: return "MPI_Testsome";
  }
  return "?";
}

// What the left neighbour writes in round n.
std::int64_t payload(int from, int n) { return std::int64_t{from} * 1'000'000 + n; }

// A status as a program might leave it before a wait: fields the wait
// must set hold values it never gives.
MPI_Status unset_status() {
  MPI_Status status{};
  status.MPI_SOURCE = -7;
  status.MPI_TAG = -7;
  return status;
}

// The status of a completed threshold request (2.9): no data, not
// cancelled, no source or tag (as the host gives a generalized request's).
void expect_threshold_status(const MPI_Status &status, const char *form) {
  EXPECT_EQ(MPI_UNDEFINED, status.MPI_SOURCE) << form;
  EXPECT_EQ(MPI_UNDEFINED, status.MPI_TAG) << form;
  int count = -1;
  EXPECT_MPI_OK(MPI_Get_count(&status, MPI_BYTE, &count));
  EXPECT_EQ(0, count) << form;
  int cancelled = -1;
  EXPECT_MPI_OK(MPI_Test_cancelled(&status, &cancelled));
  EXPECT_EQ(0, cancelled) << form;
}

// Completes every active request of `requests` with `form`, checking what
// each call reports; false if that took more than kSeconds. The threshold
// request is at index `threshold_at`.
bool complete_all(Form form, std::vector<MPI_Request> &requests, int threshold_at) {
  const int n = static_cast<int>(requests.size());
  const double deadline = MPI_Wtime() + kSeconds;
  auto active = [&] {
    int left = 0;
    for (const MPI_Request r : requests) left += r != MPI_REQUEST_NULL ? 1 : 0;
    return left;
  };
  auto late = [&] {
    if (MPI_Wtime() <= deadline) return false;
    ADD_FAILURE() << form_name(form) << " did not complete within " << kSeconds << " s";
    return true;
  };
  std::vector<MPI_Status> statuses(requests.size(), unset_status());
  while (active() > 0) {
    int flag = 0;
    int index = MPI_UNDEFINED;
    int outcount = MPI_UNDEFINED;
    std::vector<int> indices(requests.size());
    switch (form) {
      case Form::wait:
      case Form::test:
        for (int i = 0; i < n; ++i) {
          if (requests[i] == MPI_REQUEST_NULL) continue;
          MPI_Status status = unset_status();
          if (form == Form::wait) {
            EXPECT_MPI_OK(MPI_Wait(&requests[i], &status));
          } else {
            while (flag == 0) {
              EXPECT_MPI_OK(MPI_Test(&requests[i], &flag, &status));
              if (flag == 0 && late()) return false;
            }
            flag = 0;
          }
          EXPECT_EQ(MPI_REQUEST_NULL, requests[i]) << form_name(form);
          if (i == threshold_at) expect_threshold_status(status, form_name(form));
        }
        break;
      case Form::waitany:
      case Form::testany: {
        MPI_Status status = unset_status();
        if (form == Form::waitany) {
          EXPECT_MPI_OK(MPI_Waitany(n, requests.data(), &index, &status));
        } else {
          EXPECT_MPI_OK(MPI_Testany(n, requests.data(), &index, &flag, &status));
          if (flag == 0) {
            EXPECT_EQ(MPI_UNDEFINED, index);
            if (late()) return false;
            break;
          }
        }
        EXPECT_TRUE(index >= 0 && index < n) << form_name(form) << " gave index " << index;
        if (index < 0 || index >= n) return false;
        EXPECT_EQ(MPI_REQUEST_NULL, requests[static_cast<std::size_t>(index)]);
        if (index == threshold_at) expect_threshold_status(status, form_name(form));
        break;
      }
      case Form::waitall:
      case Form::testall:
        if (form == Form::waitall) {
          EXPECT_MPI_OK(MPI_Waitall(n, requests.data(), statuses.data()));
        } else {
          EXPECT_MPI_OK(MPI_Testall(n, requests.data(), &flag, statuses.data()));
          if (flag == 0) {
            if (late()) return false;
            break;
          }
        }
        for (int i = 0; i < n; ++i) EXPECT_EQ(MPI_REQUEST_NULL, requests[i]) << form_name(form);
        expect_threshold_status(statuses[static_cast<std::size_t>(threshold_at)], form_name(form));
        break;
      case Form::waitsome:
      case Form::testsome:
        if (form == Form::waitsome) {
          EXPECT_MPI_OK(
              MPI_Waitsome(n, requests.data(), &outcount, indices.data(), statuses.data()));
          EXPECT_GT(outcount, 0) << form_name(form);
        } else {
          EXPECT_MPI_OK(
              MPI_Testsome(n, requests.data(), &outcount, indices.data(), statuses.data()));
          if (outcount == 0 && late()) return false;
        }
        for (int k = 0; k < outcount && outcount != MPI_UNDEFINED; ++k) {
          const int i = indices[static_cast<std::size_t>(k)];
          EXPECT_EQ(MPI_REQUEST_NULL, requests[static_cast<std::size_t>(i)]);
          if (i == threshold_at)
            expect_threshold_status(statuses[static_cast<std::size_t>(k)], form_name(form));
        }
        if (outcount == MPI_UNDEFINED) return true;
        break;
    }
  }
  return true;
}

// Completes every request of `requests` but the one at `never_at` with
// `form` (an any or some form), which must leave that one alone; false if
// that took more than kSeconds.
bool complete_beside(Form form, std::vector<MPI_Request> &requests, int threshold_at,
                     int never_at) {
  const auto never = static_cast<std::size_t>(never_at);
  const MPI_Request kept = requests[never];
  const int n = static_cast<int>(requests.size());
  const double deadline = MPI_Wtime() + kSeconds;
  auto others_left = [&] {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (i != never && requests[i] != MPI_REQUEST_NULL) return true;
    }
    return false;
  };
  while (others_left()) {
    int index = MPI_UNDEFINED;
    int flag = 0;
    int outcount = 0;
    std::vector<int> indices(requests.size());
    std::vector<MPI_Status> statuses(requests.size(), unset_status());
    MPI_Status status = unset_status();
    if (form == Form::waitany || form == Form::testany) {
      if (form == Form::waitany) {
        EXPECT_MPI_OK(MPI_Waitany(n, requests.data(), &index, &status));
      } else {
        EXPECT_MPI_OK(MPI_Testany(n, requests.data(), &index, &flag, &status));
      }
      if (index == threshold_at) expect_threshold_status(status, form_name(form));
    } else {
      if (form == Form::waitsome) {
        EXPECT_MPI_OK(MPI_Waitsome(n, requests.data(), &outcount, indices.data(), statuses.data()));
      } else {
        EXPECT_MPI_OK(MPI_Testsome(n, requests.data(), &outcount, indices.data(), statuses.data()));
      }
      for (int k = 0; k < outcount; ++k) {
        if (indices[static_cast<std::size_t>(k)] == threshold_at)
          expect_threshold_status(statuses[static_cast<std::size_t>(k)], form_name(form));
      }
    }
    EXPECT_EQ(kept, requests[never])
        << form_name(form) << " completed a request whose threshold was not reached";
    if (MPI_Wtime() > deadline) {
      ADD_FAILURE() << form_name(form) << " did not complete within " << kSeconds << " s";
      return false;
    }
  }
  return true;
}

class WaitForms : public FlavorTest {};

// Round n: every rank puts payload(rank, n) at slot n of its right
// neighbour's window and notifies counter 0 there (and, in a mixed round,
// sends it a message tagged n), then waits with the form under test for
// its own counter 0 to reach n + 1, and reads its left neighbour's
// payload. The array forms get MPI_REQUEST_NULL beside the threshold
// request, and in a mixed round the message's receive; the any and some
// forms also rounds with a threshold request on counter 1 beside it, which
// nobody notifies and which they must leave pending.
TEST_P(WaitForms, EveryFormCompletesRoundAfterRound_2_9) {
  enum class Beside { nothing, receive, never };
  constexpr std::array kBesides{Beside::nothing, Beside::receive, Beside::never};
  constexpr int kSlots = static_cast<int>(kForms.size() * kBesides.size()) * kRounds;
  TestWindow w(GetParam(), kSlots * static_cast<MPI_Aint>(sizeof(std::int64_t)));
  w.set_num_notify(2);
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  int n = 0;
  for (const Form form : kForms) {
    const bool single = form == Form::wait || form == Form::test;
    const bool some = form != Form::waitall && form != Form::testall && !single;
    for (const Beside beside : kBesides) {
      if (beside == Beside::never && !some) continue;
      for (int round = 0; round < kRounds; ++round, ++n) {
        const std::int64_t mine = payload(rank(), n);
        EXPECT_MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT64_T, right(),
                                     w.disp(right(), n * static_cast<MPI_Aint>(sizeof mine)), 1,
                                     MPI_INT64_T, 0, w.win()));
        EXPECT_MPI_OK(MPI_Win_flush(right(), w.win()));
        std::vector<MPI_Request> requests(single ? 1 : 2, MPI_REQUEST_NULL);
        EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, n + 1, &requests[0]));
        std::int64_t message = -1;
        if (beside == Beside::receive) {
          MPI_Request receive = MPI_REQUEST_NULL;
          EXPECT_MPI_OK(MPI_Irecv(&message, 1, MPI_INT64_T, left(), n, MPI_COMM_WORLD, &receive));
          requests.insert(requests.begin(), receive);
          EXPECT_MPI_OK(MPI_Send(&mine, 1, MPI_INT64_T, right(), n, MPI_COMM_WORLD));
        }
        const int threshold_at = beside == Beside::receive ? 1 : 0;
        bool done = false;
        if (beside == Beside::never) {
          EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 1, 1, &requests[1]));
          done = complete_beside(form, requests, threshold_at, 1);
          EXPECT_NE(MPI_REQUEST_NULL, requests[1]);
          EXPECT_MPI_OK(MPI_Request_free(&requests[1]));
        } else {
          done = complete_all(form, requests, threshold_at);
        }
        if (done) {
          EXPECT_EQ(payload(left(), n), w.as<std::int64_t>()[n])
              << form_name(form) << ", round " << round
              << ": the notified data is not visible at completion";
          if (beside == Beside::receive) {
            EXPECT_EQ(payload(left(), n), message) << form_name(form);
          }
        }
      }
    }
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(n, v);
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 1, &v));
  EXPECT_EQ(0, v);
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
}

// More threshold requests complete at once than the library keeps host
// requests for reuse (16): those beyond are freed while the program runs,
// and the next requests are made anew or from the kept ones, batch after
// batch. Each batch waits for one more notification this rank gives
// itself; half its requests are waited for one by one, half together.
TEST_P(WaitForms, MoreRequestsAtOnceThanAreKept_2_9) {
  constexpr int kRequests = 40;
  constexpr int kBatches = 4;
  TestWindow w(GetParam(), static_cast<MPI_Aint>(sizeof(std::int64_t)));
  w.set_num_notify(1);
  EXPECT_MPI_OK(MPI_Win_lock_all(0, w.win()));
  for (int batch = 0; batch < kBatches; ++batch) {
    std::vector<MPI_Request> requests(kRequests, MPI_REQUEST_NULL);
    for (MPI_Request &request : requests)
      EXPECT_MPI_OK(MPI_Win_notify_threshold(w.win(), 0, batch + 1, &request));
    const std::int64_t mine = batch;
    EXPECT_MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT64_T, rank(), w.disp(rank(), 0), 1, MPI_INT64_T,
                                 0, w.win()));
    EXPECT_MPI_OK(MPI_Win_flush(rank(), w.win()));
    for (int i = 0; i < kRequests / 2; ++i) {
      MPI_Status status = unset_status();
      EXPECT_MPI_OK(MPI_Wait(&requests[static_cast<std::size_t>(i)], &status));
      expect_threshold_status(status, "MPI_Wait");
    }
    std::vector<MPI_Status> statuses(kRequests, unset_status());
    EXPECT_MPI_OK(MPI_Waitall(kRequests, requests.data(), statuses.data()));
    for (int i = 0; i < kRequests; ++i) {
      EXPECT_EQ(MPI_REQUEST_NULL, requests[static_cast<std::size_t>(i)]) << i;
      if (i >= kRequests / 2)
        expect_threshold_status(statuses[static_cast<std::size_t>(i)], "MPI_Waitall");
    }
    EXPECT_EQ(batch, w.as<std::int64_t>()[0]);
  }
  MPI_Count v = -1;
  EXPECT_MPI_OK(MPI_Win_get_notify_value(w.win(), 0, &v));
  EXPECT_EQ(kBatches, v);
  EXPECT_MPI_OK(MPI_Win_unlock_all(w.win()));
}

INSTANTIATE_TEST_SUITE_P(Flavors, WaitForms, testing::ValuesIn(all_flavors()), flavor_param_name);

}  // namespace
}  // namespace mpitest::requests
