#pragma once
/// \file
/// The MPI communicator (layer `dist`, target `strata_dist`): the only code that includes
/// <mpi.h>. Algorithms see it only as a strata::Communicator in the Context; programs (the CLI)
/// start and end it here. Built when CMake finds MPI (`STRATA_ENABLE_MPI`); otherwise every
/// function below reports that MPI is not available and the program stays single-process.
///
/// Collectives are non-blocking MPI calls polled against a deadline (`STRATA_MPI_TIMEOUT`
/// seconds, default 600): a peer that failed (it tells the others on a control channel), died
/// or hangs turns into CommError naming the collective and the rank, never an eternal wait.
///
/// \code
/// if (dist::launched_by_mpi()) {
///   STRATA_ASSIGN_OR_RETURN(auto comm, dist::start_mpi(&argc, &argv));
///   options.communicator = comm;
/// }
/// … st = comm->agree(st) …
/// dist::finish_mpi(*comm, exit_code);  // may not return (MPI_Abort) when a collective was left unfinished
/// \endcode

#include <memory>

#include "strata/core/context.hpp"

namespace strata::dist {

/// \brief Whether MPI support was compiled in.
bool mpi_available();

/// \brief Whether this process was started by an MPI launcher (mpirun / mpiexec / srun with
/// PMI): the launchers' environment variables, checked before MPI is initialized.
bool launched_by_mpi();

/// \brief Initialize MPI (threads: serialized) and return the world communicator. Unsupported
/// when MPI was not compiled in; CommError when MPI_Init_thread fails.
Result<std::shared_ptr<const Communicator>> start_mpi(int* argc, char*** argv);

/// \brief End MPI after the final agreement (Communicator::agree). Returns when MPI was
/// finalized cleanly; when any rank left a collective unfinished (a peer failed inside it),
/// finalizing could hang, so rank 0 calls MPI_Abort(exit_code) instead and the other ranks wait
/// to be stopped by it (then _exit(exit_code)): this function does not return then. A no-op
/// for any other communicator.
void finish_mpi(const Communicator& comm, int exit_code);

}  // namespace strata::dist
