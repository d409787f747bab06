/* Both vendor shims in one translation unit: must not compile, with the
 * #error of docs/vendor_shims.md (ctest vendor.headers_exclusive). */
#include <mpinotify/mpix_bull.h>
#include <mpinotify/mpix_intel.h>

int main(void) { return 0; }
