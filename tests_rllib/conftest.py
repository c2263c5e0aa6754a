"""One local Ray instance for the RLlib tests (they run in their own virtual
environment: see .ci/rllib_test.sh)."""

import pytest


@pytest.fixture(scope="session")
def ray_local():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=100 * 1024 * 1024,
             configure_logging=True, logging_level="warning")
    yield ray
    ray.shutdown()
