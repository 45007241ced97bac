"""strata.pca on a Dask array with a dask.distributed LocalCluster equals the local answer."""
import numpy as np
import pytest

import strata


def test_local_cluster_two_workers(hm3_dosages, cli_pca):
    distributed = pytest.importorskip("distributed")
    import dask.array as da

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c):
        x = da.from_array(hm3_dosages, chunks=(2500, 957))
        r = strata.pca(x, k=4)
    np.testing.assert_array_equal(r.eigenvalues, cli_pca["eigenvalues"])
    np.testing.assert_array_equal(r.eigenvectors, cli_pca["eigenvectors"])
