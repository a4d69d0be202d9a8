"""One local Ray cluster for the whole test session (it takes seconds to start).

Every test of ``cn.distribute`` asks for ``ray_cluster``; without Ray installed they are
skipped with the reason.
"""

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="Ray is not installed (extra colonnade[ray])")
    if not ray.is_initialized():
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=256 * 1024**2,
            log_to_driver=False,
            configure_logging=False,
        )
    yield ray
    ray.shutdown()
