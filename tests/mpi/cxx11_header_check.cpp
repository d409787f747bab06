// mpi_notify.h as C++11 (compiled -std=c++11 -pedantic -Werror): it
// compiles, and each of the 42 functions has the prototype SEMANTICS
// section 1 gives (every pointer below is typed) and is defined.
#include <mpi_notify.h>

#include <cstdio>

namespace {

typedef int (*PutFn)(const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, int,
                     MPI_Win);
typedef int (*GetFn)(void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, int, MPI_Win);
typedef int (*AccFn)(const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, int,
                     MPI_Win);
typedef int (*GaccFn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Aint,
                      int, MPI_Datatype, MPI_Op, int, MPI_Win);
typedef int (*RputFn)(const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, int,
                      MPI_Win, MPI_Request *);
typedef int (*RgetFn)(void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, int, MPI_Win,
                      MPI_Request *);
typedef int (*RaccFn)(const void *, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op,
                      int, MPI_Win, MPI_Request *);
typedef int (*RgaccFn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Aint,
                       int, MPI_Datatype, MPI_Op, int, MPI_Win, MPI_Request *);
typedef int (*PutCFn)(const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype,
                      int, MPI_Win);
typedef int (*GetCFn)(void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, int,
                      MPI_Win);
typedef int (*AccCFn)(const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype,
                      MPI_Op, int, MPI_Win);
typedef int (*GaccCFn)(const void *, MPI_Count, MPI_Datatype, void *, MPI_Count, MPI_Datatype, int,
                       MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, int, MPI_Win);
typedef int (*RputCFn)(const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count,
                       MPI_Datatype, int, MPI_Win, MPI_Request *);
typedef int (*RgetCFn)(void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count, MPI_Datatype, int,
                       MPI_Win, MPI_Request *);
typedef int (*RaccCFn)(const void *, MPI_Count, MPI_Datatype, int, MPI_Aint, MPI_Count,
                       MPI_Datatype, MPI_Op, int, MPI_Win, MPI_Request *);
typedef int (*RgaccCFn)(const void *, MPI_Count, MPI_Datatype, void *, MPI_Count, MPI_Datatype, int,
                        MPI_Aint, MPI_Count, MPI_Datatype, MPI_Op, int, MPI_Win, MPI_Request *);
typedef int (*SetNumFn)(MPI_Win, MPI_Info, int);
typedef int (*GetNumFn)(MPI_Win, int, int *);
typedef int (*ValueFn)(MPI_Win, int, MPI_Count *);
typedef int (*ThresholdFn)(MPI_Win, int, MPI_Count, MPI_Request *);

// Any function pointer, for the null check ("void (*)(void)" converts from
// every function pointer type without a warning).
typedef void (*AnyFn)(void);

template <class Fn>
AnyFn any(Fn fn) {
  return reinterpret_cast<AnyFn>(fn);
}

}  // namespace

int main(int argc, char **argv) {
  const PutFn put[] = {&MPI_Put_notify, &PMPI_Put_notify};
  const GetFn get[] = {&MPI_Get_notify, &PMPI_Get_notify};
  const AccFn acc[] = {&MPI_Accumulate_notify, &PMPI_Accumulate_notify};
  const GaccFn gacc[] = {&MPI_Get_accumulate_notify, &PMPI_Get_accumulate_notify};
  const RputFn rput[] = {&MPI_Rput_notify, &PMPI_Rput_notify};
  const RgetFn rget[] = {&MPI_Rget_notify, &PMPI_Rget_notify};
  const RaccFn racc[] = {&MPI_Raccumulate_notify, &PMPI_Raccumulate_notify};
  const RgaccFn rgacc[] = {&MPI_Rget_accumulate_notify, &PMPI_Rget_accumulate_notify};
  const PutCFn put_c[] = {&MPI_Put_notify_c, &PMPI_Put_notify_c};
  const GetCFn get_c[] = {&MPI_Get_notify_c, &PMPI_Get_notify_c};
  const AccCFn acc_c[] = {&MPI_Accumulate_notify_c, &PMPI_Accumulate_notify_c};
  const GaccCFn gacc_c[] = {&MPI_Get_accumulate_notify_c, &PMPI_Get_accumulate_notify_c};
  const RputCFn rput_c[] = {&MPI_Rput_notify_c, &PMPI_Rput_notify_c};
  const RgetCFn rget_c[] = {&MPI_Rget_notify_c, &PMPI_Rget_notify_c};
  const RaccCFn racc_c[] = {&MPI_Raccumulate_notify_c, &PMPI_Raccumulate_notify_c};
  const RgaccCFn rgacc_c[] = {&MPI_Rget_accumulate_notify_c, &PMPI_Rget_accumulate_notify_c};
  const SetNumFn set_num[] = {&MPI_Win_set_num_notify, &PMPI_Win_set_num_notify};
  const GetNumFn get_num[] = {&MPI_Win_get_num_notify, &PMPI_Win_get_num_notify};
  const ValueFn get_value[] = {&MPI_Win_get_notify_value, &PMPI_Win_get_notify_value};
  const ValueFn reset_value[] = {&MPI_Win_reset_notify_value, &PMPI_Win_reset_notify_value};
  const ThresholdFn threshold[] = {&MPI_Win_notify_threshold, &PMPI_Win_notify_threshold};

  int defined = 0;
  for (int twin = 0; twin < 2; ++twin) {
    const AnyFn all[] = {any(put[twin]),       any(get[twin]),         any(acc[twin]),
                         any(gacc[twin]),      any(rput[twin]),        any(rget[twin]),
                         any(racc[twin]),      any(rgacc[twin]),       any(put_c[twin]),
                         any(get_c[twin]),     any(acc_c[twin]),       any(gacc_c[twin]),
                         any(rput_c[twin]),    any(rget_c[twin]),      any(racc_c[twin]),
                         any(rgacc_c[twin]),   any(set_num[twin]),     any(get_num[twin]),
                         any(get_value[twin]), any(reset_value[twin]), any(threshold[twin])};
    for (AnyFn fn : all) {
      if (fn != 0) ++defined;
    }
  }

  MPI_Init(&argc, &argv);
  const bool constants = MPI_ERR_RMA_NOTIFICATION != MPI_SUCCESS &&
                         MPI_WIN_NOTIFICATION_NUM_SB != MPI_KEYVAL_INVALID &&
                         MPI_WIN_NOTIFICATION_NUM_UB != MPI_KEYVAL_INVALID &&
                         MPI_WIN_NOTIFICATION_VALUE_UB != MPI_KEYVAL_INVALID &&
                         sizeof(MPI_INFO_KEY_ASSERT_MAX_NUM_NOTIFY) > 1;
  MPI_Finalize();
  std::printf("cxx11_header_check: %d of 42 functions defined, constants %s\n", defined,
              constants ? "set" : "NOT SET");
  return defined == 42 && constants ? 0 : 1;
}
