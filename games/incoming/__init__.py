"""What comes in: the web pages a player opens and the forms they post (views.py, order_views.py, pages.py,
account.py, forms.py, steps_form.py, ranked.py, drafts.py, review.py), who a browser speaks for (sessions.py,
middleware.py), the health check, and mail/: email replies, bounces and complaints heard through the
provider's webhooks. Each calls the services of games.play; nothing below imports from here."""
