"""Settings of a real test worker that delivers webhooks to a test's receiver (tests/support/hooks_receiver.py): the
resolver seam answers the receiver's name with this machine's address, loopback is allowed and the test's
authority is trusted (its file named by PBEM_TEST_HOOKS_CA)."""

import os

from pbem.settings import *  # noqa: F403

PBEM_HOOKS_RESOLVER = "tests.support.hooks_receiver.resolve_to_this_machine"
PBEM_HOOKS_ALLOW_LOOPBACK = True
PBEM_HOOKS_CA_FILE = os.environ["PBEM_TEST_HOOKS_CA"]
