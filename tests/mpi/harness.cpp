#include "harness.hpp"

#include <sched.h>

#include <cstdlib>
#include <cstring>

namespace mpitest {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

const std::vector<Flavor> &all_flavors() {
  static const std::vector<Flavor> flavors{Flavor::create, Flavor::allocate, Flavor::shared,
                                           Flavor::dynamic};
  return flavors;
}

std::string flavor_name(Flavor flavor) {
  switch (flavor) {
    case Flavor::create: return "create";
    case Flavor::allocate: return "allocate";
    case Flavor::shared: return "shared";
    case Flavor::dynamic: return "dynamic";
  }
  return "unknown";
}

int flavor_constant(Flavor flavor) {
  switch (flavor) {
    case Flavor::create: return MPI_WIN_FLAVOR_CREATE;
    case Flavor::allocate: return MPI_WIN_FLAVOR_ALLOCATE;
    case Flavor::shared: return MPI_WIN_FLAVOR_SHARED;
    case Flavor::dynamic: return MPI_WIN_FLAVOR_DYNAMIC;
  }
  return -1;
}

std::string flavor_param_name(const testing::TestParamInfo<Flavor> &info) {
  return flavor_name(info.param);
}

bool host_can_create(Flavor flavor) {
  static int known[4] = {-1, -1, -1, -1};
  int &answer = known[static_cast<int>(flavor)];
  if (answer >= 0) return answer == 1;
  MPI_Comm comm = MPI_COMM_NULL;
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Win win = MPI_WIN_NULL;
  void *base = nullptr;
  static char memory[64];
  int rc = MPI_SUCCESS;
  switch (flavor) {
    case Flavor::create: rc = PMPI_Win_create(memory, 64, 1, MPI_INFO_NULL, comm, &win); break;
    case Flavor::allocate: rc = PMPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win); break;
    case Flavor::shared:
      rc = PMPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, comm, &base, &win);
      break;
    case Flavor::dynamic: rc = PMPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win); break;
  }
  int mine = rc == MPI_SUCCESS ? 1 : 0;
  if (win != MPI_WIN_NULL) PMPI_Win_free(&win);
  PMPI_Allreduce(&mine, &answer, 1, MPI_INT, MPI_MIN, comm);
  PMPI_Comm_free(&comm);
  return answer == 1;
}

void FlavorTest::SetUp() {
  if (!host_can_create(GetParam()))
    GTEST_SKIP() << "the host MPI cannot create " << flavor_name(GetParam()) << " windows with "
                 << size() << " process(es) here";
}

void AllocateTest::SetUp() {
  if (!host_can_create(Flavor::allocate))
    GTEST_SKIP() << "the host MPI cannot create allocate windows with " << size()
                 << " process(es) here";
}

TestWindow::TestWindow(Flavor flavor, MPI_Aint bytes, MPI_Info info, MPI_Comm comm)
    : flavor_(flavor), bytes_(bytes) {
  int rc = MPI_SUCCESS;
  switch (flavor) {
    case Flavor::create:
      base_ = static_cast<char *>(std::calloc(static_cast<std::size_t>(bytes) + 1, 1));
      owns_base_ = true;
      rc = MPI_Win_create(base_, bytes, 1, info, comm, &win_);
      break;
    case Flavor::allocate: rc = MPI_Win_allocate(bytes, 1, info, comm, &base_, &win_); break;
    case Flavor::shared: rc = MPI_Win_allocate_shared(bytes, 1, info, comm, &base_, &win_); break;
    case Flavor::dynamic: {
      base_ = static_cast<char *>(std::calloc(static_cast<std::size_t>(bytes) + 1, 1));
      owns_base_ = true;
      rc = MPI_Win_create_dynamic(info, comm, &win_);
      if (rc == MPI_SUCCESS) rc = MPI_Win_attach(win_, base_, bytes);
      MPI_Aint mine = 0;
      MPI_Get_address(base_, &mine);
      int n = 0;
      MPI_Comm_size(comm, &n);
      addresses_.resize(static_cast<std::size_t>(n));
      MPI_Allgather(&mine, 1, MPI_AINT, addresses_.data(), 1, MPI_AINT, comm);
      break;
    }
  }
  if (rc != MPI_SUCCESS || win_ == MPI_WIN_NULL) {
    ADD_FAILURE() << "creating a " << flavor_name(flavor)
                  << " window failed: " << class_name(error_class(rc));
    return;
  }
  MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN);
  if (bytes > 0 && !owns_base_) std::memset(base_, 0, static_cast<std::size_t>(bytes));
  MPI_Barrier(comm);
}

TestWindow::~TestWindow() {
  if (win_ != MPI_WIN_NULL) {
    if (flavor_ == Flavor::dynamic) MPI_Win_detach(win_, base_);
    EXPECT_MPI_OK(MPI_Win_free(&win_));
  }
  if (owns_base_) std::free(base_);
}

MPI_Aint TestWindow::disp(int target, MPI_Aint offset) const {
  if (flavor_ == Flavor::dynamic) return addresses_[static_cast<std::size_t>(target)] + offset;
  return offset;
}

void TestWindow::set_num_notify(int n) {
  EXPECT_MPI_OK(MPI_Win_set_num_notify(win_, MPI_INFO_NULL, n));
  // This process's rank in the window's group, which need not be world's.
  MPI_Group group = MPI_GROUP_NULL;
  int me = 0;
  MPI_Win_get_group(win_, &group);
  MPI_Group_rank(group, &me);
  MPI_Group_free(&group);
  int got = -1;
  EXPECT_MPI_OK(MPI_Win_get_num_notify(win_, me, &got));
  EXPECT_EQ(n, got);
}

int error_class(int code) {
  int cls = -1;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return -1;
  return cls;
}

std::string class_name(int error_class) {
  if (error_class == MPI_SUCCESS) return "MPI_SUCCESS";
  if (error_class == MPI_ERR_RMA_NOTIFICATION) return "MPI_ERR_RMA_NOTIFICATION";
  struct Known {
    int cls;
    const char *name;
  };
  static const Known known[] = {
      {MPI_ERR_ARG, "MPI_ERR_ARG"},
      {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
      {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
      {MPI_ERR_OP, "MPI_ERR_OP"},
      {MPI_ERR_RANK, "MPI_ERR_RANK"},
      {MPI_ERR_DISP, "MPI_ERR_DISP"},
      {MPI_ERR_WIN, "MPI_ERR_WIN"},
      {MPI_ERR_INFO, "MPI_ERR_INFO"},
      {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"},
      {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE"},
      {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC"},
      {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
      {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
      {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
      {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
      {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
  };
  for (const Known &k : known) {
    if (k.cls == error_class) return k.name;
  }
  return "error class " + std::to_string(error_class);
}

bool all_ranks(bool value) {
  int mine = value ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

MPI_Count wait_for_counter(MPI_Win win, int idx, MPI_Count at_least, double seconds) {
  const double deadline = MPI_Wtime() + seconds;
  MPI_Count value = -1;
  for (;;) {
    if (MPI_Win_get_notify_value(win, idx, &value) != MPI_SUCCESS) return -1;
    if (value >= at_least || MPI_Wtime() > deadline) return value;
    sched_yield();
  }
}

std::string expected_backend() {
  const char *forced = std::getenv("MPINOTIFY_BACKEND");
  return forced != nullptr ? forced : "";
}

std::string backend_of(MPI_Win win) {
  MPI_Info info = MPI_INFO_NULL;
  if (MPI_Win_get_info(win, &info) != MPI_SUCCESS) return "";
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  MPI_Info_get(info, MPINOTIFY_INFO_KEY_BACKEND, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  return flag != 0 ? value : "";
}

}  // namespace mpitest
