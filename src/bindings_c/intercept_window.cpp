// Window constructors, MPI_Win_free and the info calls: the library's state
// is made and released with the host window.
#include "osc_core/osc.hpp"
#include "osc_core/registry.hpp"
#include "report.hpp"

namespace mpinotify::bindings {
namespace {

// A request without constructors yet; the interceptor adds them.
CreateRequest request_for(Flavor flavor, MPI_Aint size, int disp_unit, MPI_Info info,
                          MPI_Comm comm) {
  CreateRequest request;
  request.flavor = flavor;
  request.size = size;
  request.disp_unit = disp_unit;
  request.info = info;
  request.comm = comm;
  return request;
}

int create(const char *function, CreateRequest &request, MPI_Win *win) {
  // Without a communicator or an output handle the host says what is wrong.
  if (!library_ready() || request.comm == MPI_COMM_NULL || win == nullptr) {
    MPI_Win ignored = MPI_WIN_NULL;
    return request.create(request.info, win != nullptr ? win : &ignored);
  }
  const Status st = run_guarded([&] { return create_window(request, win); });
  return report_on_comm(function, request.comm, st);
}

// What the host answers MPI_Win_shared_query on a one-process
// MPI_Win_allocate window of its own (Open MPI: MPI_ERR_WIN; both hosts
// give MPI_ERR_RMA_FLAVOR for more processes): asked once, of a window
// over a copy of MPI_COMM_SELF (no other process; its errors return).
int host_answer_for_one_process() {
  static const int answer = [] {
    MPI_Comm self = MPI_COMM_NULL;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &self) != MPI_SUCCESS)
      return static_cast<int>(MPI_ERR_RMA_FLAVOR);
    PMPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    MPI_Win probe = MPI_WIN_NULL;
    void *base = nullptr;
    const int made = PMPI_Win_allocate(8, 1, MPI_INFO_NULL, self, &base, &probe);
    if (made != MPI_SUCCESS) {
      PMPI_Comm_free(&self);
      return static_cast<int>(MPI_ERR_RMA_FLAVOR);
    }
    PMPI_Win_set_errhandler(probe, MPI_ERRORS_RETURN);
    MPI_Aint size = 0;
    int disp_unit = 0;
    void *other = nullptr;
    int rc = PMPI_Win_shared_query(probe, 0, &size, &disp_unit, &other);
    PMPI_Win_free(&probe);
    PMPI_Comm_free(&self);  // after the window (see free_window)
    return rc == MPI_SUCCESS ? static_cast<int>(MPI_ERR_RMA_FLAVOR) : rc;
  }();
  return answer;
}

}  // namespace
}  // namespace mpinotify::bindings

using mpinotify::CreateRequest;
using mpinotify::Flavor;
using mpinotify::bindings::request_for;

extern "C" int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win) {
  CreateRequest request = request_for(Flavor::create, size, disp_unit, info, comm);
  request.create = [&](MPI_Info with, MPI_Win *out) {
    return PMPI_Win_create(base, size, disp_unit, with, comm, out);
  };
  return mpinotify::bindings::create("MPI_Win_create", request, win);
}

extern "C" int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win) {
  const MPI_Aint host_size = mpinotify::host_allocation_size(size);
  CreateRequest request = request_for(Flavor::allocate, size, disp_unit, info, comm);
  request.create = [&](MPI_Info with, MPI_Win *out) {
    return PMPI_Win_allocate(host_size, disp_unit, with, comm, baseptr, out);
  };
  request.create_shared = [&](MPI_Aint shared_size, MPI_Info with, MPI_Comm group, MPI_Win *out) {
    return PMPI_Win_allocate_shared(shared_size, disp_unit, with, group, baseptr, out);
  };
  request.padded = host_size != size;
  return mpinotify::bindings::create("MPI_Win_allocate", request, win);
}

extern "C" int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                       void *baseptr, MPI_Win *win) {
  CreateRequest request = request_for(Flavor::shared, size, disp_unit, info, comm);
  request.create = [&](MPI_Info with, MPI_Win *out) {
    return PMPI_Win_allocate_shared(size, disp_unit, with, comm, baseptr, out);
  };
  return mpinotify::bindings::create("MPI_Win_allocate_shared", request, win);
}

extern "C" int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  CreateRequest request = request_for(Flavor::dynamic, 0, 1, info, comm);
  request.create = [&](MPI_Info with, MPI_Win *out) {
    return PMPI_Win_create_dynamic(with, comm, out);
  };
  return mpinotify::bindings::create("MPI_Win_create_dynamic", request, win);
}

// Attached memory is listed for the range check and the backend's to
// register (or to leave to the host).
extern "C" int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  using namespace mpinotify::bindings;
  const int rc = PMPI_Win_attach(win, base, size);
  if (rc != MPI_SUCCESS || !library_ready()) return rc;
  const auto window = mpinotify::windows().find(win);
  if (!window || !window->enabled()) return rc;
  const mpinotify::Status st =
      run_guarded([&] { return mpinotify::attach_memory(*window, base, size); });
  // A failed attach changes nothing: the host lets the memory go again.
  if (!st.ok()) PMPI_Win_detach(win, base);
  return report_on_window("MPI_Win_attach", win, st);
}

extern "C" int MPI_Win_detach(MPI_Win win, const void *base) {
  using namespace mpinotify::bindings;
  if (library_ready()) {
    const auto window = mpinotify::windows().find(win);
    if (window && window->enabled()) {
      const mpinotify::Status st =
          run_guarded([&] { return mpinotify::detach_memory(*window, base); });
      if (!st.ok()) return report_on_window("MPI_Win_detach", win, st);
    }
  }
  return PMPI_Win_detach(win, base);
}

extern "C" int MPI_Win_free(MPI_Win *win) {
  using namespace mpinotify::bindings;
  if (!library_ready() || win == nullptr || *win == MPI_WIN_NULL) return PMPI_Win_free(win);
  const mpinotify::Status st = run_guarded([&] { return mpinotify::free_window(win); });
  // *win is MPI_WIN_NULL once the host window is gone: errors then go to
  // MPI_COMM_WORLD's handler.
  return report_on_window("MPI_Win_free", *win, st);
}

extern "C" int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag) {
  const int rc = PMPI_Win_get_attr(win, keyval, value, flag);
  if (rc != MPI_SUCCESS || *flag == 0 ||
      (keyval != MPI_WIN_SIZE && keyval != MPI_WIN_CREATE_FLAVOR))
    return rc;
  // What the library changed about a host window stays invisible: a padded
  // allocation reports the size asked for, an MPI_Win_allocate window placed
  // in shared memory or made over a backend's memory its own flavor.
  if (const void *attribute = mpinotify::visible_attribute(win, keyval))
    *static_cast<const void **>(value) = attribute;
  return rc;
}

extern "C" int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                    void *baseptr) {
  using namespace mpinotify::bindings;
  // An MPI_Win_allocate window answers as the host answers for that flavor,
  // even when the library placed its memory in shared memory.
  if (library_ready()) {
    const auto window = mpinotify::windows().find(win);
    if (window && window->in_shared_memory()) {
      if (window->size() == 1)
        return report_on_window(
            "MPI_Win_shared_query", win,
            mpinotify::host_status(host_answer_for_one_process(), "MPI_Win_shared_query"));
      return report_on_window("MPI_Win_shared_query", win,
                              mpinotify::error(mpinotify::Errc::rma_flavor,
                                               "MPI_Win_shared_query needs a window made by "
                                               "MPI_Win_allocate_shared"));
    }
  }
  return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
}

extern "C" int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  using namespace mpinotify::bindings;
  const int rc = PMPI_Win_get_info(win, info_used);
  if (rc != MPI_SUCCESS || !library_ready()) return rc;
  const auto window = mpinotify::windows().find(win);
  if (!window) return rc;
  const mpinotify::Status st =
      run_guarded([&] { return mpinotify::describe_window(*window, *info_used); });
  return report_on_window("MPI_Win_get_info", win, st);
}

extern "C" int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  using namespace mpinotify::bindings;
  if (!library_ready() || info == MPI_INFO_NULL || !mpinotify::windows().find(win))
    return PMPI_Win_set_info(win, info);
  // The assertion and the backend are fixed at creation; the host never
  // sees the library's keys.
  MPI_Info stripped = MPI_INFO_NULL;
  const mpinotify::Status st =
      run_guarded([&] { return mpinotify::strip_library_keys(info, &stripped); });
  if (!st.ok()) return report_on_window("MPI_Win_set_info", win, st);
  const int rc = PMPI_Win_set_info(win, stripped);
  PMPI_Info_free(&stripped);
  return rc;
}
