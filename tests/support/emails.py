"""What an email offers to its reader's mail client: its one-click unsubscribe targets."""

from __future__ import annotations

import re
from typing import Any


def unsubscribe_targets(message: Any) -> tuple[str, str]:
    header = message.extra_headers["List-Unsubscribe"]
    url = re.search(r"<(https://[^>]+)>", header)
    mailto = re.search(r"<mailto:([^>?]+)\?subject=unsubscribe>", header)
    assert url and mailto, header
    return url.group(1), mailto.group(1)
