"""Two things at once on separate database connections, for the race tests."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections


def run_together(*calls: Callable[[], object]) -> list[object]:
    """Run each call in its own thread (so its own database connection), released at the same moment."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except Exception as error:  # noqa: BLE001  (reported to the test, which asserts on it)
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results
