"""Mail that comes in through the provider's webhooks: orders by email reply (inbound.py reads them with
replies.py and quotes.py, behind webhooks.py's wrappers), and bounces and complaints (bounces.py)."""
