/* The MPI engine's shared pieces (engine_mpi.c: the protocol; mpi_node.c: MPI itself, the node's
 * shared tapes). Internal. */
#ifndef MM_MPI_INT_H
#define MM_MPI_INT_H

#include <mpi.h>

#include "mmsim/mmsim.h"

typedef struct mm__mpi_state {
    MPI_Comm comm; /* MPI_COMM_WORLD duplicated, errors returned (not fatal) */
    MPI_Comm node; /* the ranks of this node */
    int rank, size, node_rank, node_size;
} mm__mpi_state;

/* err = "rank PEER: MPI WHAT: <MPI's text>" (peer < 0: no rank), -EIO. Returns -EIO. */
int mm__mpi_fail(mm_error *err, int e, int peer, const char *what);

#endif
