"""What goes out: wake-up calls to tasks (dispatch.py, wakes.py), email (messages.py renders and composes,
outbox.py is the outbox rows' state machine: claim, send, record, retry; mailpolicy.py says who gets which
email; emails.py the game emails, receipts.py the answers to inbound mail), and what every page and email is
built from: signed links, the facts a template may know, durations in words, boards and guides."""
