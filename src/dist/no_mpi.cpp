// A build without MPI: strata runs as one process; a run under mpirun says why it cannot join.
#include <cstdlib>

#include "strata/dist/mpi.hpp"

namespace strata::dist {

bool mpi_available() { return false; }

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

Result<std::shared_ptr<const Communicator>> start_mpi(int*, char***) {
  return Status::Unsupported("this strata was built without MPI (STRATA_ENABLE_MPI=OFF or MPI not found); "
                             "install OpenMPI (scripts/install-deps.sh) and rebuild to run under mpirun");
}

void finish_mpi(const Communicator&, int) {}

}  // namespace strata::dist
